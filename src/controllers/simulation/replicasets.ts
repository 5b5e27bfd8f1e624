// The ReplicaSet controller: as many active pods as spec.replicas (created from the template with a controller
// reference, the surplus deleted not-ready and newest first), and status counts of the pods it controls. kube runs the
// same controller for ReplicationControllers (its replication-controller), which select by a plain map of labels.

import { clockDate, clockNow, onClockChange } from '../../apis/clock.ts';
import { rfc3339 } from '../../registry/store-codec.ts';
import type { KubeObject } from '../../registry/types.ts';
import type { EventRecorder, EventSink } from '../events.ts';
import type { Informer, Informers } from '../informers.ts';
import type { UserInfo } from '../../auth/user.ts';
import { labelsMatch } from '../../apis/labels.ts';
import { asObj, claim, controllerEvents, controllerOf, controllerRef, isConflictOrGone, key, PODS, podActive, podReady, REPLICASETS, REPLICATION_CONTROLLERS, selectorOf, startLoop, writeStatus, type Loop, type Obj, WRITERS } from './shared.ts';
import { podsToDelete } from './pod-deletion-order.ts';
import { yieldWhenSliceSpent } from '../work-queue.ts';

/** A pod from a controller's pod template. */
export function podFromTemplate(owner: KubeObject, ownerApiVersion: string, ownerKind: string, template: Obj, extra: { name?: string; generateName?: string; nodeName?: string } = {}): KubeObject {
  const meta = asObj(template.metadata);
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      ...(extra.name ? { name: extra.name } : { generateName: extra.generateName ?? `${owner.metadata.name}-` }),
      namespace: owner.metadata.namespace,
      ...(meta.labels ? { labels: { ...(meta.labels as Record<string, string>) } } : {}),
      ...(meta.annotations ? { annotations: { ...(meta.annotations as Record<string, string>) } } : {}),
      ownerReferences: [controllerRef(owner, ownerApiVersion, ownerKind)],
    },
    spec: { ...asObj(template.spec), ...(extra.nodeName ? { nodeName: extra.nodeName } : {}) },
  };
}

/**
 * When a ready pod counts as available (podutil.IsPodAvailable): once its Ready condition has been True for more than
 * minReadySeconds; undefined: not ready.
 */
export function availableFrom(pod: KubeObject, minReadySeconds: number): number | undefined {
  if (!podReady(pod)) return undefined;
  if (minReadySeconds <= 0) return 0;
  const ready = ((asObj(pod.status).conditions as unknown[] | undefined) ?? []).map(asObj).find((c) => c.type === 'Ready');
  const since = Date.parse(String(ready?.lastTransitionTime ?? ''));
  return Number.isNaN(since) ? undefined : since + minReadySeconds * 1000;
}

/** podutil.IsPodAvailable at `at`: ready, and (with minReadySeconds) ready for longer than that. */
export function podAvailable(pod: KubeObject, minReadySeconds: number, at: number): boolean {
  const from = availableFrom(pod, minReadySeconds);
  return from !== undefined && (minReadySeconds <= 0 || from < at);
}

/** An owner's spec.minReadySeconds (0 when unset). */
export function minReadySecondsOf(owner: KubeObject): number {
  const v = asObj(owner.spec).minReadySeconds;
  return typeof v === 'number' ? v : 0;
}

/** Queues the owner again for when the next of its ready pods becomes available on the running clock. */
export function recheckWhenAvailable(loop: Loop, owner: KubeObject, pods: readonly KubeObject[], at: number): void {
  const minReadySeconds = minReadySecondsOf(owner);
  if (minReadySeconds <= 0) return;
  const next = Math.min(...pods.map((p) => availableFrom(p, minReadySeconds)).filter((t): t is number => t !== undefined && t >= at));
  if (Number.isFinite(next)) loop.enqueue(key(owner), next - at + 10);
}

/**
 * The loop with every owner that has minReadySeconds queued again whenever the test controls move the clock (pods
 * become available then too).
 */
export function requeuedOnClock(loop: Loop, owners: Informer): Loop {
  const off = onClockChange(() => {
    for (const owner of owners.list()) if (minReadySecondsOf(owner) > 0) loop.enqueue(key(owner));
  });
  return {
    enqueue: loop.enqueue,
    async stop() {
      off();
      await loop.stop();
    },
  };
}

/**
 * getIndirectlyRelatedPods: the pods the selectors of every set with the same controller select (a Deployment's
 * ReplicaSets); none for a set without a controller.
 */
function relatedPods(sets: Informer, pods: Informer, set: KubeObject): KubeObject[] {
  const owner = controllerOf(set);
  if (!owner) return [];
  const namespace = set.metadata.namespace ?? '';
  const seen = new Set<string>();
  const related: KubeObject[] = [];
  for (const sibling of sets.controlledBy(owner.uid)) {
    const requirements = selectorOf(sibling);
    if (!requirements || (sibling.metadata.namespace ?? '') !== namespace) continue;
    for (const pod of pods.list(namespace)) {
      const uid = pod.metadata.uid ?? '';
      if (seen.has(uid) || !labelsMatch(requirements, pod.metadata.labels)) continue;
      seen.add(uid);
      related.push(pod);
    }
  }
  return related;
}

/**
 * kube's PodControl: creates a pod for a controller and records SuccessfulCreate ("Created pod: <name>"), or
 * FailedCreate ("Error creating: <error>") and throws.
 */
