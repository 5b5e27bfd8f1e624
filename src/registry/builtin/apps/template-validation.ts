// Checks shared by the workload controllers (apps and batch validation): selectors, template labels matching
// the selector, int-or-percent fields, and the templates' restart policy.

import { fieldErrors, type FieldError } from '../../../apis/errors.ts';
import { validateNonnegative } from '../../validation/meta.ts';
import { regexError } from '../../validation/names.ts';
import { isEmptySelector, isInvalidSelector, selectorMatches, validateLabelSelector } from '../../validation/label-selector.ts';
import { goIntOrStringValue, goLabelSelector, goStringMap } from '../../../apis/go-bad-values.ts';
import { getPath, isObj, stringMap, strAt } from '../object.ts';
import { validatePodTemplateSpec } from '../core/pod-validation.ts';
import type { PodUpdateOptions } from '../core/pod-validation-options.ts';

export const SELECTOR_MISMATCH = '`selector` does not match template `labels`';

export function templateLabels(template: unknown): Record<string, string> {
  return stringMap(getPath(template, 'metadata', 'labels'));
}

/** LabelSelectorAsSelector(sel).Matches(template labels), where a missing selector matches nothing. */
export function selectorMismatch(selector: unknown, template: unknown, path: string): FieldError[] {
  if (!isObj(selector) && selector !== undefined && selector !== null) return [];
  if (isObj(selector) && isEmptySelector(selector)) return [];
  if (!isObj(selector) || !selectorMatches(selector, templateLabels(template))) {
    return [fieldErrors.invalid(`${path}.metadata.labels`, goStringMap(getPath(template, 'metadata', 'labels')), SELECTOR_MISMATCH)];
  }
  return [];
}

/** Selector required, valid and non-empty (kube's message names the kind, e.g. "deployment"). */
export function requiredSelectorErrors(selector: unknown, path: string, kindWord: string): FieldError[] {
  if (!isObj(selector)) return [fieldErrors.required(path)];
  const errs = validateLabelSelector(selector, path);
  if (isEmptySelector(selector)) errs.push(fieldErrors.invalid(path, goLabelSelector(selector), `empty selector is invalid for ${kindWord}`));
  return errs;
}

/** ValidatePodTemplateSpecForReplicaSet (deployments and replica sets). */
export function replicaSetTemplateErrors(selector: unknown, template: unknown, path: string, kind: string, templateOptions: PodUpdateOptions = {}): FieldError[] {
  if (isInvalidSelector(selector)) return [fieldErrors.invalid(path.replace(/\.template$/, '.selector'), goLabelSelector(selector), 'invalid label selector')];
  const errs = selectorMismatch(selector, template, path);
  errs.push(...validatePodTemplateSpec(template, path, {}, templateOptions));
  errs.push(...restartAlwaysErrors(template, path, kind));
  return errs;
}

export function restartAlwaysErrors(template: unknown, path: string, kind: string, activeDeadlineAsInvalid = false): FieldError[] {
  const errs: FieldError[] = [];
  const restartPolicy = strAt(template, 'spec', 'restartPolicy');
  if (restartPolicy !== 'Always') errs.push(fieldErrors.notSupported(`${path}.spec.restartPolicy`, restartPolicy, ['Always']));
  const ads = getPath(template, 'spec', 'activeDeadlineSeconds');
  if (ads !== undefined && ads !== null) {
    errs.push(
      activeDeadlineAsInvalid
        ? fieldErrors.invalid(`${path}.spec.activeDeadlineSeconds`, ads, `activeDeadlineSeconds in ${kind} is not Supported`)
        : fieldErrors.forbidden(`${path}.spec.activeDeadlineSeconds`, `activeDeadlineSeconds in ${kind} is not Supported`),
    );
  }
  return errs;
}

const percentRe = /^[0-9]+%$/;

/** ValidatePositiveIntOrPercent. */
export function positiveIntOrPercentErrors(v: unknown, path: string): FieldError[] {
  if (typeof v === 'string') {
    return percentRe.test(v)
      ? []
      : [fieldErrors.invalid(path, goIntOrStringValue(v), regexError("a valid percent string must be a numeric string followed by an ending '%'", '[0-9]+%', '1%', '93%'))];
  }
  if (typeof v === 'number') return validateNonnegative(v, path);
  return [];
}

/** getIntOrPercentValue: a percent's number, else IntOrString.IntValue() (which reads a string as strconv.Atoi does). */
export function intOrPercentValue(v: unknown): number {
  if (typeof v === 'number') return v;
  if (typeof v !== 'string') return 0;
  if (percentRe.test(v)) return Number(v.slice(0, -1));
  return /^[+-]?[0-9]+$/.test(v) ? Number(v) : 0;
}

/** IsNotMoreThan100Percent. */
export function notMoreThan100PercentErrors(v: unknown, path: string): FieldError[] {
  return typeof v === 'string' && percentRe.test(v) && Number(v.slice(0, -1)) > 100 ? [fieldErrors.invalid(path, goIntOrStringValue(v), 'must not be greater than 100%')] : [];
}

export function nonnegativeAt(obj: unknown, path: string, ...keys: string[]): FieldError[] {
  const v = getPath(obj, ...keys);
  return typeof v === 'number' ? validateNonnegative(v, path) : [];
}
