import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fieldErrorString } from '../../../apis/errors.ts';
import type { KubeObject } from '../../types.ts';
import { builtinTypeFacts } from '../index.ts';
import { testContext as ctx } from '../test-context.ts';
import { allocateClusterIP, allocateNodePort, inServiceCIDR } from './services.ts';

const facts = builtinTypeFacts('', 'services');
const strategy = facts.strategy;

function create(spec: Record<string, unknown>, name = 'web'): KubeObject {
  const svc: KubeObject = { metadata: { name, namespace: 'default' }, spec };
  strategy.defaults?.(svc);
  strategy.prepareForCreate?.(svc, ctx);
  return svc;
}

function errors(svc: KubeObject): string[] {
  return (strategy.validate?.(svc, ctx) ?? []).map(fieldErrorString);
}

test('ClusterIP defaults and allocation', () => {
  const svc = create({ selector: { app: 'web' }, ports: [{ port: 80 }] });
  const spec = svc.spec as Record<string, unknown>;
  const ip = spec.clusterIP as string;
  assert.ok(inServiceCIDR(ip), ip);
  assert.deepEqual(spec, {
    selector: { app: 'web' },
    ports: [{ port: 80, protocol: 'TCP', targetPort: 80 }],
    sessionAffinity: 'None',
    type: 'ClusterIP',
    internalTrafficPolicy: 'Cluster',
    clusterIP: ip,
    clusterIPs: [ip],
    ipFamilyPolicy: 'SingleStack',
    ipFamilies: ['IPv4'],
  });
  assert.deepEqual(svc.status, {});
  assert.deepEqual(errors(svc), []);
});

test('NodePort and LoadBalancer get node ports and traffic policies', () => {
  const svc = create({ type: 'LoadBalancer', ports: [{ port: 443, targetPort: 'https', name: 'https' }, { port: 80, name: 'http' }] });
  const spec = svc.spec as { ports: { nodePort: number }[]; externalTrafficPolicy: string; allocateLoadBalancerNodePorts: boolean };
  for (const p of spec.ports) assert.ok(p.nodePort >= 30000 && p.nodePort <= 32767);
  assert.notEqual(spec.ports[0].nodePort, spec.ports[1].nodePort);
  assert.equal(spec.externalTrafficPolicy, 'Cluster');
  assert.equal(spec.allocateLoadBalancerNodePorts, true);
  assert.deepEqual(errors(svc), []);
  const cells = Object.fromEntries(facts.printerColumns.map((c) => [c.name, c.cell(svc)]));
  assert.equal(cells.Type, 'LoadBalancer');
  assert.equal(cells['External-IP'], '<pending>');
  assert.equal(cells['Port(s)'], `443:${spec.ports[0].nodePort}/TCP,80:${spec.ports[1].nodePort}/TCP`);
  assert.equal(cells.Selector, '<none>');
});

test('headless services', () => {
  const svc = create({ clusterIP: 'None', ports: [{ port: 80 }] });
  const spec = svc.spec as Record<string, unknown>;
  assert.deepEqual(spec.clusterIPs, ['None']);
  assert.equal(spec.ipFamilyPolicy, 'RequireDualStack');
  assert.equal(facts.printerColumns[1].cell(svc), 'None');
});

test('validation messages', () => {
  assert.deepEqual(errors(create({ selector: { app: 'x' } })), ['spec.ports: Required value']);
  assert.deepEqual(errors(create({ ports: [{ port: 80 }, { port: 81 }] })), ['spec.ports[0].name: Required value', 'spec.ports[1].name: Required value']);
  assert.deepEqual(errors(create({ ports: [{ port: 80 }] }, '1web')), [
    `metadata.name: Invalid value: "1web": a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')`,
  ]);
  assert.deepEqual(errors(create({ type: 'Fancy', ports: [{ port: 80 }] })), ['spec.type: Unsupported value: "Fancy": supported values: "ClusterIP", "ExternalName", "LoadBalancer", "NodePort"']);
  assert.deepEqual(errors(create({ ports: [{ port: 80, nodePort: 30080 }] })), ["spec.ports[0].nodePort: Forbidden: may not be used when `type` is 'ClusterIP'"]);
  assert.deepEqual(errors(create({ clusterIP: '192.168.0.1', ports: [{ port: 80 }] })), [
    'spec.clusterIPs: Invalid value: []string{"192.168.0.1"}: failed to allocate IP 192.168.0.1: the provided IP (192.168.0.1) is not in the valid range. The range of valid IPs is 10.96.0.0/12',
  ]);
  assert.deepEqual(errors(create({ type: 'ExternalName', externalName: 'db.example.com' })), []);
});

