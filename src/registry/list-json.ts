// Lists served from stored JSON without decoding: an item's response JSON is its stored JSON with
// metadata.resourceVersion spliced in (and kind/apiVersion dropped or rewritten), byte-identical to what
// decode + convert + JSON.stringify would give. A list built here carries those strings next to lazily decoded
// items, so JSON responses can be written by concatenation while every other consumer sees a normal KubeList.

import { apiVersionOf, convertsOnRead, readDefaultsChange, servedObject } from './store-codec.ts';
import { goEscape } from '../encoding/json.ts';
import type { KeyValue } from '../storage/types.ts';
import { copyItems, rawItems, type RawItems } from './raw-items.ts';
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
  // Native indexOf finds each candidate quote; one preceded by an odd run of backslashes is escaped.
  for (let q = s.indexOf('"', i + 1); q >= 0; q = s.indexOf('"', q + 1)) {
    let b = q - 1;
    while (s.charCodeAt(b) === 0x5c) b--;
    if ((q - b) % 2 === 1) return q + 1;
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
 * Where a stored object's response JSON differs from its stored text, found once per stored value: the start of
 * its "metadata" key (what a list item without kind/apiVersion begins with), the apiVersion value, and where
 * metadata.resourceVersion goes (as before: before the key at insertAt; end: at the end of a non-empty metadata;
 * empty: into an empty metadata). undefined when the text is not in the canonical shape encodeForStorage writes.
 */
export interface JsonLayout {
  readonly metaKey: number;
  readonly apiVersion: readonly [number, number] | undefined;
  readonly insertAt: number;
  readonly insert: 'before' | 'end' | 'empty';
  /** Where the values of metadata's name, namespace and labels are in the text (start, end), when present. */
  readonly spans: MetaSpans;
  /** Where metadata's value (the object) is in the text (start, end). */
  readonly metadata: readonly [number, number];
}

export interface MetaSpans {
  name?: readonly [number, number];
  namespace?: readonly [number, number];
  labels?: readonly [number, number];
}

/**
 * The layouts of the stored values read last, so that a write's answer and the watch cache's entry for the same value
 * share one scan. Bounded: a WeakMap would hold a table as large as every value ever read (the memory backend keeps
 * them all), about 40 bytes an object.
 */
const recentLayouts = new Map<KeyValue, JsonLayout | null>();
const RECENT_LAYOUTS = 256;

/** jsonLayout(kv.value), shared by the readers of a value read recently. */
export function layoutOf(kv: KeyValue): JsonLayout | undefined {
  let layout = recentLayouts.get(kv);
  if (layout === undefined) {
    layout = jsonLayout(kv.value) ?? null;
    if (recentLayouts.size >= RECENT_LAYOUTS) recentLayouts.delete(recentLayouts.keys().next().value!);
    recentLayouts.set(kv, layout);
  }
  return layout ?? undefined;
}

export function jsonLayout(stored: string): JsonLayout | undefined {
  if (stored.charCodeAt(0) !== 0x7b) return undefined;
  let i = 1;
  let apiVersion: [number, number] | undefined;
  let sawKind = false;
  while (i < stored.length && stored.charCodeAt(i) !== 0x7d) {
    const k = readKey(stored, i);
    if (!k) return undefined;
    const [key, at] = k;
    if (key === 'metadata') {
      if (stored.charCodeAt(at) !== 0x7b) return undefined;
      const spans: MetaSpans = {};
      const spot = metaInsertion(stored, at, spans);
      if (spot === undefined) return undefined;
      // What follows metadata is copied as it is; it only has to close the object.
      if (stored.charCodeAt(stored.length - 1) !== 0x7d) return undefined;
      return { metaKey: i, apiVersion, insertAt: spot[0], insert: spot[1], spans, metadata: [at, spot[2]] };
    }
    const end = skipValue(stored, at);
    if (end < 0) return undefined;
    if (key === 'kind') {
      // inKubeOrder's order: kind, apiVersion, metadata.
      if (sawKind || apiVersion) return undefined;
      sawKind = true;
    } else if (key === 'apiVersion') {
      if (apiVersion || stored.charCodeAt(at) !== 0x22) return undefined;
      apiVersion = [at, end];
    } else {
      return undefined;
    }
    i = end;
    if (stored.charCodeAt(i) === 0x2c) i++;
  }
  return undefined;
}

/**
 * Reads metadata's object starting at start ('{'): where resourceVersion goes, the spans of name, namespace and
 * labels, and the index just past the object; undefined unless its keys are in inKubeOrder's order, without one.
 */
function metaInsertion(s: string, start: number, spans: MetaSpans): [number, JsonLayout['insert'], number] | undefined {
  let i = start + 1;
  let lastRank = -1;
  let insertAt = -1;
  if (s.charCodeAt(i) !== 0x7d) {
    for (;;) {
      const k = readKey(s, i);
      if (!k) return undefined;
      const [key, at] = k;
      const rank = Object.hasOwn(META_RANK, key) ? META_RANK[key] : UNKNOWN_RANK;
      if (rank === RV_RANK || rank < lastRank) return undefined;
      if (rank > RV_RANK && insertAt < 0) insertAt = i;
      lastRank = rank;
      const vEnd = skipValue(s, at);
      if (vEnd < 0) return undefined;
      if (key === 'name' || key === 'namespace' || key === 'labels') spans[key] = [at, vEnd];
      i = vEnd;
      const c = s.charCodeAt(i);
      if (c === 0x7d) break;
      if (c !== 0x2c) return undefined;
      i++;
    }
  }
  const end = i + 1;
  if (insertAt >= 0) return [insertAt, 'before', end];
  return [i, i === start + 1 ? 'empty' : 'end', end];
}

const MANAGED_FIELDS_KEY = ',"managedFields":[';

/**
 * Metadata's JSON text (canonical order, managedFields last) without managedFields, by a cut at its key. Outside
 * strings no other part of metadata has that key with a list value, and inside them its quotes would be escaped.
 */
export function withoutManagedFieldsJson(metadata: string): string {
  const at = metadata.lastIndexOf(MANAGED_FIELDS_KEY);
  return at > 0 && metadata.endsWith(']}') ? `${metadata.slice(0, at)}}` : metadata;
}

/** The text a response inserts at layout.insertAt: metadata.resourceVersion with the comma its place needs. */
export function resourceVersionPair(layout: JsonLayout, revision: number): string {
  const rv = `"resourceVersion":"${revision}"`;
  return layout.insert === 'before' ? `${rv},` : layout.insert === 'end' ? `,${rv}` : rv;
}

/** The response JSON of a stored object at `revision` from its layout: a few slices, no scanning. */
export function itemFromLayout(stored: string, layout: JsonLayout, revision: number, typeMeta: 'drop' | { apiVersion: string }): string | undefined {
  const pair = resourceVersionPair(layout, revision);
  const tail = `${pair}${stored.slice(layout.insertAt)}`;
  if (typeMeta === 'drop') return `{${stored.slice(layout.metaKey, layout.insertAt)}${tail}`;
  const av = layout.apiVersion;
  if (!av) return undefined;
  return `${stored.slice(0, av[0])}${JSON.stringify(typeMeta.apiVersion)}${stored.slice(av[1], layout.insertAt)}${tail}`;
}

/**
 * The response JSON of one stored object at `revision`: `typeMeta` 'drop' removes kind and apiVersion (built-in
 * list items), otherwise apiVersion becomes the given one. undefined when the stored text is not in the canonical
 * shape encodeForStorage writes (callers then decode).
 */
export function itemJson(stored: string, revision: number, typeMeta: 'drop' | { apiVersion: string }): string | undefined {
  const layout = jsonLayout(stored);
  return layout && itemFromLayout(stored, layout, revision, typeMeta);
}

const RAW_ITEMS = Symbol('capstan.rawListItems');
const STORED_ITEMS = Symbol('capstan.storedListItems');

/** The stored values a list's items decode from (lists built from stored JSON only), for encoders that memoize per value. */
export interface StoredListItems {
  readonly kvs: readonly KeyValue[];
  /** The item exactly as the list's `items` holds it. */
  decode(kv: KeyValue): KubeObject;
}

export function storedListItems(list: KubeList): StoredListItems | undefined {
  return (list as unknown as Record<symbol, StoredListItems | undefined>)[STORED_ITEMS];
}
/** A list's items as response bytes (each item's JSON, escaped as Go's encoder escapes), when built from stored JSON. */
export function rawItemsOf(list: KubeList): RawItems | undefined {
  return (list as unknown as Record<symbol, RawItems | undefined>)[RAW_ITEMS];
}

/** The items of rawItemsOf joined by commas, in one buffer. */
export function rawListItems(list: KubeList): Uint8Array | undefined {
  const items = rawItemsOf(list);
  if (!items) return undefined;
  const out = Buffer.allocUnsafe(items.length);
  copyItems(items, out, 0);
  return out;
}

/** A built-in kind's list item as a cache holds it: its JSON's bytes (no kind/apiVersion, Go's escaping). */
export interface HeldListItem {
  readonly json: Uint8Array;
}

/** What a cache may already know of a stored object: its layout, and for built-in kinds its list item. */
export interface StoredItemHint {
  readonly layout: JsonLayout | undefined;
  readonly item: HeldListItem | undefined;
}

/**
 * A list of stored objects: items decode on first access; the raw item bytes (for the same response shape
 * writeResult produces: built-in items without kind/apiVersion) are kept alongside.
 */
export function listFromStored(def: ResourceDefinition, kvs: readonly KeyValue[], metadata: ListMeta, hints?: readonly (StoredItemHint | undefined)[]): KubeList {
  if (convertsOnRead(def)) return eagerList(def, kvs, metadata);
  // A CRD's read defaults: the stored text serves unless they change an object.
  if (def.readDefaults && kvs.some((kv) => readDefaultsChange(kv, def))) return eagerList(def, kvs, metadata);
  // A definition that converts between versions (events, HPAs) serves stored text as it is only when every
  // object is stored in the version asked for.
  if (def.convert && !allStoredIn(kvs, hints, apiVersionOf(def))) return eagerList(def, kvs, metadata);
  const items = itemPieces(def, kvs, hints);
  if (items === undefined) return eagerList(def, kvs, metadata);
  let decoded: KubeObject[] | undefined;
  const list = { kind: def.listKind, apiVersion: apiVersionOf(def), metadata } as KubeList;
  Object.defineProperty(list, 'items', {
    enumerable: true,
    configurable: true,
    get: () => (decoded ??= kvs.map((kv) => servedObject(kv, def))),
    set: (v: KubeObject[]) => {
      decoded = v;
      // Items replaced: the stored values no longer describe them.
      delete (list as unknown as Record<symbol, unknown>)[STORED_ITEMS];
    },
  });
  Object.defineProperty(list, RAW_ITEMS, { value: items, enumerable: false });
  const stored: StoredListItems = { kvs, decode: (kv) => servedObject(kv, def) };
  Object.defineProperty(list, STORED_ITEMS, { value: stored, enumerable: false, configurable: true });
  return list;
}

function allStoredIn(kvs: readonly KeyValue[], hints: readonly (StoredItemHint | undefined)[] | undefined, apiVersion: string): boolean {
  const quoted = JSON.stringify(apiVersion);
  for (let i = 0; i < kvs.length; i++) {
    const value = kvs[i].value;
    const av = (hints?.[i]?.layout ?? jsonLayout(value))?.apiVersion;
    if (!av || value.slice(av[0], av[1]) !== quoted) return false;
  }
  return true;
}

/**
 * The items' response bytes: a cached item's bytes as they are, the others spliced from their stored text (runs of
 * them escaped and encoded together); undefined when a stored text is not in the canonical shape.
 */
function itemPieces(def: ResourceDefinition, kvs: readonly KeyValue[], hints: readonly (StoredItemHint | undefined)[] | undefined): RawItems | undefined {
  const typeMeta = def.custom ? { apiVersion: apiVersionOf(def) } : ('drop' as const);
  const pieces: Uint8Array[] = [];
  let spliced: string[] = [];
  const flush = () => {
    if (spliced.length === 0) return;
    pieces.push(Buffer.from(goEscape(spliced.join(',')), 'utf8'));
    spliced = [];
  };
  for (let i = 0; i < kvs.length; i++) {
    const hint = hints?.[i];
    // Cached items are those of a built-in kind (no kind/apiVersion).
    const item = def.custom ? undefined : hint?.item;
    if (item !== undefined) {
      flush();
      pieces.push(item.json);
      continue;
    }
    const kv = kvs[i];
    const layout = hint?.layout ?? jsonLayout(kv.value);
    const json = layout && itemFromLayout(kv.value, layout, kv.modRevision, typeMeta);
    if (json === undefined) return undefined;
    spliced.push(json);
  }
  flush();
  return rawItems(pieces);
}

function eagerList(def: ResourceDefinition, kvs: readonly KeyValue[], metadata: ListMeta): KubeList {
  return { kind: def.listKind, apiVersion: apiVersionOf(def), metadata, items: kvs.map((kv) => servedObject(kv, def)) };
}
