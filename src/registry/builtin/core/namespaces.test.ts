import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fieldErrorString } from '../../../apis/errors.ts';
import type { KubeObject } from '../../types.ts';
import { builtinTypeFacts } from '../index.ts';
import { testContext as ctx } from '../test-context.ts';
import type { BuiltinStrategy } from '../generic.ts';

const facts = builtinTypeFacts('', 'namespaces');
const strategy = facts.strategy as BuiltinStrategy;

function create(obj: KubeObject): KubeObject {
  strategy.defaults?.(obj);
  strategy.prepareForCreate?.(obj, ctx);
  return obj;
}

test('create: phase Active, the kubernetes finalizer, the name label', () => {
  const ns = create({ metadata: { name: 'team-a', labels: { env: 'dev' } }, status: { phase: 'Terminating' } });
  assert.deepEqual(ns.status, { phase: 'Active' });
  assert.deepEqual(ns.spec, { finalizers: ['kubernetes'] });
  assert.deepEqual(ns.metadata.labels, { env: 'dev', 'kubernetes.io/metadata.name': 'team-a' });
  assert.deepEqual(strategy.validate?.(ns, ctx), []);
  const kept = create({ metadata: { name: 'b' }, spec: { finalizers: ['example.com/x'] } });
  assert.deepEqual(kept.spec, { finalizers: ['example.com/x', 'kubernetes'] });
});

test('names are DNS labels', () => {
  const errs = strategy.validate?.(create({ metadata: { name: 'a.b' } }), ctx) ?? [];
  assert.deepEqual(errs.map(fieldErrorString), ['metadata.name: Invalid value: "a.b": must not contain dots']);
});

test('the name label cannot be removed or changed; spec and status keep their stored values', () => {
  const old = create({ metadata: { name: 'team-a', resourceVersion: '5', uid: 'u' } });
  const upd: KubeObject = { metadata: { name: 'team-a', resourceVersion: '5', labels: { 'kubernetes.io/metadata.name': 'other' } }, spec: { finalizers: [] }, status: { phase: 'Terminating' } };
  strategy.defaults?.(upd);
  strategy.prepareForUpdate?.(upd, old, ctx);
  assert.equal(upd.metadata.labels?.['kubernetes.io/metadata.name'], 'team-a');
  assert.deepEqual(upd.spec, { finalizers: ['kubernetes'] });
  assert.deepEqual(upd.status, { phase: 'Active' });
  assert.equal(upd.metadata.uid, 'u');
  assert.deepEqual(strategy.validateUpdate?.(upd, old, ctx), []);
});

test('delete marks the namespace Terminating', () => {
  const ns = create({ metadata: { name: 'x' } });
  strategy.prepareForDelete?.(ns, ctx);
  assert.equal((ns.status as { phase: string }).phase, 'Terminating');
});

test('finalize changes spec.finalizers only; status changes status only', () => {
  const old = create({ metadata: { name: 'x', resourceVersion: '3' } });
  const finalize = strategy.subresources?.finalize;
  assert.ok(finalize);
  const merged = finalize.prepareForUpdate({ metadata: { name: 'x', resourceVersion: '3' }, spec: { finalizers: [] }, status: { phase: 'Terminating' } }, old, ctx);
  assert.deepEqual(merged.spec, { finalizers: [] });
  assert.deepEqual(merged.status, { phase: 'Active' });
  const bad = finalize.validateUpdate?.({ ...merged, spec: { finalizers: ['nope'] } }, old, ctx) ?? [];
  assert.deepEqual(bad.map(fieldErrorString), ['spec.finalizers[0]: Invalid value: "nope": name is neither a standard finalizer name nor is it fully qualified']);

  const status = strategy.subresources?.status;
  assert.ok(status);
  const s = status.prepareForUpdate({ metadata: { name: 'x', resourceVersion: '3' }, spec: { finalizers: [] }, status: { phase: 'Terminating' } }, old, ctx);
  assert.deepEqual(s.spec, { finalizers: ['kubernetes'] });
  assert.deepEqual(status.validateUpdate?.(s, old, ctx).map(fieldErrorString), [
    `status.Phase: Invalid value: "Terminating": may only be 'Active' if \`deletionTimestamp\` is empty`,
  ]);
});

test('printer and field selector', () => {
  const ns = create({ metadata: { name: 'x', creationTimestamp: new Date(Date.now() - 300_000).toISOString() } });
  assert.deepEqual(
    facts.printerColumns.map((c) => [c.name, c.cell(ns)]),
    [
      ['Status', 'Active'],
      ['Age', '5m'],
    ],
  );
  assert.equal(facts.selectableFields['status.phase'](ns), 'Active');
});

// The strategy's ValidateUpdate: ValidateNamespace (ObjectMeta's create rules) first, then ValidateNamespaceUpdate.
test('updates check the new namespace as on create before the update rules of ObjectMeta', () => {
  const old = create({ metadata: { name: 'team-b', resourceVersion: '5', uid: 'u' } });
  const upd: KubeObject = { metadata: { name: 'team-b', resourceVersion: '5', uid: 'other', labels: { 'a b': 'x' } } };
  strategy.defaults?.(upd);
  strategy.prepareForUpdate?.(upd, old, ctx);
  const label = "metadata.labels: Invalid value: \"a b\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
  assert.deepEqual(strategy.validateUpdate?.(upd, old, ctx).map(fieldErrorString), [label, 'metadata.uid: Invalid value: "other": field is immutable', label]);
});

test('create: spec.finalizers are reported without an index, finalize with one', () => {
  const errs = strategy.validate?.(create({ metadata: { name: 'c' }, spec: { finalizers: ['a b'] } }), ctx) ?? [];
  assert.deepEqual(errs.map(fieldErrorString), [
    "spec.finalizers: Invalid value: \"a b\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
    'spec.finalizers: Invalid value: "a b": name is neither a standard finalizer name nor is it fully qualified',
  ]);
});
