// kube 1.31's validateJobSpec, shared by Jobs and CronJobs' job templates: counts not negative, the limits of
// Indexed Jobs (parallelism, maxFailedIndexes, very high completions with backoffLimitPerIndex), what needs the
// Indexed mode, managedBy, the pod failure and success policies, podReplacementPolicy, the pod template and its
// restart policy.

import { fieldErrors, type FieldError } from '../../../apis/errors.ts';
import { validateNonnegative } from '../../validation/meta.ts';
import { isObj, strAt, type Obj } from '../object.ts';
import { validatePodTemplateSpec } from '../core/pod-validation.ts';
import type { PodUpdateOptions } from '../core/pod-validation-options.ts';
import { domainPrefixedPathErrors } from '../networking/ingress-classes.ts';
import { goSuccessPolicy } from './go-batch-values.ts';
import { podFailurePolicyErrors } from './job-failure-policy.ts';
import { successPolicyErrors } from './job-success-policy.ts';

const MAX_PARALLELISM_INDEXED = 100_000;
const MAX_FAILED_INDEXES = 100_000;
const COMPLETIONS_SOFT_LIMIT = 100_000;
const PARALLELISM_LIMIT_HIGH_COMPLETIONS = 10_000;
const MAX_FAILED_INDEXES_HIGH_COMPLETIONS = 10_000;
const MAX_MANAGED_BY_LENGTH = 63;
const REPLACEMENT_POLICIES = ['Failed', 'TerminatingOrFailed'];

const NONNEGATIVE_FIELDS = ['parallelism', 'completions', 'activeDeadlineSeconds', 'backoffLimit', 'ttlSecondsAfterFinished', 'backoffLimitPerIndex', 'maxFailedIndexes'];

const isSet = (v: unknown): boolean => v !== undefined && v !== null;
const num = (v: unknown): number | undefined => (typeof v === 'number' ? v : undefined);

function countErrors(spec: Obj, path: string): FieldError[] {
  const errs: FieldError[] = [];
  for (const f of NONNEGATIVE_FIELDS) {
    const v = num(spec[f]);
    if (v !== undefined) errs.push(...validateNonnegative(v, `${path}.${f}`));
    if (f === 'maxFailedIndexes' && v !== undefined && !isSet(spec.backoffLimitPerIndex)) {
      errs.push(fieldErrors.required(`${path}.backoffLimitPerIndex`, 'when maxFailedIndexes is specified'));
    }
  }
  return errs;
}

function managedByErrors(managedBy: unknown, path: string): FieldError[] {
  if (typeof managedBy !== 'string') return [];
  const errs = domainPrefixedPathErrors(managedBy, path);
  // field.TooLongMaxLength.
  if (Buffer.byteLength(managedBy, 'utf8') > MAX_MANAGED_BY_LENGTH) errs.push({ type: 'FieldValueTooLong', field: path, badValue: managedBy, detail: `may not be longer than ${MAX_MANAGED_BY_LENGTH}` });
  return errs;
}

function indexedLimitErrors(spec: Obj, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const completions = num(spec.completions);
  const parallelism = num(spec.parallelism);
  const maxFailed = num(spec.maxFailedIndexes);
  if (completions === undefined) errs.push(fieldErrors.required(`${path}.completions`, 'when completion mode is Indexed'));
  if (parallelism !== undefined && parallelism > MAX_PARALLELISM_INDEXED) {
    errs.push(fieldErrors.invalid(`${path}.parallelism`, parallelism, `must be less than or equal to ${MAX_PARALLELISM_INDEXED} when completion mode is Indexed`));
  }
  if (completions !== undefined && maxFailed !== undefined && maxFailed > completions) {
    errs.push(fieldErrors.invalid(`${path}.maxFailedIndexes`, maxFailed, 'must be less than or equal to completions'));
  }
  if (maxFailed !== undefined && maxFailed > MAX_FAILED_INDEXES) errs.push(fieldErrors.invalid(`${path}.maxFailedIndexes`, maxFailed, `must be less than or equal to ${MAX_FAILED_INDEXES}`));
  if (completions !== undefined && completions > COMPLETIONS_SOFT_LIMIT && isSet(spec.backoffLimitPerIndex)) {
    const highCompletions = `when completions are above ${COMPLETIONS_SOFT_LIMIT} and used with backoff limit per index`;
    if (maxFailed === undefined) errs.push(fieldErrors.required(`${path}.maxFailedIndexes`, `must be specified when completions is above ${COMPLETIONS_SOFT_LIMIT}`));
    if (parallelism !== undefined && parallelism > PARALLELISM_LIMIT_HIGH_COMPLETIONS) {
      errs.push(fieldErrors.invalid(`${path}.parallelism`, parallelism, `must be less than or equal to ${PARALLELISM_LIMIT_HIGH_COMPLETIONS} ${highCompletions}`));
    }
    if (maxFailed !== undefined && maxFailed > MAX_FAILED_INDEXES_HIGH_COMPLETIONS) {
      errs.push(fieldErrors.invalid(`${path}.maxFailedIndexes`, maxFailed, `must be less than or equal to ${MAX_FAILED_INDEXES_HIGH_COMPLETIONS} ${highCompletions}`));
    }
  }
  return errs;
}

