// kubectl create / apply / patch of built-in kinds against a real Capstan: kube's defaults filled in, kube's 422
// messages on create and on update-only rules (immutable fields, resize rules), kube's columns.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestServer } from './helpers.ts';
import type { TestServer } from './helpers.ts';

describe('built-in type rules through kubectl', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer();
  });
  after(async () => {
    await s?.close();
  });

  const ok = (args: string[], input?: string) => s.kubectlOk(args, { input });
  const refused = async (args: string[], input?: string): Promise<string> => {
    const r = await s.kubectl(args, { input });
    assert.equal(r.code, 1, `kubectl ${args.join(' ')} should fail; stdout: ${r.stdout}`);
    return r.stderr.trim();
  };

  test('lease: leaseDurationSeconds 0 is refused on create and on patch (pkg/apis/coordination/validation)', async () => {
    const lease = (seconds: number) => JSON.stringify({ apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: 'x', namespace: 'default' }, spec: { holderIdentity: 'me', leaseDurationSeconds: seconds } });
    assert.equal(await refused(['create', '-f', '-'], lease(0)), 'The Lease "x" is invalid: spec.leaseDurationSeconds: Invalid value: 0: must be greater than 0');
    await ok(['create', '-f', '-'], lease(15));
    assert.equal(
      await refused(['patch', 'lease', 'x', '--type=merge', '-p', '{"spec":{"leaseDurationSeconds":0}}']),
      'The Lease "x" is invalid: spec.leaseDurationSeconds: Invalid value: 0: must be greater than 0',
    );
    assert.equal(await ok(['get', 'lease', 'x', '-o', 'jsonpath={.spec.leaseDurationSeconds}']), '15');
    assert.match(await ok(['get', 'lease', 'x']), /^NAME\s+HOLDER\s+AGE\nx\s+me\s+\d+s\n$/);
  });

  test('priority class: preemptionPolicy defaulted, value may not change (pkg/apis/scheduling/validation)', async () => {
    await ok(['create', 'priorityclass', 'high', '--value=1000']);
    assert.equal(await ok(['get', 'priorityclass', 'high', '-o', 'jsonpath={.preemptionPolicy}']), 'PreemptLowerPriority');
    assert.equal(
      await refused(['patch', 'priorityclass', 'high', '--type=merge', '-p', '{"value":2000}']),
      'The PriorityClass "high" is invalid: value: Forbidden: may not be changed in an update.',
    );
    assert.match(await ok(['get', 'priorityclass', 'high']), /^NAME\s+VALUE\s+GLOBAL-DEFAULT\s+AGE\s+PREEMPTIONPOLICY\nhigh\s+1000\s+false\s+\d+s\s+PreemptLowerPriority\n$/);
  });

  test('ingress: pathType is required; network policy: policyTypes defaulted (pkg/apis/networking)', async () => {
    const ingress = (pathType?: string) => `apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: web
  namespace: default
spec:
  rules:
  - host: shop.example.com
    http:
      paths:
      - path: /
${pathType ? `        pathType: ${pathType}\n` : ''}        backend:
          service:
            name: web
            port:
              number: 80
`;
    assert.equal(await refused(['apply', '-f', '-'], ingress()), 'The Ingress "web" is invalid: spec.rules[0].http.paths[0].pathType: Required value: pathType must be specified');
    assert.equal(await ok(['apply', '-f', '-'], ingress('Prefix')), 'ingress.networking.k8s.io/web created\n');
    assert.equal(await ok(['get', 'ingress', 'web', '-o', 'jsonpath={.metadata.generation}']), '1');
    assert.match(await ok(['get', 'ingress', 'web']), /^NAME\s+CLASS\s+HOSTS\s+ADDRESS\s+PORTS\s+AGE\nweb\s+<none>\s+shop\.example\.com\s+80\s+\d+s\n$/);
    await ok(['apply', '-f', '-'], JSON.stringify({ apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', metadata: { name: 'np', namespace: 'default' }, spec: { podSelector: {}, egress: [{ ports: [{ port: 53 }] }] } }));
    assert.equal(await ok(['get', 'networkpolicy', 'np', '-o', 'jsonpath={.spec.policyTypes} {.spec.egress[0].ports[0].protocol}']), '["Ingress","Egress"] TCP');
  });

  test('persistent volume claim: volumeMode defaulted, spec fixed while unbound, no shrinking once bound (pkg/apis/core/validation)', async () => {
    await ok(['apply', '-f', '-'], JSON.stringify({ apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name: 'data', namespace: 'default' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } }));
    assert.equal(await ok(['get', 'pvc', 'data', '-o', 'jsonpath={.spec.volumeMode} {.status.phase}']), 'Filesystem Pending');
    const unbound = await refused(['patch', 'pvc', 'data', '--type=merge', '-p', '{"spec":{"resources":{"requests":{"storage":"2Gi"}}}}']);
    assert.match(unbound, /^The PersistentVolumeClaim "data" is invalid: spec: Forbidden: spec is immutable after creation except resources\.requests and volumeAttributesClassName for bound claims/);
    await ok(['patch', 'pvc', 'data', '--subresource=status', '--type=merge', '-p', '{"status":{"phase":"Bound"}}']);
    await ok(['patch', 'pvc', 'data', '--type=merge', '-p', '{"spec":{"resources":{"requests":{"storage":"2Gi"}}}}']);
    assert.equal(
      await refused(['patch', 'pvc', 'data', '--type=merge', '-p', '{"spec":{"resources":{"requests":{"storage":"1Gi"}}}}']),
      'The PersistentVolumeClaim "data" is invalid: spec.resources.requests.storage: Forbidden: field can not be less than previous value',
    );
  });

  test('node: taints are checked under metadata.taints, as kube reports them', async () => {
    const node = (effect: string) => JSON.stringify({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1' }, spec: { taints: [{ key: 'dedicated', value: 'db', effect }] } });
    assert.equal(
      await refused(['create', '-f', '-'], node('Sometimes')),
      'The Node "n1" is invalid: metadata.taints[0].effect: Unsupported value: "Sometimes": supported values: "NoSchedule", "PreferNoSchedule", "NoExecute"',
    );
    await ok(['create', '-f', '-'], node('NoSchedule'));
    await ok(['taint', 'node', 'n1', 'gpu=yes:NoExecute']);
    assert.deepEqual((await ok(['get', 'node', 'n1', '-o', 'jsonpath={.spec.taints[*].key}'])).split(' ').sort(), ['dedicated', 'gpu']);
  });

  test('endpoint slice: addressType fixed; limit range: min above max refused', async () => {
    const slice = (addressType: string, address: string) =>
      JSON.stringify({ apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice', metadata: { name: 'web-1', namespace: 'default' }, addressType, endpoints: [{ addresses: [address] }], ports: [{ port: 80 }] });
    await ok(['apply', '-f', '-'], slice('IPv4', '10.0.0.5'));
    assert.equal(await ok(['get', 'endpointslice', 'web-1', '-o', 'jsonpath={.ports[0].protocol}']), 'TCP');
    assert.equal(
      await refused(['apply', '-f', '-'], slice('IPv6', '2001:db8::5')),
      'The EndpointSlice "web-1" is invalid: addressType: Invalid value: "IPv6": field is immutable',
    );
    const lr = JSON.stringify({ apiVersion: 'v1', kind: 'LimitRange', metadata: { name: 'lr', namespace: 'default' }, spec: { limits: [{ type: 'Container', min: { cpu: '2' }, max: { cpu: '1' } }] } });
    assert.equal(await refused(['create', '-f', '-'], lr), 'The LimitRange "lr" is invalid: spec.limits[0].min[cpu]: Invalid value: "2": min value 2 is greater than max value 1');
  });
});
