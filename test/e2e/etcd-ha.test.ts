// Several Capstan instances on one etcd cluster (real etcd members started by the test).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { type TestServer } from './helpers.ts';
import { startHaPair, type HaPair } from './ha-pair.ts';

let pair: HaPair;
let a: TestServer;
let b: TestServer;

before(async () => {
  pair = await startHaPair();
  ({ a, b } = pair);
});

after(() => pair?.close());

test('a write acknowledged by one instance is visible to a consistent read on the other', async () => {
  for (let i = 0; i < 5; i++) {
    const made = await a.adminRequest('/api/v1/namespaces/default/configmaps', { method: 'POST', body: JSON.stringify({ metadata: { name: `cm-${i}` }, data: { i: String(i) } }) });
    assert.equal(made.status, 201, made.body);
    const rv = (JSON.parse(made.body) as { metadata: { resourceVersion: string } }).metadata.resourceVersion;
    const got = await b.adminRequest(`/api/v1/namespaces/default/configmaps/cm-${i}`);
    assert.equal(got.status, 200, got.body);
    assert.equal((JSON.parse(got.body) as { metadata: { resourceVersion: string } }).metadata.resourceVersion, rv);
    const list = await b.adminRequest('/api/v1/namespaces/default/configmaps');
    const names = (JSON.parse(list.body) as { items: { metadata: { name: string } }[] }).items.map((o) => o.metadata.name);
    assert.ok(names.includes(`cm-${i}`), `list on b after create ${i}: ${names.join(',')}`);
  }
});

test('two instances never hand out the same cluster IP or node port, even to concurrent creates', async () => {
  const create = (server: TestServer, name: string, spec: Record<string, unknown>) =>
    server.adminRequest('/api/v1/namespaces/default/services', { method: 'POST', body: JSON.stringify({ metadata: { name }, spec }) });
  // The same explicit values asked for by 8 writes at once, half on each instance: exactly one gets them.
  const ipRace = await Promise.all(Array.from({ length: 8 }, (_, i) => create(i % 2 ? a : b, `ip-${i}`, { clusterIP: '10.96.44.44', ports: [{ port: 80 }] })));
  assert.deepEqual(ipRace.map((r) => r.status).sort(), [201, 422, 422, 422, 422, 422, 422, 422], ipRace.map((r) => r.body).join('\n'));
  for (const r of ipRace.filter((x) => x.status === 422)) {
    assert.match(r.body, /spec.clusterIPs: Invalid value: \[\]string\{\\"10.96.44.44\\"\}: failed to allocate IP 10.96.44.44: provided IP is already allocated/);
  }
  const portRace = await Promise.all(Array.from({ length: 8 }, (_, i) => create(i % 2 ? a : b, `np-${i}`, { type: 'NodePort', ports: [{ port: 80, nodePort: 31999 }] })));
  assert.deepEqual(portRace.map((r) => r.status).sort(), [201, 422, 422, 422, 422, 422, 422, 422], portRace.map((r) => r.body).join('\n'));
  // Random picks from both instances at once: all different.
  const random = await Promise.all(Array.from({ length: 10 }, (_, i) => create(i % 2 ? a : b, `rnd-${i}`, { type: 'NodePort', ports: [{ port: 80 }] })));
  const specs = random.map((r) => {
    assert.equal(r.status, 201, r.body);
    return (JSON.parse(r.body) as { spec: { clusterIP: string; ports: { nodePort: number }[] } }).spec;
  });
  assert.equal(new Set(specs.map((s) => s.clusterIP)).size, 10);
  assert.equal(new Set(specs.map((s) => s.ports[0].nodePort)).size, 10);
});

interface Lease {
  metadata: { resourceVersion: string };
  spec: { holderIdentity?: string; leaseDurationSeconds?: number; leaseTransitions?: number };
}

async function leaseHolder(server: TestServer): Promise<string> {
  const r = await server.adminRequest('/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/kube-controller-manager');
  assert.equal(r.status, 200, r.body);
  return (JSON.parse(r.body) as Lease).spec.holderIdentity ?? '';
}

async function namespaceGone(server: TestServer, name: string): Promise<void> {
  for (let i = 0; i < 100; i++) {
    const r = await server.adminRequest(`/api/v1/namespaces/${name}`);
    if (r.status === 404) return;
    await new Promise((res) => setTimeout(res, 100));
  }
  assert.fail(`namespace ${name} was not deleted`);
}

test('controllers run on the Lease holder only; when it shuts down the other instance takes over', async () => {
  const holder = await leaseHolder(a);
  assert.match(holder, /_[0-9a-f-]{36}$/, 'holderIdentity is <hostname>_<uuid>');
  assert.equal(await leaseHolder(b), holder, 'both instances see one holder');
  // The namespace lifecycle controller (leader only) finishes a deletion asked of either instance.
  for (const [server, name] of [[a, 'gone-a'], [b, 'gone-b']] as const) {
    assert.equal((await server.adminRequest('/api/v1/namespaces', { method: 'POST', body: JSON.stringify({ metadata: { name } }) })).status, 201);
    await server.adminRequest('/api/v1/namespaces/default/configmaps', { method: 'POST', body: JSON.stringify({ metadata: { name: 'x', namespace: name } }) });
    assert.equal((await server.adminRequest(`/api/v1/namespaces/${name}`, { method: 'DELETE' })).status, 200);
    await namespaceGone(server, name);
  }
  // The leader stops: it releases the Lease and the other instance acquires it at its next retry.
  const [leader, other] = [a, b];
  const leaderId = holder;
  await leader.close();
  let next = '';
  for (let i = 0; i < 100 && (next === '' || next === leaderId); i++) {
    next = await leaseHolder(other);
    if (next === '' || next === leaderId) await new Promise((res) => setTimeout(res, 100));
  }
  assert.ok(next !== '' && next !== leaderId, `the other instance took the Lease (holder ${next})`);
  assert.equal((await other.adminRequest('/api/v1/namespaces', { method: 'POST', body: JSON.stringify({ metadata: { name: 'gone-c' } }) })).status, 201);
  assert.equal((await other.adminRequest('/api/v1/namespaces/gone-c', { method: 'DELETE' })).status, 200);
  await namespaceGone(other, 'gone-c');
});
