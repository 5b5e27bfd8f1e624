import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../types.ts';
import { builtinTypeFacts } from '../index.ts';
import { createErrors, updateErrors } from '../test-context.ts';

const leases = builtinTypeFacts('coordination.k8s.io', 'leases');
const electing = builtinTypeFacts('coordination.k8s.io', 'leases', { CoordinatedLeaderElection: true });
const lease = (spec: Record<string, unknown>): KubeObject => ({ metadata: { name: 'x', namespace: 'default' }, spec });

// Source of every message: pkg/apis/coordination/validation/validation.go (ValidateLeaseSpec).
const cases: [string, Record<string, unknown>, string[]][] = [
  ['a valid lease', { holderIdentity: 'me', leaseDurationSeconds: 15, leaseTransitions: 0 }, []],
  ['leaseDurationSeconds 0', { leaseDurationSeconds: 0 }, ['spec.leaseDurationSeconds: Invalid value: 0: must be greater than 0']],
  ['negative leaseTransitions', { leaseTransitions: -1 }, ['spec.leaseTransitions: Invalid value: -1: must be greater than or equal to 0']],
  ['unknown strategy', { strategy: 'Newest' }, ['spec.strategy.strategy: Unsupported value: "Newest": supported values: "OldestEmulationVersion"']],
  ['domain strategy', { strategy: 'example.com/mine' }, []],
  ['preferredHolder without strategy', { preferredHolder: 'b' }, ['spec.preferredHolder: Forbidden: may only be specified if `strategy` is defined']],
];

for (const [name, spec, want] of cases) {
  test(`lease create: ${name}`, () => assert.deepEqual(createErrors(electing, lease(spec)), want));
}

// Source: pkg/registry/coordination/lease/strategy.go (PrepareForCreate, PrepareForUpdate).
test('lease: without the CoordinatedLeaderElection gate strategy and preferredHolder are dropped unless stored', () => {
  const created = lease({ holderIdentity: 'me', strategy: 'Newest', preferredHolder: 'b' });
  assert.deepEqual(createErrors(leases, created), []);
  assert.deepEqual(created.spec, { holderIdentity: 'me' });
  const old = lease({ strategy: 'OldestEmulationVersion' });
  old.metadata = { ...old.metadata, resourceVersion: '3', uid: 'u' };
  const next = lease({ strategy: 'Newest', preferredHolder: 'b' });
  assert.deepEqual(updateErrors(leases, next, old), ['spec.strategy.strategy: Unsupported value: "Newest": supported values: "OldestEmulationVersion"']);
  assert.deepEqual(next.spec, { strategy: 'Newest' });
});

test('lease update: the spec rules apply again (kubectl patch leaseDurationSeconds 0)', () => {
  const old = lease({ leaseDurationSeconds: 15 });
  old.metadata = { ...old.metadata, resourceVersion: '3', uid: 'u' };
  assert.deepEqual(updateErrors(leases, lease({ leaseDurationSeconds: 0 }), old), ['spec.leaseDurationSeconds: Invalid value: 0: must be greater than 0']);
  assert.deepEqual(updateErrors(leases, lease({ leaseDurationSeconds: 30 }), old), []);
});

test('lease metadata uses apimachinery rules: unqualified finalizers are allowed', () => {
  const l = lease({});
  l.metadata = { ...l.metadata, finalizers: ['custom'] };
  assert.deepEqual(createErrors(leases, l), []);
});

test('lease printer: Holder, Age', () => {
  assert.deepEqual(leases.printerColumns.map((c) => c.name), ['Holder', 'Age']);
  assert.equal(leases.printerColumns[0].cell(lease({ holderIdentity: 'node-1' })), 'node-1');
  assert.equal(leases.printerColumns[0].cell(lease({})), '');
});
