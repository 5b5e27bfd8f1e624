// kube-controller-manager's PersistentVolume controller (persistentvolume-binder): an unbound claim is bound to the
// smallest available volume that satisfies it (access modes, capacity, class, volume mode, selector; a volume
// pre-bound to the claim first); with no match, a claim of a class with a provisioner is handed to it (the
// storage-provisioner annotations and kube's ExternalProvisioning event), a claim of a WaitForFirstConsumer class
// waits for the scheduler to pick a node. Volumes show Available, Bound, Released or Failed; a released volume is
// kept (Retain), left to its external provisioner to delete (Delete, dynamically provisioned), or failed as kube
// fails it when no in-tree plugin can delete or recycle it. Bound claims whose volume is gone are Lost. kube finds a
// new volume for a waiting claim at its next periodic resync (15 s); here a volume or class change re-checks the
// waiting claims at once.

import { isStatusError } from '../apis/errors.ts';
import { formatLabelSelector, labelsMatch, parseLabelSelector } from '../apis/labels.ts';
import { nodeSelectorMatches } from '../apis/node-selectors.ts';
import { loopbackContext } from '../registry/registry.ts';
import { jsonEqual } from '../registry/store-codec.ts';
import type { KubeObject, Registry } from '../registry/types.ts';
import { quantityNanos } from '../registry/validation/quantity.ts';
import { createEventSink, type EventRecorder } from './events.ts';
import { createInformers, type Informer, type ResourceRef } from './informers.ts';
import { asObj, controllerAccount, controllerEvents, ignoreConflictOrGone, key, splitKey, type Obj } from './simulation/shared.ts';
import { claimsOfPod } from './pod-claims.ts';
import { createKeyedQueue } from './work-queue.ts';

export const PVCS: ResourceRef = { group: '', version: 'v1', resource: 'persistentvolumeclaims' };
export const PVS: ResourceRef = { group: '', version: 'v1', resource: 'persistentvolumes' };
export const STORAGE_CLASSES: ResourceRef = { group: 'storage.k8s.io', version: 'v1', resource: 'storageclasses' };

export const ANN_BIND_COMPLETED = 'pv.kubernetes.io/bind-completed';
export const ANN_BOUND_BY_CONTROLLER = 'pv.kubernetes.io/bound-by-controller';
export const ANN_SELECTED_NODE = 'volume.kubernetes.io/selected-node';
export const ANN_STORAGE_PROVISIONER = 'volume.kubernetes.io/storage-provisioner';
export const ANN_BETA_STORAGE_PROVISIONER = 'volume.beta.kubernetes.io/storage-provisioner';
export const ANN_PROVISIONED_BY = 'pv.kubernetes.io/provisioned-by';
const ANN_BETA_CLASS = 'volume.beta.kubernetes.io/storage-class';
export const NO_PROVISIONER = 'kubernetes.io/no-provisioner';

/** GetPersistentVolumeClaimClass / GetPersistentVolumeClass: the beta annotation first, then storageClassName. */
export function classOf(obj: KubeObject): string {
  const beta = obj.metadata.annotations?.[ANN_BETA_CLASS];
  if (beta !== undefined) return beta;
  const name = asObj(obj.spec).storageClassName;
  return typeof name === 'string' ? name : '';
}

const storageOf = (spec: unknown, field: 'capacity' | 'requests'): bigint => {
  const list = field === 'capacity' ? asObj(asObj(spec).capacity) : asObj(asObj(asObj(spec).resources).requests);
  return quantityNanos(list.storage) ?? 0n;
};
const modesOf = (obj: KubeObject): string[] => ((asObj(obj.spec).accessModes as unknown[] | undefined) ?? []).map(String);
const volumeModeOf = (obj: KubeObject): string => String(asObj(obj.spec).volumeMode ?? 'Filesystem');
const claimRefOf = (pv: KubeObject): Obj | undefined => {
  const ref = asObj(pv.spec).claimRef;
  return ref && typeof ref === 'object' ? (ref as Obj) : undefined;
};
const phaseOf = (obj: KubeObject): string => String(asObj(obj.status).phase ?? '');