export async function createControlledPod(pods: Informer, events: EventRecorder, owner: KubeObject, pod: KubeObject): Promise<KubeObject> {
  try {
    const made = await pods.create(owner.metadata.namespace ?? '', pod);
    events.event(owner, 'Normal', 'SuccessfulCreate', `Created pod: ${made.metadata.name}`);
    return made;
  } catch (e) {
    events.event(owner, 'Warning', 'FailedCreate', `Error creating: ${e instanceof Error ? e.message : String(e)}`);
    throw e;
  }
}

/** kube's PodControl: deletes a controller's pod (if it is still the same) and records SuccessfulDelete or FailedDelete. */
export async function deleteControlledPod(pods: Informer, events: EventRecorder, owner: KubeObject, pod: KubeObject): Promise<void> {
  try {
    await pods.delete(pod.metadata.namespace ?? '', pod.metadata.name ?? '', { preconditions: { uid: pod.metadata.uid } });
    events.event(owner, 'Normal', 'SuccessfulDelete', `Deleted pod: ${pod.metadata.name}`);
  } catch (e) {
    if (isConflictOrGone(e)) return;
    events.event(owner, 'Warning', 'FailedDelete', `Error deleting: ${e instanceof Error ? e.message : String(e)}`);
    throw e;
  }
}

/** What the controller manages: ReplicaSets, or the ReplicationControllers kube drives with the same code. */
interface ReplicatedKind {
  readonly ref: typeof REPLICASETS | typeof REPLICATION_CONTROLLERS;
  readonly apiVersion: string;
  readonly component: string;
  readonly writer: UserInfo;
}

/** kube-controller-manager's replicaset controller: creates and deletes a sync may make (BurstReplicas). */
const BURST_REPLICAS = 500;

export const REPLICA_SET_KIND: ReplicatedKind = { ref: REPLICASETS, apiVersion: 'apps/v1', component: 'replicaset-controller', writer: WRITERS.replicaset };
export const REPLICATION_CONTROLLER_KIND: ReplicatedKind = { ref: REPLICATION_CONTROLLERS, apiVersion: 'v1', component: 'replication-controller', writer: WRITERS.replicationController };

export function startReplicaSetController(informers: Informers, eventSink: EventSink, managed: ReplicatedKind = REPLICA_SET_KIND): Loop {
  const kind = managed.ref.kind;
  const replicaSets = informers.of(managed.ref).as(managed.writer);
  const pods = informers.of(PODS).as(managed.writer);
  const events = controllerEvents(eventSink, managed.component, managed.writer);
  const loop: Loop = startLoop(
    informers,
    managed.ref,
    async (namespace, name) => {
      const rs = replicaSets.get(namespace, name);
      if (!rs) return;
      const spec = asObj(rs.spec);
      // claimPods, of the active pods: orphans the selector selects are adopted, owned ones it no longer selects let go.
      const active = await claim(pods, rs, { apiVersion: managed.apiVersion, kind, among: podActive });
      const desired = typeof spec.replicas === 'number' ? spec.replicas : 1;
      // A create or delete refused (admission: PodSecurity, ResourceQuota, a webhook) is reported in the status as
      // kube's ReplicaFailure condition, and the pass is retried.
      let failure: unknown;
      if (!rs.metadata.deletionTimestamp) {
        try {
          // manageReplicas: at most burstReplicas creates or deletes a pass; the pods' events bring the next.
          const creates = Math.min(desired - active.length, BURST_REPLICAS);
          for (let i = 0; i < creates; i++) {
            await yieldWhenSliceSpent();
            await createControlledPod(pods, events, rs, podFromTemplate(rs, managed.apiVersion, kind, asObj(spec.template)));
          }
          const surplus = active.length > desired ? podsToDelete(active, relatedPods(replicaSets, pods, rs), Math.min(active.length - desired, BURST_REPLICAS), clockNow()) : [];
          for (const pod of surplus) await deleteControlledPod(pods, events, rs, pod);
        } catch (e) {
          failure = e;
        }
      }
      const ready = active.filter(podReady).length;
      // Ready pods are available once ready for minReadySeconds: the set is looked at again when the next one is.
      const at = clockNow();
      const available = active.filter((p) => podAvailable(p, minReadySecondsOf(rs), at)).length;
      recheckWhenAvailable(loop, rs, active, at);
      const status: Obj = {
        replicas: active.length,
        fullyLabeledReplicas: active.length,
        readyReplicas: ready,
        availableReplicas: available,
        observedGeneration: rs.metadata.generation ?? 0,
      };
      for (const k of ['fullyLabeledReplicas', 'readyReplicas', 'availableReplicas']) if (status[k] === 0) delete status[k];
      const conditions = ((asObj(rs.status).conditions as unknown[] | undefined) ?? []).map(asObj);
      const failed = conditions.find((c) => c.type === 'ReplicaFailure');
      if (failure !== undefined && !failed) {
        const reason = active.length < desired ? 'FailedCreate' : 'FailedDelete';
        const message = failure instanceof Error ? failure.message : String(failure);
        status.conditions = [...conditions, { type: 'ReplicaFailure', status: 'True', lastTransitionTime: now(), reason, message }];
      } else if (failure === undefined && failed) {
        const rest = conditions.filter((c) => c !== failed);
        if (rest.length > 0) status.conditions = rest;
      } else if (conditions.length > 0) status.conditions = conditions;
      await writeStatus(replicaSets, rs, status);
      if (failure !== undefined) throw failure;
    },
    { owned: [PODS], adopts: true },
  );
  return requeuedOnClock(loop, replicaSets);
}

export const now = (): string => rfc3339(clockDate());
