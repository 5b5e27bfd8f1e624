// Strategic merge patch application, as k8s.io/apimachinery/pkg/util/strategicpatch applies a patch on the server
// (StrategicMergeMapPatch: parallel lists merged, unmatched nulls ignored). Lists whose field has patch strategy
// "merge" are merged: maps by their merge key, primitives as sets; other lists are replaced; maps are merged;
// null deletes. Directives: `$patch` (replace/delete on maps, replace/delete in merged lists),
// `$deleteFromPrimitiveList/<field>`, `$setElementOrder/<field>`, `$retainKeys`. Fields without schema
// information merge like JSON merge patch. The library's quirks are kept: they are what clients observe.

import type { SchemaNode } from '../apis/model-types.ts';
import { setOwn, type JsonObject, type JsonValue } from '../encoding/json-value.ts';
import { goSliceStable } from './go-stable-sort.ts';
import { cloneJson } from '../apis/json-clone.ts';
import {
  goHashKey,
  goInterfaceEqual,
  goKind,
  GoRuntimePanic,
  goSprint,
  goSprintS,
  goTypeString,
  hasOwn,
  isJsonObject,
  type GoKind,
} from './go-text.ts';
import { PatchSchema, type PatchMeta, type ResolveRef } from './patch-schema.ts';

/**
 * How kube-apiserver answers each failure (interpretStrategicMergePatchError): the library's format errors are
 * 400, lists of lists and retainKeys mismatches 422 (generic message), everything else reaches the client as a
 * plain error: 500 with the library's message.
 */
export type StrategicMergePatchErrorClass = 'BadRequest' | 'Invalid' | 'Internal';

export class StrategicMergePatchError extends Error {
  readonly errorClass: StrategicMergePatchErrorClass;
  constructor(errorClass: StrategicMergePatchErrorClass, message: string) {
    super(message);
    this.name = 'StrategicMergePatchError';
    this.errorClass = errorClass;
  }
}

const DIRECTIVE_MARKER = '$patch';
const DELETE_DIRECTIVE = 'delete';
const REPLACE_DIRECTIVE = 'replace';
const MERGE_DIRECTIVE = 'merge';
const RETAIN_KEYS_STRATEGY = 'retainKeys';
const RETAIN_KEYS_DIRECTIVE = '$retainKeys';
const DELETE_FROM_PRIMITIVE_LIST_PREFIX = '$deleteFromPrimitiveList';
const SET_ELEMENT_ORDER_PREFIX = '$setElementOrder';

// mergepatch's sentinel errors.
const errBadPatchFormatForPrimitiveList = (): StrategicMergePatchError =>
  new StrategicMergePatchError('BadRequest', 'invalid patch format of primitive list');
const errBadPatchFormatForRetainKeys = (): StrategicMergePatchError =>
  new StrategicMergePatchError('BadRequest', 'invalid patch format of retainKeys');
const errBadPatchFormatForSetElementOrderList = (): StrategicMergePatchError =>
  new StrategicMergePatchError('BadRequest', 'invalid patch format of setElementOrder list');
const errNoListOfLists = (): StrategicMergePatchError => new StrategicMergePatchError('Invalid', 'lists of lists are not supported');

function internal(message: string): StrategicMergePatchError {
  return new StrategicMergePatchError('Internal', message);
}

/** mergepatch.ErrNoMergeKey */
function errNoMergeKey(m: JsonObject | null, key: string): StrategicMergePatchError {
  return internal(`map: ${goSprint(m ?? {})} does not contain declared merge key: ${key}`);
}

/** mergepatch.ErrBadArgType: `expected` names the Go type that was wanted. */
function errBadArgType(expected: 'map' | 'slice', actual: unknown): StrategicMergePatchError {
  const want = expected === 'map' ? 'map[string]interface {}' : '[]interface {}';
  return internal(`expected a ${want}, but received a ${goTypeString(actual)}`);
}

/** mergepatch.ErrBadPatchType */
function errBadPatchType(t: unknown, m: JsonObject): StrategicMergePatchError {
  return internal(`unknown patch type: ${goSprintS(t)} in map: ${goSprint(m)}`);
}

