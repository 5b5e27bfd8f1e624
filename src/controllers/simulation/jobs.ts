// The Job controller: parallelism pods at a time until completions succeed (or, without completions, until one
// succeeds and none is active); Indexed Jobs run one pod per completion index (`<job>-<index>-` pods with the
// job-completion-index annotation and label, hostname `<job>-<index>`, JOB_COMPLETION_INDEX in their containers'
// environment, status.completedIndexes). As kube 1.31's controller does, a Job that succeeds gets the interim
// SuccessCriteriaMet condition and then Complete (CompletionsReached), one that fails FailureTarget and then Failed
// (BackoffLimitExceeded, or DeadlineExceeded past activeDeadlineSeconds, counted from its start or its last
// resume); the final condition waits until the Job's terminating pods are gone. A suspended Job's active pods are
// deleted and it gets Suspended=True (JobSuspended); resumed, the condition turns False (JobResumed) and startTime
// restarts.
//
// Pods are tracked with kube's finalizer (JobTrackingWithFinalizers): every pod is created with
// batch.kubernetes.io/job-tracking, and the counts live in the Job's status, never recounted from the pods left. A
// finished pod's UID goes to status.uncountedTerminatedPods (an Indexed Job's succeeded index straight to
// completedIndexes) in one status write, its finalizer is removed, and the next write moves the UID into
// status.succeeded or status.failed. A pod counts as failed in phase Failed or, unless only failed pods are replaced
// (podReplacementPolicy Failed, a podFailurePolicy), once deleted before it succeeded; when the Job fails, every pod
// not succeeded does. Pods dropped for suspend or a lower parallelism lose the finalizer before their deletion and
// never count; those deleted because the Job finished keep it until counted. A Job being deleted lets go of all its
// pods, and a pod whose Job is gone or finished (or that has no controller) loses the finalizer too.
//
// A podFailurePolicy (job-pod-failure-policy.ts) is matched against each failed pod: FailJob fails the Job
// (FailureTarget then Failed, reason PodFailurePolicy) ahead of backoffLimit, Ignore lets the pod go and replaces it
// without counting it in status.failed or toward backoffLimit, Count (and no match) counts it as without a policy,
// FailIndex fails the pod's index at once.
//
// Failed pods are replaced after a backoff (job-backoff.ts): 10 s after the Job's first failure since its last
// success, doubling with each further one, at most 10 min; the Job is synced again when it ends, or when the server
// clock moves past it. An Indexed Job with backoffLimitPerIndex (job-indexes.ts) counts failures per index instead:
// each index's pods carry its failure counts in annotations, the index backs off on its own, fails (into
// status.failedIndexes, its pods no longer replaced) once a pod fails past backoffLimitPerIndex, and the Job fails
// with MaxFailedIndexesExceeded past maxFailedIndexes, or with FailedIndexes once every index succeeded or failed.
// An Indexed Job's successPolicy (job-success-policy.ts) makes it succeed (SuccessCriteriaMet then Complete, reason
// SuccessPolicy) when a rule is met, its remaining pods deleted.

import { clockNow, onClockChange } from '../../apis/clock.ts';
import type { KubeObject } from '../../registry/types.ts';
import type { EventSink } from '../events.ts';
import type { Informers } from '../informers.ts';
import { createKeyedQueue } from '../work-queue.ts';
import { newBackoffRecord, remainingTime, type BackoffRecord } from './job-backoff.ts';
import { COMPLETION_INDEX, creatableIndexes, formatIndexes, hasBackoffLimitPerIndex, indexFailureAnnotations, indexOf, isIndexFailed, parseIndexes, podsWithDelayedDeletion } from './job-indexes.ts';
import { failJobMessage, failureCounts, isPodFailed, onlyReplaceFailedPods } from './job-pod-failure-policy.ts';
import { matchSuccessPolicy } from './job-success-policy.ts';
import { createControlledPod, deleteControlledPod, podFromTemplate, now } from './replicasets.ts';
import { asObj, controlled, controllerEvents, controllerOf, isNotFound, JOBS, key, PODS, podActive, podReady, splitKey, startLoop, writeStatus, type Loop, type Obj, WRITERS } from './shared.ts';
import { activePodsOrder } from './pod-deletion-order.ts';

