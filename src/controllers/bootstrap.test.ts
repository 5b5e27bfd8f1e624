import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createMemoryStorage } from '../storage/memory/memory-storage.ts';
import { loopbackContext } from '../registry/registry.ts';
import { startWithControlPlane } from './testing.ts';
import type { Registry, ResourceStore } from '../registry/types.ts';

function storeOf(registry: Registry, group: string, version: string, resource: string): ResourceStore {
  const def = registry.lookup(group, version, resource);
  assert.ok(def, `${group}/${version}/${resource}`);
  return registry.store(def);
}


test('the kubernetes Service, Endpoints and EndpointSlice, and the system PriorityClasses exist after start', async () => {
  const registry = await startWithControlPlane({ bootstrap: { securePort: 7443, resyncMs: 0, advertiseAddress: '192.0.2.10' } });
  try {
    const ctx = loopbackContext('default');
    const svc = await storeOf(registry, '', 'v1', 'services').get(ctx, 'kubernetes');
    assert.deepEqual(svc.metadata.labels, { component: 'apiserver', provider: 'kubernetes' });
    assert.deepEqual(svc.spec, {
      ports: [{ name: 'https', protocol: 'TCP', port: 443, targetPort: 7443 }],
      clusterIP: '10.96.0.1',
      sessionAffinity: 'None',
      type: 'ClusterIP',
      internalTrafficPolicy: 'Cluster',
      clusterIPs: ['10.96.0.1'],
      ipFamilyPolicy: 'SingleStack',
      ipFamilies: ['IPv4'],
    });
    const eps = await storeOf(registry, '', 'v1', 'endpoints').get(ctx, 'kubernetes');
    assert.deepEqual(eps.metadata.labels, { 'endpointslice.kubernetes.io/skip-mirror': 'true' });
    assert.deepEqual(eps.subsets, [{ addresses: [{ ip: '192.0.2.10' }], ports: [{ name: 'https', port: 7443, protocol: 'TCP' }] }]);
    const slice = await storeOf(registry, 'discovery.k8s.io', 'v1', 'endpointslices').get(ctx, 'kubernetes');
    assert.deepEqual(slice.metadata.labels, { 'kubernetes.io/service-name': 'kubernetes' });
    assert.equal(slice.addressType, 'IPv4');
    assert.deepEqual(slice.endpoints, [{ addresses: ['192.0.2.10'], conditions: { ready: true } }]);
    assert.deepEqual(slice.ports, [{ name: 'https', port: 7443, protocol: 'TCP' }]);
    const pcs = await storeOf(registry, 'scheduling.k8s.io', 'v1', 'priorityclasses').list(loopbackContext(), {});
    assert.deepEqual(
      pcs.items.map((p) => [p.metadata.name, p.value, p.preemptionPolicy]),
      [
        ['system-cluster-critical', 2000000000, 'PreemptLowerPriority'],
        ['system-node-critical', 2000001000, 'PreemptLowerPriority'],
      ],
    );
  } finally {
    await registry.close();
  }
});

test('a restart on the same storage rewrites nothing; a new port or a deleted Service is put back', async () => {
  const storage = createMemoryStorage();
  const ctx = loopbackContext('default');
  const versions = async (registry: Registry) =>
    Promise.all([
      storeOf(registry, '', 'v1', 'services').get(ctx, 'kubernetes'),
      storeOf(registry, '', 'v1', 'endpoints').get(ctx, 'kubernetes'),
      storeOf(registry, 'discovery.k8s.io', 'v1', 'endpointslices').get(ctx, 'kubernetes'),
      storeOf(registry, 'scheduling.k8s.io', 'v1', 'priorityclasses').get(loopbackContext(), 'system-node-critical'),
    ]).then((objs) => objs.map((o) => o.metadata.resourceVersion));
  const first = await startWithControlPlane({ storage, bootstrap: { resyncMs: 0, advertiseAddress: '192.0.2.10' } });
  const before = await versions(first);
  await first.close();

  const second = await startWithControlPlane({ storage, bootstrap: { resyncMs: 0, advertiseAddress: '192.0.2.10' } });
  assert.deepEqual(await versions(second), before);
  await second.close();

  const third = await startWithControlPlane({ storage, bootstrap: { securePort: 8443, resyncMs: 20, advertiseAddress: '192.0.2.10' } });
  try {
    const svc = await storeOf(third, '', 'v1', 'services').get(ctx, 'kubernetes');
    assert.deepEqual(svc.spec?.['ports' as never], [{ name: 'https', protocol: 'TCP', port: 443, targetPort: 8443 }]);
    const eps = await storeOf(third, '', 'v1', 'endpoints').get(ctx, 'kubernetes');
    assert.deepEqual(eps.subsets, [{ addresses: [{ ip: '192.0.2.10' }], ports: [{ name: 'https', port: 8443, protocol: 'TCP' }] }]);
    // The default port before: 6443.
    const [svcRV] = before;
    assert.notEqual(svc.metadata.resourceVersion, svcRV);

    await storeOf(third, '', 'v1', 'services').delete(ctx, 'kubernetes');
    const deadline = Date.now() + 3000;
    for (;;) {
      const back = await storeOf(third, '', 'v1', 'services').get(ctx, 'kubernetes').catch(() => undefined);
      if (back) {
        assert.equal((back.spec as { clusterIP: string }).clusterIP, '10.96.0.1');
        break;
      }
      if (Date.now() > deadline) assert.fail('the kubernetes Service was not recreated');
      await new Promise((r) => setTimeout(r, 20));
    }
  } finally {
    await third.close();
  }
});

