// The CronJob controller on the server's clock (src/apis/clock.ts, so a test can advance it): at each scheduled
// time a Job <cronjob>-<minutes since the epoch> from the jobTemplate, with the scheduled-timestamp annotation;
// spec.timeZone, concurrencyPolicy Allow, Forbid and Replace, suspend, startingDeadlineSeconds, the history limits, and status
// (active, lastScheduleTime, lastSuccessfulTime).

import { clockNow, onClockChange } from '../../apis/clock.ts';
import { rfc3339 } from '../../registry/store-codec.ts';
import type { KubeObject } from '../../registry/types.ts';
import type { EventSink } from '../events.ts';
import type { Informers } from '../informers.ts';
import { lastScheduleBetween, parseCronSchedule } from './cron-schedule.ts';
import { asObj, controlled, controllerEvents, controllerRef, CRONJOBS, ignoreConflictOrGone, JOBS, startLoop, writeStatus, type Loop, type Obj, WRITERS } from './shared.ts';

const finished = (job: KubeObject): string | undefined =>
  ((asObj(job.status).conditions as Obj[] | undefined) ?? []).find((c) => (c.type === 'Complete' || c.type === 'Failed') && c.status === 'True')?.type as string | undefined;

export function startCronJobController(informers: Informers, eventSink: EventSink): Loop & { tick(): void } {
  const cronJobs = informers.of(CRONJOBS).as(WRITERS.cronjob);
  const jobCache = informers.of(JOBS).as(WRITERS.cronjob);
  const events = controllerEvents(eventSink, 'cronjob-controller', WRITERS.cronjob);
  const loop = startLoop(
    informers,
    CRONJOBS,
    async (namespace, name) => {
      const cj = cronJobs.get(namespace, name);
      if (!cj || cj.metadata.deletionTimestamp) return;
      const spec = asObj(cj.spec);
      const status: Obj = { ...asObj(cj.status) };
      const jobs = controlled(jobCache, cj);
      const active = jobs.filter((j) => !finished(j));
      const remove = async (job: KubeObject) => {
        await jobCache.delete(namespace, job.metadata.name ?? '', { propagationPolicy: 'Background' });
        events.event(cj, 'Normal', 'SuccessfulDelete', `Deleted job ${job.metadata.name}`);
      };
      // A Job of the active list that has finished leaves it (SawCompletedJob).
      const listed = new Set(((asObj(cj.status).active as Obj[] | undefined) ?? []).map((r) => r.uid));
      for (const job of jobs) {
        const condition = finished(job);
        if (condition && listed.has(job.metadata.uid)) events.event(cj, 'Normal', 'SawCompletedJob', `Saw completed job: ${job.metadata.name}, status: ${condition}`);
      }
      for (const kind of ['Complete', 'Failed'] as const) {
        const limit = Number(spec[kind === 'Complete' ? 'successfulJobsHistoryLimit' : 'failedJobsHistoryLimit'] ?? (kind === 'Complete' ? 3 : 1));
        const done = jobs.filter((j) => finished(j) === kind).sort((a, b) => String(a.metadata.creationTimestamp).localeCompare(String(b.metadata.creationTimestamp)));
        for (const job of done.slice(0, Math.max(0, done.length - limit))) await remove(job).catch(ignoreConflictOrGone);
        if (kind === 'Complete' && done.length) status.lastSuccessfulTime = asObj(done[done.length - 1].status).completionTime ?? status.lastSuccessfulTime;
      }
      const now = clockNow();
      let schedule;
      try {
        schedule = parseCronSchedule(String(spec.schedule ?? ''), typeof spec.timeZone === 'string' ? spec.timeZone : undefined);
      } catch (e) {
        if (e instanceof RangeError) events.event(cj, 'Warning', 'UnknownTimeZone', `invalid timeZone: "${String(spec.timeZone)}": unknown time zone ${String(spec.timeZone)}`);
        return;
      }
      const since = Date.parse(String(status.lastScheduleTime ?? cj.metadata.creationTimestamp ?? new Date(now).toISOString()));
      const due = spec.suspend === true ? undefined : lastScheduleBetween(schedule, since, now);
      const deadline = typeof spec.startingDeadlineSeconds === 'number' ? spec.startingDeadlineSeconds * 1000 : undefined;
      let current = active;
      if (due !== undefined && (deadline === undefined || now - due <= deadline)) {
        const policy = spec.concurrencyPolicy ?? 'Allow';
        if (!(policy === 'Forbid' && active.length > 0)) {
          if (policy === 'Replace') {
            for (const job of active) await remove(job).catch(ignoreConflictOrGone);
            current = [];
          }
          const template = asObj(spec.jobTemplate);
          const job: KubeObject = {
            apiVersion: 'batch/v1',
            kind: 'Job',
            metadata: {
              name: `${name}-${Math.floor(due / 60_000)}`,
              namespace,
              labels: { ...(asObj(asObj(template.metadata).labels) as Record<string, string>) },
              annotations: { ...(asObj(asObj(template.metadata).annotations) as Record<string, string>), 'batch.kubernetes.io/cronjob-scheduled-timestamp': rfc3339(new Date(due)) },
              ownerReferences: [controllerRef(cj, 'batch/v1', 'CronJob')],
            },
            spec: asObj(template.spec),
          };
          const created = await jobCache.create(namespace, job).catch(ignoreConflictOrGone);
          if (created) {
            current = [...current, created];
            events.event(cj, 'Normal', 'SuccessfulCreate', `Created job ${created.metadata.name}`);
          }
          status.lastScheduleTime = rfc3339(new Date(due));
        }
      }
      if (current.length) status.active = current.map((j) => ({ kind: 'Job', namespace, name: j.metadata.name, uid: j.metadata.uid, apiVersion: 'batch/v1', resourceVersion: j.metadata.resourceVersion }));
      else delete status.active;
      await writeStatus(cronJobs, cj, status);
    },
    { owned: [JOBS] },
  );
  // Every CronJob is looked at again each minute of the clock, and at once when the clock is moved.
  const tick = () => {
    for (const cj of cronJobs.list()) loop.enqueue(`${cj.metadata.namespace}/${cj.metadata.name}`);
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