/**
 * Applies a strategic merge patch to a copy of `doc` and returns the result. `schema` is the root type of the
 * document; `resolveRef` resolves the refs it contains. Neither `doc` nor `patch` is modified.
 */
export function strategicMergePatch(doc: JsonObject, patch: JsonObject | null, schema: SchemaNode | undefined, resolveRef: ResolveRef): JsonObject {
  const root = new PatchSchema(schema, resolveRef, rootTypeName(schema));
  return mergeMap(cloneJson(doc), cloneJson(patch ?? {}), root);
}

function rootTypeName(schema: SchemaNode | undefined): string {
  return schema?.gvk?.[0]?.kind ?? '';
}

function mergeMap(original: JsonObject | null, patch: JsonObject, schema: PatchSchema): JsonObject {
  if (hasOwn(patch, DIRECTIVE_MARKER)) return handleDirectiveInMergeMap(patch[DIRECTIVE_MARKER], patch);
  const target = original ?? {};
  applyRetainKeysDirective(target, patch);
  mergePatchIntoOriginal(target, patch, schema);

  for (const patchKey of Object.keys(patch)) {
    const patchV = patch[patchKey]!;
    let key = patchKey;
    let isDeleteList = false;
    if (patchKey.startsWith(DELETE_FROM_PRIMITIVE_LIST_PREFIX)) {
      isDeleteList = true;
      const listKey = extractKey(patchKey, DELETE_FROM_PRIMITIVE_LIST_PREFIX);
      if (listKey.length > 0) key = listKey;
    }

    if (patchV === null) {
      delete target[key];
      continue;
    }
    if (!hasOwn(target, key)) {
      setOwn(target, key, patchV);
      continue;
    }
    const originalV = target[key]!;
    const kind = goKind(originalV);
    if (kind !== goKind(patchV)) {
      setOwn(target, key, patchV);
      continue;
    }
    if (kind === 'map') {
      const { schema: sub, meta } = lookupStruct(schema, key);
      const strategy = patchStrategyOf(meta);
      setOwn(target, key, strategy === REPLACE_DIRECTIVE ? patchV : mergeMap(originalV as JsonObject, patchV as JsonObject, sub));
    } else if (kind === 'slice') {
      const { schema: sub, meta } = lookupSlice(schema, key);
      const strategy = patchStrategyOf(meta);
      const merged =
        strategy === MERGE_DIRECTIVE
          ? mergeSlice(originalV as JsonValue[], patchV as JsonValue[], sub, meta.mergeKey, isDeleteList)
          : patchV;
      setOwn(target, key, merged);
    } else {
      setOwn(target, key, patchV);
    }
  }
  return target;
}

/** Fields the schema does not know merge without metadata, like JSON merge patch. */
function lookupStruct(schema: PatchSchema, key: string): { schema: PatchSchema; meta: PatchMeta } {
  return schema.lookupStruct(key) ?? { schema: new PatchSchema(undefined, () => undefined), meta: { strategies: [], mergeKey: '' } };
}

function lookupSlice(schema: PatchSchema, key: string): { schema: PatchSchema; meta: PatchMeta } {
  return schema.lookupSlice(key) ?? { schema: new PatchSchema(undefined, () => undefined), meta: { strategies: [], mergeKey: '' } };
}

/** extractRetainKeysPatchStrategy: the strategy other than retainKeys. */
function patchStrategyOf(meta: PatchMeta): string {
  const s = meta.strategies;
  switch (s.length) {
    case 0:
      return '';
    case 1:
      return s[0] === RETAIN_KEYS_STRATEGY ? '' : s[0]!;
    case 2:
      if (s[0] === RETAIN_KEYS_STRATEGY) return s[1]!;
      if (s[1] === RETAIN_KEYS_STRATEGY) return s[0]!;
  }
  throw internal(`unexpected patch strategy: [${s.join(' ')}]`);
}

function handleDirectiveInMergeMap(directive: JsonValue | undefined, patch: JsonObject): JsonObject {
  if (directive === REPLACE_DIRECTIVE) {
    delete patch[DIRECTIVE_MARKER];
    return patch;
  }
  if (directive === DELETE_DIRECTIVE) return {};
  throw errBadPatchType(directive, patch);
}