export const TRACKING_FINALIZER = 'batch.kubernetes.io/job-tracking';
/** kube's MaxUncountedPods (status.uncountedTerminatedPods stays near 20 KB) and MaxPodCreateDeletePerSync. */
const MAX_UNCOUNTED = 500;
const MAX_CREATE_DELETE = 500;

const conditionsOf = (job: KubeObject): Obj[] => ((asObj(job.status).conditions as Obj[] | undefined) ?? []).map(asObj);
const finished = (job: KubeObject) => conditionsOf(job).some((c) => (c.type === 'Complete' || c.type === 'Failed') && c.status === 'True');

/** ensureJobConditionStatus: the condition set to status (a False one only where it exists); whether it changed. */
function ensureCondition(conditions: Obj[], type: string, status: 'True' | 'False', reason: string, message: string): boolean {
  const at = conditions.findIndex((c) => c.type === type);
  if (at < 0) {
    if (status === 'False') return false;
    conditions.push({ type, status, lastProbeTime: now(), lastTransitionTime: now(), reason, message });
    return true;
  }
  const c = conditions[at]!;
  if (c.status === status && c.reason === reason && c.message === message) return false;
  conditions[at] = { ...c, status, reason, message, lastProbeTime: now(), ...(c.status !== status ? { lastTransitionTime: now() } : {}) };
  return true;
}

/** An Indexed Job's pod for one index (kube's addCompletionIndexAnnotation, hostname and environment variable). */
function indexedPod(job: KubeObject, template: Obj, index: number): KubeObject {
  const pod = podFromTemplate(job, 'batch/v1', 'Job', template, { generateName: `${job.metadata.name}-${index}-` });
  pod.metadata.annotations = { ...(pod.metadata.annotations ?? {}), [COMPLETION_INDEX]: String(index) };
  pod.metadata.labels = { ...(pod.metadata.labels ?? {}), [COMPLETION_INDEX]: String(index) };
  const withIndex = (containers: unknown) =>
    ((containers as unknown[] | undefined) ?? []).map((c) => {
      const env = ((asObj(c).env as unknown[] | undefined) ?? []).map(asObj);
      if (env.some((e) => e.name === 'JOB_COMPLETION_INDEX')) return c;
      return { ...asObj(c), env: [...env, { name: 'JOB_COMPLETION_INDEX', valueFrom: { fieldRef: { fieldPath: `metadata.annotations['${COMPLETION_INDEX}']` } } }] };
    });
  const spec = asObj(pod.spec);
  pod.spec = { ...spec, hostname: `${job.metadata.name}-${index}`, containers: withIndex(spec.containers), ...(spec.initContainers ? { initContainers: withIndex(spec.initContainers) } : {}) };
  return pod;
}

const phaseOf = (pod: KubeObject): unknown => asObj(pod.status).phase;
const uidOf = (obj: KubeObject): string => obj.metadata.uid ?? '';
const counter = (v: unknown): number => (typeof v === 'number' ? v : 0);
const trueCondition = (conditions: Obj[], type: string): Obj | undefined => conditions.find((c) => c.type === type && c.status === 'True');
const hasTrackingFinalizer = (pod: KubeObject): boolean => (pod.metadata.finalizers ?? []).includes(TRACKING_FINALIZER);

interface Uncounted {
  succeeded: string[];
  failed: string[];
}

function uncountedOf(status: Obj): Uncounted {
  const u = asObj(status.uncountedTerminatedPods);
  const uids = (v: unknown) => (Array.isArray(v) ? v.map(String) : []);
  return { succeeded: uids(u.succeeded), failed: uids(u.failed) };
}

/**
 * cleanUncountedPodsWithoutFinalizers: the UIDs of status.uncountedTerminatedPods whose pods no longer hold the
 * finalizer (or are gone) move into status.succeeded / status.failed. Whether any moved.
 */
export function countUncounted(status: Obj, withFinalizer: ReadonlySet<string>): boolean {
  const uncounted = uncountedOf(status);
  const left: Obj = {};
  let moved = false;
  for (const which of ['succeeded', 'failed'] as const) {
    const keep = uncounted[which].filter((uid) => withFinalizer.has(uid));
    if (keep.length < uncounted[which].length) {
      moved = true;
      status[which] = counter(status[which]) + uncounted[which].length - keep.length;
    }
    if (keep.length > 0) left[which] = keep;
  }
  status.uncountedTerminatedPods = left;
  return moved;
}


