// The CronJob controller on the server's clock (src/apis/clock.ts, so a test can advance it): at each scheduled
// time a Job <cronjob>-<minutes since the epoch> from the jobTemplate, with the scheduled-timestamp annotation;
// spec.timeZone, concurrencyPolicy Allow, Forbid and Replace, suspend, startingDeadlineSeconds, the history limits, and status
// (active, lastScheduleTime, lastSuccessfulTime), with kube's events (SuccessfulCreate, SawCompletedJob, UnexpectedJob,
// MissingJob, JobAlreadyActive, MissSchedule, SuccessfulDelete). As kube's, it keeps in status.active only the Jobs
// it started: a Job made by hand under the CronJob is reported, never adopted, and Forbid and Replace ignore it.

import { clockNow, onClockChange } from '../../apis/clock.ts';
import { rfc3339 } from '../../registry/store-codec.ts';
import type { KubeObject } from '../../registry/types.ts';
import type { EventSink } from '../events.ts';
import type { Informers } from '../informers.ts';
import { lastScheduleBetween, parseCronSchedule } from './cron-schedule.ts';
import { asObj, controlled, controllerEvents, controllerRef, CRONJOBS, ignoreConflictOrGone, JOBS, startLoop, writeStatus, type Loop, type Obj, WRITERS } from './shared.ts';

const finished = (job: KubeObject): string | undefined =>
  ((asObj(job.status).conditions as Obj[] | undefined) ?? []).find((c) => (c.type === 'Complete' || c.type === 'Failed') && c.status === 'True')?.type as string | undefined;

/** kube's byJobStartTime: by status.startTime, Jobs without one last, ties by name. */
function byStartTime(a: KubeObject, b: KubeObject): number {
  const at = asObj(a.status).startTime, bt = asObj(b.status).startTime;
  if (at === undefined || bt === undefined) {
    if (at !== bt) return at === undefined ? 1 : -1;
  } else if (at !== bt) return Date.parse(String(at)) - Date.parse(String(bt));
  const an = String(a.metadata.name), bn = String(b.metadata.name);
  return an < bn ? -1 : an > bn ? 1 : 0;
}

