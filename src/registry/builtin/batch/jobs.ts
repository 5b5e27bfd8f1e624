// Jobs and CronJobs (pkg/apis/batch/v1 defaults, pkg/apis/batch/validation, pkg/registry/batch/*/strategy.go,
// printJob/printCronJob): generated selectors and job labels, completions/parallelism/backoff defaults, the
// restart policy a job template needs, cron schedule checks, and the Jobs' STATUS/COMPLETIONS/DURATION cells.

import { clockDate } from '../../../apis/clock.ts';
import { fieldErrors, type FieldError } from '../../../apis/errors.ts';
import type { KubeObject } from '../../types.ts';
import { FIELD_IMMUTABLE } from '../../validation/meta.ts';
import { isDNS1123Label } from '../../validation/names.ts';
import { selectorMatches, validateLabelSelector, isInvalidSelector } from '../../validation/label-selector.ts';
import { buildStrategy } from '../generic.ts';
import { humanDuration } from '../duration.ts';
import { clone, ensureObj, getPath, isObj, numAt, objAt, objsAt, semanticEqual, setDefault, setDefaultString, sortedMap, strAt, type Obj } from '../object.ts';
import { ageColumn, column, containerCells, formatLabelSelector, translateTimestampSince } from '../printing.ts';
import type { TypeFacts } from '../facts.ts';
import type { TypeRules } from '../type-rules.ts';
import { defaultPodSpec, defaultPodTemplate } from '../core/pod-defaults.ts';
import { validatePodTemplateSpec } from '../core/pod-validation.ts';
import { generationChanged, jobSpecWarnings, workloadNameWarnings } from '../core/pod-warnings.ts';
import { nonnegativeAt, SELECTOR_MISMATCH, templateLabels } from '../apps/template-validation.ts';

export const LABEL_JOB_NAME = 'batch.kubernetes.io/job-name';
export const LABEL_LEGACY_JOB_NAME = 'job-name';
export const LABEL_CONTROLLER_UID = 'batch.kubernetes.io/controller-uid';
export const LABEL_LEGACY_CONTROLLER_UID = 'controller-uid';
const MAX_INT32 = 2147483647;

const specOf = (obj: KubeObject): Obj => objAt(obj, 'spec') ?? {};

// ---- Jobs ----

/** SetDefaults_Job. */
export function defaultJob(obj: KubeObject): void {
  const spec = ensureObj(obj, 'spec');
  if ((spec.completions === undefined || spec.completions === null) && (spec.parallelism === undefined || spec.parallelism === null)) {
    spec.completions = 1;
    spec.parallelism = 1;
  }
  setDefault(spec, 'parallelism', 1);
  setDefault(spec, 'backoffLimit', spec.backoffLimitPerIndex !== undefined && spec.backoffLimitPerIndex !== null ? MAX_INT32 : 6);
  const labels = getPath(spec, 'template', 'metadata', 'labels');
  const meta = obj.metadata ?? (obj.metadata = {});
  if (isObj(labels) && (!isObj(meta.labels) || Object.keys(meta.labels).length === 0)) meta.labels = clone(labels) as Record<string, string>;
  setDefault(spec, 'completionMode', 'NonIndexed');
  setDefault(spec, 'suspend', false);
  for (const rule of objsAt(spec, 'podFailurePolicy', 'rules')) {
    for (const pattern of objsAt(rule, 'onPodConditions')) setDefaultString(pattern, 'status', 'True');
  }
  setDefault(spec, 'podReplacementPolicy', isObj(spec.podFailurePolicy) ? 'Failed' : 'TerminatingOrFailed');
  defaultPodTemplate(ensureObj(spec, 'template'));
}

/** generateSelector: the job's pods carry its name and uid; the selector picks the uid. */
export function generateJobSelector(obj: KubeObject): void {
  const spec = ensureObj(obj, 'spec');
  if (spec.manualSelector === true) return;
  const tmeta = ensureObj(ensureObj(spec, 'template'), 'metadata');
  const labels = isObj(tmeta.labels) ? tmeta.labels : {};
  const name = obj.metadata?.name ?? '';
  const uid = obj.metadata?.uid ?? '';
  for (const key of [LABEL_LEGACY_JOB_NAME, LABEL_JOB_NAME]) if (!Object.hasOwn(labels, key)) labels[key] = name;
  for (const key of [LABEL_LEGACY_CONTROLLER_UID, LABEL_CONTROLLER_UID]) if (!Object.hasOwn(labels, key)) labels[key] = uid;
  tmeta.labels = labels;
  const selector = ensureObj(spec, 'selector');
  const matchLabels = ensureObj(selector, 'matchLabels');
  if (!Object.hasOwn(matchLabels, LABEL_CONTROLLER_UID)) matchLabels[LABEL_CONTROLLER_UID] = uid;
}

