// The ReplicaSet controller: as many active pods as spec.replicas (created from the template with a controller
// reference, the surplus deleted not-ready and newest first), and status counts of the pods it controls.

import { clockDate } from '../../apis/clock.ts';
import { rfc3339 } from '../../registry/store-codec.ts';
import type { KubeObject } from '../../registry/types.ts';
import type { Informers } from './informers.ts';
import { asObj, controlled, controllerRef, ignoreConflictOrGone, PODS, podActive, podReady, REPLICASETS, startLoop, writeStatus, type Loop, type Obj, WRITERS } from './shared.ts';

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

/** Which surplus pods go first: unscheduled, then not ready, then the newest. */
function deletionOrder(a: KubeObject, b: KubeObject): number {
  const rank = (p: KubeObject) => (asObj(p.spec).nodeName ? 0 : 2) + (podReady(p) ? 0 : 1);
  if (rank(a) !== rank(b)) return rank(b) - rank(a);
  return String(b.metadata.creationTimestamp ?? '').localeCompare(String(a.metadata.creationTimestamp ?? ''));
}

export function startReplicaSetController(informers: Informers): Loop {
  const replicaSets = informers.of(REPLICASETS).as(WRITERS.replicaset);
  const pods = informers.of(PODS).as(WRITERS.replicaset);
  return startLoop(
    informers,
    REPLICASETS,
    async (namespace, name) => {
      const rs = replicaSets.get(namespace, name);
      if (!rs) return;
      const spec = asObj(rs.spec);
      const active = controlled(pods, rs).filter(podActive);
      const desired = typeof spec.replicas === 'number' ? spec.replicas : 1;
      // A create or delete refused (admission: PodSecurity, ResourceQuota, a webhook) is reported in the status as
      // kube's ReplicaFailure condition, and the pass is retried.
      let failure: unknown;
      if (!rs.metadata.deletionTimestamp) {
        try {
          for (let i = active.length; i < desired; i++) await pods.create(namespace, podFromTemplate(rs, 'apps/v1', 'ReplicaSet', asObj(spec.template)));
          const surplus = active.length > desired ? [...active].sort(deletionOrder).slice(0, active.length - desired) : [];
          for (const pod of surplus) {
            await pods.delete(namespace, pod.metadata.name ?? '', { preconditions: { uid: pod.metadata.uid } }).catch(ignoreConflictOrGone);
          }
        } catch (e) {
          failure = e;
        }
      }
      const ready = active.filter(podReady).length;
      const status: Obj = {
        replicas: active.length,
        fullyLabeledReplicas: active.length,
        readyReplicas: ready,
        availableReplicas: ready,
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
    { owned: [PODS] },
  );
}

export const now = (): string => rfc3339(clockDate());
