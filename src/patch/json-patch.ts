// JSON Patch (RFC 6902) with the behaviour of the library kube-apiserver uses (evanphx/json-patch v4, as
// vendored by kube). Where that library departs from the RFC, kube's answer is the product, so we follow it:
// negative array indices count from the end, `add`/`remove` cannot address the document root, `replace` of a
// missing object member adds it, a missing `value` means null, `test` treats a missing member as null, `copy`
// from a missing object member copies null, and `replace` of the root by a non-container is ignored. kube 1.31
// pins v4.12.0; where that version dereferences a missing `value` (and kube answers 500), we throw
// JsonPatchPanic.

import { jsonKind, setOwn, type JsonObject, type JsonValue } from '../encoding/json-value.ts';
import { goQuote } from '../encoding/go-format.ts';
import { hasOwn, isJsonObject } from './go-text.ts';
import { cloneJson } from '../apis/json-clone.ts';
import { HandlerPanic } from '../apis/errors.ts';

/** The patch document could not be read as a list of operations (kube: 400 BadRequest). */
export class JsonPatchDecodeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'JsonPatchDecodeError';
  }
}

/** An operation failed against the document (kube: 422 with a generic message). */
export class JsonPatchApplyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'JsonPatchApplyError';
  }
}

/** Where the library itself crashes (a nil dereference): kube-apiserver panics (see HandlerPanic). */
export class JsonPatchPanic extends HandlerPanic {
  constructor(message = 'runtime error: invalid memory address or nil pointer dereference') {
    super(message);
    this.name = 'JsonPatchPanic';
  }
}

/** One operation as the library holds it: the raw member map (null for a `null` array element). */
export type JsonPatchOperation = JsonObject | null;

/** Total bytes `copy` operations may add to a document (kube-apiserver's JSONPatchMaxCopyBytes). */
export const JSON_PATCH_MAX_COPY_BYTES = 3 * 1024 * 1024;

/** jsonpatch.DecodePatch: a JSON array (or null) of objects (or nulls); member values are not checked here. */
export function decodeJsonPatch(value: unknown): JsonPatchOperation[] {
  if (value === null || value === undefined) return [];
  if (!Array.isArray(value)) {
    throw new JsonPatchDecodeError(`json: cannot unmarshal ${jsonKind(value)} into Go value of type jsonpatch.Patch`);
  }
  for (const op of value) {
    if (op !== null && !isJsonObject(op)) {
      throw new JsonPatchDecodeError(`json: cannot unmarshal ${jsonKind(op)} into Go value of type jsonpatch.Operation`);
    }
  }
  return value as JsonPatchOperation[];
}

/** Applies `ops` to a copy of `doc` and returns it; `doc` is not modified. */
export function jsonPatch(doc: JsonValue, ops: unknown): JsonValue {
  const operations = decodeJsonPatch(ops);
  if (!Array.isArray(doc) && !isJsonObject(doc)) {
    throw new JsonPatchApplyError(`json: cannot unmarshal ${jsonKind(doc)} into Go value of type jsonpatch.partialDoc`);
  }
  const state: PatchState = { root: cloneJson(doc) as Container, copiedBytes: 0 };
  for (const op of operations) applyOperation(state, op ?? {});
  return state.root;
}

type Container = JsonObject | JsonValue[];

interface PatchState {
  root: Container;
  copiedBytes: number;
}

function applyOperation(state: PatchState, op: JsonObject): void {
  const kind = typeof op['op'] === 'string' ? op['op'] : 'unknown';
  switch (kind) {
    case 'add':
      return addOp(state, op);
    case 'remove':
      return removeOp(state, op);
    case 'replace':
      return replaceOp(state, op);
    case 'move':
      return moveOp(state, op);
    case 'test':
      return testOp(state, op);
    case 'copy':
      return copyOp(state, op);
    default:
      throw new JsonPatchApplyError(`Unexpected kind: ${kind}`);
  }
}

const ERR_MISSING = 'missing value';
const ERR_INVALID_INDEX = 'invalid index referenced';
const ERR_TEST_FAILED = 'test failed';

/** Operation.Path()/From(): a string member; an absent or null member is "missing", another type a decode error. */
function stringMember(op: JsonObject, name: 'path' | 'from'): { value: string } | { error: string } {
  const v = op[name];
  if (v === undefined || v === null || !hasOwn(op, name)) {
    return { error: name === 'path' ? `operation missing path field: ${ERR_MISSING}` : `operation, missing from field: ${ERR_MISSING}` };
  }
  if (typeof v !== 'string') return { error: `json: cannot unmarshal ${jsonKind(v)} into Go value of type string` };
  return { value: v };
}

/** The operation's value; undefined when the member is absent (the library then stores a JSON null). */
function valueMember(op: JsonObject): JsonValue | undefined {
  return hasOwn(op, 'value') ? op['value'] : undefined;
}

function decodeKey(token: string): string {
  return token.replace(/~[01]/g, (m) => (m === '~1' ? '/' : '~'));
}