function jobSpecErrors(spec: Obj, path: string): FieldError[] {
  const errs: FieldError[] = [];
  for (const f of ['parallelism', 'completions', 'activeDeadlineSeconds', 'backoffLimit', 'ttlSecondsAfterFinished']) {
    errs.push(...nonnegativeAt(spec, `${path}.${f}`, f));
  }
  const mode = spec.completionMode;
  if (typeof mode === 'string') {
    if (mode !== 'NonIndexed' && mode !== 'Indexed') errs.push(fieldErrors.notSupported(`${path}.completionMode`, mode, ['NonIndexed', 'Indexed']));
    if (mode === 'Indexed' && (spec.completions === undefined || spec.completions === null)) {
      errs.push(fieldErrors.required(`${path}.completions`, 'when completion mode is Indexed'));
    }
  }
  if (typeof spec.backoffLimitPerIndex === 'number' && mode !== 'Indexed') {
    errs.push(fieldErrors.forbidden(`${path}.backoffLimitPerIndex`, 'requires indexed completion mode'));
  }
  errs.push(...validatePodTemplateSpec(spec.template, `${path}.template`));
  const restartPolicy = strAt(spec, 'template', 'spec', 'restartPolicy');
  if (restartPolicy === 'Always' || restartPolicy === '') {
    errs.push(fieldErrors.required(`${path}.template.spec.restartPolicy`, 'valid values: "OnFailure", "Never"'));
  } else if (restartPolicy !== 'OnFailure' && restartPolicy !== 'Never') {
    errs.push(fieldErrors.notSupported(`${path}.template.spec.restartPolicy`, restartPolicy, ['OnFailure', 'Never']));
  }
  const prp = spec.podReplacementPolicy;
  if (typeof prp === 'string' && prp !== 'TerminatingOrFailed' && prp !== 'Failed') {
    errs.push(fieldErrors.notSupported(`${path}.podReplacementPolicy`, prp, ['TerminatingOrFailed', 'Failed']));
  }
  return errs;
}

function generatedSelectorErrors(obj: KubeObject): FieldError[] {
  const spec = specOf(obj);
  if (spec.manualSelector === true) return [];
  if (!isObj(getPath(spec, 'template', 'metadata', 'labels'))) {
    return [fieldErrors.required('spec.template.metadata.labels', 'in case of generated selector should be consistent with job labels')];
  }
  if (!isObj(spec.selector)) return [];
  const uid = obj.metadata?.uid ?? '';
  const name = obj.metadata?.name ?? '';
  const labels = templateLabels(spec.template);
  const errs: FieldError[] = [];
  if (uid === '') errs.push(fieldErrors.required('metadata.uid'));
  // ValidateHasLabel for each generated label.
  for (const [key, want] of [
    [LABEL_LEGACY_CONTROLLER_UID, uid],
    [LABEL_LEGACY_JOB_NAME, name],
    [LABEL_CONTROLLER_UID, uid],
    [LABEL_JOB_NAME, name],
  ]) {
    const path = `spec.template.metadata.labels[${key}]`;
    if (!Object.hasOwn(labels, key)) errs.push(fieldErrors.required(path, `must be '${want}'`));
    else if (labels[key] !== want) errs.push(fieldErrors.invalid(path, sortedMap(labels), `must be '${want}'`));
  }
  if (!selectorMatches(spec.selector, { [LABEL_CONTROLLER_UID]: uid })) {
    errs.push(fieldErrors.invalid('spec.selector', spec.selector, '`selector` not auto-generated'));
  }
  return errs;
}

