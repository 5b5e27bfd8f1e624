// The lease endpoint reconciler on a real etcd: instances sharing it are listed in the kubernetes Endpoints and
// EndpointSlice while their master leases live; a graceful stop removes its lease at once, a killed instance's
// lease expires (TTLs of a few seconds here in place of kube's 15 s).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { startEtcdCluster, type EtcdCluster } from '../storage/etcd/test-cluster.ts';
import { openEtcdStorage, type EtcdStorage } from '../storage/etcd/etcd-storage.ts';
import { loopbackContext } from '../registry/registry.ts';
import type { RegistryHandle } from '../registry/registry.ts';
import { startWithControlPlane } from './testing.ts';
import { MASTER_LEASES_PREFIX, masterLeasesOf } from './master-leases.ts';

let etcd: EtcdCluster;
before(async () => {
  etcd = await startEtcdCluster(1);
});
after(async () => {
  await etcd?.close();
});

let root = 0;
const openStorage = (prefix: string, servers = etcd.clientUrls) => openEtcdStorage({ servers, localPrefix: '/registry', remotePrefix: prefix, callTimeoutMs: 1000 });

/** A TCP relay to the etcd member: cut() drops every connection and refuses new ones (the instance behind it is gone for etcd). */
async function relay(target: string): Promise<{ url: string; cut(): void; close(): Promise<void> }> {
  const { hostname, port } = new URL(target);
  const sockets = new Set<net.Socket>();
  let cut = false;
  const server = net.createServer((client) => {
    if (cut) return client.destroy();
    const upstream = net.connect(Number(port), hostname);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => {});
    }
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`,
    cut() {
      cut = true;
      for (const s of sockets) s.destroy();
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

interface Instance {
  storage: EtcdStorage;
  registry: RegistryHandle;
}

async function startInstance(prefix: string, address: string, ttlSeconds: number, servers?: string[]): Promise<Instance> {
  const storage = await openStorage(prefix, servers);
  const leases = masterLeasesOf(storage, ttlSeconds);
  const registry = await startWithControlPlane({ storage, bootstrap: { securePort: 6443, advertiseAddress: address, resyncMs: 200, leases, onError: () => {} } });
  return { storage, registry };
}

async function endpointsOf(registry: RegistryHandle): Promise<{ endpoints: unknown; slice: unknown }> {
  const get = async (group: string, resource: string) => {
    const def = registry.lookup(group, 'v1', resource);
    assert.ok(def);
    return registry.store(def).get(loopbackContext('default'), 'kubernetes');
  };
  const eps = await get('', 'endpoints');
  const slice = await get('discovery.k8s.io', 'endpointslices');
  return { endpoints: eps.subsets, slice: slice.endpoints };
}

function expected(ips: string[]): { endpoints: unknown; slice: unknown } {
  return {
    endpoints: [{ addresses: ips.map((ip) => ({ ip })), ports: [{ name: 'https', port: 6443, protocol: 'TCP' }] }],
    slice: ips.map((ip) => ({ addresses: [ip], conditions: { ready: true } })),
  };
}

async function eventually(what: string, check: () => Promise<boolean>, timeoutMs: number): Promise<number> {
  const start = Date.now();
  for (;;) {
    if (await check()) return Date.now() - start;
    if (Date.now() - start > timeoutMs) assert.fail(`${what} within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

test('master leases: a TTL key per address holding the Endpoints kube stores, gone when not renewed', async () => {
  const storage = await openStorage(`/leases-${root++}`);
  try {
    const leases = masterLeasesOf(storage, 1);
    assert.ok(leases);
    await leases.update('192.0.2.2');
    await leases.update('192.0.2.1');
    await leases.update('192.0.2.1');
    assert.deepEqual(await leases.list(), ['192.0.2.1', '192.0.2.2']);
    const { kv } = await storage.get(`${MASTER_LEASES_PREFIX}192.0.2.1`);
    assert.equal(kv?.value, '{"kind":"Endpoints","apiVersion":"v1","metadata":{"generation":2,"creationTimestamp":null},"subsets":[{"addresses":[{"ip":"192.0.2.1"}]}]}');
    await leases.remove('192.0.2.2');
    await leases.remove('192.0.2.2');
    assert.deepEqual(await leases.list(), ['192.0.2.1']);
    await eventually('the lease expires', async () => (await leases.list()).length === 0, 4000);
  } finally {
    await storage.close();
  }
});

test('the kubernetes endpoints list every live instance, sorted; a stopped one leaves at once, a killed one when its lease expires', async () => {
  const prefix = `/reconciler-${root++}`;
  const link = await relay(etcd.clientUrls[0]);
  const a = await startInstance(prefix, '192.0.2.20', 30);
  const b = await startInstance(prefix, '192.0.2.3', 1, [link.url]);
  try {
    // b started second and listed both; sorted as strings, as kube's RepackSubsets sorts them.
    await eventually('both instances are listed', async () => JSON.stringify(await endpointsOf(a.registry)) === JSON.stringify(expected(['192.0.2.20', '192.0.2.3'])), 3000);

    // A graceful stop removes c's lease and its address, long before its 30 s TTL.
    const c = await startInstance(prefix, '192.0.2.100', 30);
    await eventually('c is listed', async () => JSON.stringify(await endpointsOf(a.registry)) === JSON.stringify(expected(['192.0.2.100', '192.0.2.20', '192.0.2.3'])), 3000);
    await c.registry.close();
    assert.deepEqual(await endpointsOf(b.registry), expected(['192.0.2.20', '192.0.2.3']));

    // b "dies": it loses etcd without a stop, so nothing removes or renews its 1 s lease.
    link.cut();
    const took = await eventually('b drops out', async () => JSON.stringify(await endpointsOf(a.registry)) === JSON.stringify(expected(['192.0.2.20'])), 5000);
    assert.ok(took >= 300, `b stayed listed until its lease expired (${took} ms)`);
  } finally {
    await b.registry.close().catch(() => {});
    await a.registry.close();
    await link.close();
  }
});