/**
 * findObject: the container holding the path's last token, and that token. Like the library, the first
 * token is not checked to be empty ("a/b" addresses member "b" of the root) and "" has no container.
 */
function findObject(root: Container, path: string): { container: Container; key: string } | undefined {
  const split = path.split('/');
  if (split.length < 2) return undefined;
  let doc: Container = root;
  for (const part of split.slice(1, -1)) {
    const next = get(doc, decodeKey(part));
    if (next.error !== undefined || next.value === null || next.value === undefined) return undefined;
    if (Array.isArray(next.value) || isJsonObject(next.value)) doc = next.value;
    else return undefined;
  }
  return { container: doc, key: decodeKey(split[split.length - 1]!) };
}

/** strconv.Atoi, with its error texts. */
function atoi(key: string): { index: number } | { error: string } {
  if (!/^[+-]?[0-9]+$/.test(key)) return { error: `strconv.Atoi: parsing ${goQuote(key)}: invalid syntax` };
  const big = BigInt(key);
  if (big > 9223372036854775807n || big < -9223372036854775808n) {
    return { error: `strconv.Atoi: parsing ${goQuote(key)}: value out of range` };
  }
  return { index: Number(big) };
}

function indexError(index: number): string {
  return `Unable to access invalid index: ${index}: ${ERR_INVALID_INDEX}`;
}

interface Lookup {
  /** undefined: absent object member (the library cannot tell it from null). */
  value?: JsonValue;
  error?: string;
}

function get(container: Container, key: string): Lookup {
  if (!Array.isArray(container)) return { value: hasOwn(container, key) ? container[key] : undefined };
  const parsed = atoi(key);
  if ('error' in parsed) return { error: parsed.error };
  let idx = parsed.index;
  if (idx < 0) {
    if (idx < -container.length) return { error: indexError(idx) };
    idx += container.length;
  }
  if (idx >= container.length) return { error: indexError(idx) };
  return { value: container[idx] };
}

/** Only called after a successful get of the same key. */
function set(container: Container, key: string, value: JsonValue): void {
  if (!Array.isArray(container)) {
    setOwn(container, key, value);
    return;
  }
  let idx = Number(key);
  if (idx < 0) idx += container.length;
  container[idx] = value;
}

function add(container: Container, key: string, value: JsonValue): string | undefined {
  if (!Array.isArray(container)) {
    setOwn(container, key, value);
    return undefined;
  }
  if (key === '-') {
    container.push(value);
    return undefined;
  }
  const parsed = atoi(key);
  if ('error' in parsed) return `value was not a proper array index: '${key}': ${parsed.error}`;
  let idx = parsed.index;
  const size = container.length + 1;
  if (idx >= size) return indexError(idx);
  if (idx < 0) {
    if (idx < -size) return indexError(idx);
    idx += size;
  }
  container.splice(idx, 0, value);
  return undefined;
}

function remove(container: Container, key: string): string | undefined {
  if (!Array.isArray(container)) {
    if (!hasOwn(container, key)) return `Unable to remove nonexistent key: ${key}: ${ERR_MISSING}`;
    delete container[key];
    return undefined;
  }
  const parsed = atoi(key);
  if ('error' in parsed) return parsed.error;
  let idx = parsed.index;
  if (idx >= container.length) return indexError(idx);
  if (idx < 0) {
    if (idx < -container.length) return indexError(idx);
    idx += container.length;
  }
  container.splice(idx, 1);
  return undefined;
}

function addOp(state: PatchState, op: JsonObject): void {
  const path = stringMember(op, 'path');
  if ('error' in path) throw new JsonPatchApplyError(`add operation failed to decode path: ${ERR_MISSING}`);
  const target = findObject(state.root, path.value);
  if (!target) throw new JsonPatchApplyError(`add operation does not apply: doc is missing path: "${path.value}": ${ERR_MISSING}`);
  const err = add(target.container, target.key, cloneJson(valueMember(op) ?? null));
  if (err) throw new JsonPatchApplyError(`error in add for path: '${path.value}': ${err}`);
}

function removeOp(state: PatchState, op: JsonObject): void {
  const path = stringMember(op, 'path');
  if ('error' in path) throw new JsonPatchApplyError(`remove operation failed to decode path: ${ERR_MISSING}`);
  const target = findObject(state.root, path.value);
  if (!target) throw new JsonPatchApplyError(`remove operation does not apply: doc is missing path: "${path.value}": ${ERR_MISSING}`);
  const err = remove(target.container, target.key);
  if (err) throw new JsonPatchApplyError(`error in remove for path: '${path.value}': ${err}`);
}

function replaceOp(state: PatchState, op: JsonObject): void {
  const path = stringMember(op, 'path');
  if ('error' in path) throw new JsonPatchApplyError(`replace operation failed to decode path: ${path.error}`);
  if (path.value === '') {
    const value = valueMember(op);
    if (value === undefined) throw new JsonPatchPanic();
    // v4.12.0 wraps a nil error here ("replace operation value must be object or array"), which is no error.
    if (Array.isArray(value) || isJsonObject(value)) state.root = cloneJson(value);
    return;
  }
  const target = findObject(state.root, path.value);
  if (!target) throw new JsonPatchApplyError(`replace operation does not apply: doc is missing path: ${path.value}: ${ERR_MISSING}`);
  const current = get(target.container, target.key);
  if (current.error !== undefined) {
    throw new JsonPatchApplyError(`replace operation does not apply: doc is missing key: ${path.value}: ${ERR_MISSING}`);
  }
  set(target.container, target.key, cloneJson(valueMember(op) ?? null));
}