test('Services created by clients never get the kubernetes Service IP nor share one', async () => {
  const registry = await startWithControlPlane({ bootstrap: { resyncMs: 0 } });
  try {
    const services = storeOf(registry, '', 'v1', 'services');
    const ctx = loopbackContext('default');
    const made = await Promise.all(Array.from({ length: 20 }, (_, i) => services.create(ctx, { metadata: { name: `s${i}` }, spec: { ports: [{ port: 80 }] } })));
    const ips = made.map((s) => (s.spec as { clusterIP: string }).clusterIP);
    assert.equal(new Set(ips).size, ips.length);
    assert.ok(!ips.includes('10.96.0.1'));
    await assert.rejects(services.create(ctx, { metadata: { name: 'dup' }, spec: { clusterIP: ips[0], ports: [{ port: 80 }] } }), {
      message: `Service "dup" is invalid: spec.clusterIPs: Invalid value: []string{"${ips[0]}"}: failed to allocate IP ${ips[0]}: provided IP is already allocated`,
    });
    // A refused create releases its reservation: the same IP is free again once its holder is gone.
    await services.delete(ctx, 's0');
    const reused = await services.create(ctx, { metadata: { name: 'dup' }, spec: { clusterIP: ips[0], ports: [{ port: 80 }] } });
    assert.equal((reused.spec as { clusterIP: string }).clusterIP, ips[0]);
  } finally {
    await registry.close();
  }
});

test('a loopback advertise address gets the Service but no Endpoints or EndpointSlice (kube refuses loopback endpoints)', async () => {
  const registry = await startWithControlPlane({ bootstrap: { resyncMs: 0, advertiseAddress: '127.0.0.1' } });
  try {
    const ctx = loopbackContext('default');
    const get = (group: string, resource: string) => registry.store(registry.lookup(group, 'v1', resource)!).get(ctx, 'kubernetes');
    assert.equal((await get('', 'services')).metadata.name, 'kubernetes');
    await assert.rejects(get('', 'endpoints'), /endpoints "kubernetes" not found/);
    await assert.rejects(get('discovery.k8s.io', 'endpointslices'), /endpointslices.discovery.k8s.io "kubernetes" not found/);
  } finally {
    await registry.close();
  }
});

test("kube-system's legacy token tracking ConfigMap: made with the day tracking began, kept across restarts, mended when its date does not parse", async () => {
  const storage = createMemoryStorage();
  const ctx = loopbackContext('kube-system');
  const tracking = (registry: Registry) => storeOf(registry, '', 'v1', 'configmaps').get(ctx, 'kube-apiserver-legacy-service-account-token-tracking');
  const first = await startWithControlPlane({ storage, bootstrap: { resyncMs: 0 } });
  const made = await tracking(first);
  assert.deepEqual(made.data, { since: new Date().toISOString().slice(0, 10) });
  await storeOf(first, '', 'v1', 'configmaps').update(ctx, made.metadata.name!, (cur) => ({ ...cur!, data: { since: '2020-01-01' } }));
  await first.close();
  const second = await startWithControlPlane({ storage, bootstrap: { resyncMs: 0 } });
  assert.deepEqual((await tracking(second)).data, { since: '2020-01-01' });
  await storeOf(second, '', 'v1', 'configmaps').update(ctx, made.metadata.name!, (cur) => ({ ...cur!, data: { since: 'yesterday' } }));
  await second.close();
  const third = await startWithControlPlane({ storage, bootstrap: { resyncMs: 0 } });
  try {
    assert.deepEqual((await tracking(third)).data, { since: new Date().toISOString().slice(0, 10) });
  } finally {
    await third.close();
  }
});
