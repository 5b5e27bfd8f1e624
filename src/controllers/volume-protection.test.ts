import { test } from 'node:test';
import assert from 'node:assert/strict';
import { storageObjectInUseProtection } from '../admission/plugins/storage-protection.ts';
import type { AdmissionAttributes } from '../admission/types.ts';
import { LOOPBACK_USER } from '../auth/user.ts';
import { createMemoryStorage } from '../storage/memory/memory-storage.ts';
import { createRegistry, loopbackContext, type RegistryHandle } from '../registry/registry.ts';
import type { KubeObject, ResourceStore } from '../registry/types.ts';
import { startWithControlPlane } from './testing.ts';
import { podIsShutDown, podUsesPVC, startVolumeProtection, type VolumeProtection } from './volume-protection.ts';

const PVC_FINALIZER = 'kubernetes.io/pvc-protection';
const PV_FINALIZER = 'kubernetes.io/pv-protection';

async function eventually<T>(probe: () => Promise<T | undefined>, ms = 3000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error('condition not reached');
    await new Promise((r) => setTimeout(r, 20));
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function claim(name: string, extra: Partial<KubeObject['metadata']> = {}, namespace = 'apps'): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: { name, namespace, ...extra },
    spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
  };
}

function pod(name: string, volumes: object[], opts: { nodeName?: string; uid?: string; namespace?: string; metadata?: Partial<KubeObject['metadata']> } = {}): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: opts.namespace ?? 'apps', ...(opts.uid ? { uid: opts.uid } : {}), ...opts.metadata },
    spec: { ...(opts.nodeName ? { nodeName: opts.nodeName } : {}), containers: [{ name: 'c', image: 'busybox' }], volumes },
  };
}

const claimVolume = (claimName: string) => ({ name: 'data', persistentVolumeClaim: { claimName } });
const ephemeralVolume = (name: string) => ({
  name,
  ephemeral: { volumeClaimTemplate: { spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } } },
});

test('podUsesPVC: scheduled pods only; claim volumes by name; ephemeral volumes owned by the pod unless it is shut down', () => {
  const pvc = claim('data');
  assert.equal(podUsesPVC(pod('p', [claimVolume('data')], { nodeName: 'n1' }), pvc), true);
  assert.equal(podUsesPVC(pod('p', [claimVolume('data')]), pvc), false, 'an unscheduled pod does not count');
  assert.equal(podUsesPVC(pod('p', [claimVolume('other')], { nodeName: 'n1' }), pvc), false);
  assert.equal(podUsesPVC(pod('p', [claimVolume('data')], { nodeName: 'n1', namespace: 'elsewhere' }), pvc), false);

  const shutDown = { deletionTimestamp: '2026-01-01T00:00:00Z', deletionGracePeriodSeconds: 0 };
  // A plain claim volume counts even for a pod that is shut down.
  assert.equal(podUsesPVC(pod('p', [claimVolume('data')], { nodeName: 'n1', metadata: shutDown }), pvc), true);

  const owned = claim('web-scratch', { ownerReferences: [{ apiVersion: 'v1', kind: 'Pod', name: 'web', uid: 'pod-uid', controller: true }] });
  const web = (metadata?: Partial<KubeObject['metadata']>) => pod('web', [ephemeralVolume('scratch')], { nodeName: 'n1', uid: 'pod-uid', metadata });
  assert.equal(podUsesPVC(web(), owned), true);
  assert.equal(podUsesPVC(web(shutDown), owned), false, 'a shut-down pod no longer uses its ephemeral claim');
  assert.equal(podUsesPVC(web({ deletionTimestamp: '2026-01-01T00:00:00Z', deletionGracePeriodSeconds: 30 }), owned), true, 'still terminating gracefully');
  assert.equal(podUsesPVC(web(), claim('web-scratch')), false, 'a claim the pod does not control');
  const ownedNotController = claim('web-scratch', { ownerReferences: [{ apiVersion: 'v1', kind: 'Pod', name: 'web', uid: 'pod-uid' }] });
  assert.equal(podUsesPVC(web(), ownedNotController), false);
  assert.equal(podUsesPVC(pod('web', [ephemeralVolume('scratch')], { nodeName: 'n1', uid: 'other-uid' }), owned), false);

  assert.equal(podIsShutDown(web(shutDown)), true);
  assert.equal(podIsShutDown(web({ deletionTimestamp: '2026-01-01T00:00:00Z', deletionGracePeriodSeconds: 1 })), false);
  assert.equal(podIsShutDown(web()), false);
});

function attrs(resource: string, operation: AdmissionAttributes['operation'], object: KubeObject, subResource = ''): AdmissionAttributes {
  return {
    kind: { group: '', version: 'v1', kind: object.kind ?? '' },
    resource: { group: '', version: 'v1', resource },
    subResource,
    name: object.metadata.name ?? '',
    namespace: object.metadata.namespace ?? '',
    operation,
    userInfo: LOOPBACK_USER,
    object,
    oldObject: undefined,
    dryRun: false,
    options: {},
    warnings: [],
    auditAnnotations: {},
  };
}

