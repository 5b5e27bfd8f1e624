// Lists served from stored JSON without decoding: an item's response JSON is its stored JSON with
// metadata.resourceVersion spliced in (and kind/apiVersion dropped or rewritten), byte-identical to what
// decode + convert + JSON.stringify would give. A list built here carries those strings next to lazily decoded
// items, so JSON responses can be written by concatenation while every other consumer sees a normal KubeList.

import { apiVersionOf, convertToVersion, decodeFromStorage } from './store-codec.ts';
import type { KeyValue } from '../storage/types.ts';
import type { KubeList, KubeObject, ListMeta, ResourceDefinition } from './types.ts';

/** ObjectMeta's keys in serialization order (store-codec's inKubeOrder); resourceVersion sits at index 5. */
const META_RANK: Record<string, number> = {
  name: 0,
  generateName: 1,
  namespace: 2,
  selfLink: 3,
  uid: 4,
  resourceVersion: 5,
  generation: 6,
  creationTimestamp: 7,
  deletionTimestamp: 8,
  deletionGracePeriodSeconds: 9,
  labels: 10,
  annotations: 11,
  ownerReferences: 12,
  finalizers: 13,
  managedFields: 14,
};
const RV_RANK = 5;
const UNKNOWN_RANK = 100;

/** Index just past the JSON string starting at i (s[i] === '"'); -1 when malformed. */
function skipString(s: string, i: number): number {
  for (let j = i + 1; j < s.length; j++) {
    const c = s.charCodeAt(j);
    if (c === 0x5c) j++;
    else if (c === 0x22) return j + 1;
  }
  return -1;
}

/** Index just past the compact JSON value starting at i; -1 when malformed. */
function skipValue(s: string, i: number): number {
  const c = s.charCodeAt(i);
  if (c === 0x22) return skipString(s, i);
  if (c === 0x7b || c === 0x5b) {
    let depth = 0;
    for (let j = i; j < s.length; j++) {
      const d = s.charCodeAt(j);
      if (d === 0x22) {
        j = skipString(s, j) - 1;
        if (j < 0) return -1;
      } else if (d === 0x7b || d === 0x5b) depth++;
      else if (d === 0x7d || d === 0x5d) {
        depth--;
        if (depth === 0) return j + 1;
      }
    }
    return -1;
  }
  let j = i;
  while (j < s.length) {
    const d = s.charCodeAt(j);
    if (d === 0x2c || d === 0x7d || d === 0x5d) break;
    j++;
  }
  return j > i ? j : -1;
}

/** Reads the key at i ('"key":'); returns [key, index of its value] or undefined. */
function readKey(s: string, i: number): [string, number] | undefined {
  if (s.charCodeAt(i) !== 0x22) return undefined;
  const end = skipString(s, i);
  if (end < 0 || s.charCodeAt(end) !== 0x3a) return undefined;
  const raw = s.slice(i, end);
  return [raw.indexOf('\\') < 0 ? raw.slice(1, -1) : (JSON.parse(raw) as string), end + 1];
}

/**
 * The response JSON of one stored object at `revision`: `typeMeta` 'drop' removes kind and apiVersion (built-in
 * list items), otherwise apiVersion becomes the given one. undefined when the stored text is not in the canonical
 * shape encodeForStorage writes (callers then decode).
 */