/** The list field a parallel-list directive key ("$setElementOrder/containers") refers to. */
function extractKey(s: string, prefix: string): string {
  const slash = s.indexOf('/');
  if (slash < 0 || s.slice(0, slash) !== prefix) {
    throw prefix === DELETE_FROM_PRIMITIVE_LIST_PREFIX ? errBadPatchFormatForPrimitiveList() : errBadPatchFormatForSetElementOrderList();
  }
  return s.slice(slash + 1);
}

/**
 * `$retainKeys`: every field of the patch must be listed; fields of the original that are not listed are
 * cleared. Applied wherever it appears, whatever the field's declared strategy.
 */
function applyRetainKeysDirective(original: JsonObject, patch: JsonObject): void {
  if (!hasOwn(patch, RETAIN_KEYS_DIRECTIVE)) return;
  const retainKeys = patch[RETAIN_KEYS_DIRECTIVE];
  delete patch[RETAIN_KEYS_DIRECTIVE];
  if (!Array.isArray(retainKeys)) throw errBadPatchFormatForRetainKeys();
  const retained = new Set(retainKeys.map(goHashKey));
  for (const [k, v] of Object.entries(patch)) {
    if (v === null || k.startsWith(DELETE_FROM_PRIMITIVE_LIST_PREFIX) || k.startsWith(SET_ELEMENT_ORDER_PREFIX)) continue;
    if (!retained.has(goHashKey(k))) throw errBadPatchFormatForRetainKeys();
  }
  for (const k of Object.keys(original)) {
    if (!retained.has(goHashKey(k))) delete original[k];
  }
}

/**
 * `$setElementOrder/<field>`: merges the field's list from the patch (if any) and then orders the result:
 * items named by the directive in its order, the server-only items interleaved by their original positions.
 */
function mergePatchIntoOriginal(original: JsonObject, patch: JsonObject, schema: PatchSchema): void {
  for (const key of Object.keys(patch)) {
    if (!key.startsWith(SET_ELEMENT_ORDER_PREFIX)) continue;
    const setElementOrder = patch[key];
    delete patch[key];
    if (!Array.isArray(setElementOrder)) throw errBadArgType('slice', setElementOrder);
    const originalKey = extractKey(key, SET_ELEMENT_ORDER_PREFIX);

    const foundOriginal = hasOwn(original, originalKey);
    const foundPatch = hasOwn(patch, originalKey);
    const originalList = original[originalKey];
    const patchList = patch[originalKey];
    if (foundOriginal && !Array.isArray(originalList)) throw errBadArgType('slice', originalList);
    if (foundPatch && !Array.isArray(patchList)) throw errBadArgType('slice', patchList);
    const originalValues = foundOriginal ? (originalList as JsonValue[]) : [];
    const patchValues = foundPatch ? (patchList as JsonValue[]) : [];

    const found = schema.lookupSlice(originalKey);
    if (!found) throw internal(`unable to find api field in struct ${schema.typeName} for the json field ${JSON.stringify(originalKey)}`);
    const { schema: sub, meta } = found;
    const strategy = patchStrategyOf(meta);
    const mergeKey = meta.mergeKey;
    validatePatchWithSetOrderList(patchValues, setElementOrder, mergeKey);

    let merged: JsonValue[];
    if (foundOriginal && !foundPatch) merged = originalValues;
    else if (!foundOriginal && foundPatch) merged = patchValues;
    else if (foundOriginal && foundPatch) {
      merged = strategy === MERGE_DIRECTIVE ? mergeSlice(originalValues, patchValues, sub, mergeKey, false) : patchValues;
    } else continue;

    const { patchItems, serverOnly } =
      mergeKey.length === 0 ? partitionPrimitivesByPresentInList(merged, setElementOrder) : partitionMapsByPresentInList(merged, setElementOrder, mergeKey);
    const kind = sliceElementType(originalValues, patchValues);
    setOwn(original, originalKey, normalizeElementOrder(patchItems, serverOnly, setElementOrder, originalValues, mergeKey, kind));
    delete patch[originalKey];
  }
}

/**
 * The patch list's items (deletions aside) must appear in the `$setElementOrder` list, in the same relative order.
 */
