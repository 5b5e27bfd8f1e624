import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fieldErrorString } from '../../../apis/errors.ts';
import type { KubeObject } from '../../types.ts';
import { builtinTypeFacts } from '../index.ts';
import { testContext as ctx } from '../test-context.ts';
import { cronScheduleError } from './cron-schedule.ts';

const jobs = builtinTypeFacts('batch', 'jobs');
const cronJobs = builtinTypeFacts('batch', 'cronjobs');

function createJob(spec: Record<string, unknown>): KubeObject {
  const job: KubeObject = { metadata: { name: 'pi', namespace: 'default', uid: 'uid-1' }, spec };
  jobs.strategy.defaults?.(job);
  jobs.strategy.prepareForCreate?.(job, ctx);
  return job;
}

const podTemplate = (restartPolicy?: string) => ({ spec: { containers: [{ name: 'pi', image: 'perl' }], ...(restartPolicy ? { restartPolicy } : {}) } });

test('job defaults and the generated selector', () => {
  const job = createJob({ template: podTemplate('Never') });
  const spec = job.spec as Record<string, unknown>;
  assert.equal(spec.completions, 1);
  assert.equal(spec.parallelism, 1);
  assert.equal(spec.backoffLimit, 6);
  assert.equal(spec.completionMode, 'NonIndexed');
  assert.equal(spec.suspend, false);
  assert.equal(spec.podReplacementPolicy, 'TerminatingOrFailed');
  assert.deepEqual(spec.selector, { matchLabels: { 'batch.kubernetes.io/controller-uid': 'uid-1' } });
  assert.deepEqual((spec.template as { metadata: { labels: unknown } }).metadata.labels, {
    'job-name': 'pi',
    'batch.kubernetes.io/job-name': 'pi',
    'controller-uid': 'uid-1',
    'batch.kubernetes.io/controller-uid': 'uid-1',
  });
  assert.equal(job.metadata.generation, 1);
  assert.deepEqual(job.status, {});
  assert.deepEqual((jobs.strategy.validate?.(job, ctx) ?? []).map(fieldErrorString), []);
});

test('a job template must not restart always', () => {
  const job = createJob({ template: podTemplate() });
  assert.deepEqual((jobs.strategy.validate?.(job, ctx) ?? []).map(fieldErrorString), ['spec.template.spec.restartPolicy: Required value: valid values: "OnFailure", "Never"']);
});

test('job updates: template and selector are immutable', () => {
  const old = createJob({ template: podTemplate('Never') });
  old.metadata.resourceVersion = '2';
  const upd = structuredClone(old);
  ((upd.spec as { template: { spec: { containers: { image: string }[] } } }).template.spec.containers[0]).image = 'perl:5';
  jobs.strategy.prepareForUpdate?.(upd, old, ctx);
  const errs = (jobs.strategy.validateUpdate?.(upd, old, ctx) ?? []).map((e) => `${e.field}: ${e.detail}`);
  assert.deepEqual(errs, ['spec.template: field is immutable']);
  assert.equal(upd.metadata.generation, 2);
});

test('job printer cells and the status.successful field', () => {
  const job = createJob({ template: podTemplate('Never'), completions: 3, parallelism: 2 });
  job.status = { succeeded: 1, startTime: '2024-01-01T00:00:00Z', completionTime: '2024-01-01T00:02:05Z', conditions: [{ type: 'Complete', status: 'True' }] };
  const cells = Object.fromEntries(jobs.printerColumns.map((c) => [c.name, c.cell(job)]));
  assert.equal(cells.Status, 'Complete');
  assert.equal(cells.Completions, '1/3');
  assert.equal(cells.Duration, '2m5s');
  assert.equal(jobs.selectableFields['status.successful'](job), '1');
});

test('cron schedules', () => {
  assert.equal(cronScheduleError('*/5 * * * *'), undefined);
  assert.equal(cronScheduleError('@hourly'), undefined);
  assert.equal(cronScheduleError('0 0 * * MON-FRI'), undefined);
  assert.equal(cronScheduleError('* * * *'), 'expected exactly 5 fields, found 4: [* * * *]');
  assert.equal(cronScheduleError('61 * * * *'), 'end of range (61) above maximum (59): 61');
  assert.equal(cronScheduleError('x * * * *'), 'failed to parse int from x: strconv.Atoi: parsing "x": invalid syntax');
  assert.equal(cronScheduleError('@often'), 'unrecognized descriptor: @often');
});

test('cron job defaults and validation', () => {
  const cj: KubeObject = { metadata: { name: 'nightly', namespace: 'default' }, spec: { schedule: '0 3 * * *', jobTemplate: { spec: { template: podTemplate('OnFailure') } } } };
  cronJobs.strategy.defaults?.(cj);
  cronJobs.strategy.prepareForCreate?.(cj, ctx);
  const spec = cj.spec as Record<string, unknown>;
  assert.equal(spec.concurrencyPolicy, 'Allow');
  assert.equal(spec.suspend, false);
  assert.equal(spec.successfulJobsHistoryLimit, 3);
  assert.equal(spec.failedJobsHistoryLimit, 1);
  assert.deepEqual(cronJobs.strategy.validate?.(cj, ctx), []);
  const bad = structuredClone(cj);
  bad.metadata.name = 'n'.repeat(53);
  (bad.spec as Record<string, unknown>).schedule = 'TZ=UTC 0 3 * * *';
  assert.deepEqual((cronJobs.strategy.validate?.(bad, ctx) ?? []).map(fieldErrorString), [
    'spec.schedule: Invalid value: "TZ=UTC 0 3 * * *": cannot use TZ or CRON_TZ in schedule, use timeZone field instead',
    `metadata.name: Invalid value: "${'n'.repeat(53)}": must be no more than 52 characters`,
  ]);
  const cells = Object.fromEntries(cronJobs.printerColumns.map((c) => [c.name, c.cell(cj)]));
  assert.equal(cells.Schedule, '0 3 * * *');
  assert.equal(cells.Timezone, '<none>');
  assert.equal(cells.Suspend, 'False');
  assert.equal(cells.Active, 0);
  assert.equal(cells['Last Schedule'], '<none>');
});