test('StorageObjectInUseProtection adds the protection finalizers on create only', async () => {
  const plugin = storageObjectInUseProtection();
  assert.equal(plugin.name, 'StorageObjectInUseProtection');
  assert.equal(plugin.handles?.('CREATE'), true);
  assert.equal(plugin.handles?.('UPDATE'), false);
  assert.equal(plugin.handles?.('DELETE'), false);

  const pvc = attrs('persistentvolumeclaims', 'CREATE', claim('a', { finalizers: ['example.com/keep'] }));
  await plugin.admit!(pvc);
  assert.deepEqual(pvc.object!.metadata.finalizers, ['example.com/keep', PVC_FINALIZER]);
  // Already there: unchanged.
  await plugin.admit!(pvc);
  assert.deepEqual(pvc.object!.metadata.finalizers, ['example.com/keep', PVC_FINALIZER]);

  const pv = attrs('persistentvolumes', 'CREATE', { apiVersion: 'v1', kind: 'PersistentVolume', metadata: { name: 'v' } });
  await plugin.admit!(pv);
  assert.deepEqual(pv.object!.metadata.finalizers, [PV_FINALIZER]);

  for (const other of [
    attrs('persistentvolumeclaims', 'CREATE', claim('b'), 'status'),
    attrs('persistentvolumeclaims', 'UPDATE', claim('c')),
    attrs('configmaps', 'CREATE', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm' } }),
  ]) {
    await plugin.admit!(other);
    assert.equal(other.object!.metadata.finalizers, undefined);
  }
});

interface Fixture {
  registry: RegistryHandle;
  controller: VolumeProtection;
  claims: ResourceStore;
  volumes: ResourceStore;
  pods: ResourceStore;
  close(): Promise<void>;
}

async function fixture(): Promise<Fixture> {
  const registry = await createRegistry({ storage: createMemoryStorage(), runtimeConfig: '', featureGates: {} });
  const store = (resource: string) => registry.store(registry.lookup('', 'v1', resource)!);
  for (const name of ['apps', 'other']) await store('namespaces').create(loopbackContext(), { metadata: { name } });
  const controller = startVolumeProtection(registry, { retryMs: 50 });
  return {
    registry,
    controller,
    claims: store('persistentvolumeclaims'),
    volumes: store('persistentvolumes'),
    pods: store('pods'),
    async close() {
      await controller.stop();
      await registry.close();
    },
  };
}

const gone = (store: ResourceStore, namespace: string, name: string) => async () => {
  try {
    await store.get(loopbackContext(namespace), name);
    return undefined;
  } catch (e) {
    return (e as { code?: number }).code === 404 ? true : undefined;
  }
};

test('pvc-protection: a claim used by a scheduled pod stays until the pod goes; pods are followed only meanwhile', async () => {
  const f = await fixture();
  try {
    const ctx = loopbackContext('apps');
    await f.claims.create(ctx, claim('data', { finalizers: [PVC_FINALIZER] }));
    // Pods that do not count: unscheduled, or in another namespace.
    await f.pods.create(ctx, pod('pending', [claimVolume('data')]));
    await f.pods.create(loopbackContext('other'), pod('elsewhere', [claimVolume('data')], { nodeName: 'n1', namespace: 'other' }));
    await f.pods.create(ctx, pod('user', [claimVolume('data')], { nodeName: 'n1' }));
    assert.equal(f.controller.followingPods(), false);

    const deleted = await f.claims.delete(ctx, 'data');
    assert.equal(deleted.deletedImmediately, false);
    await eventually(async () => (f.controller.followingPods() ? true : undefined));
    await sleep(150);
    await f.controller.idle();
    const kept = await f.claims.get(ctx, 'data');
    assert.ok(kept.metadata.deletionTimestamp);
    assert.deepEqual(kept.metadata.finalizers, [PVC_FINALIZER]);

    // A graceful delete leaves the pod terminating (no kubelet here): still in use.
    await f.pods.delete(ctx, 'user');
    await sleep(150);
    await f.controller.idle();
    assert.deepEqual((await f.claims.get(ctx, 'data')).metadata.finalizers, [PVC_FINALIZER]);

    await f.pods.delete(ctx, 'user', { gracePeriodSeconds: 0 });
    await eventually(gone(f.claims, 'apps', 'data'));
    await eventually(async () => (f.controller.followingPods() ? undefined : true));
  } finally {
    await f.close();
  }
});

test('pvc-protection: an unused claim goes at once; the finalizer is added to claims and volumes made without it', async () => {
  const f = await fixture();
  try {
    const ctx = loopbackContext('apps');
    await f.claims.create(ctx, claim('bare'));
    const withFinalizer = await eventually(async () => {
      const c = await f.claims.get(ctx, 'bare');
      return c.metadata.finalizers?.length ? c : undefined;
    });
    assert.deepEqual(withFinalizer.metadata.finalizers, [PVC_FINALIZER]);
    await f.volumes.create(loopbackContext(), { apiVersion: 'v1', kind: 'PersistentVolume', metadata: { name: 'bare-pv' }, spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], hostPath: { path: '/tmp/x' } } });
    const pv = await eventually(async () => {
      const v = await f.volumes.get(loopbackContext(), 'bare-pv');
      return v.metadata.finalizers?.length ? v : undefined;
    });
    assert.deepEqual(pv.metadata.finalizers, [PV_FINALIZER]);

    await f.claims.delete(ctx, 'bare');
    await eventually(gone(f.claims, 'apps', 'bare'));
    assert.equal(f.controller.followingPods(), false, 'no claim was kept: pods were never followed');
  } finally {
    await f.close();
  }
});