function validatePatchWithSetOrderList(patchList: JsonValue[], setOrderList: JsonValue[], mergeKey: string): void {
  if (setOrderList.length === 0 || patchList.length === 0) return;
  const nonDelete = mergeKey.length > 0 ? extractToDeleteItems(patchList).nonDelete : patchList;
  let patchIndex = 0;
  let setOrderIndex = 0;
  while (patchIndex < nonDelete.length && setOrderIndex < setOrderList.length) {
    if (containsDirectiveMarker(nonDelete[patchIndex]!)) {
      patchIndex++;
      continue;
    }
    if (mergeKeyValueEqual(nonDelete[patchIndex]!, setOrderList[setOrderIndex]!, mergeKey)) patchIndex++;
    setOrderIndex++;
  }
  if (patchIndex < nonDelete.length && setOrderIndex >= setOrderList.length) {
    throw internal(`The order in patch list:\n${goSprint(patchList)}\n doesn't match ${SET_ELEMENT_ORDER_PREFIX} list:\n${goSprint(setOrderList)}\n`);
  }
}

function containsDirectiveMarker(item: JsonValue): boolean {
  return isJsonObject(item) && hasOwn(item, DIRECTIVE_MARKER);
}

function mergeKeyValueEqual(left: JsonValue, right: JsonValue, mergeKey: string): boolean {
  if (mergeKey.length === 0) return goInterfaceEqual(left, right);
  if (!isJsonObject(left)) throw errBadArgType('map', left);
  if (!isJsonObject(right)) throw errBadArgType('map', right);
  if (!hasOwn(left, mergeKey)) throw errNoMergeKey(left, mergeKey);
  if (!hasOwn(right, mergeKey)) throw errNoMergeKey(right, mergeKey);
  return goInterfaceEqual(left[mergeKey], right[mergeKey]);
}

/** Merges a list whose field has patch strategy "merge". */
function mergeSlice(original: JsonValue[], patch: JsonValue[], schema: PatchSchema, mergeKey: string, isDeleteList: boolean): JsonValue[] {
  if (original.length === 0 && patch.length === 0) return original;
  const kind = sliceElementType(original, patch);
  let base = original;
  let items = patch;
  let merged: JsonValue[];
  if (kind !== 'map') {
    if (isDeleteList) return deleteFromSlice(original, patch);
    merged = deduplicateScalars([...original, ...patch]);
  } else {
    if (mergeKey === '') throw internal(`cannot merge lists without merge key for ${schema.kindName}`);
    ({ original: base, patch: items } = mergeSliceWithSpecialElements(original, patch, mergeKey));
    merged = mergeSliceWithoutSpecialElements([...base], items, mergeKey, schema);
  }
  const { patchItems, serverOnly } =
    mergeKey.length === 0 ? partitionPrimitivesByPresentInList(merged, items) : partitionMapsByPresentInList(merged, items, mergeKey);
  return normalizeElementOrder(patchItems, serverOnly, items, base, mergeKey, kind);
}

/**
 * Handles `$patch` items of a merged list of maps: `delete` removes the original items with that merge key,
 * `replace` makes the rest of the patch list the whole list.
 */
function mergeSliceWithSpecialElements(original: JsonValue[], patch: JsonValue[], mergeKey: string): { original: JsonValue[]; patch: JsonValue[] } {
  const withoutSpecial: JsonValue[] = [];
  let replace = false;
  let base = original;
  for (const v of patch) {
    const item = v as JsonObject;
    if (!hasOwn(item, DIRECTIVE_MARKER)) {
      withoutSpecial.push(v);
      continue;
    }
    const directive = item[DIRECTIVE_MARKER];
    if (directive === DELETE_DIRECTIVE) {
      if (!hasOwn(item, mergeKey)) throw errNoMergeKey(item, mergeKey);
      base = deleteMatchingEntries(base, mergeKey, item[mergeKey]!);
    } else if (directive === REPLACE_DIRECTIVE) {
      replace = true;
    } else if (directive === MERGE_DIRECTIVE) {
      throw internal('merging lists cannot yet be specified in the patch');
    } else {
      throw errBadPatchType(directive, item);
    }
  }
  if (replace) return { original: withoutSpecial, patch: [] };
  return { original: base, patch: withoutSpecial };
}

