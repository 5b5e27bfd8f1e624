// Validation of an applied configuration against the merge schema (structured-merge-diff typed/validate.go):
// what makes kube answer "failed to create typed patch object (...): .spec.foo: field not declared in schema".

import { goValue } from '../encoding/go-format.ts';
import { goTypeName, goValueSharpV } from './go-format.ts';
import { pathElementString, serializePathElement } from './path-element.ts';
import type { ScalarKind, TypeRef } from './schema.ts';
import { asMap, deduceAtom, handleAtom, listItemPathElement, type Value } from './typed-values.ts';

export interface ValidationError {
  path: string;
  message: string;
}

/** ValidationErrors.Error(): one error bare, several listed under "errors:". */
export function validationErrorsString(errs: readonly ValidationError[]): string {
  const one = (e: ValidationError) => (e.path ? `${e.path}: ${e.message}` : e.message);
  if (errs.length === 1) return one(errs[0]!);
  return ['errors:', ...errs.map((e) => `  ${one(e)}`)].join('\n');
}

function scalarError(t: ScalarKind, v: Value): string | undefined {
  if (v === undefined || v === null) return undefined;
  switch (t) {
    case 'numeric':
      return typeof v === 'number' ? undefined : `expected numeric (int or float), got ${goTypeName(v)}`;
    case 'string':
      return typeof v === 'string' ? undefined : `expected string, got &value.valueUnstructured{Value:${goValueSharpV(v)}}`;
    case 'boolean':
      return typeof v === 'boolean' ? undefined : `expected boolean, got &{${goValue(v)}}`;
    case 'untyped':
      return typeof v === 'number' || typeof v === 'string' || typeof v === 'boolean' ? undefined : `expected any scalar, got &{${goValue(v)}}`;
  }
}

/** Validates a value; duplicates in associative lists are errors unless allowed. */
export function validateTyped(v: Value, type: TypeRef, allowDuplicates = false): ValidationError[] {
  // Most values are valid: checked first without building the paths and messages only errors need.
  return isValidTyped(v, type, allowDuplicates) ? [] : typedErrors(v, type, allowDuplicates);
}

/** The errors of a value, with their paths, in kube's order. */
export function typedErrors(v: Value, type: TypeRef, allowDuplicates = false): ValidationError[] {
  const errs: ValidationError[] = [];
  walk(v, type, '', allowDuplicates, errs);
  return errs;
}

/** Whether typedErrors finds nothing (the same walk, stopping at the first error). */
export function isValidTyped(v: Value, type: TypeRef, allowDuplicates = false): boolean {
  const a = deduceAtom(type.atom, v);
  if (a.map) {
    if (v === null || v === undefined) return true;
    const m = asMap(v);
    if (!m) return false;
    for (const key of Object.keys(m)) {
      const val = m[key];
      if (val === undefined) continue;
      const ft = a.map.fields.get(key)?.type ?? a.map.elem;
      if (!ft || !isValidTyped(val, ft, allowDuplicates)) return false;
    }
    return true;
  }
  if (a.scalar !== undefined) return scalarError(a.scalar, v) === undefined;
  if (a.list) {
    if (v === null || v === undefined) return true;
    if (!Array.isArray(v)) return false;
    const t = a.list;
    const seen = t.atomic || allowDuplicates ? undefined : new Set<string>();
    for (let i = 0; i < v.length; i++) {
      const item: Value = v[i];
      if (!t.atomic) {
        const pe = listItemPathElement(t, i, item);
        if (typeof pe === 'string') return false;
        if (seen) {
          const key = serializePathElement(pe);
          if (seen.has(key)) return false;
          seen.add(key);
        }
      }
      if (!isValidTyped(item, t.elem, allowDuplicates)) return false;
    }
    return true;
  }
  return false;
}

function walk(v: Value, type: TypeRef, path: string, allowDuplicates: boolean, errs: ValidationError[]): void {
  const a = deduceAtom(type.atom, v);
  const handled = handleAtom(a, {
    scalar(t) {
      const msg = scalarError(t, v);
      if (msg) errs.push({ path, message: msg });
    },
    list(t) {
      if (v === null || v === undefined) return;
      if (!Array.isArray(v)) {
        errs.push({ path, message: `expected list, got &{${goValue(v)}}` });
        return;
      }
      const seen = new Set<string>();
      for (let i = 0; i < v.length; i++) {
        const item = v[i];
        let itemPath: string;
        if (t.atomic) {
          itemPath = `${path}[${i}]`;
        } else {
          const pe = listItemPathElement(t, i, item);
          if (typeof pe === 'string') {
            errs.push({ path, message: `element ${i}: ${pe}` });
            return;
          }
          const key = serializePathElement(pe);
          if (seen.has(key) && !allowDuplicates) errs.push({ path, message: `duplicate entries for key ${pathElementString(pe)}` });
          seen.add(key);
          itemPath = path + pathElementString(pe);
        }
        walk(item, t.elem, itemPath, allowDuplicates, errs);
      }
    },
    map(t) {
      if (v === null || v === undefined) return;
      const m = asMap(v);
      if (!m) {
        errs.push({ path, message: `expected map, got &{${goValue(v)}}` });
        return;
      }
      for (const key of Object.keys(m).sort()) {
        const val = m[key];
        if (val === undefined) continue;
        const childPath = `${path}.${key}`;
        const ft = t.fields.get(key)?.type ?? t.elem;
        if (!ft) {
          errs.push({ path: childPath, message: 'field not declared in schema' });
          return;
        }
        walk(val, ft, childPath, allowDuplicates, errs);
      }
    },
  });
  if (!handled) errs.push({ path, message: 'schema error: invalid atom: inlined' });
}