export function validateJob(obj: KubeObject): FieldError[] {
  const spec = specOf(obj);
  const errs = generatedSelectorErrors(obj);
  errs.push(...jobSpecErrors(spec, 'spec'));
  if (!isObj(spec.selector)) errs.push(fieldErrors.required('spec.selector'));
  else errs.push(...validateLabelSelector(spec.selector, 'spec.selector'));
  if (!isInvalidSelector(spec.selector) && isObj(spec.selector) && !selectorMatches(spec.selector, templateLabels(spec.template))) {
    errs.push(fieldErrors.invalid('spec.template.metadata.labels', sortedMap(templateLabels(spec.template)), SELECTOR_MISMATCH));
  }
  const completions = spec.completions;
  if (spec.completionMode === 'Indexed' && typeof completions === 'number' && completions > 0) {
    const hostname = `${obj.metadata?.name ?? ''}-${completions - 1}`;
    if (isDNS1123Label(hostname).length > 0) {
      errs.push(fieldErrors.invalid('metadata.name', obj.metadata?.name ?? '', `will not able to create pod with invalid DNS label: ${hostname}`));
    }
  }
  return errs;
}

function validateJobUpdate(obj: KubeObject, old: KubeObject): FieldError[] {
  const errs = validateJob(obj);
  const n = specOf(obj);
  const o = specOf(old);
  const suspended = n.suspend === true;
  if (!semanticEqual(n.completions, o.completions) && !(n.completionMode === 'Indexed' && n.completions === n.parallelism && o.completions === o.parallelism)) {
    errs.push(fieldErrors.invalid('spec.completions', n.completions ?? null, FIELD_IMMUTABLE));
  }
  if (!semanticEqual(n.selector, o.selector)) errs.push(fieldErrors.invalid('spec.selector', n.selector ?? null, FIELD_IMMUTABLE));
  // Suspended jobs that never started may change scheduling directives of their template.
  const oldTemplate = clone(isObj(o.template) ? o.template : {});
  const newTemplate = isObj(n.template) ? n.template : {};
  if (suspended && !getPath(old, 'status', 'startTime')) {
    const ot = ensureObj(oldTemplate, 'spec');
    const nt = objAt(newTemplate, 'spec') ?? {};
    for (const f of ['nodeSelector', 'tolerations', 'affinity', 'schedulingGates']) {
      if (nt[f] === undefined) delete ot[f];
      else ot[f] = clone(nt[f]);
    }
    const om = ensureObj(oldTemplate, 'metadata');
    const nm = objAt(newTemplate, 'metadata') ?? {};
    for (const f of ['labels', 'annotations']) {
      if (nm[f] === undefined) delete om[f];
      else om[f] = clone(nm[f]);
    }
  }
  if (!semanticEqual(newTemplate, oldTemplate)) errs.push(fieldErrors.invalid('spec.template', newTemplate, FIELD_IMMUTABLE));
  for (const f of ['completionMode', 'podFailurePolicy', 'backoffLimitPerIndex']) {
    if (!semanticEqual(n[f], o[f])) errs.push(fieldErrors.invalid(`spec.${f}`, n[f] ?? null, FIELD_IMMUTABLE));
  }
  return errs;
}

function jobStatusCell(obj: KubeObject): string {
  const conditions = objsAt(obj, 'status', 'conditions');
  const has = (type: string) => {
    const c = conditions.find((x) => x.type === type);
    return c !== undefined && c.status === 'True';
  };
  if (has('Complete')) return 'Complete';
  if (has('Failed')) return 'Failed';
  if (obj.metadata?.deletionTimestamp) return 'Terminating';
  if (has('Suspended')) return 'Suspended';
  if (has('FailureTarget')) return 'FailureTarget';
  return 'Running';
}

function completionsCell(obj: KubeObject): string {
  const spec = specOf(obj);
  const succeeded = numAt(obj, 'status', 'succeeded');
  if (typeof spec.completions === 'number') return `${succeeded}/${spec.completions}`;
  const parallelism = typeof spec.parallelism === 'number' ? spec.parallelism : 0;
  return parallelism > 1 ? `${succeeded}/1 of ${parallelism}` : `${succeeded}/1`;
}

