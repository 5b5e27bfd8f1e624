// metav1.LabelSelector (matchLabels + matchExpressions) inside objects: validation with kube's messages
// (apimachinery/pkg/apis/meta/v1/validation) and matching against a label set (LabelSelectorAsSelector).

import { fieldErrors, type FieldError } from '../../apis/errors.ts';
import { isQualifiedName, isValidLabelValue } from './names.ts';
import { validateLabels } from './meta.ts';

export interface LabelSelectorRequirementValue {
  key?: string;
  operator?: string;
  values?: string[];
}

export interface LabelSelectorValue {
  matchLabels?: Record<string, string>;
  matchExpressions?: LabelSelectorRequirementValue[];
}

function record(v: unknown): Record<string, unknown> | undefined {
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
}

export function validateLabelSelector(selector: unknown, path: string, allowInvalidLabelValue = false): FieldError[] {
  const sel = record(selector);
  if (!sel) return [];
  const errs = validateLabels(sel.matchLabels, `${path}.matchLabels`);
  const exprs = Array.isArray(sel.matchExpressions) ? sel.matchExpressions : [];
  exprs.forEach((raw, i) => {
    const r = (record(raw) ?? {}) as LabelSelectorRequirementValue;
    const p = `${path}.matchExpressions[${i}]`;
    const values = Array.isArray(r.values) ? r.values : [];
    switch (r.operator) {
      case 'In':
      case 'NotIn':
        if (values.length === 0) errs.push(fieldErrors.required(`${p}.values`, "must be specified when `operator` is 'In' or 'NotIn'"));
        break;
      case 'Exists':
      case 'DoesNotExist':
        if (values.length > 0) errs.push(fieldErrors.forbidden(`${p}.values`, "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"));
        break;
      default:
        errs.push(fieldErrors.invalid(`${p}.operator`, r.operator ?? '', 'not a valid selector operator'));
    }
    const key = typeof r.key === 'string' ? r.key : '';
    for (const m of isQualifiedName(key)) errs.push(fieldErrors.invalid(`${p}.key`, key, m));
    if (!allowInvalidLabelValue) {
      values.forEach((v, j) => {
        for (const m of isValidLabelValue(String(v))) errs.push(fieldErrors.invalid(`${p}.values[${j}]`, v, m));
      });
    }
  });
  return errs;
}

/**
 * LabelSelectorHasInvalidLabelValue: whether a match expression holds a value that is not a valid label value (an
 * update may keep such values when the stored object already had them).
 */
export function hasInvalidLabelValueInSelector(selector: unknown): boolean {
  const exprs = record(selector)?.matchExpressions;
  if (!Array.isArray(exprs)) return false;
  return exprs.some((raw) => {
    const values = record(raw)?.values;
    return Array.isArray(values) && values.some((v) => isValidLabelValue(String(v)).length > 0);
  });
}

/** True when LabelSelectorAsSelector would fail (an operator it does not know). */
export function isInvalidSelector(selector: unknown): boolean {
  const sel = record(selector);
  if (!sel) return false;
  const exprs = Array.isArray(sel.matchExpressions) ? sel.matchExpressions : [];
  return exprs.some((raw) => {
    const r = (record(raw) ?? {}) as LabelSelectorRequirementValue;
    const n = Array.isArray(r.values) ? r.values.length : 0;
    switch (r.operator) {
      case 'In':
      case 'NotIn':
        return n === 0;
      case 'Exists':
      case 'DoesNotExist':
        return n > 0;
      default:
        return true;
    }
  });
}

/** A selector with neither matchLabels nor matchExpressions (or absent) selects everything. */
export function isEmptySelector(selector: unknown): boolean {
  const sel = record(selector);
  if (!sel) return true;
  const labels = record(sel.matchLabels);
  const exprs = Array.isArray(sel.matchExpressions) ? sel.matchExpressions : [];
  return (!labels || Object.keys(labels).length === 0) && exprs.length === 0;
}

export function selectorMatches(selector: unknown, labels: Readonly<Record<string, string>> | undefined): boolean {
  const sel = record(selector);
  if (!sel) return false;
  const set = labels ?? {};
  const has = (k: string) => Object.hasOwn(set, k);
  for (const [k, v] of Object.entries(record(sel.matchLabels) ?? {})) {
    if (!has(k) || set[k] !== v) return false;
  }
  const exprs = Array.isArray(sel.matchExpressions) ? sel.matchExpressions : [];
  for (const raw of exprs) {
    const r = (record(raw) ?? {}) as LabelSelectorRequirementValue;
    const key = r.key ?? '';
    const values = Array.isArray(r.values) ? r.values : [];
    switch (r.operator) {
      case 'In':
        if (!has(key) || !values.includes(set[key])) return false;
        break;
      case 'NotIn':
        if (has(key) && values.includes(set[key])) return false;
        break;
      case 'Exists':
        if (!has(key)) return false;
        break;
      case 'DoesNotExist':
        if (has(key)) return false;
        break;
      default:
        return false;
    }
  }
  return true;
}
