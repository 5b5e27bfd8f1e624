// The uniqueness invariants of x-kubernetes-list-type "set" (whole items) and "map" (the key fields), checked
// after schema validation (apiextensions-apiserver pkg/apiserver/schema/listtype/validation.go).

import { fieldErrors, renderedBadValue, type FieldError } from '../../../apis/errors.ts';
import type { CompiledNode } from './compiled-node.ts';
import { goSharpV, isPlainObject } from './go-values.ts';

function child(path: string, key: string): string {
  return path === '' ? key : `${path}.${key}`;
}

/** validateListSet: indices of the second appearance of each repeated item (later repeats are not reported). */
function nonUniqueIndices(items: readonly unknown[]): number[] {
  if (items.length <= 1) return [];
  const seen = new Map<string, number>();
  const out: number[] = [];
  items.forEach((x, i) => {
    const key = x === UNSPECIFIED ? '\u0000unspecified' : typeof x === 'string' ? `s${x}` : stableJson(x);
    const times = seen.get(key) ?? 0;
    seen.set(key, times + 1);
    if (times === 1) out.push(i);
  });
  return out;
}

const UNSPECIFIED = Symbol('unspecified key');

/** json.Marshal of a decoded value: object keys sorted. */
function stableJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(stableJson).join(',')}]`;
  if (isPlainObject(v)) return `{${Object.keys(v).sort().map((k) => `${JSON.stringify(k)}:${stableJson(v[k])}`).join(',')}}`;
  return JSON.stringify(v) ?? 'null';
}

function duplicate(field: string, value: unknown): FieldError {
  return fieldErrors.duplicate(field, typeof value === 'object' && value !== null ? renderedBadValue(goSharpV(value)) : value);
}

function listMapErrors(path: string, n: CompiledNode, items: unknown[]): FieldError[] {
  for (let i = 0; i < items.length; i++) {
    const x = items[i];
    if (x !== null && !isPlainObject(x)) {
      return [fieldErrors.invalid(`${path}[${i}]`, typeof x === 'object' ? renderedBadValue(goSharpV(x)) : x, 'must be an object for an array of list-type map')];
    }
  }
  if (items.length <= 1) return [];
  const keys = n.listMapKeys ?? [];
  if (keys.length === 1) {
    const k = keys[0];
    const values = items.map((x) => (isPlainObject(x) && Object.hasOwn(x, k) ? x[k] : UNSPECIFIED));
    return nonUniqueIndices(values).map((i) => duplicate(`${path}[${i}]`, values[i] === UNSPECIFIED ? {} : { [k]: values[i] }));
  }
  const composite = items.map((x) => {
    const key: Record<string, unknown> = {};
    if (isPlainObject(x)) for (const k of keys) if (Object.hasOwn(x, k)) key[k] = x[k];
    return key;
  });
  return nonUniqueIndices(composite).map((i) => duplicate(`${path}[${i}]`, composite[i]));
}

function walk(path: string, n: CompiledNode, v: unknown, errs: FieldError[]): void {
  if (Array.isArray(v)) {
    if (n.listType === 'set') {
      for (const i of nonUniqueIndices(v)) errs.push(duplicate(`${path}[${i}]`, v[i]));
    } else if (n.listType === 'map') {
      errs.push(...listMapErrors(path, n, v));
    }
    if (n.items?.hasListInvariants) v.forEach((x, i) => walk(`${path}[${i}]`, n.items as CompiledNode, x, errs));
  } else if (isPlainObject(v)) {
    walkObject(path, n, v, errs);
  }
}

function walkObject(path: string, n: CompiledNode, o: Record<string, unknown>, errs: FieldError[]): void {
  const ap = n.additionalProperties;
  if (typeof ap === 'object' && ap.hasListInvariants) {
    for (const k of Object.keys(o)) walk(`${path}[${k}]`, ap, o[k], errs);
  }
  if (n.properties) {
    for (const k of Object.keys(o)) {
      const p = n.properties.get(k);
      if (p?.hasListInvariants) walk(child(path, k), p, o[k], errs);
    }
  }
}

/** ValidateListSetsAndMaps at the root of a custom resource. */
export function validateListSetsAndMaps(n: CompiledNode, obj: Record<string, unknown>): FieldError[] {
  const errs: FieldError[] = [];
  if (n.hasListInvariants) walkObject('', n, obj, errs);
  return errs;
}
