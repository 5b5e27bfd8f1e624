// Jobs and CronJobs (pkg/apis/batch/v1 defaults, pkg/registry/batch/*/strategy.go, printJob/printCronJob):
// defaults, generated selectors and job labels, the fields of disabled features dropped, validation
// (pkg/apis/batch/validation, in the job-* and cronjob-* modules beside this one) and the Jobs'
// STATUS/COMPLETIONS/DURATION cells.

import { clockDate } from '../../../apis/clock.ts';
import { fieldErrors, type FieldError } from '../../../apis/errors.ts';
import type { KubeObject } from '../../types.ts';
import { validateObjectMeta } from '../../validation/meta.ts';
import { isDNS1123Label } from '../../validation/names.ts';
import { hasInvalidLabelValueInSelector, isInvalidSelector, selectorMatches, validateLabelSelector } from '../../validation/label-selector.ts';
import { buildStrategy, metaOf, specChanged } from '../generic.ts';
import { humanDuration } from '../duration.ts';
import { clone, ensureObj, getPath, isObj, numAt, objAt, objsAt, setDefault, setDefaultString, strAt, type Obj } from '../object.ts';
import { ageColumn, column, containerCells, formatLabelSelector, translateTimestampSince } from '../printing.ts';
import type { TypeFacts } from '../facts.ts';
import type { TypeRules } from '../type-rules.ts';
import { defaultPodSpec, defaultPodTemplate } from '../core/pod-defaults.ts';
import { generationChanged, jobSpecWarnings, workloadNameWarnings } from '../core/pod-warnings.ts';
import { SELECTOR_MISMATCH, templateLabels } from '../apps/template-validation.ts';
import { cronJobSpecErrors } from './cronjob-validation.ts';
import { goLabelSelector, goStringMap } from '../../../apis/go-bad-values.ts';
import { dropDisabledJobFields } from './job-disabled-fields.ts';
import { jobSpecErrors } from './job-spec-validation.ts';
import { templateUpdateOptions, type PodUpdateOptions } from '../core/pod-validation-options.ts';
import { jobStatusUpdateErrors } from './job-status-validation.ts';
import { jobSpecUpdateErrors } from './job-update-validation.ts';

export const LABEL_JOB_NAME = 'batch.kubernetes.io/job-name';
export const LABEL_LEGACY_JOB_NAME = 'job-name';
export const LABEL_CONTROLLER_UID = 'batch.kubernetes.io/controller-uid';
export const LABEL_LEGACY_CONTROLLER_UID = 'controller-uid';
const MAX_INT32 = 2147483647;

const specOf = (obj: KubeObject): Obj => objAt(obj, 'spec') ?? {};

// ---- Jobs ----

/** SetDefaults_Job (podReplacementPolicy is dropped again where its gate is off, see job-disabled-fields.ts). */
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
  setDefault(spec, 'manualSelector', false);
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

/** JobValidationOptions an update takes from the stored Job. */
interface JobValidationOptions {
  /** The batch.kubernetes.io labels are required (jobs created before kube 1.27 may lack them). */
  requirePrefixedLabels: boolean;
  allowInvalidLabelValueInSelector: boolean;
  /** What the template earns from the stored one (the selector allowance above included, as kube shares it). */
  template: PodUpdateOptions;
}

const CREATE_OPTIONS: JobValidationOptions = { requirePrefixedLabels: true, allowInvalidLabelValueInSelector: false, template: {} };

function updateOptions(old: KubeObject): JobValidationOptions {
  const labels = templateLabels(specOf(old).template);
  const template = templateUpdateOptions(specOf(old).template);
  const allowInvalidLabelValueInSelector = template.allowInvalidLabelValueInSelector === true || hasInvalidLabelValueInSelector(specOf(old).selector);
  return {
    requirePrefixedLabels: Object.hasOwn(labels, LABEL_JOB_NAME) && Object.hasOwn(labels, LABEL_CONTROLLER_UID),
    allowInvalidLabelValueInSelector,
    template: { ...template, allowInvalidLabelValueInSelector },
  };
}

/** validateGeneratedSelector. */
function generatedSelectorErrors(obj: KubeObject, opts: JobValidationOptions): FieldError[] {
  const spec = specOf(obj);
  if (spec.manualSelector === true || !isObj(spec.selector)) return [];
  const uid = obj.metadata?.uid ?? '';
  const name = obj.metadata?.name ?? '';
  const labels = templateLabels(spec.template);
  const errs: FieldError[] = [];
  if (uid === '') errs.push(fieldErrors.required('metadata.uid'));
  const expected: [string, string][] = [
    [LABEL_LEGACY_CONTROLLER_UID, uid],
    [LABEL_LEGACY_JOB_NAME, name],
  ];
  if (opts.requirePrefixedLabels) expected.push([LABEL_CONTROLLER_UID, uid], [LABEL_JOB_NAME, name]);
  // ValidateHasLabel for each generated label.
  for (const [key, want] of expected) {
    const path = `spec.template.metadata.labels[${key}]`;
    if (!Object.hasOwn(labels, key)) errs.push(fieldErrors.required(path, `must be '${want}'`));
    else if (labels[key] !== want) errs.push(fieldErrors.invalid(path, goStringMap(labels), `must be '${want}'`));
  }
  if (!isInvalidSelector(spec.selector) && !selectorMatches(spec.selector, Object.fromEntries(expected))) {
    errs.push(fieldErrors.invalid('spec.selector', goLabelSelector(spec.selector), '`selector` not auto-generated'));
  }
  return errs;
}

