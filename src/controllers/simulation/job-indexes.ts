// An Indexed Job's completion indexes (kube's indexed_job_utils.go): the index of a pod, the interval text of
// status.completedIndexes and status.failedIndexes, and backoffLimitPerIndex — each pod of an index carries the
// failures of the index before it (the job-index-failure-count annotation, and job-index-ignored-failure-count for
// failures an Ignore rule let go); an index fails once a pod fails past backoffLimitPerIndex, or matches a FailIndex
// rule.

import type { KubeObject } from '../../registry/types.ts';
import { finishedTime, remainingTime } from './job-backoff.ts';
import { isPodFailed, matchPodFailurePolicy } from './job-pod-failure-policy.ts';
import type { Obj } from './shared.ts';

export const COMPLETION_INDEX = 'batch.kubernetes.io/job-completion-index';
export const INDEX_FAILURE_COUNT = 'batch.kubernetes.io/job-index-failure-count';
export const INDEX_IGNORED_FAILURE_COUNT = 'batch.kubernetes.io/job-index-ignored-failure-count';
const MAX_INT32 = 2147483647;

/** The completion index of an Indexed Job's pod; undefined when it has none that parses. */
export function indexOf(pod: KubeObject): number | undefined {
  const v = pod.metadata.annotations?.[COMPLETION_INDEX];
  return v !== undefined && /^\d+$/.test(v) ? Number(v) : undefined;
}

/** Sorted indexes as kube writes completedIndexes: runs of three or more as "a-b", e.g. "0-2,4". */
export function formatIndexes(indexes: Iterable<number>): string {
  const sorted = [...new Set(indexes)].sort((a, b) => a - b);
  const parts: string[] = [];
  for (let i = 0; i < sorted.length; ) {
    let j = i;
    while (j + 1 < sorted.length && sorted[j + 1] === sorted[j]! + 1) j++;
    if (j - i >= 2) parts.push(`${sorted[i]}-${sorted[j]}`);
    else for (let k = i; k <= j; k++) parts.push(String(sorted[k]));
    i = j + 1;
  }
  return parts.join(',');
}

/** parseIndexesFromString: the indexes below completions that "0-2,4" names (malformed parts skipped). */
export function parseIndexes(text: unknown, completions: number): number[] {
  const out: number[] = [];
  if (typeof text !== 'string' || text === '') return out;
  for (const part of text.split(',')) {
    const m = /^(\d+)(?:-(\d+))?$/.exec(part);
    if (!m) continue;
    const first = Number(m[1]);
    if (first >= completions) break;
    const last = Math.min(m[2] === undefined ? first : Number(m[2]), completions - 1);
    for (let i = first; i <= last; i++) out.push(i);
  }
  return out;
}

/** hasBackoffLimitPerIndex (the feature is beta, on, in kube 1.31). */
export const hasBackoffLimitPerIndex = (spec: Obj): boolean => spec.completionMode === 'Indexed' && typeof spec.backoffLimitPerIndex === 'number';

/** parseInt32: an annotation's count; 0 when missing, not an integer, negative or past int32. */
function countAnnotation(pod: KubeObject, name: string): number {
  const v = pod.metadata.annotations?.[name];
  if (v === undefined || !/^[+-]?\d+$/.test(v)) return 0;
  const n = Number(v);
  return n < 0 || n > MAX_INT32 ? 0 : n;
}

/** getIndexFailureCount: the index's failures before this pod, as its annotation says. */
export const indexFailureCount = (pod: KubeObject): number => countAnnotation(pod, INDEX_FAILURE_COUNT);

/** getIndexAbsoluteFailureCount: those and the ignored ones. */
export const indexAbsoluteFailureCount = (pod: KubeObject): number => countAnnotation(pod, INDEX_FAILURE_COUNT) + countAnnotation(pod, INDEX_IGNORED_FAILURE_COUNT);

/**
 * getNewIndexFailureCounts: the failure and ignored-failure counts of the pod that replaces podBeingReplaced (its
 * failure added to the one or the other, as the podFailurePolicy says); 0 and 0 for an index's first pod.
 */