/**
 * activePodsForRemoval: an Indexed Job's pods without a valid index and its duplicates (the most advanced pod of an
 * index stays), then, up to atLeast, the rest in removal order.
 */
export function podsForRemoval(active: readonly KubeObject[], indexed: boolean, completions: number, atLeast: number): KubeObject[] {
  const rm: KubeObject[] = [];
  let left = [...active];
  if (indexed) {
    const byIndex = new Map<number, KubeObject[]>();
    for (const pod of active) {
      const ix = indexOf(pod);
      if (ix === undefined || ix >= completions) rm.push(pod);
      else byIndex.set(ix, [...(byIndex.get(ix) ?? []), pod]);
    }
    left = [];
    for (const same of byIndex.values()) {
      const sorted = same.sort(activePodsOrder);
      rm.push(...sorted.slice(0, -1));
      left.push(sorted[sorted.length - 1]!);
    }
  }
  if (rm.length < atLeast) rm.push(...left.sort(activePodsOrder).slice(0, atLeast - rm.length));
  return rm;
}

/** firstPendingIndexes: the first count indexes below completions that none of taken holds. */
function pendingIndexes(taken: ReadonlySet<number>, count: number, completions: number): number[] {
  const out: number[] = [];
  for (let i = 0; i < completions && out.length < count; i++) if (!taken.has(i)) out.push(i);
  return out;
}

/** A pod of the Job: its template's finalizers and the tracking one (kube's appendJobCompletionFinalizerIfNotFound). */
/**
 * pastBackoffLimitOnFailure: with restartPolicy OnFailure a failing container restarts in its pod instead of failing
 * it, so the restarts of the pending and running pods' containers count against the backoff limit.
 */
export function pastBackoffLimitOnFailure(spec: Obj, pods: readonly KubeObject[], backoffLimit: number): boolean {
  if (asObj(asObj(spec.template).spec).restartPolicy !== 'OnFailure') return false;
  let restarts = 0;
  for (const pod of pods) {
    const phase = phaseOf(pod);
    if (phase !== 'Running' && phase !== 'Pending') continue;
    const status = asObj(pod.status);
    for (const field of ['initContainerStatuses', 'containerStatuses']) {
      for (const c of (status[field] as unknown[] | undefined) ?? []) restarts += counter(asObj(c).restartCount);
    }
  }
  return backoffLimit === 0 ? restarts > 0 : restarts >= backoffLimit;
}

function jobPod(job: KubeObject, template: Obj, index?: number): KubeObject {
  const pod = index === undefined ? podFromTemplate(job, 'batch/v1', 'Job', template) : indexedPod(job, template, index);
  const finalizers = [...((asObj(template.metadata).finalizers as string[] | undefined) ?? [])];
  if (!finalizers.includes(TRACKING_FINALIZER)) finalizers.push(TRACKING_FINALIZER);
  pod.metadata.finalizers = finalizers;
  return pod;
}

/** The status as kube writes it, leaving out zero counters, an empty completedIndexes and an empty conditions list. */
function statusToWrite(status: Obj): Obj {
  const out = { ...status };
  for (const k of ['succeeded', 'failed', 'active', 'completedIndexes']) if (!out[k]) delete out[k];
  if (Array.isArray(out.conditions) && out.conditions.length === 0) delete out.conditions;
  return out;
}

interface Finish {
  failed: boolean;
  reason: string;
  message: string;
}

/** What a sync counted that manageJob goes by. */
interface Counted {
  active: KubeObject[];
  terminatingPods: KubeObject[];
  succeeded: number;
  succeededIndexes: ReadonlySet<number>;
  /** status.failedIndexes and the indexes failed since, with backoffLimitPerIndex. */
  failedIndexes: ReadonlySet<number> | undefined;
  /** With backoffLimitPerIndex, the last failed pod of each index waiting for a new pod. */
  delayed: ReadonlyMap<number, KubeObject>;
  backoff: BackoffRecord;
}

