// kube-controller-manager's pvc-protection and pv-protection controllers. A PersistentVolumeClaim being deleted keeps
// its kubernetes.io/pvc-protection finalizer while a scheduled pod of its namespace uses it (podUsesPVC); a
// PersistentVolume being deleted keeps kubernetes.io/pv-protection while its phase is Bound. Objects not being
// deleted that lack the finalizer get it (the StorageObjectInUseProtection admission plugin adds it on create; the
// controllers cover objects made without it). Claims and volumes are followed always (metadata-only events); pods
// only while some claim is kept for a pod (most servers never have one), so that the claim is looked at again as
// soon as such a pod changes or goes.

import { isStatusError } from '../apis/errors.ts';
import { PV_PROTECTION_FINALIZER, PVC_PROTECTION_FINALIZER } from '../admission/plugins/storage-protection.ts';
import { startInformer, type Informer } from '../registry/informer.ts';
import { loopbackContext } from '../registry/registry.ts';
import type { KubeObject, Registry, ResourceStore } from '../registry/types.ts';
import { claimsOfPod } from './pod-claims.ts';
import { createKeyedQueue, followWatch, type KeyedQueue } from './work-queue.ts';

type Obj = Record<string, unknown>;
const asObj = (v: unknown): Obj => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : {});
const isNotFound = (e: unknown): boolean => isStatusError(e) && e.code === 404;

const hasFinalizer = (o: KubeObject, finalizer: string): boolean => (o.metadata.finalizers ?? []).includes(finalizer);
/** protectionutil.IsDeletionCandidate. */
const isDeletionCandidate = (o: KubeObject, finalizer: string): boolean => !!o.metadata.deletionTimestamp && hasFinalizer(o, finalizer);
/** protectionutil.NeedToAddFinalizer. */
const needsFinalizer = (o: KubeObject, finalizer: string): boolean => !o.metadata.deletionTimestamp && !hasFinalizer(o, finalizer);

/** A pod kubelet is done with, or force-deleted: marked for deletion with a zero grace period. */
export function podIsShutDown(pod: KubeObject): boolean {
  return !!pod.metadata.deletionTimestamp && pod.metadata.deletionGracePeriodSeconds === 0;
}

/**
 * podUsesPVC: only a scheduled pod (spec.nodeName) counts; it uses the claim when a volume names it, or when an
 * ephemeral volume's generated claim is this claim and the claim's controller is the pod, unless the pod is shut
 * down (which lets a claim go whose pod waits on finalizers of its own).
 */
export function podUsesPVC(pod: KubeObject, pvc: KubeObject): boolean {
  if (!asObj(pod.spec).nodeName) return false;
  if ((pod.metadata.namespace ?? '') !== (pvc.metadata.namespace ?? '')) return false;
  const name = pvc.metadata.name ?? '';
  return claimsOfPod(pod).some(({ claim, ephemeral }) => {
    if (claim !== name) return false;
    if (!ephemeral) return true;
    if (podIsShutDown(pod)) return false;
    const controller = (pvc.metadata.ownerReferences ?? []).find((o) => o.controller === true);
    return controller !== undefined && controller.uid === pod.metadata.uid;
  });
}

export interface VolumeProtection {
  /** Resolves when everything queued so far has been processed. */
  idle(): Promise<void>;
  /** Whether the pod informer runs (some claim is kept for a pod). */
  followingPods(): boolean;
  stop(): Promise<void>;
}

/**
 * Takes `finalizer` out of an object (the update of the object without it; the store retries conflicts), or puts it
 * in. A vanished or replaced object is left alone.
 */
async function setFinalizer(store: ResourceStore, o: KubeObject, finalizer: string, present: boolean): Promise<void> {
  const uid = o.metadata.uid;
  await store
    .update(loopbackContext(o.metadata.namespace ?? ''), o.metadata.name ?? '', (cur) => {
      if (!cur || cur.metadata.uid !== uid || hasFinalizer(cur, finalizer) === present) return cur!;
      const finalizers = (cur.metadata.finalizers ?? []).filter((f) => f !== finalizer);
      if (present) finalizers.push(finalizer);
      return { ...cur, metadata: { ...cur.metadata, finalizers } };
    })
    .catch((e: unknown) => {
      if (!isNotFound(e)) throw e;
    });
}

async function getOrUndefined(store: ResourceStore, namespace: string, name: string): Promise<KubeObject | undefined> {
  try {
    return await store.get(loopbackContext(namespace), name, { resourceVersion: '0' });
  } catch (e) {
    if (isNotFound(e)) return undefined;
    throw e;
  }
}

