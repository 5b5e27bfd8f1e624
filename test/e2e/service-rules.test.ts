// Services and their status through kubectl against a real Capstan, with kube 1.31's messages: clusterIP and
// clusterIPs refused before allocation (initIPFamilyFields), duplicate ports as Go prints the key, the update rules
// of ValidateServiceUpdate, type changes (dropTypeDependentFields), status writes (ValidateLoadBalancerStatus), the
// families of a headless Service without a selector, and a PUT that creates.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestServer } from './helpers.ts';
import type { TestServer } from './helpers.ts';

describe('Service rules through kubectl', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer();
  });
  after(async () => {
    await s?.close();
  });

  const ok = (args: string[], input?: string) => s.kubectlOk(args, { input });
  const refused = (args: string[], input?: string) => s.kubectlRefused(args, { input });
  const service = (name: string, spec: Record<string, unknown>) => JSON.stringify({ apiVersion: 'v1', kind: 'Service', metadata: { name, namespace: 'default' }, spec });
  const jsonpath = (name: string, path: string) => ok(['get', 'svc', name, '-o', `jsonpath=${path}`]);

  test('create: clusterIP and clusterIPs must agree, families this cluster has, duplicate ports as kube prints them', async () => {
    assert.equal(
      await refused(['create', '-f', '-'], service('a', { clusterIP: '10.96.0.11', clusterIPs: ['10.96.0.12'], ports: [{ port: 80 }] })),
      'The Service "a" is invalid: spec.clusterIPs: Invalid value: []string{"10.96.0.12"}: first value must match `clusterIP`',
    );
    assert.equal(
      await refused(['create', '-f', '-'], service('a', { ipFamilies: ['IPv6'], selector: { app: 'a' }, ports: [{ port: 80 }] })),
      'The Service "a" is invalid: spec.ipFamilies[0]: Invalid value: "IPv6": not configured on this cluster',
    );
    assert.equal(
      await refused(['create', '-f', '-'], service('a', { ipFamilyPolicy: 'RequireDualStack', selector: { app: 'a' }, ports: [{ port: 80 }] })),
      'The Service "a" is invalid: spec.ipFamilyPolicy: Invalid value: "RequireDualStack": this cluster is not configured for dual-stack services',
    );
    assert.equal(
      await refused(['create', '-f', '-'], service('a', { ports: [{ name: 'a', port: 80 }, { name: 'b', port: 80 }] })),
      'The Service "a" is invalid: spec.ports[1]: Duplicate value: core.ServicePort{Name:"", Protocol:"TCP", AppProtocol:(*string)(nil), Port:80, TargetPort:intstr.IntOrString{Type:0, IntVal:0, StrVal:""}, NodePort:0}',
    );
    // Out of range: the allocator's refusal, alone (other errors of the object are not reached).
    assert.equal(
      await refused(['create', '-f', '-'], service('a', { clusterIP: '192.168.0.1', ports: [] })),
      'The Service "a" is invalid: spec.clusterIPs: Invalid value: []string{"192.168.0.1"}: failed to allocate IP 192.168.0.1: the provided IP (192.168.0.1) is not in the valid range. The range of valid IPs is 10.96.0.0/12',
    );
  });

  test('update: the cluster IP may not change; a type change to ExternalName drops the cluster IPs and families', async () => {
    await ok(['create', '-f', '-'], service('web', { selector: { app: 'web' }, ports: [{ port: 80 }] }));
    const ip = await jsonpath('web', '{.spec.clusterIP}');
    const other = ip === '10.96.100.100' ? '10.96.100.101' : '10.96.100.100';
    assert.equal(
      await refused(['patch', 'svc', 'web', '--type=merge', '-p', JSON.stringify({ spec: { clusterIP: other } })]),
      `The Service "web" is invalid: spec.clusterIPs[0]: Invalid value: []string{"${other}"}: may not change once set`,
    );
    assert.equal(
      await refused(['patch', 'svc', 'web', '--type=merge', '-p', JSON.stringify({ spec: { clusterIPs: [other] } })]),
      `The Service "web" is invalid: spec.clusterIPs: Invalid value: []string{"${other}"}: first value must match \`clusterIP\``,
    );
    await ok(['patch', 'svc', 'web', '--type=merge', '-p', JSON.stringify({ spec: { type: 'ExternalName', externalName: 'db.example.com' } })]);
    assert.equal(await jsonpath('web', '{.spec.clusterIP}|{.spec.clusterIPs}|{.spec.ipFamilies}|{.spec.ipFamilyPolicy}|{.spec.internalTrafficPolicy}'), '||||');
    await ok(['patch', 'svc', 'web', '--type=merge', '-p', JSON.stringify({ spec: { type: 'ClusterIP', externalName: null } })]);
    assert.match(await jsonpath('web', '{.spec.clusterIP}|{.spec.ipFamilies}|{.spec.ipFamilyPolicy}'), /^10\.\d+\.\d+\.\d+\|\["IPv4"\]\|SingleStack$/);
  });

  test('status: ingress only for LoadBalancer, ipMode defaulted to VIP, kube messages for bad entries', async () => {
    await ok(['create', '-f', '-'], service('plain', { selector: { app: 'plain' }, ports: [{ port: 80 }] }));
    const ingress = (entries: unknown[]) => JSON.stringify({ status: { loadBalancer: { ingress: entries } } });
    assert.equal(
      await refused(['patch', 'svc', 'plain', '--subresource=status', '--type=merge', '-p', ingress([{ ip: '198.51.100.7' }])]),
      "The Service \"plain\" is invalid: status.loadBalancer.ingress: Forbidden: may only be used when `spec.type` is 'LoadBalancer'",
    );
    // loadBalancerClass: the simulated cloud leaves the status to this test.
    await ok(['create', '-f', '-'], service('lb', { type: 'LoadBalancer', loadBalancerClass: 'example.com/test', selector: { app: 'lb' }, ports: [{ port: 80 }] }));
    assert.equal(
      await refused(['patch', 'svc', 'lb', '--subresource=status', '--type=merge', '-p', ingress([{ hostname: 'lb.example.com', ipMode: 'Proxy' }])]),
      'The Service "lb" is invalid: status.loadBalancer.ingress[0].ipMode: Forbidden: may not be specified when `ip` is not set',
    );
    await ok(['patch', 'svc', 'lb', '--subresource=status', '--type=merge', '-p', ingress([{ ip: '198.51.100.7' }])]);
    assert.equal(await jsonpath('lb', '{.status.loadBalancer.ingress[0].ip}/{.status.loadBalancer.ingress[0].ipMode}'), '198.51.100.7/VIP');
    assert.match(await ok(['get', 'svc', 'lb']), /\blb\s+LoadBalancer\s+10\.\S+\s+198\.51\.100\.7\s+80:3\d{4}\/TCP\s/);
    // A change of type takes the load-balancer status with it.
    await ok(['patch', 'svc', 'lb', '--type=merge', '-p', JSON.stringify({ spec: { type: 'ClusterIP' } })]);
    assert.equal(await jsonpath('lb', '{.status.loadBalancer}|{.spec.loadBalancerClass}|{.spec.ports[0].nodePort}'), '{}||');
  });

  test('a headless Service without a selector defaults to both families; a PUT of a missing Service creates it', async () => {
    await ok(['create', '-f', '-'], service('headless', { clusterIP: 'None', ports: [{ port: 5432 }] }));
    assert.equal(await jsonpath('headless', '{.spec.ipFamilyPolicy} {.spec.ipFamilies}'), 'RequireDualStack ["IPv4","IPv6"]');
    const put = await s.adminRequest('/api/v1/namespaces/default/services/put-made', {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: service('put-made', { selector: { app: 'p' }, ports: [{ port: 80 }] }),
    });
    assert.equal(put.status, 201, put.body);
    assert.match(await jsonpath('put-made', '{.spec.clusterIP}'), /^10\./);
  });
});
