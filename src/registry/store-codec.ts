// How the generic store turns objects into stored JSON and back: the stored value carries no resourceVersion
// (the storage revision is the version). A definition with a storageVersion and convert (events, HPAs) stores
// objects in that version and converts on read; others keep the apiVersion an object was written in, and reads
// rewrite apiVersion only.

import type { KeyValue } from '../storage/types.ts';
import type { KubeObject, ResourceDefinition } from './types.ts';
import { cloneJson } from '../apis/json-clone.ts';
import { fillGoZeroValues } from './validation/go-zero-values.ts';

export function apiVersionOf(def: Pick<ResourceDefinition, 'group' | 'version'>): string {
  return def.group ? `${def.group}/${def.version}` : def.version;
}

/** What conversion needs of a definition. */
export type ConversionTarget = Pick<ResourceDefinition, 'group' | 'version'> & Partial<Pick<ResourceDefinition, 'storageVersion' | 'convert'>>;

/** What decoding a stored object for reading needs of a definition. */
export type ReadTarget = ConversionTarget & Partial<Pick<ResourceDefinition, 'readDefaults'>>;

/**
 * The stored form: no resourceVersion, no selfLink (kube's PrepareObjectForStorage), in the definition's
 * storageVersion when it has one.
 */
export function encodeForStorage(obj: KubeObject, def?: ConversionTarget): string {
  const stored = def?.storageVersion && def.convert && obj.apiVersion !== def.storageVersion ? def.convert(obj, def.storageVersion) : obj;
  const { resourceVersion: _rv, selfLink: _sl, ...meta } = stored.metadata ?? {};
  return JSON.stringify(inKubeOrder({ ...stored, metadata: meta }));
}

/** True when objects served by this definition are not stored in its own version (so reads must convert). */
export function convertsOnRead(def: ConversionTarget): boolean {
  return def.convert !== undefined && def.storageVersion !== undefined && def.storageVersion !== apiVersionOf(def);
}

/** Per stored value: the read defaults it was checked with, and whether they change it. */
const readDefaulting = new WeakMap<KeyValue, { readonly by: (obj: KubeObject) => void; readonly changes: boolean }>();

/**
 * Whether the definition's read defaults change this stored object, so that it cannot be served as stored text.
 * Checked once per stored value and defaults (a CRD's new generation brings new ones): most objects were written
 * with their defaults already.
 */
export function readDefaultsChange(kv: KeyValue, def: ReadTarget): boolean {
  const by = def.readDefaults;
  if (!by) return false;
  const known = readDefaulting.get(kv);
  if (known?.by === by) return known.changes;
  const stored = decodeFromStorage(kv);
  const defaulted = cloneJson(stored);
  by(defaulted);
  const changes = !jsonEqual(stored, defaulted);
  readDefaulting.set(kv, { by, changes });
  return changes;
}

/** ObjectMeta's fields in the order kube serializes them. */
const metaOrder = [
  'name',
  'generateName',
  'namespace',
  'selfLink',
  'uid',
  'resourceVersion',
  'generation',
  'creationTimestamp',
  'deletionTimestamp',
  'deletionGracePeriodSeconds',
  'labels',
  'annotations',
  'ownerReferences',
  'finalizers',
  'managedFields',
];

/** ObjectMeta's maps and lists: Go's omitempty leaves them out when empty. */
const META_COLLECTIONS = new Set(['labels', 'annotations', 'ownerReferences', 'finalizers', 'managedFields']);

function emptyCollection(v: unknown): boolean {
  if (Array.isArray(v)) return v.length === 0;
  if (v === null || typeof v !== 'object') return false;
  for (const _ in v) return false;
  return true;
}

/**
 * kind, apiVersion and metadata first, metadata's fields in kube's order (what raw JSON readers see), without the
 * empty maps and lists ObjectMeta's encoding leaves out (`finalizers: []` after the last one is removed).
 */
export function inKubeOrder(obj: KubeObject): KubeObject {
  const meta = (obj.metadata ?? {}) as Record<string, unknown>;
  const orderedMeta: Record<string, unknown> = {};
  for (const k of metaOrder) if (meta[k] !== undefined && !(META_COLLECTIONS.has(k) && emptyCollection(meta[k]))) orderedMeta[k] = meta[k];
  for (const k of Object.keys(meta)) if (!(k in orderedMeta) && meta[k] !== undefined && !META_COLLECTIONS.has(k)) orderedMeta[k] = meta[k];
  const { kind, apiVersion, metadata: _m, ...rest } = obj;
  const out: KubeObject = {} as KubeObject;
  if (kind !== undefined) out.kind = kind;
  if (apiVersion !== undefined) out.apiVersion = apiVersion;
  out.metadata = orderedMeta;
  return Object.assign(out, rest);
}

/** A fresh object from a stored kv, with resourceVersion = the revision given (default: the kv's last write). */
export function decodeFromStorage(kv: KeyValue, revision = kv.modRevision): KubeObject {
  const obj = JSON.parse(kv.value) as KubeObject;
  if (!obj.metadata || typeof obj.metadata !== 'object') obj.metadata = {};
  obj.metadata.resourceVersion = String(revision);
  return inKubeOrder(obj);
}

