// kube-controller-manager's ephemeral volume controller: a pod's generic ephemeral volume gets its claim,
// `<pod>-<volume>` from the volume's claim template, controlled by the pod (the garbage collector takes it with the
// pod). A claim of that name the pod does not control is an error, reported on the pod as kube's FailedBinding event.
// A claim deleted while its pod lives is made again.

import { StatusError } from '../../apis/errors.ts';
import type { KubeObject } from '../../registry/types.ts';
import type { EventSink } from '../events.ts';
import type { Informers } from '../informers.ts';
import { createKeyedQueue } from '../work-queue.ts';
import { claimsOfPod } from '../pod-claims.ts';
import { PVCS } from '../persistent-volumes.ts';
import { asObj, controllerAccount, controllerEvents, controllerRef, key, PODS, splitKey } from './shared.ts';

const WRITER = controllerAccount('ephemeral-volume-controller');

const ephemeralVolumes = (pod: KubeObject) => ((asObj(pod.spec).volumes as unknown[] | undefined) ?? []).map(asObj).filter((v) => v.ephemeral !== undefined && typeof v.name === 'string');

export function startEphemeralVolumeController(informers: Informers, eventSink: EventSink): { stop(): Promise<void> } {
  const pods = informers.of(PODS);
  const claims = informers.of(PVCS).as(WRITER);
  const events = controllerEvents(eventSink, 'ephemeral_volume', WRITER);
  const synced = Promise.all([pods.synced, claims.synced]);

  const queue = createKeyedQueue(async (k) => {
    await synced;
    const { namespace, name } = splitKey(k);
    const pod = pods.get(namespace, name);
    if (!pod || pod.metadata.deletionTimestamp) return;
    for (const volume of ephemeralVolumes(pod)) {
      const claimName = `${name}-${String(volume.name)}`;
      try {
        const existing = claims.get(namespace, claimName);
        if (existing) {
          if (!existing.metadata.ownerReferences?.some((o) => o.controller === true && o.uid === pod.metadata.uid)) {
            throw new StatusError(409, '', `PVC ${namespace}/${claimName} was not created for pod ${namespace}/${name} (pod is not owner)`);
          }
          continue;
        }
        const template = asObj(asObj(volume.ephemeral).volumeClaimTemplate);
        const meta = asObj(template.metadata);
        try {
          await claims.create(namespace, {
            apiVersion: 'v1',
            kind: 'PersistentVolumeClaim',
            metadata: {
              name: claimName,
              namespace,
              ownerReferences: [controllerRef(pod, 'v1', 'Pod')],
              ...(meta.annotations ? { annotations: { ...(meta.annotations as Record<string, string>) } } : {}),
              ...(meta.labels ? { labels: { ...(meta.labels as Record<string, string>) } } : {}),
            },
            spec: structuredClone(asObj(template.spec)),
          });
        } catch (e) {
          throw new StatusError(500, '', `create PVC ${claimName}: ${e instanceof Error ? e.message : String(e)}`);
        }
      } catch (e) {
        events.event(pod, 'Warning', 'FailedBinding', `ephemeral volume ${String(volume.name)}: ${e instanceof Error ? e.message : String(e)}`);
        throw e;
      }
    }
  }, 1000, informers.activity);

  // A pod's spec cannot change: only new pods are looked at (and, for a claim deleted, the pods that use it).
  pods.onEvent((ev) => {
    if (ev.type === 'ADDED' && ephemeralVolumes(ev.object).length > 0) queue.enqueue(key(ev.object));
  });
  claims.onEvent((ev) => {
    if (ev.type !== 'DELETED') return;
    const namespace = ev.object.metadata.namespace ?? '';
    for (const pod of pods.list(namespace)) {
      if (claimsOfPod(pod).some((c) => c.ephemeral && c.claim === ev.object.metadata.name)) queue.enqueue(key(pod));
    }
  });
  // The pods already there when the controller starts.
  void synced.then(() => {
    for (const pod of pods.list()) if (ephemeralVolumes(pod).length > 0) queue.enqueue(key(pod));
  });
  return { stop: queue.stop };
}