function deleteMatchingEntries(original: JsonValue[], mergeKey: string, mergeValue: JsonValue): JsonValue[] {
  let list = original;
  for (;;) {
    const found = findMapInSliceBasedOnKeyValue(list, mergeKey, mergeValue);
    if (!found) return list;
    list = [...list.slice(0, found.index), ...list.slice(found.index + 1)];
  }
}

/** Merges each patch item into the original item with the same merge key, or appends it. */
function mergeSliceWithoutSpecialElements(original: JsonValue[], patch: JsonValue[], mergeKey: string, schema: PatchSchema): JsonValue[] {
  for (const v of patch) {
    const item = v as JsonObject;
    if (!hasOwn(item, mergeKey)) throw errNoMergeKey(item, mergeKey);
    const found = findMapInSliceBasedOnKeyValue(original, mergeKey, item[mergeKey]!);
    if (found) original[found.index] = mergeMap(found.map, item, schema);
    else original.push(v);
  }
  return original;
}

/** `$deleteFromPrimitiveList`: drops every original item equal to one of the listed values. */
function deleteFromSlice(current: JsonValue[], toDelete: JsonValue[]): JsonValue[] {
  const doomed = new Set(toDelete.map(goHashKey));
  return current.filter((v) => !doomed.has(goHashKey(v)));
}

function findMapInSliceBasedOnKeyValue(list: JsonValue[], key: string, value: JsonValue): { map: JsonObject; index: number } | undefined {
  for (let i = 0; i < list.length; i++) {
    const m = list[i];
    if (!isJsonObject(m)) throw internal(`value for key ${i} is not a map`);
    if (hasOwn(m, key) && goInterfaceEqual(m[key], value)) return { map: m, index: i };
  }
  return undefined;
}

/** Go's "clever" in-place deduplication; the order it leaves does not survive normalizeElementOrder. */
function deduplicateScalars(s: JsonValue[]): JsonValue[] {
  let length = s.length - 1;
  for (let i = 0; i < length; i++) {
    for (let j = i + 1; j <= length; j++) {
      if (goInterfaceEqual(s[i], s[j])) {
        s[j] = s[length]!;
        s.length = length;
        length--;
        j--;
      }
    }
  }
  return s;
}

/** The one Go type shared by the elements of all the lists (lists of lists are refused). */
function sliceElementType(...lists: JsonValue[][]): GoKind {
  let prev: GoKind | undefined;
  for (const list of lists) {
    for (const v of list) {
      const kind = goKind(v);
      if (prev === undefined) {
        if (kind === 'nil') throw new GoRuntimePanic('invalid memory address or nil pointer dereference');
        if (kind === 'slice') throw errNoListOfLists();
        prev = kind;
      } else if (prev !== kind) {
        throw internal(`list element types are not identical: ${goSprint(lists)}`);
      }
    }
  }
  if (prev === undefined) throw internal('no elements in any of the given slices');
  return prev;
}

function partitionPrimitivesByPresentInList(original: JsonValue[], partitionBy: JsonValue[]): { patchItems: JsonValue[]; serverOnly: JsonValue[] } {
  const inPatch = new Set(partitionBy.map(goHashKey));
  const patchItems: JsonValue[] = [];
  const serverOnly: JsonValue[] = [];
  for (const v of original) (inPatch.has(goHashKey(v)) ? patchItems : serverOnly).push(v);
  return { patchItems, serverOnly };
}

function partitionMapsByPresentInList(original: JsonValue[], partitionBy: JsonValue[], mergeKey: string): { patchItems: JsonValue[]; serverOnly: JsonValue[] } {
  const patchItems: JsonValue[] = [];
  const serverOnly: JsonValue[] = [];
  for (const v of original) {
    if (!isJsonObject(v)) throw errBadArgType('map', v);
    if (!hasOwn(v, mergeKey)) throw errNoMergeKey(v, mergeKey);
    (findMapInSliceBasedOnKeyValue(partitionBy, mergeKey, v[mergeKey]!) ? patchItems : serverOnly).push(v);
  }
  return { patchItems, serverOnly };
}

