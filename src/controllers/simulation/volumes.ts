// The simulated cluster's storage, as kind's local-path provisioner gives one: a default StorageClass `standard`
// (WaitForFirstConsumer, reclaim Delete) when the cluster has no default class, and an external provisioner that
// serves every class whose provisioner is not one of kube's in-tree names. A claim the PersistentVolume controller
// hands to it (the storage-provisioner annotation; for WaitForFirstConsumer classes once the scheduler has picked
// a node) gets a hostPath volume `pvc-<claim uid>` pre-bound to it, pinned to that node, which the controller then
// binds; a released volume of a Delete class is deleted. Events as the external-provisioner sidecar records them.
// It resizes as well (the external-resizer sidecar, with kube-controller-manager's expand controller and the
// kubelet's node expansion around it): see resize() below. `standard` allows volume expansion, unlike kind's.

import { hostname } from 'node:os';
import { clockDate } from '../../apis/clock.ts';
import { isStatusError } from '../../apis/errors.ts';
import { rfc3339 } from '../../registry/store-codec.ts';
import { quantityNanos } from '../../registry/validation/quantity.ts';
import { claimsOfPod } from '../pod-claims.ts';
import type { KubeObject, Registry } from '../../registry/types.ts';
import { ANN_BETA_STORAGE_PROVISIONER, ANN_PROVISIONED_BY, ANN_SELECTED_NODE, ANN_STORAGE_PROVISIONER, classOf, PVCS, PVS, STORAGE_CLASSES } from '../persistent-volumes.ts';
import { createKeyedQueue } from '../work-queue.ts';
import type { EventSink } from '../events.ts';
import type { Informers } from '../informers.ts';
import { asObj, controllerAccount, controllerEvents, ctxFor, ignoreConflictOrGone, installOnce, key, kubeletEvents, PODS, splitKey, storeFor, type Obj } from './shared.ts';

export const SIMULATED_PROVISIONER = 'capstan.dev/hostpath';
export const DEFAULT_CLASS_ANNOTATION = 'storageclass.kubernetes.io/is-default-class';
const VOLUMES_DIR = '/var/lib/capstan/volumes';

/** kind's `standard` class, made when no class is the default. */
export async function ensureDefaultStorageClass(registry: Registry): Promise<void> {
  const store = storeFor(registry, STORAGE_CLASSES.group, STORAGE_CLASSES.version, STORAGE_CLASSES.resource);
  if (!store) return;
  const existing = (await store.list(ctxFor(), {})).items;
  if (existing.some((c) => c.metadata.annotations?.[DEFAULT_CLASS_ANNOTATION] === 'true' || c.metadata.name === 'standard')) return;
  const standard = {
    apiVersion: 'storage.k8s.io/v1',
    kind: 'StorageClass',
    metadata: { name: 'standard', annotations: { [DEFAULT_CLASS_ANNOTATION]: 'true' } },
    provisioner: SIMULATED_PROVISIONER,
    reclaimPolicy: 'Delete',
    volumeBindingMode: 'WaitForFirstConsumer',
    // Unlike kind's, so that tests can grow their claims (the simulated provisioner resizes too).
    allowVolumeExpansion: true,
  } as unknown as KubeObject;
  await installOnce(registry, STORAGE_CLASSES, standard);
}

/** Whether the simulation provisions for this provisioner name (kube's in-tree names are kube's own plugins). */
export const simulatedProvisioner = (name: string): boolean => name !== '' && !name.startsWith('kubernetes.io/');

/** The resize conditions (knownResizeConditions): the ones a resize replaces, leaving the others. */
const RESIZE_CONDITIONS = new Set(['Resizing', 'FileSystemResizePending', 'ControllerResizeError', 'NodeResizeError']);

/** MergeResizeConditionsOfPVC: the claim's status with these resize conditions in place of the old ones. */
function withResizeConditions(status: Obj, resize: Obj[]): Obj {
  const old = ((status.conditions as unknown[] | undefined) ?? []).map(asObj);
  const conditions = [...old.filter((c) => !RESIZE_CONDITIONS.has(String(c.type))), ...resize.map((c) => old.find((o) => o.type === c.type && o.status === c.status) ?? c)];
  const { conditions: _drop, ...rest } = status;
  // Go's omitempty: no conditions, no field.
  return conditions.length > 0 ? { ...rest, conditions } : rest;
}

const storageQuantity = (list: unknown): unknown => asObj(list).storage;
const sizeOf = (list: unknown): bigint => quantityNanos(storageQuantity(list)) ?? 0n;

export interface VolumeProvisionerOptions {
  /** Whether a node's simulated kubelet runs (it finishes file system resizes of the volumes its pods mount). */
  readonly kubeletRunning?: (node: string) => boolean;
}