/** IsVolumeBoundToClaim: the volume's claimRef names the claim (and its uid, when it has one). */
export function isVolumeBoundToClaim(pv: KubeObject, claim: KubeObject): boolean {
  const ref = claimRefOf(pv);
  if (!ref || ref.name !== claim.metadata.name || (ref.namespace ?? '') !== (claim.metadata.namespace ?? '')) return false;
  return !ref.uid || ref.uid === claim.metadata.uid;
}

/** CheckAccessModes: the volume offers every mode the claim asks for. */
export function hasAccessModes(claim: KubeObject, pv: KubeObject): boolean {
  const offered = new Set(modesOf(pv));
  return modesOf(claim).every((m) => offered.has(m));
}

/** CheckNodeAffinity: a volume with required node affinity fits the nodes its selector matches. */
export function volumeFitsNode(pv: KubeObject, node: { metadata: { name?: string; labels?: Readonly<Record<string, string>> } }): boolean {
  return nodeSelectorMatches(asObj(asObj(pv.spec).nodeAffinity).required, node);
}

/**
 * FindMatchingVolume: a volume pre-bound to the claim, else the smallest available one of its class, volume mode
 * and selector with room for its request. On the scheduler's path (a node) the access modes and the volume's node
 * affinity count too; without one, claims of a WaitForFirstConsumer class only take volumes pre-bound to them.
 */
export function findMatchingVolume(claim: KubeObject, volumes: readonly KubeObject[], delayBinding: boolean, node?: KubeObject): KubeObject | undefined {
  const requested = storageOf(claim.spec, 'requests');
  const selector = asObj(claim.spec).selector;
  const requirements = selector ? parseLabelSelector(formatLabelSelector(selector)) : undefined;
  const className = classOf(claim);
  let best: KubeObject | undefined;
  let bestSize = 0n;
  for (const pv of volumes) {
    if (claimRefOf(pv) && !isVolumeBoundToClaim(pv, claim)) continue;
    const size = storageOf(pv.spec, 'capacity');
    if (size < requested || volumeModeOf(pv) !== volumeModeOf(claim) || pv.metadata.deletionTimestamp) continue;
    const fits = node === undefined || volumeFitsNode(pv, node);
    if (isVolumeBoundToClaim(pv, claim)) return fits ? pv : undefined;
    if (node === undefined && delayBinding) continue;
    if (phaseOf(pv) !== 'Available' || (requirements && !labelsMatch(requirements, pv.metadata.labels)) || classOf(pv) !== className || !fits) continue;
    if (node !== undefined && !hasAccessModes(claim, pv)) continue;
    if (!best || size < bestSize) {
      best = pv;
      bestSize = size;
    }
  }
  return best;
}

/**
 * persistentVolumeOrderedIndex.findByClaim: volumes are grouped by their access modes, and the groups offering every
 * mode the claim asks for are searched fewest modes first.
 */
export function findBestMatchForClaim(claim: KubeObject, volumes: readonly KubeObject[], delayBinding: boolean): KubeObject | undefined {
  const groups = new Map<string, KubeObject[]>();
  for (const pv of volumes) {
    const k = [...new Set(modesOf(pv))].sort().join(',');
    let group = groups.get(k);
    if (!group) groups.set(k, (group = []));
    group.push(pv);
  }
  const wanted = modesOf(claim);
  const usable = [...groups.entries()].filter(([k]) => wanted.every((m) => k.split(',').includes(m))).sort(([a], [b]) => a.split(',').length - b.split(',').length || (a < b ? -1 : 1));
  for (const [, group] of usable) {
    const found = findMatchingVolume(claim, group, delayBinding);
    if (found) return found;
  }
  return undefined;
}

/** The pods that name the claim in a volume (pods of the claim's namespace). */
function podsUsingClaim(pods: readonly KubeObject[], claim: KubeObject): KubeObject[] {
  return pods.filter((pod) => claimsOfPod(pod).some((c) => c.claim === claim.metadata.name));
}