/**
 * Orders the patch items by `patchOrder` and the server-only items by `serverOrder`, then interleaves them,
 * keeping both relative orders (patch order wins where the live order disagrees).
 */
function normalizeElementOrder(
  patch: JsonValue[],
  serverOnly: JsonValue[],
  patchOrder: JsonValue[],
  serverOrder: JsonValue[],
  mergeKey: string,
  kind: GoKind,
): JsonValue[] {
  const sortedPatch = normalizeSliceOrder(patch, patchOrder, mergeKey, kind);
  const sortedServerOnly = normalizeSliceOrder(serverOnly, serverOrder, mergeKey, kind);
  return mergeSortedSlice(sortedServerOnly, sortedPatch, serverOrder, mergeKey, kind);
}

function normalizeSliceOrder(toSort: JsonValue[], order: JsonValue[], mergeKey: string, kind: GoKind): JsonValue[] {
  let items = [...toSort];
  let toDelete: JsonValue[] = [];
  if (kind === 'map') {
    validateMergeKeyInLists(mergeKey, items, order);
    ({ nonDelete: items, toDelete } = extractToDeleteItems(items));
  }
  goSliceStable(items, (a, b) => {
    const ia = index(order, a, mergeKey, kind);
    if (ia >= 0) {
      const ib = index(order, b, mergeKey, kind);
      if (ib >= 0) return ia < ib;
    }
    return true;
  });
  return [...items, ...toDelete];
}

function validateMergeKeyInLists(mergeKey: string, ...lists: JsonValue[][]): void {
  for (const list of lists) {
    for (const item of list) {
      if (!isJsonObject(item)) throw errBadArgType('map', item);
      if (!hasOwn(item, mergeKey)) throw errNoMergeKey(item, mergeKey);
    }
  }
}

function extractToDeleteItems(list: JsonValue[]): { nonDelete: JsonValue[]; toDelete: JsonValue[] } {
  const nonDelete: JsonValue[] = [];
  const toDelete: JsonValue[] = [];
  for (const v of list) {
    if (!isJsonObject(v)) throw errBadArgType('map', v);
    (hasOwn(v, DIRECTIVE_MARKER) && v[DIRECTIVE_MARKER] === DELETE_DIRECTIVE ? toDelete : nonDelete).push(v);
  }
  return { nonDelete, toDelete };
}

/** Position of the item in the list: by merge key value for maps, by value otherwise; -1 if absent. */
function index(list: JsonValue[], item: JsonValue, mergeKey: string, kind: GoKind): number {
  const valueOf = (v: JsonValue): JsonValue | undefined => (kind === 'map' ? (isJsonObject(v) ? v[mergeKey] : undefined) : v);
  const wanted = valueOf(item) ?? null;
  for (let i = 0; i < list.length; i++) {
    if (goInterfaceEqual(wanted, valueOf(list[i]!) ?? null)) return i;
  }
  return -1;
}

/**
 * Inserts the server-only items (`left`) among the patch items (`right`): before a patch item only when both
 * are found in the live list and the server-only item comes first there.
 */
function mergeSortedSlice(left: JsonValue[], right: JsonValue[], serverOrder: JsonValue[], mergeKey: string, kind: GoKind): JsonValue[] {
  const less = (l: JsonValue, r: JsonValue): { less: boolean; foundBoth: boolean } => {
    const li = index(serverOrder, l, mergeKey, kind);
    const ri = index(serverOrder, r, mergeKey, kind);
    return li >= 0 && ri >= 0 ? { less: li < ri, foundBoth: true } : { less: false, foundBoth: false };
  };
  const size = left.length + right.length;
  const out: JsonValue[] = [];
  let i = 0;
  let j = 0;
  for (let k = 0; k < size; k++) {
    if (i >= left.length && j < right.length) out.push(right[j++]!);
    else if (j >= right.length && i < left.length) out.push(left[i++]!);
    else {
      const cmp = less(left[i]!, right[j]!);
      if (cmp.foundBoth && cmp.less) out.push(left[i++]!);
      else out.push(right[j++]!);
    }
  }
  return out;
}
