import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../types.ts';
import { builtinTypeFacts } from '../index.ts';
import { createErrors, testContext, updateErrors } from '../test-context.ts';

const slices = builtinTypeFacts('discovery.k8s.io', 'endpointslices');
const slice = (extra: Record<string, unknown>): KubeObject => ({ metadata: { name: 'web-abc', namespace: 'default' }, addressType: 'IPv4', ...extra });

// Source: pkg/apis/discovery/validation/validation.go; pkg/apis/discovery/v1/defaults.go.
test('endpoint slices: valid, with port defaults and generation 1', () => {
  const obj = slice({ endpoints: [{ addresses: ['10.0.0.1'], conditions: { ready: true }, hints: { forZones: [{ name: 'a' }] } }], ports: [{ port: 80 }] });
  assert.deepEqual(createErrors(slices, obj), []);
  assert.deepEqual(obj.ports, [{ port: 80, name: '', protocol: 'TCP' }]);
  assert.equal(obj.metadata?.generation, 1);
});

const cases: [string, Record<string, unknown>, string[]][] = [
  ['missing addressType', { addressType: undefined }, ['addressType: Required value']],
  ['unknown addressType', { addressType: 'IP' }, ['addressType: Unsupported value: "IP": supported values: "FQDN", "IPv4", "IPv6"']],
  ['no addresses', { endpoints: [{ addresses: [] }] }, ['endpoints[0].addresses: Required value: must contain at least 1 address']],
  ['an IPv4-mapped address in an IPv6 slice', { addressType: 'IPv6', endpoints: [{ addresses: ['::ffff:10.0.0.1'] }] }, ['endpoints[0].addresses[0]: Invalid value: "::ffff:10.0.0.1": must be a valid IPv6 address']],
  ['an IPv4-mapped address in an IPv4 slice', { endpoints: [{ addresses: ['::ffff:10.0.0.1'] }] }, []],
  ['IPv6 in an IPv4 slice', { endpoints: [{ addresses: ['::5'] }] }, ['endpoints[0].addresses[0]: Invalid value: "::5": must be a valid IPv4 address']],
  ['special IPv4', { endpoints: [{ addresses: ['169.254.1.1'] }] }, ['endpoints[0].addresses[0]: Invalid value: "169.254.1.1": may not be in the link-local range (169.254.0.0/16, fe80::/10)']],
  ['one-segment FQDN', { addressType: 'FQDN', endpoints: [{ addresses: ['web'] }] }, ['endpoints[0].addresses[0]: Invalid value: "web": should be a domain with at least two segments separated by dots']],
  ['duplicate port names', { ports: [{ name: 'http', port: 80 }, { name: 'http', port: 81 }] }, ['ports[1].name: Duplicate value: "http"']],
  ['duplicate zone hints', { endpoints: [{ addresses: ['10.0.0.1'], hints: { forZones: [{ name: 'a' }, { name: 'a' }] } }] }, ['endpoints[0].hints.forZones[1].name: Duplicate value: "a"']],
];
for (const [name, extra, want] of cases) test(`endpoint slices: ${name}`, () => assert.deepEqual(createErrors(slices, slice(extra)), want));

test('endpoint slices: addressType is immutable, spec changes bump generation', () => {
  const old = slice({ endpoints: [{ addresses: ['10.0.0.1'] }] });
  createErrors(slices, old);
  old.metadata = { ...old.metadata, resourceVersion: '4', uid: 'u' };
  const changed = slice({ addressType: 'IPv6', endpoints: [{ addresses: ['2001:db8::1'] }] });
  assert.deepEqual(updateErrors(slices, changed, old, testContext), ['addressType: Invalid value: "IPv6": field is immutable']);
  assert.equal(changed.metadata?.generation, 2);
});

// Source: pkg/registry/discovery/endpointslice/strategy.go (dropTopologyOnV1, PrepareForUpdate).
test('endpoint slices: v1 writes drop deprecatedTopology, keeping a stored node name; label changes bump generation', () => {
  const old = slice({ endpoints: [{ addresses: ['10.0.0.1'], deprecatedTopology: { 'kubernetes.io/hostname': 'node-1', 'bad key!': 'x' } }] });
  assert.deepEqual(createErrors(slices, old), []);
  assert.deepEqual(old.endpoints, [{ addresses: ['10.0.0.1'] }]);
  // A slice stored with topology (written through an older version): the node name it held becomes nodeName.
  old.endpoints = [{ addresses: ['10.0.0.1'], deprecatedTopology: { 'kubernetes.io/hostname': 'node-1' } }];
  old.metadata = { ...old.metadata, resourceVersion: '4', uid: 'u' };
  const next = slice({ endpoints: [{ addresses: ['10.0.0.2'], deprecatedTopology: { 'kubernetes.io/hostname': 'node-1' } }] });
  assert.deepEqual(updateErrors(slices, next, old, testContext), []);
  assert.deepEqual(next.endpoints, [{ addresses: ['10.0.0.2'], nodeName: 'node-1' }]);
  const relabeled = structuredClone(old);
  relabeled.metadata = { ...relabeled.metadata, labels: { 'kubernetes.io/service-name': 'web' } };
  assert.deepEqual(updateErrors(slices, relabeled, old, testContext), []);
  assert.equal(relabeled.metadata?.generation, 2);
});

test('endpoint slices: hints dropped when TopologyAwareHints is off', () => {
  const off = builtinTypeFacts('discovery.k8s.io', 'endpointslices', { TopologyAwareHints: false });
  const obj = slice({ endpoints: [{ addresses: ['10.0.0.1'], hints: { forZones: [{ name: 'a' }] } }] });
  assert.deepEqual(createErrors(off, obj), []);
  assert.deepEqual(obj.endpoints, [{ addresses: ['10.0.0.1'] }]);
});