function durationCell(obj: KubeObject, now: Date = clockDate()): string {
  const start = Date.parse(strAt(obj, 'status', 'startTime'));
  if (Number.isNaN(start)) return '';
  const completion = Date.parse(strAt(obj, 'status', 'completionTime'));
  const end = Number.isNaN(completion) ? now.getTime() : completion;
  return humanDuration((end - start) * 1e6);
}

export function jobFacts(rules: TypeRules): TypeFacts {
  return {
    strategy: buildStrategy(rules, {
      defaults: defaultJob,
      podTemplate: (obj) => objAt(obj, 'spec')?.template,
      prepareForCreate: (obj) => generateJobSelector(obj),
      validate: validateJob,
      validateUpdate: (obj, old) => validateJobUpdate(obj, old),
      warnings: (obj, old) => (old ? (generationChanged(obj, old) ? jobSpecWarnings(obj.spec, 'spec') : []) : [...workloadNameWarnings(obj), ...jobSpecWarnings(obj.spec, 'spec')]),
    }),
    printerColumns: [
      column('Status', 'string', 'Status of the job.', jobStatusCell),
      column('Completions', 'string', 'Succeeded pods of desired completions.', completionsCell),
      column('Duration', 'string', 'Time the job ran or has been running.', (o) => durationCell(o)),
      ageColumn,
      column('Containers', 'string', 'Names of each container in the template.', (o) => containerCells(getPath(o, 'spec', 'template', 'spec')).names, 1),
      column('Images', 'string', 'Images referenced by each container in the template.', (o) => containerCells(getPath(o, 'spec', 'template', 'spec')).images, 1),
      column('Selector', 'string', 'Labels of the pods the job manages.', (o) => formatLabelSelector(specOf(o).selector), 1),
    ],
    selectableFields: { 'status.successful': (o) => String(numAt(o, 'status', 'succeeded')) },
  };
}

// ---- CronJobs ----

interface CronField {
  readonly min: number;
  readonly max: number;
  readonly names?: Readonly<Record<string, number>>;
}

const CRON_FIELDS: CronField[] = [
  { min: 0, max: 59 },
  { min: 0, max: 23 },
  { min: 1, max: 31 },
  { min: 1, max: 12, names: { jan: 1, feb: 2, mar: 3, apr: 4, may: 5, jun: 6, jul: 7, aug: 8, sep: 9, oct: 10, nov: 11, dec: 12 } },
  { min: 0, max: 6, names: { sun: 0, mon: 1, tue: 2, wed: 3, thu: 4, fri: 5, sat: 6 } },
];
const DESCRIPTORS = new Set(['@yearly', '@annually', '@monthly', '@weekly', '@daily', '@midnight', '@hourly']);

function cronInt(expr: string): number {
  if (!/^[+-]?\d+$/.test(expr)) throw new Error(`failed to parse int from ${expr}: strconv.Atoi: parsing ${JSON.stringify(expr)}: invalid syntax`);
  const n = Number(expr);
  if (n < 0) throw new Error(`negative number (${n}) not allowed: ${expr}`);
  return n;
}

function cronValue(expr: string, f: CronField): number {
  const named = f.names?.[expr.toLowerCase()];
  return named !== undefined ? named : cronInt(expr);
}

function checkCronRange(expr: string, f: CronField): void {
  if (expr === '*' || expr === '?') return;
  const rangeAndStep = expr.split('/');
  const lowAndHigh = rangeAndStep[0].split('-');
  let start: number;
  let end: number;
  if (lowAndHigh[0] === '*' || lowAndHigh[0] === '?') {
    start = f.min;
    end = f.max;
  } else {
    start = cronValue(lowAndHigh[0], f);
    if (lowAndHigh.length === 1) end = start;
    else if (lowAndHigh.length === 2) end = cronValue(lowAndHigh[1], f);
    else throw new Error(`too many hyphens: ${expr}`);
  }
  let step = 1;
  if (rangeAndStep.length === 2) {
    step = cronInt(rangeAndStep[1]);
    if (lowAndHigh.length === 1) end = f.max;
  } else if (rangeAndStep.length > 2) throw new Error(`too many slashes: ${expr}`);
  if (start < f.min) throw new Error(`beginning of range (${start}) below minimum (${f.min}): ${expr}`);
  if (end > f.max) throw new Error(`end of range (${end}) above maximum (${f.max}): ${expr}`);
  if (start > end) throw new Error(`beginning of range (${start}) beyond end of range (${end}): ${expr}`);
  if (step === 0) throw new Error(`step of range should be a positive number: ${expr}`);
}

