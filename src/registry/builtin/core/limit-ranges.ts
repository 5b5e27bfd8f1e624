// LimitRanges (core validation ValidateLimitRange of kube 1.31, SetDefaults_LimitRangeItem; kube prints only Name
// and Created At).

import { fieldErrors, type FieldError } from '../../../apis/errors.ts';
import type { KubeObject } from '../../types.ts';
import { isQualifiedName } from '../../validation/names.ts';
import { quantityNanos } from '../../validation/quantity.ts';
import { buildStrategy } from '../generic.ts';
import { isObj, objsAt, strAt, type Obj } from '../object.ts';
import type { TypeFacts } from '../facts.ts';
import type { TypeRules } from '../type-rules.ts';
import { goQuantity, quantityString } from './quantity-values.ts';
import { containerResourceNameErrors, overcommitAllowed, resourceNameErrors } from './resource-names.ts';

const STANDARD_LIMIT_TYPES = new Set(['Container', 'Pod', 'PersistentVolumeClaim']);

function typeNameErrors(type: string, path: string): FieldError[] {
  const errs = isQualifiedName(type).map((m) => fieldErrors.invalid(path, type, m));
  if (errs.length) return errs;
  if (!type.includes('/') && !STANDARD_LIMIT_TYPES.has(type)) return [fieldErrors.invalid(path, type, 'must be a standard limit type or fully qualified')];
  return [];
}

type Bound = 'max' | 'min' | 'default' | 'defaultRequest' | 'maxLimitRequestRatio';

const MAX_MILLI_VALUE = ((1n << 63n) - 1n) / 1000n;

/** Go's %f: six decimals, and the words Go prints for what is no number. */
function goFloat(n: number): string {
  if (Number.isNaN(n)) return 'NaN';
  if (!Number.isFinite(n)) return n > 0 ? '+Inf' : '-Inf';
  return n.toFixed(6);
}

/** The ratio check's operands: milli-values where all three fit, whole values otherwise (as kube computes them). */
function maxOverMin(ratio: bigint, min: bigint, max: bigint): { ratio: number; limit: number } {
  const value = (nanos: bigint) => (nanos % 1_000_000_000n === 0n ? nanos / 1_000_000_000n : nanos / 1_000_000_000n + (nanos > 0n ? 1n : -1n));
  const milli = (nanos: bigint) => (nanos % 1_000_000n === 0n ? nanos / 1_000_000n : nanos / 1_000_000n + (nanos > 0n ? 1n : -1n));
  if (value(ratio) < MAX_MILLI_VALUE && value(min) < MAX_MILLI_VALUE && value(max) < MAX_MILLI_VALUE) {
    return { ratio: Number(milli(ratio)) / 1000, limit: Number(milli(max)) / Number(milli(min)) };
  }
  return { ratio: Number(value(ratio)), limit: Number(value(max)) / Number(value(min)) };
}

/** The per-resource checks of one item, in kube's order; quantities print canonically (Quantity.String()). */
function boundErrors(bounds: Record<Bound, Record<string, unknown>>, name: string, p: string): FieldError[] {
  const q = (b: Bound) => bounds[b][name];
  const n = (b: Bound) => (Object.hasOwn(bounds[b], name) ? (quantityNanos(q(b)) ?? 0n) : undefined);
  const s = (b: Bound) => quantityString(q(b));
  // Every check calls String() on the quantity it reports, so its cached text is set by then.
  const invalid = (at: Bound, bad: Bound, msg: string) => fieldErrors.invalid(`${p}.${at}[${name}]`, goQuantity(q(bad), true), msg);
  const [min, max, def, req, ratio] = (['min', 'max', 'default', 'defaultRequest', 'maxLimitRequestRatio'] as const).map(n);
  const errs: FieldError[] = [];
  if (min !== undefined && max !== undefined && min > max) errs.push(invalid('min', 'min', `min value ${s('min')} is greater than max value ${s('max')}`));
  if (req !== undefined && min !== undefined && min > req) errs.push(invalid('defaultRequest', 'defaultRequest', `min value ${s('min')} is greater than default request value ${s('defaultRequest')}`));
  if (req !== undefined && max !== undefined && req > max) errs.push(invalid('defaultRequest', 'defaultRequest', `default request value ${s('defaultRequest')} is greater than max value ${s('max')}`));
  if (req !== undefined && def !== undefined && req > def) errs.push(invalid('defaultRequest', 'defaultRequest', `default request value ${s('defaultRequest')} is greater than default limit value ${s('default')}`));
  if (def !== undefined && min !== undefined && min > def) errs.push(invalid('default', 'min', `min value ${s('min')} is greater than default value ${s('default')}`));
  if (def !== undefined && max !== undefined && def > max) errs.push(invalid('default', 'max', `default value ${s('default')} is greater than max value ${s('max')}`));
  if (ratio !== undefined && ratio < 1_000_000_000n) errs.push(invalid('maxLimitRequestRatio', 'maxLimitRequestRatio', `ratio ${s('maxLimitRequestRatio')} is less than 1`));
  if (ratio !== undefined && min !== undefined && max !== undefined) {
    const operands = maxOverMin(ratio, min, max);
    if (operands.ratio > operands.limit) {
      errs.push(invalid('maxLimitRequestRatio', 'maxLimitRequestRatio', `ratio ${s('maxLimitRequestRatio')} is greater than max/min = ${goFloat(operands.limit)}`));
    }
  }
  if (!overcommitAllowed(name) && def !== undefined && req !== undefined && def !== req) {
    errs.push(invalid('defaultRequest', 'defaultRequest', `default value ${s('default')} must equal to defaultRequest value ${s('defaultRequest')} in ${name}`));
  }
  return errs;
}

const mapAt = (limit: Obj, key: string): Record<string, unknown> => (isObj(limit[key]) ? limit[key] : {});

/** ValidateLimitRange's checks of one item, in kube's order. */
function limitErrors(limit: Obj, i: number, seenTypes: Set<string>): FieldError[] {
  const p = `spec.limits[${i}]`;
  const type = strAt(limit, 'type');
  const errs = typeNameErrors(type, `${p}.type`);
  if (seenTypes.has(type)) errs.push(fieldErrors.duplicate(`${p}.type`, type));
  seenTypes.add(type);
  const nameErrors = type === 'Pod' || type === 'Container' ? containerResourceNameErrors : resourceNameErrors;
  const names = new Set<string>();
  const bounds = { max: {}, min: {}, default: {}, defaultRequest: {}, maxLimitRequestRatio: {} } as Record<Bound, Record<string, unknown>>;
  const take = (key: Bound) => {
    bounds[key] = mapAt(limit, key);
    for (const name of Object.keys(bounds[key])) {
      errs.push(...nameErrors(name, `${p}.${key}[${name}]`));
      names.add(name);
    }
  };
  take('max');
  take('min');
  if (type === 'Pod') {
    for (const key of ['default', 'defaultRequest'] as const) {
      if (Object.keys(mapAt(limit, key)).length > 0) errs.push(fieldErrors.forbidden(`${p}.${key}`, "may not be specified when `type` is 'Pod'"));
    }
  } else {
    take('default');
    take('defaultRequest');
  }
  if (type === 'PersistentVolumeClaim' && !Object.hasOwn(bounds.min, 'storage') && !Object.hasOwn(bounds.max, 'storage')) {
    errs.push(fieldErrors.required(`${p}.limits`, 'either minimum or maximum storage value is required, but neither was provided'));
  }
  take('maxLimitRequestRatio');
  for (const name of names) errs.push(...boundErrors(bounds, name, p));
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
