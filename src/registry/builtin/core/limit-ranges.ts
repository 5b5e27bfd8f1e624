// LimitRanges (core validation ValidateLimitRange; kube prints only Name and Created At).

import { fieldErrors, type FieldError } from '../../../apis/errors.ts';
import type { KubeObject } from '../../types.ts';
import { isQualifiedName } from '../../validation/names.ts';
import { quantityNanos } from '../../validation/quantity.ts';
import { buildStrategy } from '../generic.ts';
import { isObj, objsAt, strAt, type Obj } from '../object.ts';
import type { TypeFacts } from '../facts.ts';
import type { TypeRules } from '../type-rules.ts';
import { containerResourceNameErrors, overcommitAllowed, resourceNameErrors } from './resource-names.ts';

const STANDARD_LIMIT_TYPES = new Set(['Container', 'Pod', 'PersistentVolumeClaim']);
const QUANTITY_KEYS = ['max', 'min', 'default', 'defaultRequest', 'maxLimitRequestRatio'] as const;

function typeNameErrors(type: string, path: string): FieldError[] {
  const errs = isQualifiedName(type).map((m) => fieldErrors.invalid(path, type, m));
  if (errs.length) return errs;
  if (!type.includes('/') && !STANDARD_LIMIT_TYPES.has(type)) return [fieldErrors.invalid(path, type, 'must be a standard limit type or fully qualified')];
  return [];
}

const text = (q: unknown) => (typeof q === 'number' ? String(q) : typeof q === 'string' ? q : '');

/** ValidateLimitRange's per-item checks (kube compares quantities in their canonical form). */
function limitErrors(limit: Obj, i: number, seenTypes: Set<string>): FieldError[] {
  const p = `spec.limits[${i}]`;
  const type = strAt(limit, 'type');
  const errs = typeNameErrors(type, `${p}.type`);
  if (seenTypes.has(type)) errs.push(fieldErrors.duplicate(`${p}.type`, type));
  seenTypes.add(type);
  const maps: Record<string, Record<string, unknown>> = {};
  const keys = new Set<string>();
  const nameErrors = type === 'Pod' || type === 'Container' ? containerResourceNameErrors : resourceNameErrors;
  for (const key of QUANTITY_KEYS) {
    const m = isObj(limit[key]) ? (limit[key] as Record<string, unknown>) : {};
    maps[key] = m;
    if (type === 'Pod' && (key === 'default' || key === 'defaultRequest')) {
      if (Object.keys(m).length > 0) errs.push(fieldErrors.forbidden(`${p}.${key}`, "may not be specified when `type` is 'Pod'"));
      maps[key] = {};
      continue;
    }
    for (const name of Object.keys(m)) {
      errs.push(...nameErrors(name, `${p}.${key}[${name}]`));
      keys.add(name);
    }
  }
  if (type === 'PersistentVolumeClaim' && maps.min.storage === undefined && maps.max.storage === undefined) {
    errs.push(fieldErrors.required(`${p}.limits`, 'either minimum or maximum storage value is required, but neither was provided'));
  }
  for (const k of keys) {
    const q = (key: string) => maps[key][k];
    const n = (key: string) => quantityNanos(q(key));
    const [min, max, def, req, ratio] = [n('min'), n('max'), n('default'), n('defaultRequest'), n('maxLimitRequestRatio')];
    const path = (key: string) => `${p}.${key}[${k}]`;
    if (min !== undefined && max !== undefined && min > max) errs.push(fieldErrors.invalid(path('min'), text(q('min')), `min value ${text(q('min'))} is greater than max value ${text(q('max'))}`));
    if (req !== undefined && min !== undefined && min > req) errs.push(fieldErrors.invalid(path('defaultRequest'), text(q('defaultRequest')), `min value ${text(q('min'))} is greater than default request value ${text(q('defaultRequest'))}`));
    if (req !== undefined && max !== undefined && req > max) errs.push(fieldErrors.invalid(path('defaultRequest'), text(q('defaultRequest')), `default request value ${text(q('defaultRequest'))} is greater than max value ${text(q('max'))}`));
    if (req !== undefined && def !== undefined && req > def) errs.push(fieldErrors.invalid(path('defaultRequest'), text(q('defaultRequest')), `default request value ${text(q('defaultRequest'))} is greater than default limit value ${text(q('default'))}`));
    if (def !== undefined && min !== undefined && min > def) errs.push(fieldErrors.invalid(path('default'), text(q('min')), `min value ${text(q('min'))} is greater than default value ${text(q('default'))}`));
    if (def !== undefined && max !== undefined && def > max) errs.push(fieldErrors.invalid(path('default'), text(q('max')), `default value ${text(q('default'))} is greater than max value ${text(q('max'))}`));
    if (ratio !== undefined && ratio < 1_000_000_000n) errs.push(fieldErrors.invalid(path('maxLimitRequestRatio'), text(q('maxLimitRequestRatio')), `ratio ${text(q('maxLimitRequestRatio'))} is less than 1`));
    if (ratio !== undefined && min !== undefined && max !== undefined && min > 0n) {
      const limitRatio = Number(max) / Number(min);
      if (Number(ratio) / 1e9 > limitRatio) {
        errs.push(fieldErrors.invalid(path('maxLimitRequestRatio'), text(q('maxLimitRequestRatio')), `ratio ${text(q('maxLimitRequestRatio'))} is greater than max/min = ${limitRatio.toFixed(6)}`));
      }
    }
    if (!overcommitAllowed(k) && def !== undefined && req !== undefined && def !== req) {
      errs.push(fieldErrors.invalid(path('defaultRequest'), text(q('defaultRequest')), `default value ${text(q('default'))} must equal to defaultRequest value ${text(q('defaultRequest'))} in ${k}`));
    }
  }
  return errs;
}

export function validateLimitRange(obj: KubeObject): FieldError[] {
  const seen = new Set<string>();
  return objsAt(obj, 'spec', 'limits').flatMap((limit, i) => limitErrors(limit, i, seen));
}

/**
 * SetDefaults_LimitRangeItem: a Container item's default limit is its max where unset, its default request its
 * default limit, then its min (a map left empty is not written: the fields are omitempty).
 */
export function defaultLimitRange(obj: KubeObject): void {
  for (const limit of objsAt(obj, 'spec', 'limits')) {
    if (limit.type !== 'Container') continue;
    const fill = (target: 'default' | 'defaultRequest', ...sources: ('max' | 'default' | 'min')[]) => {
      const into: Obj = isObj(limit[target]) ? limit[target] : {};
      for (const source of sources) {
        const from = limit[source];
        if (isObj(from)) for (const [name, q] of Object.entries(from)) if (!Object.hasOwn(into, name)) into[name] = q;
      }
      if (Object.keys(into).length > 0) limit[target] = into;
    };
    fill('default', 'max');
    fill('defaultRequest', 'default', 'min');
  }
}

export function limitRangeFacts(rules: TypeRules): TypeFacts {
  return { strategy: buildStrategy(rules, { defaults: defaultLimitRange, validate: validateLimitRange }), printerColumns: [], selectableFields: {} };
}