test('updates keep allocated values and forbid changing the cluster IP', () => {
  const old = create({ type: 'NodePort', ports: [{ port: 80, name: 'http' }] });
  old.metadata.resourceVersion = '3';
  const oldSpec = old.spec as { clusterIP: string; ports: { nodePort: number }[] };
  const upd: KubeObject = { metadata: { name: 'web', namespace: 'default', resourceVersion: '3' }, spec: { type: 'NodePort', ports: [{ port: 80, name: 'http' }] } };
  strategy.defaults?.(upd);
  strategy.prepareForUpdate?.(upd, old, ctx);
  const spec = upd.spec as { clusterIP: string; ports: { nodePort: number }[] };
  assert.equal(spec.clusterIP, oldSpec.clusterIP);
  assert.equal(spec.ports[0].nodePort, oldSpec.ports[0].nodePort);
  assert.deepEqual(strategy.validateUpdate?.(upd, old, ctx), []);
  const moved = structuredClone(upd);
  (moved.spec as { clusterIPs: string[] }).clusterIPs = ['10.96.5.5'];
  assert.deepEqual((strategy.validateUpdate?.(moved, old, ctx) ?? []).map(fieldErrorString).slice(0, 1), [
    'spec.clusterIPs[0]: Invalid value: "10.96.5.5": may not change once set',
  ]);
});

test('a type change drops what only the old type needed, unless the client changed it (dropTypeDependentFields)', () => {
  const old = create({ type: 'LoadBalancer', externalTrafficPolicy: 'Local', ports: [{ port: 80, name: 'http' }] });
  old.metadata.resourceVersion = '3';
  const oldSpec = old.spec as Record<string, unknown>;
  assert.equal(typeof oldSpec.healthCheckNodePort, 'number');
  // A merge patch of type alone: every other field as stored.
  const upd: KubeObject = { ...structuredClone(old), spec: { ...structuredClone(oldSpec), type: 'ClusterIP' } };
  strategy.defaults?.(upd);
  strategy.prepareForUpdate?.(upd, old, ctx);
  const spec = upd.spec as Record<string, unknown>;
  assert.deepEqual(spec.ports, [{ port: 80, name: 'http', protocol: 'TCP', targetPort: 80 }]);
  for (const gone of ['healthCheckNodePort', 'allocateLoadBalancerNodePorts', 'externalTrafficPolicy']) assert.equal(spec[gone], undefined, gone);
  assert.equal(spec.clusterIP, oldSpec.clusterIP);
  assert.deepEqual(strategy.validateUpdate?.(upd, old, ctx), []);
  // A node port the client changed stays, and ClusterIP refuses it as kube does (one the allocator did not pick).
  const allocated = (oldSpec.ports as Array<{ nodePort?: number }>)[0]!.nodePort;
  const nodePort = allocated === 30999 ? 31000 : 30999;
  const changed: KubeObject = { ...structuredClone(old), spec: { ...structuredClone(oldSpec), type: 'ClusterIP', ports: [{ port: 80, name: 'http', protocol: 'TCP', targetPort: 80, nodePort }] } };
  strategy.prepareForUpdate?.(changed, old, ctx);
  assert.deepEqual((strategy.validateUpdate?.(changed, old, ctx) ?? []).map(fieldErrorString), ["spec.ports[0].nodePort: Forbidden: may not be used when `type` is 'ClusterIP'"]);
});

test('allocators avoid used values', () => {
  const ip = allocateClusterIP();
  assert.ok(inServiceCIDR(ip));
  assert.notEqual(ip, '10.96.0.1');
  const used = new Set<number>();
  for (let p = 30000; p <= 32766; p++) used.add(p);
  assert.equal(allocateNodePort(used), 32767);
  assert.deepEqual(facts.selectableFields['spec.type'](create({ ports: [{ port: 1 }] })), 'ClusterIP');
});
