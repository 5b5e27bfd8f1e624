// The lease endpoint reconciler with two Capstan instances on one real etcd: each keeps /registry/masterleases/<its
// advertise address>, the `kubernetes` Endpoints and EndpointSlice list both, and an instance that stops leaves them.
// The advertise addresses are documentation addresses (192.0.2.0/24): kube refuses loopback endpoints, and an
// advertised address need not be bound locally.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startEtcdCluster, type EtcdCluster } from '../../src/storage/etcd/test-cluster.ts';
import { startTestServer, type TestServer } from './helpers.ts';

let etcd: EtcdCluster;
let a: TestServer;
let b: TestServer | undefined;

before(async () => {
  etcd = await startEtcdCluster(1);
  const etcdOptions = { servers: etcd.clientUrls, prefix: '/registry', compactionIntervalMs: 0 };
  a = await startTestServer({ storageBackend: 'etcd3', etcd: etcdOptions, advertiseAddress: '192.0.2.11' });
  b = await startTestServer({ storageBackend: 'etcd3', etcd: etcdOptions, advertiseAddress: '192.0.2.10' });
});

after(async () => {
  await a?.close();
  await b?.close();
  await etcd?.close();
});

const leaseKeys = async () => (await etcd.etcdctl(['get', '/registry/masterleases/', '--prefix', '--keys-only'])).toString('utf8').split('\n').filter((l) => l !== '');

async function addressesOf(server: TestServer): Promise<{ endpoints: string; slice: string }> {
  return {
    endpoints: await server.kubectlOk(['get', 'endpoints', 'kubernetes', '-o', 'jsonpath={range .subsets[*].addresses[*]}{.ip} {end}|{.subsets[*].ports[*].port}']),
    slice: await server.kubectlOk(['get', 'endpointslices', 'kubernetes', '-o', 'jsonpath={.addressType}:{range .endpoints[*]}{.addresses[0]}={.conditions.ready} {end}|{.ports[*].port}']),
  };
}

test('both instances keep a master lease and are listed, sorted, with the secure port', async () => {
  assert.deepEqual(await leaseKeys(), ['/registry/masterleases/192.0.2.10', '/registry/masterleases/192.0.2.11']);
  const lease = JSON.parse((await etcd.etcdctl(['get', '/registry/masterleases/192.0.2.10', '--print-value-only'])).toString('utf8')) as Record<string, unknown>;
  assert.deepEqual({ ...lease, metadata: { ...(lease.metadata as object), generation: 1 } }, {
    kind: 'Endpoints',
    apiVersion: 'v1',
    metadata: { generation: 1, creationTimestamp: null },
    subsets: [{ addresses: [{ ip: '192.0.2.10' }] }],
  });
  // The key is attached to an etcd lease (an int64: read as digits, not as a JS number).
  const leaseId = /"lease":(\d+)/.exec((await etcd.etcdctl(['get', '/registry/masterleases/192.0.2.10', '-w', 'json'])).toString('utf8'))?.[1];
  assert.ok(leaseId);
  const ttl = (await etcd.etcdctl(['lease', 'timetolive', BigInt(leaseId).toString(16)])).toString('utf8');
  assert.match(ttl, /granted with TTL\(15s\)/);
  // Port 0 servers report kube's default secure port, as the Service's targetPort does.
  const expected = { endpoints: '192.0.2.10 192.0.2.11 |6443', slice: 'IPv4:192.0.2.10=true 192.0.2.11=true |6443' };
  assert.deepEqual(await addressesOf(a), expected);
  assert.ok(b);
  assert.deepEqual(await addressesOf(b), expected);
});

test('componentstatuses list the etcd storage as etcd-0, checked when asked', async () => {
  assert.equal(await a.kubectlOk(['get', 'componentstatuses', '-o', 'jsonpath={.items[*].metadata.name}']), 'controller-manager scheduler etcd-0');
  assert.equal(await a.kubectlOk(['get', 'componentstatus', 'etcd-0', '--no-headers']), 'etcd-0   Healthy   ok    \n');
});

test('an instance that stops removes its lease and leaves the endpoints at once', async () => {
  assert.ok(b);
  await b.close();
  b = undefined;
  assert.deepEqual(await leaseKeys(), ['/registry/masterleases/192.0.2.11']);
  assert.deepEqual(await addressesOf(a), { endpoints: '192.0.2.11 |6443', slice: 'IPv4:192.0.2.11=true |6443' });
});

test('an instance shutting down with a delay leaves the endpoints as the delay begins, while it still serves', async () => {
  const etcdOptions = { servers: etcd.clientUrls, prefix: '/registry', compactionIntervalMs: 0 };
  const c = await startTestServer({ storageBackend: 'etcd3', etcd: etcdOptions, advertiseAddress: '192.0.2.12', shutdownDelaySeconds: 5 });
  try {
    assert.deepEqual(await leaseKeys(), ['/registry/masterleases/192.0.2.11', '/registry/masterleases/192.0.2.12']);
    const started = Date.now();
    const closing = c.close();
    // Within the delay: the lease is gone and the other instance lists only itself, yet this one still answers (asked
    // first: the kubectl runs that read the endpoints take seconds on a loaded machine).
    const deadline = Date.now() + 2000;
    while ((await leaseKeys()).length > 1 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    assert.deepEqual(await leaseKeys(), ['/registry/masterleases/192.0.2.11']);
    assert.equal((await c.adminRequest('/api/v1/namespaces/default')).status, 200);
    assert.ok(Date.now() - started < 5000, 'answered within the delay');
    assert.deepEqual(await addressesOf(a), { endpoints: '192.0.2.11 |6443', slice: 'IPv4:192.0.2.11=true |6443' });
    await closing;
    assert.ok(Date.now() - started >= 5000, 'the shutdown waited out its delay');
  } finally {
    await c.close();
  }
});
