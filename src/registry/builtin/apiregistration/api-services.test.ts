import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../types.ts';
import { builtinTypeFacts } from '../index.ts';
import { createErrors, statusUpdateErrors } from '../test-context.ts';

const apiServices = builtinTypeFacts('apiregistration.k8s.io', 'apiservices');
const svc = (name: string, spec: Record<string, unknown>): KubeObject => ({ metadata: { name }, spec: { group: 'metrics.k8s.io', version: 'v1beta1', groupPriorityMinimum: 100, versionPriority: 100, ...spec } });

// Source: k8s.io/kube-aggregator/pkg/apis/apiregistration/validation/validation.go and v1/defaults.go.
test('API services: the service port defaults to 443; name must be version.group', () => {
  const obj = svc('v1beta1.metrics.k8s.io', { service: { namespace: 'kube-system', name: 'metrics-server' } });
  assert.deepEqual(createErrors(apiServices, obj), []);
  assert.equal((obj.spec as { service: { port: number } }).service.port, 443);
  assert.deepEqual(createErrors(apiServices, svc('metrics', {})), ['metadata.name: Invalid value: "metrics": must be `spec.version+"."+spec.group`: "v1beta1.metrics.k8s.io"']);
});

const cases: [string, Record<string, unknown>, string[]][] = [
  ['priority out of range', { groupPriorityMinimum: 0, versionPriority: 1001 }, ['spec.groupPriorityMinimum: Invalid value: 0: must be positive and less than 20000', 'spec.versionPriority: Invalid value: 1001: must be positive and less than 1000']],
  ['local with a CA bundle', { caBundle: Buffer.from('abc').toString('base64') }, ['spec.caBundle: Invalid value: "3 bytes": local APIServices may not have a caBundle']],
  ['service without namespace', { service: { name: 'm' } }, ['spec.service.namespace: Required value']],
  ['insecure with a CA bundle', { service: { namespace: 'n', name: 'm' }, insecureSkipTLSVerify: true, caBundle: 'YQ==' }, ['spec.insecureSkipTLSVerify: Invalid value: true: may not be true if caBundle is present']],
];
for (const [name, spec, want] of cases) test(`API services: ${name}`, () => assert.deepEqual(createErrors(apiServices, svc('v1beta1.metrics.k8s.io', spec)), want));

test('API services: status conditions and the Available column', () => {
  const obj = svc('v1beta1.metrics.k8s.io', {});
  createErrors(apiServices, obj);
  obj.metadata = { ...obj.metadata, resourceVersion: '2' };
  const { merged, errors } = statusUpdateErrors(apiServices, { ...structuredClone(obj), status: { conditions: [{ type: 'Available', status: 'False', reason: 'MissingEndpoints' }] } }, obj);
  assert.deepEqual(errors, []);
  const cells = Object.fromEntries(apiServices.printerColumns.map((c) => [c.name, c.cell(merged)]));
  assert.equal(cells.Service, 'Local');
  assert.equal(cells.Available, 'False (MissingEndpoints)');
  assert.deepEqual(statusUpdateErrors(apiServices, { ...structuredClone(obj), status: { conditions: [{ type: 'Available', status: 'Yes' }] } }, obj).errors, [
    'status.conditions[0].status: Unsupported value: "Yes": supported values: "True", "False", "Unknown"',
  ]);
});

// Source: k8s.io/kube-aggregator/pkg/registry/apiservice/strategy.go.
test('API services: a local one is Available from its creation; a written status is dropped; status writes keep metadata', () => {
  const local = svc('v1beta1.metrics.k8s.io', {});
  local.status = { conditions: [{ type: 'Available', status: 'False' }] };
  assert.deepEqual(createErrors(apiServices, local), []);
  const [available] = (local.status as { conditions: Record<string, unknown>[] }).conditions;
  assert.deepEqual({ ...available, lastTransitionTime: 'set' }, { type: 'Available', status: 'True', lastTransitionTime: 'set', reason: 'Local', message: 'Local APIServices are always available' });
  assert.match(String(available.lastTransitionTime), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  const remote = svc('v1beta1.metrics.k8s.io', { service: { namespace: 'kube-system', name: 'metrics-server' } });
  remote.status = { conditions: [{ type: 'Available', status: 'Maybe' }] };
  assert.deepEqual(createErrors(apiServices, remote), []);
  assert.deepEqual(remote.status, {});
  remote.metadata = { ...remote.metadata, resourceVersion: '2', labels: { a: 'b' } };
  const { merged } = statusUpdateErrors(apiServices, { ...structuredClone(remote), metadata: { ...remote.metadata, labels: { a: 'c' }, annotations: { x: 'y' } } }, remote);
  assert.deepEqual(merged.metadata?.labels, { a: 'b' });
  assert.equal(merged.metadata?.annotations, undefined);
});