export function newIndexFailureCounts(spec: Obj, podBeingReplaced: KubeObject | undefined): { failures: number; ignored: number } {
  if (!podBeingReplaced) return { failures: 0, ignored: 0 };
  const failures = indexFailureCount(podBeingReplaced);
  const ignored = countAnnotation(podBeingReplaced, INDEX_IGNORED_FAILURE_COUNT);
  const counts = spec.podFailurePolicy === undefined || spec.podFailurePolicy === null || matchPodFailurePolicy(spec.podFailurePolicy, podBeingReplaced)?.action !== 'Ignore';
  return counts ? { failures: failures + 1, ignored } : { failures, ignored: ignored + 1 };
}

/** The annotations of an index's new pod (addIndexFailureCountAnnotation): the ignored count only when there is one. */
export function indexFailureAnnotations(spec: Obj, podBeingReplaced: KubeObject | undefined): Record<string, string> {
  const { failures, ignored } = newIndexFailureCounts(spec, podBeingReplaced);
  return { [INDEX_FAILURE_COUNT]: String(failures), ...(ignored > 0 ? { [INDEX_IGNORED_FAILURE_COUNT]: String(ignored) } : {}) };
}

/**
 * isIndexFailed: the failed pod fails its index — it matches a FailIndex rule, or it counts (no Ignore rule) and the
 * index had already failed backoffLimitPerIndex times before it.
 */
export function isIndexFailed(spec: Obj, pod: KubeObject): boolean {
  if (!isPodFailed(pod, spec)) return false;
  if (spec.podFailurePolicy !== undefined && spec.podFailurePolicy !== null) {
    const action = matchPodFailurePolicy(spec.podFailurePolicy, pod)?.action;
    if (action === 'FailIndex') return true;
    if (action === 'Ignore') return false;
  }
  return indexFailureCount(pod) >= (spec.backoffLimitPerIndex as number);
}

/**
 * getPodsWithDelayedDeletionPerIndex: for each index neither succeeded, failed nor active, its last failed pod (the
 * highest failure count, then the latest to finish). That pod keeps its finalizer until its replacement, which takes
 * the index's failure counts from it, exists. pods: the Job's pods that still hold the finalizer, of valid indexes.
 */
export function podsWithDelayedDeletion(spec: Obj, pods: readonly KubeObject[], active: readonly KubeObject[], succeeded: ReadonlySet<number>, failed: ReadonlySet<number>): Map<number, KubeObject> {
  const activeIndexes = new Set(active.map(indexOf));
  const out = new Map<number, KubeObject>();
  for (const pod of pods) {
    const ix = indexOf(pod);
    if (ix === undefined || !isPodFailed(pod, spec) || succeeded.has(ix) || failed.has(ix) || activeIndexes.has(ix)) continue;
    const last = out.get(ix);
    if (!last || (indexAbsoluteFailureCount(last) <= indexAbsoluteFailureCount(pod) && finishedTime(pod) >= finishedTime(last))) out.set(ix, pod);
  }
  return out;
}

/**
 * getRemainingTimePerIndex: the backoff left, at now, before an index whose last failed pod is lastFailed gets a new
 * pod (its absolute failure count plus that failure, from when it finished); 0 for an index that never failed.
 */
export function indexRemainingTime(lastFailed: KubeObject | undefined, now: number): number {
  if (!lastFailed) return 0;
  return remainingTime(indexAbsoluteFailureCount(lastFailed) + 1, finishedTime(lastFailed), now);
}

/**
 * getPodCreationInfoForIndependentIndexes: of the indexes to create, those whose backoff is over; when none is, the
 * shortest wait.
 */
export function creatableIndexes(indexes: readonly number[], delayed: ReadonlyMap<number, KubeObject>, now: number): { now: number[]; wait: number } {
  const ready: number[] = [];
  let wait: number | undefined;
  for (const ix of indexes) {
    const left = indexRemainingTime(delayed.get(ix), now);
    if (left === 0) ready.push(ix);
    else if (wait === undefined || left < wait) wait = left;
  }
  return ready.length > 0 ? { now: ready, wait: 0 } : { now: ready, wait: wait ?? 0 };
}