/** robfig/cron's ParseStandard error, or undefined when the schedule parses. */
export function cronScheduleError(schedule: string): string | undefined {
  let spec = schedule;
  const tz = /^(?:CRON_)?TZ=\S+\s*/.exec(spec);
  if (tz) spec = spec.slice(tz[0].length);
  if (spec.trim() === '') return 'empty spec string';
  if (spec.startsWith('@')) {
    if (DESCRIPTORS.has(spec)) return undefined;
    if (spec.startsWith('@every ')) return /^@every (\d+(\.\d+)?(ns|us|\u00b5s|ms|s|m|h))+$/.test(spec) ? undefined : `failed to parse duration ${spec}: time: invalid duration ${JSON.stringify(spec.slice(7))}`;
    return `unrecognized descriptor: ${spec}`;
  }
  const fields = spec.trim().split(/\s+/);
  if (fields.length !== 5) return `expected exactly 5 fields, found ${fields.length}: [${fields.join(' ')}]`;
  try {
    fields.forEach((field, i) => {
      for (const expr of field.split(',')) checkCronRange(expr, CRON_FIELDS[i]);
    });
  } catch (e) {
    return (e as Error).message;
  }
  return undefined;
}

function timeZoneErrors(tz: unknown, path: string): FieldError[] {
  if (tz === undefined || tz === null) return [];
  if (typeof tz !== 'string' || tz === '') return [fieldErrors.invalid(path, tz, 'timeZone must be nil or non-empty string')];
  if (tz.toLowerCase() === 'local') return [fieldErrors.invalid(path, tz, 'timeZone must be an explicit time zone as defined in https://www.iana.org/time-zones')];
  const known = tz === 'UTC' || (Intl.supportedValuesOf('timeZone') as string[]).includes(tz);
  if (!known) {
    try {
      new Intl.DateTimeFormat('en', { timeZone: tz });
    } catch {
      return [fieldErrors.invalid(path, tz, `unknown time zone ${tz}`)];
    }
  }
  return [];
}

export function defaultCronJob(obj: KubeObject): void {
  const spec = ensureObj(obj, 'spec');
  setDefaultString(spec, 'concurrencyPolicy', 'Allow');
  setDefault(spec, 'suspend', false);
  setDefault(spec, 'successfulJobsHistoryLimit', 3);
  setDefault(spec, 'failedJobsHistoryLimit', 1);
  const template = ensureObj(ensureObj(ensureObj(spec, 'jobTemplate'), 'spec'), 'template');
  defaultPodSpec(ensureObj(template, 'spec'));
}

function validateCronJobSpec(obj: KubeObject, old: KubeObject | undefined): FieldError[] {
  const spec = specOf(obj);
  const errs: FieldError[] = [];
  const schedule = typeof spec.schedule === 'string' ? spec.schedule : '';
  if (schedule === '') errs.push(fieldErrors.required('spec.schedule'));
  else {
    const err = cronScheduleError(schedule);
    if (err) errs.push(fieldErrors.invalid('spec.schedule', schedule, err));
    const allowTZ = old ? strAt(old, 'spec', 'schedule').includes('TZ') : false;
    if (allowTZ && schedule.includes('TZ') && spec.timeZone !== undefined && spec.timeZone !== null) {
      errs.push(fieldErrors.invalid('spec.schedule', schedule, 'cannot use both timeZone field and TZ or CRON_TZ in schedule'));
    } else if (!allowTZ && schedule.includes('TZ')) {
      errs.push(fieldErrors.invalid('spec.schedule', schedule, 'cannot use TZ or CRON_TZ in schedule, use timeZone field instead'));
    }
  }
  errs.push(...nonnegativeAt(spec, 'spec.startingDeadlineSeconds', 'startingDeadlineSeconds'));
  if (!old || !semanticEqual(getPath(old, 'spec', 'timeZone'), spec.timeZone)) errs.push(...timeZoneErrors(spec.timeZone, 'spec.timeZone'));
  const cp = strAt(spec, 'concurrencyPolicy');
  if (cp === '') errs.push(fieldErrors.required('spec.concurrencyPolicy'));
  else if (!['Allow', 'Forbid', 'Replace'].includes(cp)) errs.push(fieldErrors.notSupported('spec.concurrencyPolicy', cp, ['Allow', 'Forbid', 'Replace']));
  const jobSpec = objAt(spec.jobTemplate, 'spec') ?? {};
  errs.push(...jobSpecErrors(jobSpec, 'spec.jobTemplate.spec'));
  if (jobSpec.selector !== undefined && jobSpec.selector !== null) {
    errs.push(fieldErrors.invalid('spec.jobTemplate.spec.selector', jobSpec.selector, '`selector` will be auto-generated'));
  }
  if (jobSpec.manualSelector === true) errs.push(fieldErrors.notSupported('spec.jobTemplate.spec.manualSelector', true, ['nil', 'false']));
  errs.push(...nonnegativeAt(spec, 'spec.successfulJobsHistoryLimit', 'successfulJobsHistoryLimit'));
  errs.push(...nonnegativeAt(spec, 'spec.failedJobsHistoryLimit', 'failedJobsHistoryLimit'));
  return errs;
}