function completionModeErrors(spec: Obj, path: string): FieldError[] {
  const mode = spec.completionMode;
  const errs: FieldError[] = [];
  if (typeof mode === 'string') {
    if (mode !== 'NonIndexed' && mode !== 'Indexed') errs.push(fieldErrors.notSupported(`${path}.completionMode`, mode, ['NonIndexed', 'Indexed']));
    if (mode === 'Indexed') errs.push(...indexedLimitErrors(spec, path));
  }
  if (!isSet(mode) || mode === 'NonIndexed') {
    for (const f of ['backoffLimitPerIndex', 'maxFailedIndexes']) {
      const v = num(spec[f]);
      if (v !== undefined) errs.push(fieldErrors.invalid(`${path}.${f}`, v, 'requires indexed completion mode'));
    }
  }
  return errs;
}

function podReplacementPolicyErrors(spec: Obj, path: string): FieldError[] {
  const policy = spec.podReplacementPolicy;
  if (typeof policy !== 'string') return [];
  if (isSet(spec.podFailurePolicy)) return policy === 'Failed' ? [] : [fieldErrors.notSupported(path, policy, ['Failed'])];
  return REPLACEMENT_POLICIES.includes(policy) ? [] : [fieldErrors.notSupported(path, policy, REPLACEMENT_POLICIES)];
}

function restartPolicyErrors(spec: Obj, path: string): FieldError[] {
  const restartPolicy = strAt(spec, 'template', 'spec', 'restartPolicy');
  if (restartPolicy === 'Always' || restartPolicy === '') return [fieldErrors.required(path, 'valid values: "OnFailure", "Never"')];
  if (restartPolicy !== 'OnFailure' && restartPolicy !== 'Never') return [fieldErrors.notSupported(path, restartPolicy, ['OnFailure', 'Never'])];
  if (isSet(spec.podFailurePolicy) && restartPolicy !== 'Never') return [fieldErrors.invalid(path, restartPolicy, 'only "Never" is supported when podFailurePolicy is specified')];
  return [];
}

/** validateJobSpec: the checks of a job spec, also a CronJob's job template's. */
export function jobSpecErrors(spec: Obj, path: string, templateOptions: PodUpdateOptions = {}): FieldError[] {
  const errs = countErrors(spec, path);
  errs.push(...managedByErrors(spec.managedBy, `${path}.managedBy`));
  errs.push(...completionModeErrors(spec, path));
  if (isObj(spec.podFailurePolicy)) errs.push(...podFailurePolicyErrors(spec, `${path}.podFailurePolicy`));
  if (isObj(spec.successPolicy)) {
    if (spec.completionMode !== 'Indexed') errs.push(fieldErrors.invalid(`${path}.successPolicy`, goSuccessPolicy(spec.successPolicy), 'requires indexed completion mode'));
    else errs.push(...successPolicyErrors(spec, `${path}.successPolicy`));
  }
  errs.push(...podReplacementPolicyErrors(spec, `${path}.podReplacementPolicy`));
  errs.push(...validatePodTemplateSpec(spec.template, `${path}.template`, {}, templateOptions));
  errs.push(...restartPolicyErrors(spec, `${path}.template.spec.restartPolicy`));
  return errs;
}
