// kube 1.31's validateCronJobSpec: the schedule (robfig/cron's syntax; a TZ prefix only where the stored schedule had
// one), startingDeadlineSeconds, the time zone (an IANA name Go's time.LoadLocation finds; checked when set or
// changed), concurrencyPolicy, the job template (validateJobSpec under spec.jobTemplate.spec, no selector, no manual
// selector) and the history limits.

import { fieldErrors, type FieldError } from '../../../apis/errors.ts';
import type { KubeObject } from '../../types.ts';
import { validateNonnegative } from '../../validation/meta.ts';
import { getPath, objAt, strAt, type Obj } from '../object.ts';
import { cronScheduleError } from './cron-schedule.ts';
import { goLabelSelector } from '../../../apis/go-bad-values.ts';
import { jobSpecErrors } from './job-spec-validation.ts';
import { templateUpdateOptions, type PodUpdateOptions } from '../core/pod-validation-options.ts';
import { isIANAZoneName } from './time-zone-names.ts';

const CONCURRENCY_POLICIES = ['Allow', 'Forbid', 'Replace'];
// A component of a zone name (https://data.iana.org/time-zones/theory.html#naming), digits and + tolerated.
const ZONE_NAME_PART = /^[A-Za-z.\-_0-9+]{1,14}$/;

const isSet = (v: unknown): boolean => v !== undefined && v !== null;

function scheduleErrors(schedule: string, oldSchedule: string | undefined, timeZone: unknown, path: string): FieldError[] {
  if (schedule === '') return [fieldErrors.required(path)];
  const errs: FieldError[] = [];
  const parseError = cronScheduleError(schedule);
  if (parseError !== undefined) errs.push(fieldErrors.invalid(path, schedule, parseError));
  const allowTZ = oldSchedule?.includes('TZ') ?? false;
  if (allowTZ && schedule.includes('TZ') && isSet(timeZone)) errs.push(fieldErrors.invalid(path, schedule, 'cannot use both timeZone field and TZ or CRON_TZ in schedule'));
  else if (!allowTZ && schedule.includes('TZ')) errs.push(fieldErrors.invalid(path, schedule, 'cannot use TZ or CRON_TZ in schedule, use timeZone field instead'));
  return errs;
}

/** validateTimeZone. */
export function timeZoneErrors(timeZone: unknown, path: string): FieldError[] {
  if (typeof timeZone !== 'string') return [];
  if (timeZone === '') return [fieldErrors.invalid(path, timeZone, 'timeZone must be nil or non-empty string')];
  const unknown = fieldErrors.invalid(path, timeZone, `unknown time zone ${timeZone}`);
  if (timeZone.split('/').some((part) => part === '.' || part === '..' || part.startsWith('-') || !ZONE_NAME_PART.test(part))) return [unknown];
  const errs: FieldError[] = [];
  if (timeZone.toLowerCase() === 'local') errs.push(fieldErrors.invalid(path, timeZone, 'timeZone must be an explicit time zone as defined in https://www.iana.org/time-zones'));
  // time.LoadLocation: "Local" and "UTC" are built in, every other name is looked up as written.
  if (timeZone !== 'Local' && timeZone !== 'UTC' && !isIANAZoneName(timeZone)) errs.push(unknown);
  return errs;
}

/** ValidateJobTemplateSpec: the template's job spec; its selector is always generated. */
function jobTemplateErrors(template: unknown, path: string, templateOptions: PodUpdateOptions): FieldError[] {
  const spec: Obj = objAt(template, 'spec') ?? {};
  const errs = jobSpecErrors(spec, `${path}.spec`, templateOptions);
  if (isSet(spec.selector)) errs.push(fieldErrors.invalid(`${path}.spec.selector`, goLabelSelector(spec.selector), '`selector` will be auto-generated'));
  if (spec.manualSelector === true) errs.push(fieldErrors.notSupported(`${path}.spec.manualSelector`, true, ['nil', 'false']));
  return errs;
}

function nonnegativeErrors(spec: Obj, field: string): FieldError[] {
  const v = spec[field];
  return typeof v === 'number' ? validateNonnegative(v, `spec.${field}`) : [];
}

/** validateCronJobSpec of a CronJob, over the stored one on an update. */
export function cronJobSpecErrors(obj: KubeObject, old: KubeObject | undefined): FieldError[] {
  const spec: Obj = objAt(obj, 'spec') ?? {};
  const oldSpec = old ? (objAt(old, 'spec') ?? {}) : undefined;
  const errs = scheduleErrors(strAt(spec, 'schedule'), oldSpec ? strAt(oldSpec, 'schedule') : undefined, spec.timeZone, 'spec.schedule');
  errs.push(...nonnegativeErrors(spec, 'startingDeadlineSeconds'));
  const timeZoneChanged = !oldSpec || isSet(oldSpec.timeZone) !== isSet(spec.timeZone) || (isSet(spec.timeZone) && oldSpec.timeZone !== spec.timeZone);
  if (timeZoneChanged) errs.push(...timeZoneErrors(spec.timeZone, 'spec.timeZone'));
  const policy = strAt(spec, 'concurrencyPolicy');
  if (policy === '') errs.push(fieldErrors.required('spec.concurrencyPolicy'));
  else if (!CONCURRENCY_POLICIES.includes(policy)) errs.push(fieldErrors.notSupported('spec.concurrencyPolicy', policy, CONCURRENCY_POLICIES));
  const templateOptions = oldSpec ? templateUpdateOptions(getPath(oldSpec, 'jobTemplate', 'spec', 'template')) : {};
  errs.push(...jobTemplateErrors(spec.jobTemplate, 'spec.jobTemplate', templateOptions));
  errs.push(...nonnegativeErrors(spec, 'successfulJobsHistoryLimit'));
  errs.push(...nonnegativeErrors(spec, 'failedJobsHistoryLimit'));
  return errs;
}
