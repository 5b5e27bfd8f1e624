// Structural defaulting (apiextensions-apiserver pkg/apiserver/schema/defaulting): first nulls of non-nullable
// fields without a default are dropped (PruneNonNullableNullsWithoutDefaults), then missing fields and nulls of
// non-nullable fields get their schema default (Default). Defaults are copied; the object is changed in place.

import { cloneJson } from '../../../apis/json-clone.ts';
import type { CompiledNode } from './compiled-node.ts';
import { isPlainObject } from './go-values.ts';

function copyDefault(v: unknown): unknown {
  return v !== null && typeof v === 'object' ? cloneJson(v) : v;
}

function fieldSchema(k: string, s: CompiledNode | undefined): CompiledNode | undefined {
  if (!s) return undefined;
  const p = s.properties?.get(k);
  if (p) return p;
  return typeof s.additionalProperties === 'object' ? s.additionalProperties : undefined;
}

export function pruneNonNullableNullsWithoutDefaults(x: unknown, s: CompiledNode | undefined): void {
  if (Array.isArray(x)) {
    const items = s?.items;
    for (const v of x) if (v !== null && typeof v === 'object') pruneNonNullableNullsWithoutDefaults(v, items);
  } else if (isPlainObject(x)) {
    for (const k of Object.keys(x)) {
      const v = x[k];
      const sub = fieldSchema(k, s);
      if (v === null) {
        if (sub && !sub.nullable && !sub.hasDefault) delete x[k];
      } else if (typeof v === 'object') {
        pruneNonNullableNullsWithoutDefaults(v, sub);
      }
    }
  }
}

function isNonNullableNull(v: unknown, s: CompiledNode | undefined): boolean {
  return v === null && s !== undefined && !s.nullable;
}

export function applyDefaults(x: unknown, s: CompiledNode | undefined): void {
  if (!s?.hasDefaultsBelow) return;
  if (Array.isArray(x)) {
    const items = s.items;
    for (let i = 0; i < x.length; i++) {
      if (items?.hasDefault && isNonNullableNull(x[i], items)) x[i] = copyDefault(items.default);
      const v = x[i];
      if (v !== null && typeof v === 'object') applyDefaults(v, items);
    }
  } else if (isPlainObject(x)) {
    for (const [k, prop] of s.defaultedProperties) {
      if (!Object.hasOwn(x, k) || isNonNullableNull(x[k], prop)) x[k] = copyDefault(prop.default);
    }
    const ap = typeof s.additionalProperties === 'object' ? s.additionalProperties : undefined;
    for (const k of Object.keys(x)) {
      const prop = s.properties?.get(k);
      if (prop) {
        const v = x[k];
        if (v !== null && typeof v === 'object') applyDefaults(v, prop);
      } else if (ap) {
        if (ap.hasDefault && isNonNullableNull(x[k], ap)) x[k] = copyDefault(ap.default);
        const v = x[k];
        if (v !== null && typeof v === 'object') applyDefaults(v, ap);
      }
    }
  }
}
