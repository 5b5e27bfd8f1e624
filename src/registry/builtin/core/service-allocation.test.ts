import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isStatusError, type StatusError } from '../../../apis/errors.ts';
import type { KubeObject, RequestContext } from '../../types.ts';
import { testContext } from '../test-context.ts';
import { createMemoryStorage } from '../../../storage/memory/memory-storage.ts';
import { CLAIM_TTL_MS, storageClaims } from '../../value-claims.ts';
import { holdersAmong } from '../../held-values.ts';
import { allocateClusterIP, allocateNodePort, beginServiceWrite, KUBERNETES_SERVICE_IP, serviceHeldValues } from './service-allocation.ts';

const svc = (name: string, spec: Record<string, unknown>): KubeObject => ({ metadata: { name, namespace: 'default' }, spec });
const peers = (...objs: KubeObject[]) => async () => holdersAmong(objs, serviceHeldValues);
const claims = storageClaims(createMemoryStorage(), () => new Date());
const dryRun: RequestContext = { ...testContext, dryRun: true };

async function refusal(p: Promise<unknown>): Promise<StatusError> {
  try {
    await p;
  } catch (e) {
    if (isStatusError(e)) return e;
    throw e;
  }
  throw new Error('expected a refusal');
}

test('random picks skip used addresses and never hand out the kubernetes Service IP', () => {
  const first = '10.96.1.1';
  assert.equal(allocateClusterIP(new Set(), () => 0), first);
  // The dynamic band "full" (the same pick refused every time): the scan from the start skips 10.96.0.1.
  assert.equal(allocateClusterIP(new Set([first]), () => 0), '10.96.0.2');
  assert.equal(allocateClusterIP(new Set([first, '10.96.0.2']), () => 0), '10.96.0.3');
  assert.equal(allocateNodePort(new Set([30000]), () => 0), 30001);
});

test('a create gets a cluster IP no other Service holds', async () => {
  const obj = svc('a', { ports: [{ port: 80 }] });
  const release = await beginServiceWrite(obj, undefined, testContext, peers(svc('kubernetes', { clusterIP: KUBERNETES_SERVICE_IP, clusterIPs: [KUBERNETES_SERVICE_IP] })), claims);
  const spec = obj.spec as { clusterIP: string; clusterIPs: string[] };
  assert.match(spec.clusterIP, /^10\.(9[6-9]|10[0-9]|11[01])\./);
  assert.notEqual(spec.clusterIP, KUBERNETES_SERVICE_IP);
  assert.deepEqual(spec.clusterIPs, [spec.clusterIP]);
  assert.equal(typeof release, 'function');
  release?.();
});

test('an explicit cluster IP another Service holds is refused as kube does', async () => {
  const taken = svc('kubernetes', { clusterIP: KUBERNETES_SERVICE_IP, clusterIPs: [KUBERNETES_SERVICE_IP] });
  const err = await refusal(beginServiceWrite(svc('b', { clusterIP: KUBERNETES_SERVICE_IP, ports: [{ port: 80 }] }), undefined, testContext, peers(taken), claims));
  assert.equal(err.code, 422);
  assert.equal(err.message, 'Service "b" is invalid: spec.clusterIPs: Invalid value: []string{"10.96.0.1"}: failed to allocate IP 10.96.0.1: provided IP is already allocated');
  assert.deepEqual(err.details?.causes, [
    { reason: 'FieldValueInvalid', message: 'Invalid value: []string{"10.96.0.1"}: failed to allocate IP 10.96.0.1: provided IP is already allocated', field: 'spec.clusterIPs' },
  ]);
  // The Service itself (an update) does not conflict with its own address; headless and ExternalName hold none.
  (await beginServiceWrite(svc('kubernetes', { clusterIP: KUBERNETES_SERVICE_IP }), undefined, testContext, peers(taken), claims))?.();
  assert.equal(await beginServiceWrite(svc('h', { clusterIP: 'None' }), undefined, testContext, peers(taken), claims), undefined);
  assert.equal(await beginServiceWrite(svc('x', { type: 'ExternalName', externalName: 'db' }), undefined, testContext, peers(taken), claims), undefined);
});

test('an explicit cluster IP outside the range is refused as the allocator refuses it, dry run or not', async () => {
  for (const [ip, context] of [['192.168.0.1', testContext], ['10.96.0.0', testContext], ['10.111.255.255', dryRun]] as const) {
    const err = await refusal(beginServiceWrite(svc('o', { clusterIP: ip, ports: [{ port: 80 }] }), undefined, context, peers(), claims));
    assert.equal(
      err.message,
      `Service "o" is invalid: spec.clusterIPs: Invalid value: []string{"${ip}"}: failed to allocate IP ${ip}: the provided IP (${ip}) is not in the valid range. The range of valid IPs is 10.96.0.0/12`,
    );
  }
});

test('writes in flight reserve their values until released; dry runs reserve nothing', async () => {
  const first = await beginServiceWrite(svc('c1', { clusterIP: '10.96.7.7' }), undefined, testContext, peers(), claims);
  assert.ok(first);
  const err = await refusal(beginServiceWrite(svc('c2', { clusterIP: '10.96.7.7' }), undefined, testContext, peers(), claims));
  assert.match(err.message, /provided IP is already allocated/);
  first();
  const again = await beginServiceWrite(svc('c2', { clusterIP: '10.96.7.7' }), undefined, testContext, peers(), claims);
  again?.();
  assert.equal(await beginServiceWrite(svc('c3', { clusterIP: '10.96.7.8' }), undefined, dryRun, peers(), claims), undefined);
  (await beginServiceWrite(svc('c4', { clusterIP: '10.96.7.8' }), undefined, testContext, peers(), claims))?.();
});