export function startCronJobController(informers: Informers, eventSink: EventSink): Loop & { tick(): void } {
  const cronJobs = informers.of(CRONJOBS).as(WRITERS.cronjob);
  const jobCache = informers.of(JOBS).as(WRITERS.cronjob);
  const events = controllerEvents(eventSink, 'cronjob-controller', WRITERS.cronjob);
  // The run each CronJob skipped (missed its deadline, or Forbid with a run active), by namespace/name: kube requeues
  // such a CronJob for its next scheduled time, so the tick leaves it until another run comes due (changes to it
  // and to its Jobs still sync it, and report the skip again, as kube's informers do).
  const skipped = new Map<string, number>();
  const loop = startLoop(
    informers,
    CRONJOBS,
    async (namespace, name) => {
      const cj = cronJobs.get(namespace, name);
      skipped.delete(`${namespace}/${name}`);
      if (!cj) return;
      const spec = asObj(cj.spec);
      const status: Obj = { ...asObj(cj.status) };
      // status.active lists the Jobs this controller started and has not yet seen finish (kube's active list):
      // a Job someone else made under the CronJob (`kubectl create job --from=cronjob/...`) is not in it.
      let active = ((status.active as Obj[] | undefined) ?? []).slice();
      const inActive = (uid: unknown) => active.some((r) => r.uid === uid);
      const dropActive = (uid: unknown) => (active = active.filter((r) => r.uid !== uid));
      const jobs = controlled(jobCache, cj);
      const remove = async (job: KubeObject) => {
        await jobCache.delete(namespace, job.metadata.name ?? '', { propagationPolicy: 'Background' });
        dropActive(job.metadata.uid);
        events.event(cj, 'Normal', 'SuccessfulDelete', `Deleted job ${job.metadata.name}`);
      };
      // The history limits first, oldest start first (kube's byJobStartTime: Jobs not yet started last, then by name).
      for (const kind of ['Complete', 'Failed'] as const) {
        const limit = Number(spec[kind === 'Complete' ? 'successfulJobsHistoryLimit' : 'failedJobsHistoryLimit'] ?? (kind === 'Complete' ? 3 : 1));
        const done = jobs.filter((j) => finished(j) === kind).sort(byStartTime);
        for (const job of done.slice(0, Math.max(0, done.length - limit))) await remove(job).catch(ignoreConflictOrGone);
      }
      for (const job of jobs) {
        const condition = finished(job);
        const listed = inActive(job.metadata.uid);
        if (!listed && !condition) events.event(cj, 'Warning', 'UnexpectedJob', `Saw a job that the controller did not create or forgot: ${job.metadata.name}`);
        else if (listed && condition) {
          dropActive(job.metadata.uid);
          events.event(cj, 'Normal', 'SawCompletedJob', `Saw completed job: ${job.metadata.name}, status: ${condition}`);
        }
        // kube takes a finished Job out of the list in one pass and its completion time in the next, which its own
        // status write starts: both in one pass here.
        if (condition === 'Complete') {
          const completed = asObj(job.status).completionTime;
          if (typeof completed === 'string' && (status.lastSuccessfulTime === undefined || Date.parse(completed) > Date.parse(String(status.lastSuccessfulTime)))) status.lastSuccessfulTime = completed;
        }
      }
      for (const ref of active) {
        if (jobs.some((j) => j.metadata.uid === ref.uid) || jobCache.get(namespace, String(ref.name))) continue;
        events.event(cj, 'Normal', 'MissingJob', `Active job went missing: ${ref.name}`);
        dropActive(ref.uid);
      }
      const done = async () => {
        if (active.length) status.active = active;
        else delete status.active;
        await writeStatus(cronJobs, cj, status);
      };
      if (cj.metadata.deletionTimestamp || spec.suspend === true) return done();
      let schedule;
      try {
        schedule = parseCronSchedule(String(spec.schedule ?? ''), typeof spec.timeZone === 'string' ? spec.timeZone : undefined);
      } catch (e) {
        if (e instanceof RangeError) events.event(cj, 'Warning', 'UnknownTimeZone', `invalid timeZone: "${String(spec.timeZone)}": unknown time zone ${String(spec.timeZone)}`);
        return done();
      }
      const now = clockNow();
      const since = Date.parse(String(status.lastScheduleTime ?? cj.metadata.creationTimestamp ?? new Date(now).toISOString()));
      const due = lastScheduleBetween(schedule, since, now);
      if (due === undefined) return done();
      if (typeof spec.startingDeadlineSeconds === 'number' && due + spec.startingDeadlineSeconds * 1000 < now) {
        events.event(cj, 'Warning', 'MissSchedule', `Missed scheduled time to start a job: ${new Date(due).toUTCString().replace('GMT', '+0000')}`);
        skipped.set(`${namespace}/${name}`, due);
        return done();
      }
      const jobName = `${name}-${Math.floor(due / 60_000)}`;
      if (active.some((r) => r.name === jobName)) return done();
      const policy = spec.concurrencyPolicy ?? 'Allow';
      if (policy === 'Forbid' && active.length > 0) {
        events.event(cj, 'Normal', 'JobAlreadyActive', 'Not starting job because prior execution is running and concurrency policy is Forbid');
        skipped.set(`${namespace}/${name}`, due);
        return done();
      }
      if (policy === 'Replace') {
        for (const ref of active) {
          const job = jobCache.get(namespace, String(ref.name));
          if (job) await remove(job).catch(ignoreConflictOrGone);
        }
      }
      const template = asObj(spec.jobTemplate);
      const job: KubeObject = {
        apiVersion: 'batch/v1',
        kind: 'Job',
        metadata: {
          name: jobName,
          namespace,
          labels: { ...(asObj(asObj(template.metadata).labels) as Record<string, string>) },
          annotations: { ...(asObj(asObj(template.metadata).annotations) as Record<string, string>), 'batch.kubernetes.io/cronjob-scheduled-timestamp': rfc3339(new Date(due)) },
          ownerReferences: [controllerRef(cj, 'batch/v1', 'CronJob')],
        },
        spec: asObj(template.spec),
      };
      let started = await jobCache.create(namespace, job).catch(ignoreConflictOrGone);
      if (started) events.event(cj, 'Normal', 'SuccessfulCreate', `Created job ${started.metadata.name}`);
      else {
        // Already there: taken into the active list only if this CronJob controls it and the list lacks it.
        started = jobCache.get(namespace, jobName);
        if (!started || started.metadata.ownerReferences?.find((o) => o.controller)?.uid !== cj.metadata.uid || inActive(started.metadata.uid)) return done();
      }
      active.push({ kind: 'Job', namespace, name: started.metadata.name, uid: started.metadata.uid, apiVersion: 'batch/v1', resourceVersion: started.metadata.resourceVersion });
      status.lastScheduleTime = rfc3339(new Date(due));
      return done();
    },
    { owned: [JOBS] },
  );
  // Each 10 s, and at once when the clock is moved, a CronJob is looked at if a run of its schedule has come due (kube
  // requeues it for its next scheduled time) and is not the run it last skipped; changes to it and to its Jobs
  // enqueue it through the informers.
  const due = (cj: KubeObject): boolean => {
    const spec = asObj(cj.spec);
    if (spec.suspend === true) return false;
    try {
      const schedule = parseCronSchedule(String(spec.schedule ?? ''), typeof spec.timeZone === 'string' ? spec.timeZone : undefined);
      const since = Date.parse(String(asObj(cj.status).lastScheduleTime ?? cj.metadata.creationTimestamp ?? ''));
      const now = clockNow();
      const run = lastScheduleBetween(schedule, Number.isNaN(since) ? now : since, now);
      return run !== undefined && run !== skipped.get(`${cj.metadata.namespace}/${cj.metadata.name}`);
    } catch {
      return false;
    }
  };
  const tick = () => {
    for (const cj of cronJobs.list()) if (due(cj)) loop.enqueue(`${cj.metadata.namespace}/${cj.metadata.name}`);
  };
  const timer = setInterval(tick, 10_000);
  timer.unref();
  const offClock = onClockChange(() => tick());
  return {
    enqueue: loop.enqueue,
    tick,
    async stop() {
      clearInterval(timer);
      offClock();
      await loop.stop();
    },
  };
}
