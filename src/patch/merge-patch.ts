// JSON Merge Patch (RFC 7386) as kube-apiserver applies it (evanphx/json-patch v4 MergePatch): null deletes a
// member, objects merge recursively, anything else replaces. Library details kept: null members are pruned
// from objects the patch inserts (also inside arrays), null array elements stay, a null or scalar patch is
// rejected, and an array patch replaces the whole document.

import { setOwn, type JsonObject, type JsonValue } from './go-json.ts';
import { hasOwn, isJsonObject } from './go-text.ts';
import { cloneJson } from '../apis/json-clone.ts';

/** jsonpatch.ErrBadJSONPatch: kube answers 400 with this message. */
export class MergePatchError extends Error {
  constructor() {
    super('Invalid JSON Patch');
    this.name = 'MergePatchError';
  }
}

/** Applies `patch` to a copy of `doc` and returns the result; neither argument is modified. */
export function mergePatch(doc: JsonValue, patch: JsonValue): JsonValue {
  if (patch === null || (!isJsonObject(patch) && !Array.isArray(patch))) throw new MergePatchError();
  const p = cloneJson(patch);
  if (Array.isArray(p)) return pruneArrayNulls(p);
  if (!isJsonObject(doc)) return pruneObjectNulls(p);
  const result = cloneJson(doc);
  mergeObjects(result, p);
  return result;
}

function mergeObjects(doc: JsonObject, patch: JsonObject): void {
  for (const key of Object.keys(patch)) {
    const value = patch[key]!;
    if (value === null) {
      delete doc[key];
      continue;
    }
    const current = hasOwn(doc, key) ? doc[key] : null;
    if (current === null || current === undefined) setOwn(doc, key, pruneNulls(value));
    else setOwn(doc, key, mergeValue(current, value));
  }
}

function mergeValue(current: JsonValue, patch: JsonValue): JsonValue {
  if (!isJsonObject(current)) return pruneNulls(patch);
  // An object replaced by a non-object keeps the patch value exactly as sent.
  if (!isJsonObject(patch)) return patch;
  mergeObjects(current, patch);
  return current;
}

function pruneNulls(v: JsonValue): JsonValue {
  if (isJsonObject(v)) return pruneObjectNulls(v);
  if (Array.isArray(v)) return pruneArrayNulls(v);
  return v;
}

function pruneObjectNulls(obj: JsonObject): JsonObject {
  for (const key of Object.keys(obj)) {
    const v = obj[key]!;
    if (v === null) delete obj[key];
    else pruneNulls(v);
  }
  return obj;
}

function pruneArrayNulls(arr: JsonValue[]): JsonValue[] {
  for (const v of arr) if (v !== null) pruneNulls(v);
  return arr;
}