/** `onObject`: called on every claim and volume event (the PersistentVolume binder starts on the first). */
export function startVolumeProtection(registry: Registry, options: { retryMs?: number; onObject?: () => void } = {}): VolumeProtection {
  const retryMs = options.retryMs ?? 1000;
  const storeOf = (resource: string): (() => ResourceStore | undefined) => () => {
    const def = registry.lookup('', 'v1', resource);
    return def ? registry.store(def) : undefined;
  };
  const claims = storeOf('persistentvolumeclaims');
  const volumes = storeOf('persistentvolumes');
  const pods = storeOf('pods');

  // ---- pvc-protection ----

  /** "namespace/name" of the claims being deleted that a pod was last seen using. */
  const blocked = new Set<string>();
  let podInformer: Informer | undefined;

  const enqueueClaimsOf = (pod: KubeObject | undefined): void => {
    if (!pod) return;
    for (const { claim } of claimsOfPod(pod)) {
      const key = `${pod.metadata.namespace ?? ''}/${claim}`;
      if (blocked.has(key)) claimQueue.enqueue(key);
    }
  };

  /** Pods are followed while some claim is blocked: their changes and deletions say which claims to look at again. */
  const followPods = (): void => {
    const store = pods();
    if (podInformer || !store || claimQueue.stopped) return;
    const informer = startInformer(store, { retryMs });
    podInformer = informer;
    informer.onEvent((_type, pod, old) => {
      enqueueClaimsOf(pod);
      if (old && old.metadata.uid !== pod.metadata.uid) enqueueClaimsOf(old);
    });
    // A pod may have gone between a claim's check and the informer's first list: every blocked claim again.
    void informer.synced().then(() => {
      if (podInformer === informer) for (const key of blocked) claimQueue.enqueue(key);
    });
  };
  const unblock = (key: string): void => {
    blocked.delete(key);
    if (blocked.size === 0 && podInformer) {
      podInformer.stop();
      podInformer = undefined;
    }
  };

  /** Any scheduled pod of the claim's namespace using it, from a live list (kube's askAPIServer). */
  async function inUse(pvc: KubeObject): Promise<boolean> {
    const store = pods();
    if (!store) return false;
    const list = await store.list(loopbackContext(pvc.metadata.namespace ?? ''), {});
    return list.items.some((pod) => podUsesPVC(pod, pvc));
  }

  async function syncClaim(key: string): Promise<void> {
    const store = claims();
    if (!store) return;
    const slash = key.indexOf('/');
    const pvc = await getOrUndefined(store, key.slice(0, slash), key.slice(slash + 1));
    if (!pvc) return unblock(key);
    if (isDeletionCandidate(pvc, PVC_PROTECTION_FINALIZER)) {
      if (await inUse(pvc)) {
        blocked.add(key);
        followPods();
        return;
      }
      unblock(key);
      return setFinalizer(store, pvc, PVC_PROTECTION_FINALIZER, false);
    }
    unblock(key);
    if (needsFinalizer(pvc, PVC_PROTECTION_FINALIZER)) await setFinalizer(store, pvc, PVC_PROTECTION_FINALIZER, true);
  }

  const claimQueue: KeyedQueue = createKeyedQueue(syncClaim, retryMs);
  const stopClaims = followWatch(
    claims,
    { ...loopbackContext(), metadataOnly: true },
    (ev) => {
      const pvc = ev.object as KubeObject;
      const key = `${pvc.metadata.namespace ?? ''}/${pvc.metadata.name ?? ''}`;
      if (ev.type === 'DELETED') return unblock(key);
      options.onObject?.();
      if (isDeletionCandidate(pvc, PVC_PROTECTION_FINALIZER) || needsFinalizer(pvc, PVC_PROTECTION_FINALIZER)) claimQueue.enqueue(key);
      else unblock(key);
    },
    claimQueue,
    retryMs,
  );

  // ---- pv-protection ----

  async function syncVolume(name: string): Promise<void> {
    const store = volumes();
    if (!store) return;
    const pv = await getOrUndefined(store, '', name);
    if (!pv) return;
    if (isDeletionCandidate(pv, PV_PROTECTION_FINALIZER)) {
      // A volume is in use while it is bound to a claim (the PV controller keeps its phase).
      if (asObj(pv.status).phase === 'Bound') return;
      return setFinalizer(store, pv, PV_PROTECTION_FINALIZER, false);
    }
    if (needsFinalizer(pv, PV_PROTECTION_FINALIZER)) await setFinalizer(store, pv, PV_PROTECTION_FINALIZER, true);
  }

  const volumeQueue: KeyedQueue = createKeyedQueue(syncVolume, retryMs);
  const stopVolumes = followWatch(
    volumes,
    { ...loopbackContext(), metadataOnly: true },
    (ev) => {
      const pv = ev.object as KubeObject;
      if (ev.type === 'DELETED') return;
      options.onObject?.();
      if (isDeletionCandidate(pv, PV_PROTECTION_FINALIZER) || needsFinalizer(pv, PV_PROTECTION_FINALIZER)) volumeQueue.enqueue(pv.metadata.name ?? '');
    },
    volumeQueue,
    retryMs,
  );

  return {
    async idle() {
      await Promise.all([claimQueue.idle(), volumeQueue.idle()]);
    },
    followingPods: () => podInformer !== undefined,
    async stop() {
      stopClaims();
      stopVolumes();
      podInformer?.stop();
      podInformer = undefined;
      await Promise.all([claimQueue.stop(), volumeQueue.stop()]);
    },
  };
}
