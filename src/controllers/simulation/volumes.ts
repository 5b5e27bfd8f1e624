// The simulated cluster's storage, as kind's local-path provisioner gives one: a default StorageClass `standard`
// (WaitForFirstConsumer, reclaim Delete) when the cluster has no default class, and an external provisioner that
// serves every class whose provisioner is not one of kube's in-tree names. A claim the PersistentVolume controller
// hands to it (the storage-provisioner annotation; for WaitForFirstConsumer classes once the scheduler has picked
// a node) gets a hostPath volume `pvc-<claim uid>` pre-bound to it, pinned to that node, which the controller then
// binds; a released volume of a Delete class is deleted. Events as the external-provisioner sidecar records them.

import { hostname } from 'node:os';
import { isStatusError } from '../../apis/errors.ts';
import type { KubeObject, Registry } from '../../registry/types.ts';
import { ANN_BETA_STORAGE_PROVISIONER, ANN_PROVISIONED_BY, ANN_SELECTED_NODE, ANN_STORAGE_PROVISIONER, classOf, PVCS, PVS, STORAGE_CLASSES } from '../persistent-volumes.ts';
import { createKeyedQueue } from '../work-queue.ts';
import type { EventSink } from '../events.ts';
import type { Informers } from '../informers.ts';
import { asObj, controllerAccount, ctxFor, ignoreConflictOrGone, key, splitKey, storeFor, type Obj } from './shared.ts';

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
  } as unknown as KubeObject;
  await store.create(ctxFor(), standard).catch((e) => {
    if (!isStatusError(e) || e.code !== 409) throw e;
  });
}

/** Whether the simulation provisions for this provisioner name (kube's in-tree names are kube's own plugins). */
export const simulatedProvisioner = (name: string): boolean => name !== '' && !name.startsWith('kubernetes.io/');

export function startVolumeProvisioner(informers: Informers, eventSink: EventSink): { stop(): Promise<void> } {
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
  }, 500, informers.activity);
  claims.onEvent((ev) => ev.type !== 'DELETED' && queue.enqueue(`pvc:${key(ev.object)}`));
  volumes.onEvent((ev) => ev.type !== 'DELETED' && queue.enqueue(`pv:${ev.object.metadata.name ?? ''}`));
  return { stop: queue.stop };
}
