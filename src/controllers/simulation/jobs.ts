// The Job controller: parallelism pods at a time until completions succeed (or, without completions, until one
// succeeds and none is active); Indexed Jobs run one pod per completion index (`<job>-<index>-` pods with the
// job-completion-index annotation and label, hostname `<job>-<index>`, JOB_COMPLETION_INDEX in their containers'
// environment, status.completedIndexes). As kube 1.31's controller does, a Job that succeeds gets the interim
// SuccessCriteriaMet condition and then Complete (CompletionsReached), one that fails FailureTarget and then Failed
// (BackoffLimitExceeded, or DeadlineExceeded past activeDeadlineSeconds, counted from its start or its last
// resume). A suspended Job's active pods are deleted and it gets Suspended=True (JobSuspended); resumed, the
// condition turns False (JobResumed) and startTime restarts.

import { clockNow } from '../../apis/clock.ts';
import type { KubeObject } from '../../registry/types.ts';
import type { EventSink } from '../events.ts';
import type { Informers } from '../informers.ts';
import { createControlledPod, deleteControlledPod, podFromTemplate, now } from './replicasets.ts';
import { asObj, controlled, controllerEvents, JOBS, key, PODS, podReady, startLoop, writeStatus, type Loop, type Obj, WRITERS } from './shared.ts';

export const COMPLETION_INDEX = 'batch.kubernetes.io/job-completion-index';

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

/** Sorted indexes as kube writes completedIndexes: runs of three or more as "a-b", e.g. "0-2,4". */
export function formatIndexes(indexes: readonly number[]): string {
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

/** The completion index of an Indexed Job's pod; undefined when it has none that parses. */
function indexOf(pod: KubeObject): number | undefined {
  const v = pod.metadata.annotations?.[COMPLETION_INDEX];
  return v !== undefined && /^\d+$/.test(v) ? Number(v) : undefined;
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

export function startJobController(informers: Informers, eventSink: EventSink): Loop {
  const jobs = informers.of(JOBS).as(WRITERS.job);
  const podCache = informers.of(PODS).as(WRITERS.job);
  const events = controllerEvents(eventSink, 'job-controller', WRITERS.job);
  const loop: Loop = startLoop(
    informers,
    JOBS,
    async (namespace, name) => {
      const job = jobs.get(namespace, name);
      if (!job || job.metadata.deletionTimestamp || finished(job)) return;
      const spec = asObj(job.spec);
      const template = asObj(spec.template);
      const pods = controlled(podCache, job);
      const phase = (p: KubeObject) => asObj(p.status).phase;
      const succeededPods = pods.filter((p) => phase(p) === 'Succeeded');
      const failed = pods.filter((p) => phase(p) === 'Failed').length;
      const active = pods.filter((p) => !p.metadata.deletionTimestamp && phase(p) !== 'Succeeded' && phase(p) !== 'Failed');
      const terminating = pods.filter((p) => p.metadata.deletionTimestamp && phase(p) !== 'Succeeded' && phase(p) !== 'Failed').length;
      const indexed = spec.completionMode === 'Indexed';
      const parallelism = typeof spec.parallelism === 'number' ? spec.parallelism : 1;
      const completions = typeof spec.completions === 'number' ? spec.completions : undefined;
      const backoffLimit = typeof spec.backoffLimit === 'number' ? spec.backoffLimit : 6;
      const suspended = spec.suspend === true;
      const status: Obj = { ...asObj(job.status), uncountedTerminatedPods: {} };
      const conditions = conditionsOf(job).map((c) => ({ ...c }));

      if (suspended) {
        if (ensureCondition(conditions, 'Suspended', 'True', 'JobSuspended', 'Job suspended')) events.event(job, 'Normal', 'Suspended', 'Job suspended');
        for (const pod of active) await deleteControlledPod(podCache, events, job, pod);
      } else {
        if (ensureCondition(conditions, 'Suspended', 'False', 'JobResumed', 'Job resumed')) {
          events.event(job, 'Normal', 'Resumed', 'Job resumed');
          status.startTime = now();
        }
        status.startTime ??= now();
      }

      const completedIndexes = indexed ? succeededPods.map(indexOf).filter((i): i is number => i !== undefined && i < (completions ?? 0)) : [];
      const succeeded = indexed ? new Set(completedIndexes).size : succeededPods.length;
      const done = completions !== undefined ? succeeded >= completions : succeeded > 0 && active.length === 0;
      const deadline = typeof spec.activeDeadlineSeconds === 'number' && typeof status.startTime === 'string' ? Date.parse(status.startTime) + spec.activeDeadlineSeconds * 1000 : undefined;
      const failure =
        failed > backoffLimit
          ? { reason: 'BackoffLimitExceeded', message: 'Job has reached the specified backoff limit' }
          : !suspended && !done && deadline !== undefined && clockNow() >= deadline
            ? { reason: 'DeadlineExceeded', message: 'Job was active longer than specified deadline' }
            : undefined;
      if (failure) {
        for (const pod of active) await deleteControlledPod(podCache, events, job, pod);
        ensureCondition(conditions, 'FailureTarget', 'True', failure.reason, failure.message);
        ensureCondition(conditions, 'Failed', 'True', failure.reason, failure.message);
        events.event(job, 'Warning', failure.reason, failure.message);
      } else if (done) {
        ensureCondition(conditions, 'SuccessCriteriaMet', 'True', 'CompletionsReached', 'Reached expected number of succeeded pods');
        ensureCondition(conditions, 'Complete', 'True', 'CompletionsReached', 'Reached expected number of succeeded pods');
        status.completionTime = now();
        events.event(job, 'Normal', 'Completed', 'Job completed');
      } else if (!suspended) {
        if (indexed) {
          const taken = new Set([...completedIndexes, ...active.map(indexOf).filter((i): i is number => i !== undefined)]);
          let room = parallelism - active.length;
          for (let i = 0; i < (completions ?? 0) && room > 0; i++) {
            if (taken.has(i)) continue;
            await createControlledPod(podCache, events, job, indexedPod(job, template, i));
            room--;
          }
        } else {
          const want = completions !== undefined ? Math.min(parallelism, completions - succeeded) : succeeded > 0 ? 0 : parallelism;
          for (let i = active.length; i < want; i++) await createControlledPod(podCache, events, job, podFromTemplate(job, 'batch/v1', 'Job', template));
        }
        // The deadline is looked at again when it comes.
        if (deadline !== undefined) loop.enqueue(key(job), Math.max(0, deadline - clockNow()) + 10);
      }
      if (conditions.length > 0) status.conditions = conditions;
      status.active = active.length;
      status.ready = active.filter(podReady).length;
      status.terminating = terminating;
      if (succeeded) status.succeeded = succeeded;
      else delete status.succeeded;
      if (failed) status.failed = failed;
      else delete status.failed;
      if (status.active === 0) delete status.active;
      if (indexed && completedIndexes.length > 0) status.completedIndexes = formatIndexes(completedIndexes);
      else delete status.completedIndexes;
      await writeStatus(jobs, job, status);
    },
    { owned: [PODS] },
  );
  return loop;
}