/** A stored object as reads see it, still in its stored version: decoded, with the definition's read defaults. */
export function decodeStored(kv: KeyValue, def: ReadTarget, revision = kv.modRevision): KubeObject {
  const obj = decodeFromStorage(kv, revision);
  def.readDefaults?.(obj);
  return obj;
}

/** A stored object as this definition's version serves it: decoded, defaulted for reading, converted. */
export function servedObject(kv: KeyValue, def: ReadTarget, revision = kv.modRevision): KubeObject {
  return convertToVersion(decodeStored(kv, def, revision), def);
}

/**
 * The object a write just stored, as reading kv back would give it, without parsing kv.value again: the stored form
 * has no resourceVersion or selfLink, and the revision becomes the resourceVersion. A definition stored in another
 * version reads back through its conversion.
 */
export function writtenObject(obj: KubeObject, kv: KeyValue, def: ReadTarget): KubeObject {
  if (convertsOnRead(def) || def.readDefaults) return servedObject(kv, def);
  const { selfLink: _selfLink, ...meta } = obj.metadata ?? {};
  const written = convertToVersion(inKubeOrder({ ...obj, metadata: { ...meta, resourceVersion: String(kv.modRevision) } }), def);
  // Served as stored but for apiVersion, as a get serves it (getStoredObject).
  if (!def.convert || obj.apiVersion === apiVersionOf(def)) storedForms.set(written, kv);
  return written;
}

/** Objects writtenObject answered with, by the stored value each decodes from (see storedFormOf). */
const storedForms = new WeakMap<KubeObject, KeyValue>();

/**
 * The stored value a write's answer is, apiVersion and resourceVersion aside: its response JSON can then be spliced
 * from the stored text, as a get's is, instead of encoding the object again. undefined for any other object.
 */
export function storedFormOf(obj: KubeObject): KeyValue | undefined {
  return storedForms.get(obj);
}

/**
 * The object as the given version serves it: through the definition's convert when it has one, else by
 * rewriting apiVersion (a shallow copy). The input is never changed.
 */
export function convertToVersion(obj: KubeObject, def: ConversionTarget): KubeObject {
  const apiVersion = apiVersionOf(def);
  if (obj.apiVersion === apiVersion) return obj;
  if (!def.convert) return { ...obj, apiVersion };
  // Written as kube writes the converted typed object.
  const converted = inKubeOrder(def.convert(obj, apiVersion));
  fillGoZeroValues(converted);
  return converted;
}

export function deepClone<T>(v: T): T {
  return cloneJson(v);
}

/** Deep equality of JSON values, key order ignored. */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== typeof b || a === null || b === null || typeof a !== 'object') return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!jsonEqual(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const ao = a as Record<string, unknown>;
  const bo = b as Record<string, unknown>;
  // Keys holding undefined count as absent (JSON drops them).
  let defined = 0;
  for (const k of Object.keys(ao)) {
    const v = ao[k];
    if (v === undefined) continue;
    defined++;
    if (!jsonEqual(v, Object.hasOwn(bo, k) ? bo[k] : undefined)) return false;
  }
  for (const k of Object.keys(bo)) if (bo[k] !== undefined) defined--;
  return defined === 0;
}

/** Same stored content: everything but apiVersion, resourceVersion and selfLink. */
export function sameStoredContent(a: KubeObject, b: KubeObject): boolean {
  const strip = (o: KubeObject) => {
    const { resourceVersion: _rv, selfLink: _sl, ...meta } = o.metadata ?? {};
    const { apiVersion: _av, ...rest } = o;
    return { ...rest, metadata: meta };
  };
  return jsonEqual(strip(a), strip(b));
}

/** True when anything outside apiVersion, kind, metadata and status differs (what bumps metadata.generation). */
export function specChanged(a: KubeObject, b: KubeObject): boolean {
  const strip = (o: KubeObject) => {
    const { apiVersion: _a, kind: _k, metadata: _m, status: _s, ...rest } = o;
    return rest;
  };
  return !jsonEqual(strip(a), strip(b));
}

let microSecond = -1;
let microPrefix = '';

/** metav1.MicroTime's JSON form: RFC 3339 with exactly six fractional digits, UTC. The text up to the second is
 * reused while the second lasts (events are made several times per request). */
export function microTime(epochMs: number): string {
  const second = Math.floor(epochMs / 1000);
  if (second !== microSecond) {
    microSecond = second;
    microPrefix = new Date(second * 1000).toISOString().slice(0, 19); // 2024-01-02T03:04:05
  }
  const micros = Math.min(999_999, Math.round((epochMs - second * 1000) * 1000));
  return `${microPrefix}.${String(micros).padStart(6, '0')}Z`;
}

/** RFC 3339 with second precision, as metav1.Time serializes. */
export function rfc3339(d: Date): string {
  const second = Math.floor(d.getTime() / 1000);
  if (second !== lastSecond) {
    lastSecond = second;
    lastText = d.toISOString().replace(/\.\d{3}Z$/, 'Z');
  }
  return lastText;
}
// Writes in the same second share the text (most of a burst of writes).
let lastSecond = Number.NaN;
let lastText = '';
