// The Job controller: parallelism pods at a time until completions succeed (or, without completions, until one
// succeeds and none is active), then the Complete condition and completionTime; failures beyond backoffLimit end
// it Failed (BackoffLimitExceeded), as kube's controller does.

import type { KubeObject } from '../../registry/types.ts';
import type { EventSink } from './events.ts';
import type { Informers } from './informers.ts';
import { createControlledPod, podFromTemplate, now } from './replicasets.ts';
import { asObj, controlled, controllerEvents, JOBS, PODS, podReady, startLoop, writeStatus, type Loop, type Obj, WRITERS } from './shared.ts';

const finished = (job: KubeObject) => ((asObj(job.status).conditions as Obj[] | undefined) ?? []).some((c) => (c.type === 'Complete' || c.type === 'Failed') && c.status === 'True');

export function startJobController(informers: Informers, eventSink: EventSink): Loop {
  const jobs = informers.of(JOBS).as(WRITERS.job);
  const podCache = informers.of(PODS).as(WRITERS.job);
  const events = controllerEvents(eventSink, 'job-controller', WRITERS.job);
  return startLoop(
    informers,
    JOBS,
    async (namespace, name) => {
      const job = jobs.get(namespace, name);
      if (!job || job.metadata.deletionTimestamp || finished(job) || asObj(job.spec).suspend === true) return;
      const spec = asObj(job.spec);
      const pods = controlled(podCache, job);
      const phase = (p: KubeObject) => asObj(p.status).phase;
      const succeeded = pods.filter((p) => phase(p) === 'Succeeded').length;
      const failed = pods.filter((p) => phase(p) === 'Failed').length;
      const active = pods.filter((p) => !p.metadata.deletionTimestamp && phase(p) !== 'Succeeded' && phase(p) !== 'Failed');
      const parallelism = typeof spec.parallelism === 'number' ? spec.parallelism : 1;
      const completions = typeof spec.completions === 'number' ? spec.completions : undefined;
      const backoffLimit = typeof spec.backoffLimit === 'number' ? spec.backoffLimit : 6;
      const status: Obj = { ...asObj(job.status), startTime: asObj(job.status).startTime ?? now(), uncountedTerminatedPods: {} };
      const done = completions !== undefined ? succeeded >= completions : succeeded > 0 && active.length === 0;
      if (failed > backoffLimit) {
        status.conditions = [{ type: 'Failed', status: 'True', lastProbeTime: now(), lastTransitionTime: now(), reason: 'BackoffLimitExceeded', message: 'Job has reached the specified backoff limit' }];
        events.event(job, 'Warning', 'BackoffLimitExceeded', 'Job has reached the specified backoff limit');
      } else if (done) {
        status.conditions = [{ type: 'Complete', status: 'True', lastProbeTime: now(), lastTransitionTime: now() }];
        status.completionTime = now();
        events.event(job, 'Normal', 'Completed', 'Job completed');
      } else {
        const want = completions !== undefined ? Math.min(parallelism, completions - succeeded) : succeeded > 0 ? 0 : parallelism;
        for (let i = active.length; i < want; i++) await createControlledPod(podCache, events, job, podFromTemplate(job, 'batch/v1', 'Job', asObj(spec.template)));
      }
      status.active = active.length;
      status.ready = active.filter(podReady).length;
      status.terminating = 0;
      if (succeeded) status.succeeded = succeeded;
      else delete status.succeeded;
      if (failed) status.failed = failed;
      else delete status.failed;
      if (status.active === 0) delete status.active;
      await writeStatus(jobs, job, status);
    },
    { owned: [PODS] },
  );
}
