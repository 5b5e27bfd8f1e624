import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fieldErrorString } from '../../../apis/errors.ts';
import type { KubeObject } from '../../types.ts';
import { builtinTypeFacts } from '../index.ts';
import { createErrors, updateErrors } from '../test-context.ts';
import { timeZoneErrors } from './cronjob-validation.ts';

const cronJobs = builtinTypeFacts('batch', 'cronjobs');
const zoneErrors = (tz: unknown) => timeZoneErrors(tz, 'spec.timeZone').map(fieldErrorString);

function cronJob(spec: Record<string, unknown>, jobSpec: Record<string, unknown> = {}): KubeObject {
  return {
    metadata: { name: 'nightly', namespace: 'default' },
    spec: { schedule: '0 3 * * *', jobTemplate: { spec: { template: { spec: { restartPolicy: 'OnFailure', containers: [{ name: 'main', image: 'busybox' }] } }, ...jobSpec } }, ...spec },
  };
}

test('cron job time zones: IANA names Go knows, as written', () => {
  for (const tz of [undefined, 'UTC', 'America/New_York', 'Etc/GMT+5', 'US/Eastern', 'Antarctica/DumontDUrville', 'America/Argentina/Buenos_Aires', 'Factory']) assert.deepEqual(zoneErrors(tz), [], String(tz));
  assert.deepEqual(zoneErrors(''), ['spec.timeZone: Invalid value: "": timeZone must be nil or non-empty string']);
  assert.deepEqual(zoneErrors('Mars/Olympus_Mons'), ['spec.timeZone: Invalid value: "Mars/Olympus_Mons": unknown time zone Mars/Olympus_Mons']);
  assert.deepEqual(zoneErrors('america/new_york'), ['spec.timeZone: Invalid value: "america/new_york": unknown time zone america/new_york']);
  assert.deepEqual(zoneErrors('+05:00'), ['spec.timeZone: Invalid value: "+05:00": unknown time zone +05:00']);
  assert.deepEqual(zoneErrors('Europe/../etc'), ['spec.timeZone: Invalid value: "Europe/../etc": unknown time zone Europe/../etc']);
  assert.deepEqual(zoneErrors('Africa/Abidjan_And_Beyond'), ['spec.timeZone: Invalid value: "Africa/Abidjan_And_Beyond": unknown time zone Africa/Abidjan_And_Beyond']);
  assert.deepEqual(zoneErrors('Local'), ['spec.timeZone: Invalid value: "Local": timeZone must be an explicit time zone as defined in https://www.iana.org/time-zones']);
  assert.deepEqual(zoneErrors('local'), [
    'spec.timeZone: Invalid value: "local": timeZone must be an explicit time zone as defined in https://www.iana.org/time-zones',
    'spec.timeZone: Invalid value: "local": unknown time zone local',
  ]);
});

test('cron job: schedule, deadline, concurrency policy and history limits', () => {
  assert.deepEqual(createErrors(cronJobs, cronJob({ schedule: '0 3 * *', startingDeadlineSeconds: -1, concurrencyPolicy: 'Sometimes', successfulJobsHistoryLimit: -1, failedJobsHistoryLimit: -2 })), [
    'spec.schedule: Invalid value: "0 3 * *": expected exactly 5 fields, found 4: [0 3 * *]',
    'spec.startingDeadlineSeconds: Invalid value: -1: must be greater than or equal to 0',
    'spec.concurrencyPolicy: Unsupported value: "Sometimes": supported values: "Allow", "Forbid", "Replace"',
    'spec.successfulJobsHistoryLimit: Invalid value: -1: must be greater than or equal to 0',
    'spec.failedJobsHistoryLimit: Invalid value: -2: must be greater than or equal to 0',
  ]);
});

test('cron job: the job template is a job spec whose selector is generated', () => {
  const podFailurePolicy = { rules: [{ action: 'FailIndex', onExitCodes: { operator: 'In', values: [2] } }] };
  assert.deepEqual(createErrors(cronJobs, cronJob({}, { selector: { matchLabels: { app: 'x' } }, manualSelector: true, podFailurePolicy, backoffLimitPerIndex: 1 })), [
    'spec.jobTemplate.spec.backoffLimitPerIndex: Invalid value: 1: requires indexed completion mode',
    'spec.jobTemplate.spec.template.spec.restartPolicy: Invalid value: "OnFailure": only "Never" is supported when podFailurePolicy is specified',
    'spec.jobTemplate.spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string{"app":"x"}, MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: `selector` will be auto-generated',
    'spec.jobTemplate.spec.manualSelector: Unsupported value: true: supported values: "nil", "false"',
  ]);
});

test('cron job update: a time zone is checked when it changes', () => {
  const old = cronJob({ timeZone: 'Mars/Olympus_Mons' });
  cronJobs.strategy.defaults?.(old);
  Object.assign(old.metadata, { resourceVersion: '4', generation: 1 });
  const same = structuredClone(old);
  (same.spec as Record<string, unknown>).schedule = '0 4 * * *';
  assert.deepEqual(updateErrors(cronJobs, same, old), []);
  const changed = structuredClone(old);
  (changed.spec as Record<string, unknown>).timeZone = 'Mars/Phobos';
  assert.deepEqual(updateErrors(cronJobs, changed, old), ['spec.timeZone: Invalid value: "Mars/Phobos": unknown time zone Mars/Phobos']);
});
