// The delay before a Job replaces failed pods (kube's backoff_utils.go): per Job, the failures since its last
// success and the time of the last one; 10 s after one failure, doubling with each further one, at most 10 min.
// An Indexed Job with backoffLimitPerIndex backs off per index instead, from its last failed pod's failure count
// annotations. Times are the server clock's, in ms since the epoch.

import type { KubeObject } from '../../registry/types.ts';
import { asObj, type Obj } from './shared.ts';

/** DefaultJobPodFailureBackOff and MaxJobPodFailureBackOff. */
export const POD_FAILURE_BACKOFF_MS = 10_000;
export const MAX_POD_FAILURE_BACKOFF_MS = 10 * 60_000;

export interface BackoffRecord {
  readonly failuresAfterLastSuccess: number;
  readonly lastFailureTime?: number;
}

// Go's zero time (0001-01-01T00:00:00Z) is no time either.
const ZERO_TIME = Date.parse('0001-01-01T00:00:00Z');
const timeOf = (v: unknown): number | undefined => {
  const t = typeof v === 'string' ? Date.parse(v) : NaN;
  return Number.isNaN(t) || t <= ZERO_TIME ? undefined : t;
};

/**
 * latestFinishTime: the latest finishedAt of the statuses check picks, starting from prev; undefined as soon as one
 * of them has not terminated (or has no finishedAt).
 */
function latestFinishTime(prev: number | undefined, statuses: unknown, check?: (status: Obj) => boolean): number | undefined {
  let finish = prev;
  for (const cs of Array.isArray(statuses) ? statuses.map(asObj) : []) {
    if (check && !check(cs)) continue;
    const terminated = asObj(cs.state).terminated;
    const at = terminated ? timeOf(asObj(terminated).finishedAt) : undefined;
    if (at === undefined) return undefined;
    if (finish === undefined || finish < at) finish = at;
  }
  return finish;
}

/**
 * getFinishedTime: when the pod finished — its containers' (and sidecars') last finishedAt once all terminated,
 * else its Ready=False condition's transition, else its deletion time less the grace period, else its creation.
 */
export function finishedTime(pod: KubeObject): number {
  const status = asObj(pod.status);
  const sidecars = new Set(((asObj(pod.spec).initContainers as unknown[] | undefined) ?? []).map(asObj).filter((c) => c.restartPolicy === 'Always').map((c) => c.name));
  const fromContainers = latestFinishTime(latestFinishTime(undefined, status.containerStatuses), status.initContainerStatuses, (cs) => sidecars.has(cs.name));
  if (fromContainers !== undefined) return fromContainers;
  const ready = (Array.isArray(status.conditions) ? status.conditions.map(asObj) : []).find((c) => c.type === 'Ready');
  const readyFalse = ready?.status === 'False' ? timeOf(ready.lastTransitionTime) : undefined;
  if (readyFalse !== undefined) return readyFalse;
  const deleted = timeOf(pod.metadata.deletionTimestamp);
  if (deleted !== undefined) return deleted - (pod.metadata.deletionGracePeriodSeconds ?? 0) * 1000;
  return timeOf(pod.metadata.creationTimestamp) ?? 0;
}

const byFinishedTime = (pods: readonly KubeObject[]): number[] => pods.map(finishedTime).sort((a, b) => a - b);

/**
 * newBackoffRecord: the record after a sync that saw these pods finish. Failures alone add to the count (the last
 * one's time kept); a success resets it, counting only the failures that finished after the last success.
 */
export function newBackoffRecord(old: BackoffRecord | undefined, newSucceeded: readonly KubeObject[], newFailed: readonly KubeObject[]): BackoffRecord {
  const record: BackoffRecord = old ?? { failuresAfterLastSuccess: 0 };
  const failures = byFinishedTime(newFailed);
  if (newSucceeded.length === 0) {
    if (failures.length === 0) return record;
    return { failuresAfterLastSuccess: record.failuresAfterLastSuccess + failures.length, lastFailureTime: failures[failures.length - 1] };
  }
  const lastSuccess = byFinishedTime(newSucceeded).at(-1)!;
  const after = failures.filter((t) => t > lastSuccess);
  return after.length === 0 ? { failuresAfterLastSuccess: 0 } : { failuresAfterLastSuccess: after.length, lastFailureTime: after[after.length - 1] };
}

/** The backoff after this many failures: 10 s doubled for each failure past the first, at most 10 min. */
export function backoffDelay(failures: number): number {
  if (failures <= 0) return 0;
  let delay = POD_FAILURE_BACKOFF_MS;
  for (let i = 1; i < failures; i++) {
    delay *= 2;
    if (delay >= MAX_POD_FAILURE_BACKOFF_MS) return MAX_POD_FAILURE_BACKOFF_MS;
  }
  return delay;
}

/** getRemainingTimeForFailuresCount: how long, at now, before pods may be created again; 0 when they may. */
export function remainingTime(failures: number, lastFailureTime: number | undefined, now: number): number {
  if (failures <= 0 || lastFailureTime === undefined) return 0;
  const delay = backoffDelay(failures);
  const elapsed = now - lastFailureTime;
  return delay < elapsed ? 0 : delay - elapsed;
}