/**
 * The claim's status for a phase (updateClaimStatus): with a volume its access modes, and its capacity when the
 * claim becomes Bound (not after: a claim's capacity behind its volume's is a file system resize still to come);
 * without one neither.
 */
function claimStatus(claim: KubeObject, phase: string, pv: KubeObject | undefined): Obj {
  const status: Obj = { ...asObj(claim.status), phase };
  if (pv) {
    status.accessModes = asObj(pv.spec).accessModes;
    if (asObj(claim.status).phase !== phase) status.capacity = asObj(pv.spec).capacity;
  } else {
    delete status.accessModes;
    delete status.capacity;
  }
  return status;
}

/** The volume sources kube's in-tree recycler serves (a volume of another kind cannot be recycled). */
const RECYCLABLE = ['hostPath', 'nfs'];

export interface PersistentVolumeBinder {
  stop(): Promise<void>;
}

export function startPersistentVolumeBinder(registry: Registry): PersistentVolumeBinder {
  const informers = createInformers(registry);
  const sink = createEventSink(informers);
  const user = controllerAccount('persistent-volume-binder');
  const events: EventRecorder = controllerEvents(sink, 'persistentvolume-controller', user);
  const claims: Informer = informers.of(PVCS).as(user);
  const volumes: Informer = informers.of(PVS).as(user);
  const classes: Informer = informers.of(STORAGE_CLASSES);
  const synced = Promise.all([claims.synced, volumes.synced, classes.synced]);

  async function updateClaimStatus(claim: KubeObject, phase: string, pv: KubeObject | undefined): Promise<KubeObject> {
    const status = claimStatus(claim, phase, pv);
    if (jsonEqual(status, claim.status ?? {})) return claim;
    return claims.update(claim.metadata.namespace ?? '', claim.metadata.name ?? '', (cur) => ({ ...cur!, status: claimStatus(cur!, phase, pv) }), { subresource: 'status' });
  }

  /** updateVolumePhase(WithEvent): the phase (and a message for Failed), with an event for the failures. */
  async function updateVolumePhase(pv: KubeObject, phase: string, failure?: { reason: string; message: string }): Promise<KubeObject> {
    const status: Obj = { ...asObj(pv.status), phase };
    if (failure) status.message = failure.message;
    if (jsonEqual(status, pv.status ?? {})) return pv;
    if (failure) events.event(pv, 'Warning', failure.reason, failure.message);
    return volumes.update('', pv.metadata.name ?? '', (cur) => ({ ...cur!, status: { ...asObj(cur!.status), ...status } }), { subresource: 'status' });
  }

  /** bind: the volume's claimRef, its phase, the claim's volumeName and annotations, the claim's status. */
  async function bind(pv: KubeObject, claim: KubeObject): Promise<void> {
    const ref = { kind: 'PersistentVolumeClaim', namespace: claim.metadata.namespace, name: claim.metadata.name, uid: claim.metadata.uid, apiVersion: 'v1', resourceVersion: claim.metadata.resourceVersion };
    const current = claimRefOf(pv);
    if (!current || current.uid !== claim.metadata.uid || current.name !== claim.metadata.name || current.namespace !== claim.metadata.namespace) {
      const byController = !isVolumeBoundToClaim(pv, claim);
      pv = await volumes.update('', pv.metadata.name ?? '', (cur) => {
        const annotations = byController ? { ...(cur!.metadata.annotations ?? {}), [ANN_BOUND_BY_CONTROLLER]: 'yes' } : cur!.metadata.annotations;
        return { ...cur!, metadata: { ...cur!.metadata, ...(annotations ? { annotations } : {}) }, spec: { ...asObj(cur!.spec), claimRef: ref } };
      });
    }
    pv = await updateVolumePhase(pv, 'Bound');
    const annotations = claim.metadata.annotations ?? {};
    if (asObj(claim.spec).volumeName !== pv.metadata.name || annotations[ANN_BIND_COMPLETED] !== 'yes') {
      const byController = asObj(claim.spec).volumeName !== pv.metadata.name;
      claim = await claims.update(claim.metadata.namespace ?? '', claim.metadata.name ?? '', (cur) => ({
        ...cur!,
        metadata: { ...cur!.metadata, annotations: { ...(cur!.metadata.annotations ?? {}), ...(byController ? { [ANN_BOUND_BY_CONTROLLER]: 'yes' } : {}), [ANN_BIND_COMPLETED]: 'yes' } },
        spec: { ...asObj(cur!.spec), volumeName: pv.metadata.name },
      }));
    }
    await updateClaimStatus(claim, 'Bound', pv);
  }

  /** IsDelayBindingMode: the claim's class binds when its first pod is scheduled. */
  function delayBinding(claim: KubeObject): boolean {
    const name = classOf(claim);
    if (!name) return false;
    const mode = asObj(classes.get('', name)).volumeBindingMode;
    return mode === 'WaitForFirstConsumer';
  }

  /** emitEventForUnboundDelayBindingClaim: the pods that wait to be scheduled, or their absence. */
  async function waitForConsumer(claim: KubeObject): Promise<void> {
    const def = registry.lookup('', 'v1', 'pods');
    const list = def ? (await registry.store(def).list(loopbackContext(claim.metadata.namespace ?? ''), {})).items : [];
    const waiting = podsUsingClaim(list, claim).filter((p) => !asObj(p.spec).nodeName).map((p) => p.metadata.name ?? '');
    if (waiting.length === 0) events.event(claim, 'Normal', 'WaitForFirstConsumer', 'waiting for first consumer to be created before binding');
    else events.event(claim, 'Normal', 'WaitForPodScheduled', `waiting for ${waiting.length > 1 ? 'pods' : 'pod'} ${waiting.join(',')} to be scheduled`);
  }

  /** provisionClaim: an external provisioner is asked through the claim's annotations; in-tree plugins there are none. */
  async function provisionClaim(claim: KubeObject): Promise<KubeObject> {
    const name = classOf(claim);
    const sc = classes.get('', name);
    if (!sc) {
      events.event(claim, 'Warning', 'ProvisioningFailed', `storageclass.storage.k8s.io "${name}" not found`);
      return claim;
    }
    const provisioner = String((sc as Obj).provisioner ?? '');
    if (provisioner.startsWith('kubernetes.io/')) {
      events.event(claim, 'Warning', 'ProvisioningFailed', `no volume plugin matched name: ${provisioner}`);
      return claim;
    }
    const annotations = claim.metadata.annotations ?? {};
    if (annotations[ANN_STORAGE_PROVISIONER] !== provisioner || annotations[ANN_BETA_STORAGE_PROVISIONER] !== provisioner) {
      claim = await claims.update(claim.metadata.namespace ?? '', claim.metadata.name ?? '', (cur) => ({
        ...cur!,
        metadata: { ...cur!.metadata, annotations: { ...(cur!.metadata.annotations ?? {}), [ANN_BETA_STORAGE_PROVISIONER]: provisioner, [ANN_STORAGE_PROVISIONER]: provisioner } },
      }));
    }
    events.event(
      claim,
      'Normal',
      'ExternalProvisioning',
      `Waiting for a volume to be created either by the external provisioner '${provisioner}' or manually by the system administrator. If volume creation is delayed, please verify that the provisioner is running and correctly registered.`,
    );
    return claim;
  }

  async function syncUnboundClaim(claim: KubeObject): Promise<void> {
    const volumeName = asObj(claim.spec).volumeName;
    if (!volumeName) {
      const delay = delayBinding(claim);
      const pv = findBestMatchForClaim(claim, volumes.list(), delay);
      if (pv) return bind(pv, claim);
      if (delay && !claim.metadata.annotations?.[ANN_SELECTED_NODE]) await waitForConsumer(claim);
      else if (classOf(claim) !== '') claim = await provisionClaim(claim);
      else events.event(claim, 'Normal', 'FailedBinding', 'no persistent volumes available for this claim and no storage class is set');
      await updateClaimStatus(claim, 'Pending', undefined);
      return;
    }
    const pv = volumes.get('', String(volumeName));
    if (!pv) {
      await updateClaimStatus(claim, 'Pending', undefined);
      return;
    }
    if (!claimRefOf(pv)) {
      const mismatch = volumeMismatch(pv, claim);
      if (!mismatch) return bind(pv, claim);
      events.event(claim, 'Warning', 'VolumeMismatch', `Cannot bind to requested volume "${pv.metadata.name}": ${mismatch}`);
      await updateClaimStatus(claim, 'Pending', undefined);
      return;
    }
    if (isVolumeBoundToClaim(pv, claim)) return bind(pv, claim);
    // Bound to another claim: the user asked for it, so it is waited for.
    await updateClaimStatus(claim, 'Pending', undefined);
  }

  async function syncBoundClaim(claim: KubeObject): Promise<void> {
    const volumeName = asObj(claim.spec).volumeName;
    const lost = (reason: string, message: string) => {
      if (phaseOf(claim) !== 'Lost') events.event(claim, 'Warning', reason, message);
      return updateClaimStatus(claim, 'Lost', undefined);
    };
    if (!volumeName) return void (await lost('ClaimLost', 'Bound claim has lost reference to PersistentVolume. Data on the volume is lost!'));
    const pv = volumes.get('', String(volumeName));
    if (!pv) return void (await lost('ClaimLost', 'Bound claim has lost its PersistentVolume. Data on the volume is lost!'));
    const ref = claimRefOf(pv);
    if (!ref || ref.uid === claim.metadata.uid) return bind(pv, claim);
    await lost('ClaimMisbound', 'Two claims are bound to the same volume, this one is bound incorrectly');
  }

  /** The claim a volume's claimRef names, from the cache or (not there yet) the store, if it is still that claim. */
  async function claimOf(pv: KubeObject, ref: Obj): Promise<KubeObject | undefined> {
    const namespace = String(ref.namespace ?? '');
    const name = String(ref.name ?? '');
    let claim = claims.get(namespace, name);
    if (!claim) {
      const store = claims.store();
      claim = store ? await store.get(loopbackContext(namespace), name).catch((e) => (isStatusError(e) && e.code === 404 ? undefined : Promise.reject(e))) : undefined;
    }
    return claim && claim.metadata.uid === ref.uid ? claim : undefined;
  }

  /** reclaimVolume for a released volume. */
  async function reclaim(pv: KubeObject): Promise<void> {
    const spec = asObj(pv.spec);
    switch (spec.persistentVolumeReclaimPolicy) {
      case 'Recycle':
        if (RECYCLABLE.some((s) => spec[s] !== undefined)) {
          // The in-tree recycler scrubs the volume; here there is nothing to scrub.
          const unbound = await volumes.update('', pv.metadata.name ?? '', (cur) => {
            const annotations = { ...(cur!.metadata.annotations ?? {}) };
            delete annotations[ANN_BOUND_BY_CONTROLLER];
            const { claimRef: _ref, ...rest } = asObj(cur!.spec);
            return { ...cur!, metadata: { ...cur!.metadata, annotations }, spec: rest };
          });
          events.event(unbound, 'Normal', 'VolumeRecycled', 'Volume recycled');
          await updateVolumePhase(unbound, 'Available');
        } else await updateVolumePhase(pv, 'Failed', { reason: 'VolumeFailedRecycle', message: 'No recycler plugin found for the volume!' });
        return;
      case 'Delete': {
        const provisioner = pv.metadata.annotations?.[ANN_PROVISIONED_BY];
        // A volume an external provisioner made is deleted by it.
        if (provisioner && !provisioner.startsWith('kubernetes.io/')) return;
        await updateVolumePhase(pv, 'Failed', { reason: 'VolumeFailedDelete', message: `error getting deleter volume plugin for volume "${pv.metadata.name}": no deletable volume plugin matched` });
        return;
      }
      default:
        return;
    }
  }

  async function syncVolume(pv: KubeObject): Promise<void> {
    const ref = claimRefOf(pv);
    if (!ref || !ref.uid) {
      await updateVolumePhase(pv, 'Available');
      return;
    }
    const claim = await claimOf(pv, ref);
    if (!claim) {
      if (phaseOf(pv) !== 'Released' && phaseOf(pv) !== 'Failed') pv = await updateVolumePhase(pv, 'Released');
      await reclaim(pv);
      return;
    }
    const volumeName = asObj(claim.spec).volumeName;
    if (!volumeName) {
      claimQueue.enqueue(key(claim));
      return;
    }
    if (volumeName === pv.metadata.name) {
      await updateVolumePhase(pv, 'Bound');
      return;
    }
    // Bound to a claim that is bound elsewhere.
    if (pv.metadata.annotations?.[ANN_PROVISIONED_BY] && asObj(pv.spec).persistentVolumeReclaimPolicy === 'Delete') {
      if (phaseOf(pv) !== 'Released' && phaseOf(pv) !== 'Failed') pv = await updateVolumePhase(pv, 'Released');
      await reclaim(pv);
    } else if (pv.metadata.annotations?.[ANN_BOUND_BY_CONTROLLER]) {
      const unbound = await volumes.update('', pv.metadata.name ?? '', (cur) => {
        const annotations = { ...(cur!.metadata.annotations ?? {}) };
        delete annotations[ANN_BOUND_BY_CONTROLLER];
        const { claimRef: _ref, ...rest } = asObj(cur!.spec);
        return { ...cur!, metadata: { ...cur!.metadata, annotations }, spec: rest };
      });
      await updateVolumePhase(unbound, 'Available');
    }
  }

  const claimQueue = createKeyedQueue(async (k) => {
    await synced;
    const { namespace, name } = splitKey(k);
    const claim = claims.get(namespace, name);
    if (!claim || claim.metadata.deletionTimestamp) return;
    await (claim.metadata.annotations?.[ANN_BIND_COMPLETED] ? syncBoundClaim(claim) : syncUnboundClaim(claim)).catch(ignoreConflictOrGone);
  }, 1000, informers.activity);
  const volumeQueue = createKeyedQueue(async (name) => {
    await synced;
    const pv = volumes.get('', name);
    if (!pv) return;
    await syncVolume(pv).catch(ignoreConflictOrGone);
  }, 1000, informers.activity);

  /** The claims waiting for a volume: a new or changed volume or class may be theirs. */
  const retryWaitingClaims = () => {
    for (const claim of claims.list()) if (!claim.metadata.annotations?.[ANN_BIND_COMPLETED]) claimQueue.enqueue(key(claim));
  };
  claims.onEvent((ev) => {
    if (ev.type === 'DELETED') {
      const volumeName = asObj(ev.object.spec).volumeName;
      if (volumeName) volumeQueue.enqueue(String(volumeName));
      return;
    }
    if (ev.written !== 'status') claimQueue.enqueue(key(ev.object));
  });
  volumes.onEvent((ev) => {
    if (ev.type === 'DELETED') {
      const ref = claimRefOf(ev.object);
      if (ref) claimQueue.enqueue(`${String(ref.namespace ?? '')}/${String(ref.name ?? '')}`);
      return;
    }
    volumeQueue.enqueue(ev.object.metadata.name ?? '');
    if (ev.written === undefined || phaseOf(ev.object) === 'Available') retryWaitingClaims();
  });
  classes.onEvent(() => retryWaitingClaims());

  return {
    async stop() {
      await claimQueue.stop();
      await volumeQueue.stop();
      await sink.stop();
      await informers.stop();
    },
  };
}

/** checkVolumeSatisfyClaim: why a volume the claim names cannot be its (undefined: it can). */
function volumeMismatch(pv: KubeObject, claim: KubeObject): string | undefined {
  if (storageOf(pv.spec, 'capacity') < storageOf(claim.spec, 'requests')) return 'requested PV is too small';
  if (classOf(pv) !== classOf(claim)) return 'storageClassName does not match';
  if (volumeModeOf(pv) !== volumeModeOf(claim)) return 'incompatible volumeMode';
  if (!hasAccessModes(claim, pv)) return 'incompatible accessMode';
  return undefined;
}
