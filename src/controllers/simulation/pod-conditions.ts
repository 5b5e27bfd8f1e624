// kube's podutil.UpdatePodCondition for the simulated components: a pod's condition set in place of the one of the
// same type, its lastTransitionTime now unless the status stays the same.

import { clockDate } from '../../apis/clock.ts';
import { rfc3339 } from '../../registry/store-codec.ts';
import type { KubeObject } from '../../registry/types.ts';
import { asObj, type Obj } from './shared.ts';

export const podConditions = (pod: KubeObject | undefined): Obj[] => ((asObj(pod?.status).conditions as unknown[] | undefined) ?? []).map(asObj);

/** A pod with `condition` in its status, in place of one of the same type (kept where it was). */
export function withCondition(pod: KubeObject, condition: Obj): KubeObject {
  const conditions = podConditions(pod);
  const at = conditions.findIndex((c) => c.type === condition.type);
  const next = at < 0 ? [...conditions, condition] : conditions.map((c, i) => (i === at ? condition : c));
  return { ...pod, status: { ...asObj(pod.status), conditions: next } };
}

/** UpdatePodCondition: type, status, reason and message given; the times as kube sets them. */
export function addPodCondition(pod: KubeObject, condition: Obj): KubeObject {
  const old = podConditions(pod).find((c) => c.type === condition.type);
  const lastTransitionTime = old && old.status === condition.status ? old.lastTransitionTime : rfc3339(clockDate());
  return withCondition(pod, { type: condition.type, status: condition.status, lastProbeTime: null, lastTransitionTime, ...(condition.reason ? { reason: condition.reason } : {}), ...(condition.message ? { message: condition.message } : {}) });
}