test('node ports: allocated apart from others, taken or out-of-range ones refused, shared per port number', async () => {
  const other = svc('np', { type: 'NodePort', clusterIP: '10.96.9.9', ports: [{ port: 80, nodePort: 30080 }] });
  const obj = svc('n', { type: 'NodePort', ports: [{ name: 'dns', port: 53, protocol: 'TCP' }, { name: 'dns-udp', port: 53, protocol: 'UDP' }, { name: 'web', port: 80 }] });
  (await beginServiceWrite(obj, undefined, testContext, peers(other), claims))?.();
  const ports = (obj.spec as { ports: { nodePort: number }[] }).ports;
  assert.equal(ports[0].nodePort, ports[1].nodePort);
  assert.notEqual(ports[2].nodePort, ports[0].nodePort);
  for (const p of ports) assert.notEqual(p.nodePort, 30080);

  const taken = await refusal(beginServiceWrite(svc('m', { type: 'NodePort', ports: [{ port: 81, nodePort: 30080 }] }), undefined, testContext, peers(other), claims));
  assert.equal(taken.message, 'Service "m" is invalid: spec.ports[0].nodePort: Invalid value: 30080: provided port is already allocated');
  const outside = await refusal(beginServiceWrite(svc('m', { type: 'NodePort', ports: [{ port: 81, nodePort: 80 }] }), undefined, testContext, peers(), claims));
  assert.equal(outside.message, 'Service "m" is invalid: spec.ports[0].nodePort: Invalid value: 80: provided port is not in the valid range. The range of valid ports is 30000-32767');
});

test('updates allocate only what the old object did not hold', async () => {
  const old = svc('u', { type: 'NodePort', clusterIP: '10.96.3.3', clusterIPs: ['10.96.3.3'], ports: [{ name: 'http', port: 80, nodePort: 30111 }] });
  const same = svc('u', { type: 'NodePort', ports: [{ name: 'http', port: 80 }] });
  assert.equal(await beginServiceWrite(same, old, testContext, peers(old), claims), undefined);
  assert.equal((same.spec as { clusterIP?: string }).clusterIP, undefined);
  const external = svc('e', { type: 'ExternalName', externalName: 'db' });
  const toClusterIP = svc('e', { type: 'ClusterIP', ports: [{ port: 80 }] });
  (await beginServiceWrite(toClusterIP, external, testContext, peers(external, old), claims))?.();
  const ip = (toClusterIP.spec as { clusterIP: string }).clusterIP;
  assert.ok(ip && ip !== '10.96.3.3' && ip !== KUBERNETES_SERVICE_IP, ip);
});

test('claims in storage: a value claimed by another write (any instance) is refused or picked again; stale claims expire', async () => {
  const storage = createMemoryStorage();
  let clock = Date.parse('2026-01-01T00:00:00Z');
  const shared = storageClaims(storage, () => new Date(clock));
  // Another instance's write in flight holds 10.96.5.5 and node port 30500.
  await storage.create('/registry/ranges/serviceips/10.96.5.5', JSON.stringify({ holder: 'other/x', at: clock }));
  await storage.create('/registry/ranges/servicenodeports/30500', JSON.stringify({ holder: 'other/x', at: clock }));
  const err = await refusal(beginServiceWrite(svc('a', { clusterIP: '10.96.5.5' }), undefined, testContext, peers(), shared));
  assert.equal(err.message, 'Service "a" is invalid: spec.clusterIPs: Invalid value: []string{"10.96.5.5"}: failed to allocate IP 10.96.5.5: provided IP is already allocated');
  const port = await refusal(beginServiceWrite(svc('p', { type: 'NodePort', clusterIP: '10.96.5.6', ports: [{ port: 80, nodePort: 30500 }] }), undefined, testContext, peers(), shared));
  assert.equal(port.message, 'Service "p" is invalid: spec.ports[0].nodePort: Invalid value: 30500: provided port is already allocated');
  assert.equal(await storage.count('/registry/ranges/serviceips/'), 1, 'a refused write leaves no claim behind');

  // A random pick holds its claim until the write is over; then the value can be claimed again.
  const obj = svc('r', { ports: [{ port: 80 }] });
  const release = await beginServiceWrite(obj, undefined, testContext, peers(), shared);
  assert.ok(release);
  assert.equal(await storage.count('/registry/ranges/serviceips/'), 2, 'the write holds its claim until released');
  release();
  const reuse = await beginServiceWrite(svc('again', { clusterIP: (obj.spec as { clusterIP: string }).clusterIP }), undefined, testContext, peers(), shared);
  assert.ok(reuse, 'a released claim can be claimed again');
  reuse();

  // The holder died: past the claim's lifetime its value can be taken.
  clock += CLAIM_TTL_MS + 1;
  (await beginServiceWrite(svc('late', { clusterIP: '10.96.5.5' }), undefined, testContext, peers(), shared))?.();
});
