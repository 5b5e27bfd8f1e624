// JSON Merge Patch (RFC 7386) as kube-apiserver applies it (evanphx/json-patch v4 MergePatch): null deletes a
// member, objects merge recursively, anything else replaces. Library details kept: null members are pruned
// from objects the patch inserts (also inside arrays), null array elements stay, a null or scalar patch is
// rejected, and an array patch replaces the whole document.

import { setOwn, type JsonObject, type JsonValue } from '../encoding/json-value.ts';
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

// The walks below use explicit stacks: patches may nest as deep as kube's decoders allow (10000 levels).

function mergeObjects(doc: JsonObject, patch: JsonObject): void {
  const stack: [JsonObject, JsonObject][] = [[doc, patch]];
  while (stack.length > 0) {
    const [target, changes] = stack.pop()!;
    for (const key of Object.keys(changes)) {
      const value = changes[key]!;
      if (value === null) {
        delete target[key];
        continue;
      }
      const current = hasOwn(target, key) ? target[key] : null;
      if (current === null || current === undefined || !isJsonObject(current)) setOwn(target, key, pruneNulls(value));
      // An object replaced by a non-object keeps the patch value exactly as sent.
      else if (!isJsonObject(value)) setOwn(target, key, value);
      else stack.push([current, value]);
    }
  }
}

/** Drops null members from every object inside v (null array elements stay). */
function pruneNulls(v: JsonValue): JsonValue {
  const stack: JsonValue[] = [v];
  while (stack.length > 0) {
    const x = stack.pop()!;
    if (Array.isArray(x)) {
      for (const e of x) if (e !== null && typeof e === 'object') stack.push(e);
    } else if (isJsonObject(x)) {
      for (const key of Object.keys(x)) {
        const e = x[key]!;
        if (e === null) delete x[key];
        else if (typeof e === 'object') stack.push(e);
      }
    }
  }
  return v;
}

function pruneObjectNulls(obj: JsonObject): JsonObject {
  return pruneNulls(obj) as JsonObject;
}

function pruneArrayNulls(arr: JsonValue[]): JsonValue[] {
  return pruneNulls(arr) as JsonValue[];
}