/** WarningsOnCreate and WarningsOnUpdate (a TZ in the schedule, refused on create, is warned about on update). */
function cronJobWarnings(obj: KubeObject, old: KubeObject | undefined): string[] {
  const jobSpec = getPath(obj, 'spec', 'jobTemplate', 'spec');
  if (!old) return [...workloadNameWarnings(obj), ...jobSpecWarnings(jobSpec, 'spec.jobTemplate.spec')];
  const out = generationChanged(obj, old) ? jobSpecWarnings(jobSpec, 'spec.jobTemplate.spec') : [];
  // kube's path here is spec.spec.schedule.
  if (strAt(obj, 'spec', 'schedule').includes('TZ')) {
    out.push('cannot use TZ or CRON_TZ in spec.spec.schedule, use timeZone instead, see https://kubernetes.io/docs/concepts/workloads/controllers/cron-jobs/ for more details');
  }
  return out;
}

export function cronJobFacts(rules: TypeRules): TypeFacts {
  return {
    strategy: buildStrategy(rules, {
      defaults: defaultCronJob,
      podTemplate: (obj) => objAt(objAt(objAt(obj, 'spec'), 'jobTemplate'), 'spec')?.template,
      validate(obj) {
        const errs = validateCronJobSpec(obj, undefined);
        const name = obj.metadata?.name ?? '';
        if (name.length > 52) errs.push(fieldErrors.invalid('metadata.name', name, 'must be no more than 52 characters'));
        return errs;
      },
      validateUpdate: (obj, old) => validateCronJobSpec(obj, old),
      warnings: cronJobWarnings,
    }),
    printerColumns: [
      column('Schedule', 'string', 'The cron schedule.', (o) => strAt(o, 'spec', 'schedule')),
      column('Timezone', 'string', 'The time zone of the schedule.', (o) => (typeof specOf(o).timeZone === 'string' ? (specOf(o).timeZone as string) : '<none>')),
      column('Suspend', 'boolean', 'Whether new runs are suspended.', (o) => {
        const s = specOf(o).suspend;
        return typeof s === 'boolean' ? (s ? 'True' : 'False') : '<unset>';
      }),
      column('Active', 'integer', 'Running jobs.', (o) => objsAt(o, 'status', 'active').length),
      column('Last Schedule', 'string', 'When a job was last scheduled.', (o) => {
        const t = strAt(o, 'status', 'lastScheduleTime');
        return t === '' ? '<none>' : translateTimestampSince(t);
      }),
      ageColumn,
      column('Containers', 'string', 'Names of each container in the template.', (o) => containerCells(getPath(o, 'spec', 'jobTemplate', 'spec', 'template', 'spec')).names, 1),
      column('Images', 'string', 'Images referenced by each container in the template.', (o) => containerCells(getPath(o, 'spec', 'jobTemplate', 'spec', 'template', 'spec')).images, 1),
      column('Selector', 'string', 'Labels of the pods its jobs manage.', (o) => formatLabelSelector(getPath(o, 'spec', 'jobTemplate', 'spec', 'selector')), 1),
    ],
    selectableFields: {},
  };
}