/** ValidateJobSpec: validateJobSpec, a valid selector that matches the template's labels (a missing one matches none). */
function jobSpecWithSelectorErrors(spec: Obj, opts: JobValidationOptions): FieldError[] {
  const errs = jobSpecErrors(spec, 'spec', opts.template);
  if (!isObj(spec.selector)) errs.push(fieldErrors.required('spec.selector'));
  else errs.push(...validateLabelSelector(spec.selector, 'spec.selector', opts.allowInvalidLabelValueInSelector));
  if (!isInvalidSelector(spec.selector) && !selectorMatches(spec.selector, templateLabels(spec.template))) {
    errs.push(fieldErrors.invalid('spec.template.metadata.labels', goStringMap(getPath(spec, 'template', 'metadata', 'labels')), SELECTOR_MISMATCH));
  }
  return errs;
}

/** ValidateJob past its ObjectMeta checks. */
function jobErrors(obj: KubeObject, opts: JobValidationOptions): FieldError[] {
  const spec = specOf(obj);
  const errs = [...generatedSelectorErrors(obj, opts), ...jobSpecWithSelectorErrors(spec, opts)];
  const completions = spec.completions;
  if (spec.completionMode === 'Indexed' && typeof completions === 'number' && completions > 0) {
    const hostname = `${obj.metadata?.name ?? ''}-${completions - 1}`;
    if (isDNS1123Label(hostname).length > 0) {
      errs.push(fieldErrors.invalid('metadata.name', obj.metadata?.name ?? '', `will not able to create pod with invalid DNS label: ${hostname}`));
    }
  }
  return errs;
}

export function validateJob(obj: KubeObject): FieldError[] {
  return jobErrors(obj, CREATE_OPTIONS);
}

/**
 * The strategy's ValidateUpdate: ValidateJob (ObjectMeta included) and ValidateJobUpdate, which validates the spec
 * once more (the same errors twice among the causes, once in the message) and then what may not change.
 */
function validateJobUpdate(obj: KubeObject, old: KubeObject, rules: TypeRules): FieldError[] {
  const opts = updateOptions(old);
  const spec = specOf(obj);
  const oldSpec = specOf(old);
  const allowSchedulingDirectives = oldSpec.suspend === true && !getPath(old, 'status', 'startTime');
  return [
    ...validateObjectMeta(obj.metadata, rules),
    ...jobErrors(obj, opts),
    ...jobSpecWithSelectorErrors(spec, opts),
    ...jobSpecUpdateErrors(spec, oldSpec, 'spec', allowSchedulingDirectives),
  ];
}

/** PrepareForUpdate: the disabled features' fields dropped; generation counts the change that is left. */
function prepareJobUpdate(obj: KubeObject, old: KubeObject, rules: TypeRules): void {
  dropDisabledJobFields(ensureObj(obj, 'spec'), specOf(old), rules.featureGates);
  if (!specChanged(obj, old)) metaOf(obj).generation = old.metadata?.generation;
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
      prepareForCreate(obj) {
        generateJobSelector(obj);
        dropDisabledJobFields(ensureObj(obj, 'spec'), undefined, rules.featureGates);
      },
      prepareForUpdate: (obj, old) => prepareJobUpdate(obj, old, rules),
      validate: validateJob,
      validateUpdate: (obj, old) => validateJobUpdate(obj, old, rules),
      validateStatusUpdate: (obj, old) => jobStatusUpdateErrors(obj, old, rules.featureGates),
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

export function defaultCronJob(obj: KubeObject): void {
  const spec = ensureObj(obj, 'spec');
  setDefaultString(spec, 'concurrencyPolicy', 'Allow');
  setDefault(spec, 'suspend', false);
  setDefault(spec, 'successfulJobsHistoryLimit', 3);
  setDefault(spec, 'failedJobsHistoryLimit', 1);
  const template = ensureObj(ensureObj(ensureObj(spec, 'jobTemplate'), 'spec'), 'template');
  defaultPodSpec(ensureObj(template, 'spec'));
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
        const errs = cronJobSpecErrors(obj, undefined);
        const name = obj.metadata?.name ?? '';
        if (name.length > 52) errs.push(fieldErrors.invalid('metadata.name', name, 'must be no more than 52 characters'));
        return errs;
      },
      validateUpdate: (obj, old) => cronJobSpecErrors(obj, old),
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