export function itemJson(stored: string, revision: number, typeMeta: 'drop' | { apiVersion: string }): string | undefined {
  if (stored.charCodeAt(0) !== 0x7b) return undefined;
  let out = '{';
  let i = 1;
  let first = true;
  let sawMeta = false;
  let sawApiVersion = false;
  const rvPair = `"resourceVersion":"${revision}"`;
  while (i < stored.length && stored.charCodeAt(i) !== 0x7d) {
    const k = readKey(stored, i);
    if (!k) return undefined;
    const [key, at] = k;
    const end = skipValue(stored, at);
    if (end < 0) return undefined;
    if (key === 'kind' || key === 'apiVersion') {
      // inKubeOrder's order: kind, apiVersion, metadata.
      if (sawMeta || sawApiVersion) return undefined;
      if (key === 'apiVersion') sawApiVersion = true;
      if (typeMeta !== 'drop') {
        out += (first ? '' : ',') + (key === 'apiVersion' ? `"apiVersion":${JSON.stringify(typeMeta.apiVersion)}` : stored.slice(i, end));
        first = false;
      }
    } else if (key === 'metadata') {
      if (sawMeta || stored.charCodeAt(at) !== 0x7b) return undefined;
      sawMeta = true;
      const meta = spliceMeta(stored, at, end, rvPair);
      if (meta === undefined) return undefined;
      out += (first ? '' : ',') + '"metadata":' + meta;
      first = false;
    } else {
      if (!sawMeta) return undefined;
      if (typeMeta !== 'drop' && !sawApiVersion) return undefined;
      // Everything after metadata is copied as it is.
      const rest = stored.slice(i, stored.length - 1);
      return `${out}${first ? '' : ','}${rest}}`;
    }
    i = end;
    if (stored.charCodeAt(i) === 0x2c) i++;
  }
  if (!sawMeta || i !== stored.length - 1 || (typeMeta !== 'drop' && !sawApiVersion)) return undefined;
  return `${out}}`;
}

function spliceMeta(s: string, start: number, end: number, rvPair: string): string | undefined {
  let i = start + 1;
  let lastRank = -1;
  let insertAt = -1;
  while (i < end - 1) {
    const k = readKey(s, i);
    if (!k) return undefined;
    const [key, at] = k;
    const rank = Object.hasOwn(META_RANK, key) ? META_RANK[key] : UNKNOWN_RANK;
    if (rank === RV_RANK || rank < lastRank) return undefined;
    if (rank > RV_RANK && insertAt < 0) insertAt = i;
    lastRank = rank;
    const vEnd = skipValue(s, at);
    if (vEnd < 0) return undefined;
    i = vEnd;
    if (s.charCodeAt(i) === 0x2c) i++;
  }
  if (insertAt >= 0) return `${s.slice(start, insertAt)}${rvPair},${s.slice(insertAt, end)}`;
  const body = s.slice(start + 1, end - 1);
  return body.length === 0 ? `{${rvPair}}` : `{${body},${rvPair}}`;
}

const RAW_ITEMS = Symbol('capstan.rawListItems');

/** The response JSON of a list's items, when the list was built from stored JSON for a JSON response. */
export function rawListItems(list: KubeList): readonly string[] | undefined {
  return (list as unknown as Record<symbol, string[] | undefined>)[RAW_ITEMS];
}

/**
 * A list of stored objects at `revision`: items decode on first access; the raw item JSON (for the same
 * response shape writeResult produces: built-in items without kind/apiVersion) is kept alongside.
 */
export function listFromStored(def: ResourceDefinition, kvs: readonly KeyValue[], metadata: ListMeta): KubeList {
  const typeMeta = def.custom ? { apiVersion: apiVersionOf(def) } : ('drop' as const);
  const raw: string[] = new Array(kvs.length);
  for (let i = 0; i < kvs.length; i++) {
    const kv = kvs[i];
    const json = itemJson(kv.value, kv.modRevision, typeMeta);
    if (json === undefined) return eagerList(def, kvs, metadata);
    raw[i] = json;
  }
  let items: KubeObject[] | undefined;
  const list = { kind: def.listKind, apiVersion: apiVersionOf(def), metadata } as KubeList;
  Object.defineProperty(list, 'items', {
    enumerable: true,
    configurable: true,
    get: () => (items ??= kvs.map((kv) => convertToVersion(decodeFromStorage(kv), def))),
    set: (v: KubeObject[]) => {
      items = v;
    },
  });
  Object.defineProperty(list, RAW_ITEMS, { value: raw, enumerable: false });
  return list;
}

function eagerList(def: ResourceDefinition, kvs: readonly KeyValue[], metadata: ListMeta): KubeList {
  return { kind: def.listKind, apiVersion: apiVersionOf(def), metadata, items: kvs.map((kv) => convertToVersion(decodeFromStorage(kv), def)) };
}