export function startJobController(informers: Informers, eventSink: EventSink): Loop {
  const jobs = informers.of(JOBS).as(WRITERS.job);
  const podCache = informers.of(PODS).as(WRITERS.job);
  const events = controllerEvents(eventSink, 'job-controller', WRITERS.job);
  // Pods whose finalizer this controller removed and whose change it has not seen yet (kube's finalizer
  // expectations): a removal that lets a deleted pod go returns no newer pod for the cache, which keeps the old one
  // until the watch reports the deletion, and that pod must not be counted twice.
  const released = new Set<string>();
  const tracked = (pod: KubeObject) => hasTrackingFinalizer(pod) && !released.has(uidOf(pod));

  /** Removes the tracking finalizer (kube's patch: no error when the pod is gone). */
  async function release(pod: KubeObject): Promise<void> {
    released.add(uidOf(pod));
    await podCache
      .update(pod.metadata.namespace ?? '', pod.metadata.name ?? '', (cur) => {
        if (!cur || cur.metadata.uid !== pod.metadata.uid) return cur!;
        return { ...cur, metadata: { ...cur.metadata, finalizers: (cur.metadata.finalizers ?? []).filter((f) => f !== TRACKING_FINALIZER) } };
      })
      .catch((e: unknown) => {
        if (isNotFound(e)) return;
        released.delete(uidOf(pod));
        throw e;
      });
  }

  /** deleteJobPods: pods the Job no longer wants lose the finalizer first, so they never count as failed. */
  async function dropPods(job: KubeObject, pods: readonly KubeObject[]): Promise<void> {
    for (const pod of pods) {
      await release(pod);
      await deleteControlledPod(podCache, events, job, pod);
    }
  }

  /** Whether the pod's controller is an unfinished Job of its uid, or no Job (another controller's finalizers stay). */
  function heldByJob(pod: KubeObject): boolean {
    const ref = controllerOf(pod);
    if (!ref) return false;
    if (ref.kind !== 'Job' || ref.apiVersion !== 'batch/v1') return true;
    const job = jobs.get(pod.metadata.namespace ?? '', ref.name);
    return job !== undefined && job.metadata.uid === ref.uid && !finished(job);
  }

  /** syncOrphanPod: a pod no unfinished Job holds lets go of the finalizer. */
  const orphans = createKeyedQueue(
    async (k) => {
      await Promise.all([jobs.synced, podCache.synced]);
      const { namespace, name } = splitKey(k);
      const pod = podCache.get(namespace, name);
      if (pod && tracked(pod) && !heldByJob(pod)) await release(pod);
    },
    500,
    informers.activity,
  );
  podCache.onEvent((ev) => {
    const pod = ev.object;
    if (ev.type === 'DELETED' || !hasTrackingFinalizer(pod)) return void released.delete(uidOf(pod));
    // kube's pod handlers: an orphan, or a deleting pod whose Job is gone or finished (no sync of that Job sees it).
    if ((!controllerOf(pod) || pod.metadata.deletionTimestamp) && !heldByJob(pod)) orphans.enqueue(key(pod));
  });
  jobs.onEvent((ev) => {
    // kube's deleteJob and updateJob: the pods of a Job that is gone or finished let go of the finalizer.
    if (ev.type !== 'DELETED' && !finished(ev.object)) return;
    for (const pod of podCache.controlledBy(uidOf(ev.object))) if (hasTrackingFinalizer(pod)) orphans.enqueue(key(pod));
  });

  /** Writes the status if it changed; the Job as the cache has it then. */
  async function flush(job: KubeObject, status: Obj): Promise<KubeObject> {
    await writeStatus(jobs, job, statusToWrite(status));
    return jobs.get(job.metadata.namespace ?? '', job.metadata.name ?? '') ?? job;
  }

  // When each Job waiting on a pod failure backoff (or on its activeDeadlineSeconds) is due, on the server clock: a
  // clock move past it syncs the Job at once.
  const wakes = new Map<string, number>();
  function wakeAt(k: string, at: number): void {
    const due = wakes.get(k);
    if (due === undefined || at < due || due <= clockNow()) wakes.set(k, at);
    loop.enqueue(k, Math.max(0, at - clockNow()) + 10);
  }
  const stopClock = onClockChange(() => {
    const t = clockNow();
    for (const [k, at] of wakes) {
      if (at > t) continue;
      wakes.delete(k);
      loop.enqueue(k);
    }
  });
  // The backoff records by Job key (kube's podBackoffStore), dropped once the Job is finished or gone.
  const backoffs = new Map<string, BackoffRecord>();

  /**
   * manageJob: a suspended Job's pods or the surplus dropped, else the missing pods created once the backoff allows;
   * what it dropped, how many it made, and whether it waits on the backoff.
   */
  async function manage(job: KubeObject, c: Counted): Promise<{ dropped: KubeObject[]; created: number; deferred: boolean }> {
    const spec = asObj(job.spec);
    const indexed = spec.completionMode === 'Indexed';
    const perIndex = hasBackoffLimitPerIndex(spec);
    const parallelism = typeof spec.parallelism === 'number' ? spec.parallelism : 1;
    const completions = typeof spec.completions === 'number' ? spec.completions : undefined;
    const want = spec.suspend === true ? 0 : completions === undefined ? (c.succeeded > 0 ? c.active.length : parallelism) : Math.max(0, Math.min(parallelism, completions - c.succeeded));
    const surplus = podsForRemoval(c.active, indexed, completions ?? 0, Math.max(0, c.active.length - want)).slice(0, MAX_CREATE_DELETE);
    // Pods are either dropped or created in one pass, never both.
    if (surplus.length > 0) {
      await dropPods(job, surplus);
      return { dropped: surplus, created: 0, deferred: false };
    }
    const replacing = onlyReplaceFailedPods(spec) ? c.terminatingPods : [];
    const missing = Math.min(want - replacing.length - c.active.length, MAX_CREATE_DELETE);
    if (missing <= 0) return { dropped: [], created: 0, deferred: false };
    const deferUntil = (wait: number) => {
      wakeAt(key(job), clockNow() + wait);
      return { dropped: [], created: 0, deferred: true };
    };
    if (!perIndex) {
      const wait = remainingTime(c.backoff.failuresAfterLastSuccess, c.backoff.lastFailureTime, clockNow());
      if (wait > 0) return deferUntil(wait);
    }
    let indexes: number[] = [];
    if (indexed) {
      const taken = new Set([...c.succeededIndexes, ...(c.failedIndexes ?? []), ...[...c.active, ...replacing].map(indexOf).filter((i) => i !== undefined)]);
      indexes = pendingIndexes(taken, missing, completions ?? 0);
      if (perIndex) {
        const creatable = creatableIndexes(indexes, c.delayed, clockNow());
        if (creatable.wait > 0) return deferUntil(creatable.wait);
        indexes = creatable.now;
      }
    }
    const count = indexed ? indexes.length : missing;
    for (let i = 0; i < count; i++) {
      const pod = jobPod(job, asObj(spec.template), indexed ? indexes[i] : undefined);
      if (perIndex) pod.metadata.annotations = { ...pod.metadata.annotations, ...indexFailureAnnotations(spec, c.delayed.get(indexes[i]!)) };
      await createControlledPod(podCache, events, job, pod);
    }
    return { dropped: [], created: count, deferred: false };
  }

  async function sync(job: KubeObject): Promise<void> {
    const k = key(job);
    const spec = asObj(job.spec);
    const indexed = spec.completionMode === 'Indexed';
    const perIndex = hasBackoffLimitPerIndex(spec);
    const completions = typeof spec.completions === 'number' ? spec.completions : undefined;
    const backoffLimit = typeof spec.backoffLimit === 'number' ? spec.backoffLimit : 6;
    const suspended = spec.suspend === true;
    const deleting = Boolean(job.metadata.deletionTimestamp);
    const pods = controlled(podCache, job);
    const status: Obj = { ...asObj(job.status) };
    const conditions = conditionsOf(job).map((c) => ({ ...c }));

    // What the status counted, plus the finished pods that still hold the finalizer and are not in its lists yet.
    const withFinalizer = new Set(pods.filter(tracked).map(uidOf));
    countUncounted(status, withFinalizer);
    const uncounted = uncountedOf(status);
    const validIndex = (p: KubeObject) => !indexed || (indexOf(p) ?? Infinity) < (completions ?? 0);
    const fresh = pods.filter((p) => tracked(p) && validIndex(p));
    const newSucceeded = fresh.filter((p) => phaseOf(p) === 'Succeeded' && !uncounted.succeeded.includes(uidOf(p)));
    const newFailed = fresh.filter((p) => isPodFailed(p, spec) && !uncounted.failed.includes(uidOf(p)));
    const succeededIndexes = new Set(indexed ? [...parseIndexes(status.completedIndexes, completions ?? 0), ...newSucceeded.map((p) => indexOf(p)!)] : []);
    const succeeded = indexed ? succeededIndexes.size : counter(status.succeeded) + newSucceeded.length + uncounted.succeeded.length;
    const failed = counter(status.failed) + newFailed.filter((p) => failureCounts(p, spec)).length + uncounted.failed.length;
    // Every pod that finished since counts toward the backoff, ignored failures too.
    const backoff = newBackoffRecord(backoffs.get(k), newSucceeded, newFailed);

    if (suspended) {
      if (ensureCondition(conditions, 'Suspended', 'True', 'JobSuspended', 'Job suspended')) events.event(job, 'Normal', 'Suspended', 'Job suspended');
    } else {
      if (ensureCondition(conditions, 'Suspended', 'False', 'JobResumed', 'Job resumed')) {
        events.event(job, 'Normal', 'Resumed', 'Job resumed');
        status.startTime = now();
      }
      status.startTime ??= now();
    }

    const met = trueCondition(conditions, 'SuccessCriteriaMet');
    const target = trueCondition(conditions, 'FailureTarget');
    const deadline = typeof spec.activeDeadlineSeconds === 'number' && typeof status.startTime === 'string' ? Date.parse(status.startTime) + spec.activeDeadlineSeconds * 1000 : undefined;
    const policyMessage = met || target ? undefined : failJobMessage(pods, spec);
    let finish: Finish | undefined;
    if (met || target) finish = { failed: !met, reason: String((met ?? target)!.reason ?? ''), message: String((met ?? target)!.message ?? '') };
    else if (policyMessage !== undefined) finish = { failed: true, reason: 'PodFailurePolicy', message: policyMessage };
    else if (failed > backoffLimit || pastBackoffLimitOnFailure(spec, pods, backoffLimit)) finish = { failed: true, reason: 'BackoffLimitExceeded', message: 'Job has reached the specified backoff limit' };
    else if (!suspended && deadline !== undefined && clockNow() >= deadline) finish = { failed: true, reason: 'DeadlineExceeded', message: 'Job was active longer than specified deadline' };
    // The deadline is looked at again when it comes.
    else if (!suspended && deadline !== undefined) wakeAt(k, deadline);

    const active = pods.filter(podActive);
    let failedIndexes: Set<number> | undefined;
    let delayed = new Map<number, KubeObject>();
    if (perIndex) {
      failedIndexes = new Set([...parseIndexes(status.failedIndexes, completions ?? 0), ...fresh.filter((p) => isIndexFailed(spec, p)).map((p) => indexOf(p)!)]);
      if (!finish && typeof spec.maxFailedIndexes === 'number' && failedIndexes.size > spec.maxFailedIndexes) {
        finish = { failed: true, reason: 'MaxFailedIndexesExceeded', message: 'Job has exceeded the specified maximal number of failed indexes' };
      } else if (!finish && failedIndexes.size > 0 && failedIndexes.size + succeededIndexes.size >= (completions ?? 0)) {
        finish = { failed: true, reason: 'FailedIndexes', message: 'Job has failed indexes' };
      }
      delayed = podsWithDelayedDeletion(spec, fresh, active, succeededIndexes, failedIndexes);
    }
    if (indexed && !finish) {
      const matched = matchSuccessPolicy(spec.successPolicy, completions ?? 0, succeededIndexes);
      if (matched !== undefined) finish = { failed: false, reason: 'SuccessPolicy', message: matched };
    }

    const terminatingPods = pods.filter((p) => p.metadata.deletionTimestamp && phaseOf(p) !== 'Succeeded' && phaseOf(p) !== 'Failed');
    let activeCount = active.length;
    let ready = active.filter(podReady).length;
    let terminating = terminatingPods.length;
    const gone = (dropped: readonly KubeObject[]) => {
      activeCount -= dropped.length;
      ready -= dropped.filter(podReady).length;
      terminating += dropped.length;
    };
    if (finish) {
      // deleteActivePods: they keep the finalizer, to be counted below.
      for (const pod of active) await deleteControlledPod(podCache, events, job, pod);
      gone(active);
    } else {
      if (!deleting) {
        const { dropped, created, deferred } = await manage(job, { active, terminatingPods, succeeded, succeededIndexes, failedIndexes, delayed, backoff });
        gone(dropped);
        activeCount += created;
        // kube 1.31's manageJob reports no active pods while it waits on the backoff (fixed in later releases).
        if (deferred) activeCount = 0;
      }
      const complete = completions === undefined ? succeeded > 0 && activeCount === 0 : succeeded >= completions && activeCount === 0;
      if (complete) finish = { failed: false, reason: 'CompletionsReached', message: 'Reached expected number of succeeded pods' };
    }

    // trackJobStatusAndRemoveFinalizers: the finished pods' UIDs (an Indexed Job's succeeded indexes) into the
    // status, then their finalizers off, then the UIDs into the counters.
    const lists = uncountedOf(status);
    const toRelease: KubeObject[] = [];
    let capped = false;
    for (const pod of pods) {
      if (!tracked(pod)) continue;
      const uid = uidOf(pod);
      const podFailed = isPodFailed(pod, spec);
      // canRemoveFinalizer: an index's last failed pod waits for the index's next pod.
      if (!deleting && !finish && phaseOf(pod) !== 'Succeeded' && (!podFailed || delayed.get(indexOf(pod) ?? -1) === pod)) continue;
      toRelease.push(pod);
      if (phaseOf(pod) === 'Succeeded' && !uncounted.failed.includes(uid)) {
        if (!indexed && !lists.succeeded.includes(uid)) lists.succeeded.push(uid);
      } else if ((podFailed || finish?.failed) && !lists.failed.includes(uid) && validIndex(pod) && failureCounts(pod, spec)) lists.failed.push(uid);
      if (lists.succeeded.length + lists.failed.length >= MAX_UNCOUNTED) {
        capped = true;
        break;
      }
    }
    status.uncountedTerminatedPods = { ...(lists.succeeded.length ? { succeeded: lists.succeeded } : {}), ...(lists.failed.length ? { failed: lists.failed } : {}) };
    if (indexed) {
      status.completedIndexes = formatIndexes(succeededIndexes);
      status.succeeded = succeededIndexes.size;
      // With backoffLimitPerIndex, kube writes failedIndexes even when empty.
      if (failedIndexes) status.failedIndexes = formatIndexes(failedIndexes);
      else delete status.failedIndexes;
    }
    if (finish) ensureCondition(conditions, finish.failed ? 'FailureTarget' : 'SuccessCriteriaMet', 'True', finish.reason, finish.message);
    Object.assign(status, { conditions, active: activeCount, ready, terminating });
    job = await flush(job, status);
    backoffs.set(k, backoff);

    const results = await Promise.allSettled(toRelease.map(release));
    results.forEach((r, i) => r.status === 'fulfilled' && withFinalizer.delete(uidOf(toRelease[i]!)));
    countUncounted(status, withFinalizer);
    const left = uncountedOf(status);
    // enactJobFinished: once every pod is counted and none is terminating.
    const done = finish !== undefined && !capped && left.succeeded.length + left.failed.length === 0 && terminating === 0;
    if (done) {
      ensureCondition(conditions, finish!.failed ? 'Failed' : 'Complete', 'True', finish!.reason, finish!.message);
      if (!finish!.failed) status.completionTime = conditions.find((c) => c.type === 'Complete')!.lastTransitionTime;
    }
    await flush(job, status);
    if (done) {
      backoffs.delete(k);
      wakes.delete(k);
    }
    if (done && finish!.failed) events.event(job, 'Warning', finish!.reason, finish!.message);
    else if (done) events.event(job, 'Normal', 'Completed', 'Job completed');
    const failure = results.find((r) => r.status === 'rejected');
    if (failure) throw failure.reason;
  }

  const loop: Loop = startLoop(
    informers,
    JOBS,
    async (namespace, name) => {
      const job = jobs.get(namespace, name);
      if (job && !finished(job)) return sync(job);
      backoffs.delete(`${namespace}/${name}`);
      wakes.delete(`${namespace}/${name}`);
    },
    { owned: [PODS] },
  );
  return {
    enqueue: loop.enqueue,
    async stop() {
      stopClock();
      await loop.stop();
      await orphans.stop();
    },
  };
}