export function startVolumeProvisioner(informers: Informers, eventSink: EventSink, options: VolumeProvisionerOptions = {}): { stop(): Promise<void> } {
  const user = controllerAccount('capstan-volume-provisioner');
  const claims = informers.of(PVCS);
  const volumes = informers.of(PVS).as(user);
  const classes = informers.of(STORAGE_CLASSES);
  const recorders = new Map<string, ReturnType<EventSink['recorder']>>();
  const eventsFor = (provisioner: string) => {
    let r = recorders.get(provisioner);
    if (!r) recorders.set(provisioner, (r = eventSink.recorder({ component: `${provisioner}_${hostname()}`, user, qps: 5, burst: 10 })));
    return r;
  };

  async function provision(claim: KubeObject): Promise<void> {
    const annotations = claim.metadata.annotations ?? {};
    const provisioner = annotations[ANN_STORAGE_PROVISIONER] ?? annotations[ANN_BETA_STORAGE_PROVISIONER] ?? '';
    if (!simulatedProvisioner(provisioner) || asObj(claim.spec).volumeName || claim.metadata.deletionTimestamp) return;
    const sc = classes.get('', classOf(claim)) as (KubeObject & Obj) | undefined;
    if (!sc || sc.provisioner !== provisioner) return;
    const node = annotations[ANN_SELECTED_NODE];
    if (sc.volumeBindingMode === 'WaitForFirstConsumer' && !node) return;
    const name = `pvc-${claim.metadata.uid}`;
    if (volumes.get('', name)) return;
    const namespace = claim.metadata.namespace ?? '';
    const events = eventsFor(provisioner);
    events.event(claim, 'Normal', 'Provisioning', `External provisioner is provisioning volume for claim "${namespace}/${claim.metadata.name}"`);
    const spec = asObj(claim.spec);
    const pv = {
      apiVersion: 'v1',
      kind: 'PersistentVolume',
      metadata: { name, annotations: { [ANN_PROVISIONED_BY]: provisioner } },
      spec: {
        accessModes: spec.accessModes,
        capacity: { storage: asObj(asObj(spec.resources).requests).storage },
        claimRef: { kind: 'PersistentVolumeClaim', namespace, name: claim.metadata.name, uid: claim.metadata.uid, apiVersion: 'v1', resourceVersion: claim.metadata.resourceVersion },
        hostPath: { path: `${VOLUMES_DIR}/${name}_${namespace}_${claim.metadata.name}`, type: 'DirectoryOrCreate' },
        persistentVolumeReclaimPolicy: sc.reclaimPolicy ?? 'Delete',
        storageClassName: sc.metadata.name,
        volumeMode: spec.volumeMode ?? 'Filesystem',
        ...(Array.isArray(sc.mountOptions) ? { mountOptions: sc.mountOptions } : {}),
        ...(node ? { nodeAffinity: { required: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'In', values: [node] }] }] } } } : {}),
      },
    } as unknown as KubeObject;
    try {
      await volumes.create('', pv);
    } catch (e) {
      if (isStatusError(e) && e.code === 409) return;
      events.event(claim, 'Warning', 'ProvisioningFailed', `failed to provision volume with StorageClass "${sc.metadata.name}": ${e instanceof Error ? e.message : String(e)}`);
      throw e;
    }
    events.event(claim, 'Normal', 'ProvisioningSucceeded', `Successfully provisioned volume ${name}`);
  }

  const claimWriter = claims.as(user);
  const pods = informers.of(PODS);
  const expandEvents = controllerEvents(eventSink, 'volume_expand', controllerAccount('expand-controller'));
  const setClaimStatus = (claim: KubeObject, status: (cur: KubeObject) => Obj) =>
    claimWriter.update(claim.metadata.namespace ?? '', claim.metadata.name ?? '', (cur) => (cur && cur.metadata.uid === claim.metadata.uid ? { ...cur, status: status(cur) } : cur!), { subresource: 'status' });

  /**
   * Expansion of a bound claim of a volume it made, asked for more than the claim has: kube-controller-manager's
   * expand controller leaves it to an external resizer (ExternalExpanding), which marks it Resizing, grows the
   * volume and leaves the file system to the kubelet (FileSystemResizePending), as CSI resizers do; the kubelet of a
   * running pod that mounts the claim then grows the file system and gives the claim its new capacity.
   */
  async function resize(claim: KubeObject): Promise<void> {
    const status = asObj(claim.status);
    const volumeName = String(asObj(claim.spec).volumeName ?? '');
    const pv = volumeName ? volumes.get('', volumeName) : undefined;
    if (status.phase !== 'Bound' || !pv || !simulatedProvisioner(pv.metadata.annotations?.[ANN_PROVISIONED_BY] ?? '') || claim.metadata.deletionTimestamp) return;
    const requested = asObj(asObj(claim.spec).resources).requests;
    const want = sizeOf(requested);
    if (want <= sizeOf(status.capacity)) return;
    const provisioner = pv.metadata.annotations?.[ANN_PROVISIONED_BY] ?? '';
    if (sizeOf(asObj(pv.spec).capacity) < want) {
      const at = rfc3339(clockDate());
      expandEvents.event(claim, 'Normal', 'ExternalExpanding', 'waiting for an external controller to expand this PVC');
      const resizing = await setClaimStatus(claim, (cur) => withResizeConditions(asObj(cur.status), [{ type: 'Resizing', status: 'True', lastProbeTime: null, lastTransitionTime: at }]));
      eventsFor(provisioner).event(resizing, 'Normal', 'Resizing', `External resizer is resizing volume ${volumeName}`);
      await volumes.update('', volumeName, (cur) => ({ ...cur!, spec: { ...asObj(cur!.spec), capacity: { ...asObj(asObj(cur!.spec).capacity), storage: storageQuantity(requested) } } }));
      const pending = { type: 'FileSystemResizePending', status: 'True', lastProbeTime: null, lastTransitionTime: rfc3339(clockDate()), message: 'Waiting for user to (re-)start a pod to finish file system resize of volume on node.' };
      claim = await setClaimStatus(resizing, (cur) => withResizeConditions(asObj(cur.status), [pending]));
      eventsFor(provisioner).event(claim, 'Normal', 'FileSystemResizeRequired', 'Require file system resize of volume on node');
    }
    // The kubelet's part: a running pod on a running node that mounts the claim.
    const pod = pods.list(claim.metadata.namespace ?? '').find((p) => {
      const node = String(asObj(p.spec).nodeName ?? '');
      return node && asObj(p.status).phase === 'Running' && !p.metadata.deletionTimestamp && options.kubeletRunning?.(node) !== false && claimsOfPod(p).some((c) => c.claim === claim.metadata.name);
    });
    if (!pod) return;
    const grown = volumes.get('', volumeName) ?? pv;
    claim = await setClaimStatus(claim, (cur) => withResizeConditions({ ...asObj(cur.status), capacity: { ...asObj(asObj(cur.status).capacity), storage: storageQuantity(asObj(grown.spec).capacity) } }, []));
    const node = String(asObj(pod.spec).nodeName);
    kubeletEvents(eventSink, node).event(pod, 'Normal', 'FileSystemResizeSuccessful', `MountVolume.NodeExpandVolume succeeded for volume "${volumeName}" ${node}`);
  }

  /** A released volume it made, of reclaim policy Delete, is deleted. */
  async function reclaim(pv: KubeObject): Promise<void> {
    const provisioner = pv.metadata.annotations?.[ANN_PROVISIONED_BY] ?? '';
    if (!simulatedProvisioner(provisioner) || asObj(pv.status).phase !== 'Released' || asObj(pv.spec).persistentVolumeReclaimPolicy !== 'Delete' || pv.metadata.deletionTimestamp) return;
    await volumes.delete('', pv.metadata.name ?? '', { preconditions: { uid: pv.metadata.uid } }).catch(ignoreConflictOrGone);
  }

  const queue = createKeyedQueue(async (k) => {
    await Promise.all([claims.synced, volumes.synced, classes.synced]);
    if (k.startsWith('pv:')) {
      const pv = volumes.get('', k.slice(3));
      if (pv) await reclaim(pv);
      return;
    }
    const { namespace, name } = splitKey(k.slice(4));
    const claim = claims.get(namespace, name);
    if (claim) await provision(claim);
    const current = claims.get(namespace, name);
    if (current) await resize(current);
  }, 500, informers.activity);
  claims.onEvent((ev) => ev.type !== 'DELETED' && queue.enqueue(`pvc:${key(ev.object)}`));
  // A pod that starts running may finish a file system resize of a claim it mounts.
  pods.onEvent((ev) => {
    if (ev.type === 'DELETED' || asObj(ev.object.status).phase !== 'Running') return;
    for (const c of claimsOfPod(ev.object)) {
      const claim = claims.get(ev.object.metadata.namespace ?? '', c.claim);
      if (claim && sizeOf(asObj(asObj(claim.spec).resources).requests) > sizeOf(asObj(claim.status).capacity)) queue.enqueue(`pvc:${key(claim)}`);
    }
  });
  volumes.onEvent((ev) => ev.type !== 'DELETED' && queue.enqueue(`pv:${ev.object.metadata.name ?? ''}`));
  return { stop: queue.stop };
}