test('pvc-protection: an ephemeral claim is released once its pod is shut down, even while the pod object remains', async () => {
  const f = await fixture();
  try {
    const ctx = loopbackContext('apps');
    const web = await f.pods.create(ctx, pod('web', [ephemeralVolume('scratch')], { nodeName: 'n1', metadata: { finalizers: ['example.com/hold'] } }));
    const owner = { apiVersion: 'v1', kind: 'Pod', name: 'web', uid: web.metadata.uid!, controller: true, blockOwnerDeletion: true };
    await f.claims.create(ctx, claim('web-scratch', { finalizers: [PVC_FINALIZER], ownerReferences: [owner] }));
    // The same generated name without the pod as controller: not the pod's claim.
    await f.pods.create(ctx, pod('api', [ephemeralVolume('scratch')], { nodeName: 'n1' }));
    await f.claims.create(ctx, claim('api-scratch', { finalizers: [PVC_FINALIZER] }));

    await f.claims.delete(ctx, 'web-scratch');
    await f.claims.delete(ctx, 'api-scratch');
    await eventually(gone(f.claims, 'apps', 'api-scratch'));
    await f.controller.idle();
    assert.deepEqual((await f.claims.get(ctx, 'web-scratch')).metadata.finalizers, [PVC_FINALIZER]);

    // Force-deleted: the pod's finalizer keeps it, marked with a zero grace period: shut down.
    await f.pods.delete(ctx, 'web', { gracePeriodSeconds: 0 });
    const shutDown = await f.pods.get(ctx, 'web');
    assert.equal(shutDown.metadata.deletionGracePeriodSeconds, 0);
    await eventually(gone(f.claims, 'apps', 'web-scratch'));
    await f.pods.update(ctx, 'web', (cur) => ({ ...cur!, metadata: { ...cur!.metadata, finalizers: [] } }));
  } finally {
    await f.close();
  }
});

test('pv-protection: a Bound volume stays while Bound; other finalizers stay', async () => {
  const f = await fixture();
  try {
    const ctx = loopbackContext();
    await f.volumes.create(ctx, {
      apiVersion: 'v1',
      kind: 'PersistentVolume',
      metadata: { name: 'pv1', finalizers: [PV_FINALIZER, 'example.com/keep'] },
      spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], hostPath: { path: '/tmp/pv1' } },
    });
    await f.volumes.update(ctx, 'pv1', (cur) => ({ ...cur!, status: { phase: 'Bound' } }), { subresource: 'status' });
    await f.volumes.delete(ctx, 'pv1');
    await sleep(150);
    await f.controller.idle();
    const kept = await f.volumes.get(ctx, 'pv1');
    assert.ok(kept.metadata.deletionTimestamp);
    assert.deepEqual(kept.metadata.finalizers, [PV_FINALIZER, 'example.com/keep']);

    await f.volumes.update(ctx, 'pv1', (cur) => ({ ...cur!, status: { phase: 'Released' } }), { subresource: 'status' });
    const released = await eventually(async () => {
      const v = await f.volumes.get(ctx, 'pv1');
      return v.metadata.finalizers?.includes(PV_FINALIZER) ? undefined : v;
    });
    assert.deepEqual(released.metadata.finalizers, ['example.com/keep']);
    await f.volumes.update(ctx, 'pv1', (cur) => ({ ...cur!, metadata: { ...cur!.metadata, finalizers: [] } }));
    await eventually(gone(f.volumes, '', 'pv1'));
  } finally {
    await f.close();
  }
});

test('the control plane runs the protection controllers', async () => {
  const registry = await startWithControlPlane({ bootstrap: false });
  try {
    const claims = registry.store(registry.lookup('', 'v1', 'persistentvolumeclaims')!);
    const ctx = loopbackContext('default');
    await claims.create(ctx, claim('wired', {}, 'default'));
    const protectedClaim = await eventually(async () => {
      const c = await claims.get(ctx, 'wired');
      return c.metadata.finalizers?.length ? c : undefined;
    });
    assert.deepEqual(protectedClaim.metadata.finalizers, [PVC_FINALIZER]);
    await claims.delete(ctx, 'wired');
    await eventually(gone(claims, 'default', 'wired'));
  } finally {
    await registry.close();
  }
});