function moveOp(state: PatchState, op: JsonObject): void {
  const from = stringMember(op, 'from');
  if ('error' in from) throw new JsonPatchApplyError(`move operation failed to decode from: ${from.error}`);
  const source = findObject(state.root, from.value);
  if (!source) throw new JsonPatchApplyError(`move operation does not apply: doc is missing from path: ${from.value}: ${ERR_MISSING}`);
  const moved = get(source.container, source.key);
  if (moved.error !== undefined) throw new JsonPatchApplyError(`error in move for path: '${source.key}': ${moved.error}`);
  const removeErr = remove(source.container, source.key);
  if (removeErr) throw new JsonPatchApplyError(`error in move for path: '${source.key}': ${removeErr}`);
  const path = stringMember(op, 'path');
  if ('error' in path) throw new JsonPatchApplyError(`move operation failed to decode path: ${path.error}`);
  const target = findObject(state.root, path.value);
  if (!target) throw new JsonPatchApplyError(`move operation does not apply: doc is missing destination path: ${path.value}: ${ERR_MISSING}`);
  const addErr = add(target.container, target.key, moved.value ?? null);
  if (addErr) throw new JsonPatchApplyError(`error in move for path: '${path.value}': ${addErr}`);
}

function testOp(state: PatchState, op: JsonObject): void {
  const path = stringMember(op, 'path');
  if ('error' in path) throw new JsonPatchApplyError(`test operation failed to decode path: ${path.error}`);
  const expected = valueMember(op);
  const failed = (): JsonPatchApplyError => new JsonPatchApplyError(`testing value ${path.value} failed: ${ERR_TEST_FAILED}`);
  if (path.value === '') {
    if (expected === undefined || !jsonEqual(state.root, expected)) throw failed();
    return;
  }
  const target = findObject(state.root, path.value);
  if (!target) throw new JsonPatchApplyError(`test operation does not apply: is missing path: ${path.value}: ${ERR_MISSING}`);
  const actual = get(target.container, target.key);
  if (actual.error !== undefined) throw new JsonPatchApplyError(`error in test for path: '${path.value}': ${actual.error}`);
  if (actual.value === undefined || actual.value === null) {
    // An absent member and a null both pass against null; without a value the library crashes.
    if (expected === undefined) throw new JsonPatchPanic();
    if (expected === null) return;
    throw failed();
  }
  if (expected === undefined || !jsonEqual(actual.value, expected)) throw failed();
}

function copyOp(state: PatchState, op: JsonObject): void {
  const from = stringMember(op, 'from');
  if ('error' in from) throw new JsonPatchApplyError(`copy operation failed to decode from: ${from.error}`);
  const source = findObject(state.root, from.value);
  if (!source) throw new JsonPatchApplyError(`copy operation does not apply: doc is missing from path: ${from.value}: ${ERR_MISSING}`);
  const copied = get(source.container, source.key);
  if (copied.error !== undefined) throw new JsonPatchApplyError(`error in copy for from: '${from.value}': ${copied.error}`);
  const path = stringMember(op, 'path');
  if ('error' in path) throw new JsonPatchApplyError(`copy operation failed to decode path: ${ERR_MISSING}`);
  const target = findObject(state.root, path.value);
  if (!target) throw new JsonPatchApplyError(`copy operation does not apply: doc is missing destination path: ${path.value}: ${ERR_MISSING}`);
  const value = copied.value ?? null;
  // An absent member copies as null without counting (the library copies a nil node).
  if (copied.value !== undefined) {
    state.copiedBytes += Buffer.byteLength(JSON.stringify(value));
    if (state.copiedBytes > JSON_PATCH_MAX_COPY_BYTES) {
      throw new JsonPatchApplyError(
        `Unable to complete the copy, the accumulated size increase of copy is ${state.copiedBytes}, exceeding the limit ${JSON_PATCH_MAX_COPY_BYTES}`,
      );
    }
  }
  const err = add(target.container, target.key, cloneJson(value));
  if (err) throw new JsonPatchApplyError(`error while adding value during copy: ${err}`);
}

/** Structural equality: members in any order, arrays element by element, scalars by type and value. */
export function jsonEqual(a: JsonValue, b: JsonValue): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    return a.every((v, i) => jsonEqual(v, b[i]!));
  }
  if (isJsonObject(a)) {
    if (!isJsonObject(b)) return false;
    const keys = Object.keys(a);
    if (keys.length !== Object.keys(b).length) return false;
    return keys.every((k) => hasOwn(b, k) && jsonEqual(a[k]!, b[k]!));
  }
  return false;
}
