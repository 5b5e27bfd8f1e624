// The generic store's watch cache: one kind-agnostic cacher per group/resource, handed the attribute function
// (labels and selectable fields of a stored object) and the selection filter built from a request's predicate.

import { fieldsMatch } from '../apis/fields.ts';
import { labelsMatch } from '../apis/labels.ts';
import { createCacher } from '../storage/cacher/cacher.ts';
import type { CacheFilter, Cacher } from '../storage/cacher/types.ts';
import type { KeyValue, Storage } from '../storage/types.ts';
import { namespacePrefix } from '../storage/keys.ts';
import { itemAtRevision, itemKeyValue, type ItemKeyValue } from './item-key-value.ts';
import { layoutOf, type JsonLayout } from './list-json.ts';
import type { Predicate } from './store-selection.ts';
import type { KubeObject, ListOptions, ResourceDefinition, Strategy } from './types.ts';

/** What selection needs of a cached object: its labels and field values. The stored JSON is kept by the cacher. */
export interface StoreAttrs {
  readonly labels: Readonly<Record<string, string>> | undefined;
  readonly name: string;
  readonly namespace: string;
  /** Selectable fields beyond name and namespace; undefined when the kind has none. */
  readonly fields: Readonly<Record<string, string | undefined>> | undefined;
  /** Where the stored JSON takes metadata.resourceVersion, so lists splice instead of re-encoding (when no item). */
  readonly layout: JsonLayout | undefined;
  /**
   * Built-in kinds: the object held as its list item text (lists from the cache are then a concatenation), which is
   * also the KeyValue the cache holds: the stored value is read back from it.
   */
  readonly item: ItemKeyValue | undefined;
  /** Values the object holds uniquely (Strategy.heldValues, e.g. a Service's cluster IPs), indexed by the cache. */
  readonly held: readonly (string | number)[] | undefined;
}

export type StoreCacher = Cacher<StoreAttrs>;

export interface WatchCacheOptions {
  /** Seconds of events the cache keeps for watches (--history-window; default 300). */
  readonly historyWindowSeconds?: number;
  /** Periodic bookmark interval (default 60 s, as kube). */
  readonly bookmarkIntervalMs?: number;
  /** Events a slow watcher may have queued before it is dropped (default 10 000). */
  readonly maxQueuedEvents?: number;
}

const NOTHING: StoreAttrs = { labels: undefined, name: '', namespace: '', fields: undefined, layout: undefined, item: undefined, held: undefined };

type AttrsSource = Pick<ResourceDefinition, 'selectableFields' | 'custom' | 'readDefaults'> & { readonly strategy?: Pick<Strategy, 'heldValues'> };

/** The selectable fields of an object (beyond name and namespace), read as reads serve it. */
function selectableFieldsOf(def: AttrsSource, extra: readonly string[], obj: KubeObject): Record<string, string | undefined> {
  // A CRD's read defaults apply before its fields are read.
  if (def.readDefaults && obj && typeof obj === 'object') def.readDefaults(obj);
  const fields: Record<string, string | undefined> = {};
  for (const f of extra) {
    try {
      fields[f] = def.selectableFields[f](obj);
    } catch {
      fields[f] = undefined;
    }
  }
  return fields;
}

export function storeAttributes(def: AttrsSource): (kv: KeyValue) => StoreAttrs {
  const extra = Object.keys(def.selectableFields);
  const heldValues = def.strategy?.heldValues;
  // Without held values, the attributes come from metadata's spans; selectable fields are parsed out of the object
  // when a field selector first asks for them (most objects are never selected by one: a Pod's parse was a fifth of
  // its create).
  const fromSpans = !heldValues;
  const fields = extra.length > 0 ? (obj: KubeObject) => selectableFieldsOf(def, extra, obj) : undefined;
  return (kv) => {
    const layout = layoutOf(kv);
    if (fromSpans && layout) return attrsFromLayout(def, kv, layout, fields);
    let obj: KubeObject;
    try {
      obj = JSON.parse(kv.value) as KubeObject;
    } catch {
      return NOTHING;
    }
    const meta = obj && typeof obj.metadata === 'object' && obj.metadata !== null ? obj.metadata : {};
    // Custom resources are served in the requested version's apiVersion: their items are spliced per list.
    const item = layout && !def.custom ? itemKeyValue(kv, layout) : undefined;
    const attrs: StoreAttrs = {
      labels: labelsOf(meta.labels),
      name: typeof meta.name === 'string' ? meta.name : '',
      namespace: typeof meta.namespace === 'string' ? meta.namespace : '',
      fields: fields?.(obj),
      layout: item ? undefined : layout,
      item,
      held: heldValues?.(obj),
    };
    return attrs;
  };
}

function labelsOf(labels: unknown): Record<string, string> | undefined {
  return labels && typeof labels === 'object' && Object.keys(labels).length > 0 ? (labels as Record<string, string>) : undefined;
}

type FieldReader = (obj: KubeObject) => Record<string, string | undefined>;

/** A kind's selectable fields of one object: read from `source` on first use (value null until then). */
interface LazyFields {
  readonly source: KeyValue;
  readonly read: FieldReader;
  value: Readonly<Record<string, string | undefined>> | undefined | null;
}

/**
 * Attributes read from metadata's spans in the stored text; the selectable fields, if the kind has any, are parsed
 * from the object on first use and kept. The object is read back from what the cache holds (the item, or the kv).
 * The lazily read fields take the slot the fields had: an object only for kinds with selectable fields.
 */
class SpanAttrs implements StoreAttrs {
  readonly labels: Readonly<Record<string, string>> | undefined;
  readonly name: string;
  readonly namespace: string;
  readonly layout: JsonLayout | undefined;
  readonly item: ItemKeyValue | undefined;
  readonly held = undefined;
  readonly #lazy: LazyFields | undefined;

  constructor(meta: Pick<StoreAttrs, 'labels' | 'name' | 'namespace'>, layout: JsonLayout | undefined, item: ItemKeyValue | undefined, lazy: LazyFields | undefined) {
    this.labels = meta.labels;
    this.name = meta.name;
    this.namespace = meta.namespace;
    this.layout = layout;
    this.item = item;
    this.#lazy = lazy;
  }

  get fields(): Readonly<Record<string, string | undefined>> | undefined {
    const lazy = this.#lazy;
    if (lazy === undefined) return undefined;
    if (lazy.value === null) {
      let obj: KubeObject | undefined;
      try {
        obj = JSON.parse(lazy.source.value) as KubeObject;
      } catch {
        obj = undefined;
      }
      lazy.value = obj === undefined ? undefined : lazy.read(obj);
    }
    return lazy.value;
  }

  /** The same attributes held with the item of the same value at another revision. */
  rebased(item: ItemKeyValue): SpanAttrs {
    const lazy = this.#lazy;
    return new SpanAttrs(this, undefined, item, lazy && { source: item, read: lazy.read, value: lazy.value });
  }
}

function attrsFromLayout(def: AttrsSource, kv: KeyValue, layout: JsonLayout, readFields: FieldReader | undefined): StoreAttrs {
  const text = kv.value;
  const { name, namespace, labels } = layout.spans;
  const str = (span: readonly [number, number] | undefined): string => {
    if (!span) return '';
    const v = JSON.parse(text.slice(span[0], span[1])) as unknown;
    return typeof v === 'string' ? v : '';
  };
  const item = def.custom ? undefined : itemKeyValue(kv, layout);
  const labelSet = labels ? labelsOf(JSON.parse(text.slice(labels[0], labels[1]))) : undefined;
  // What the cache holds is the source: the item for built-in kinds, else the kv itself.
  const lazy = readFields && { source: item ?? kv, read: readFields, value: null };
  return new SpanAttrs({ labels: labelSet, name: str(name), namespace: str(namespace) }, item ? undefined : layout, item, lazy);
}

/**
 * Attributes of an unchanged stored value at a new revision: only the held item carries the revision (in its
 * metadata.resourceVersion), so it is the old one with that value replaced.
 */
export function rebaseStoreAttributes(def: AttrsSource): (previous: StoreAttrs, kv: KeyValue) => StoreAttrs {
  return (previous, kv) => {
    if (previous.item === undefined) return previous;
    const item = itemAtRevision(previous.item, kv);
    return previous instanceof SpanAttrs ? previous.rebased(item) : { ...previous, item };
  };
}

/** The cache filter of a predicate; undefined when it selects everything. */
export function cacheFilter(pred: Predicate, options: Pick<ListOptions, 'labelSelector' | 'fieldSelector'>): CacheFilter<StoreAttrs> | undefined {
  if (pred.empty) return undefined;
  return {
    key: `${options.labelSelector ?? ''}\u0000${options.fieldSelector ?? ''}`,
    labelTerms: pred.label.requirements.flatMap((r) => (r.operator === '=' || r.operator === '==' || (r.operator === 'in' && r.values.length === 1) ? [[r.key, r.values[0]!] as const] : [])),
    matches: (o) =>
      labelsMatch(pred.label, o.attrs.labels) &&
      fieldsMatch(pred.field, (f) => (f === 'metadata.name' ? o.attrs.name : f === 'metadata.namespace' ? o.attrs.namespace : o.attrs.fields?.[f])),
  };
}

export function createStoreCacher(storage: Storage, prefix: string, def: ResourceDefinition, options: WatchCacheOptions): StoreCacher {
  return createCacher({
    storage,
    prefix: namespacePrefix(prefix, ''),
    attributes: storeAttributes(def),
    held: (kv, attrs) => attrs.item ?? kv,
    rebase: rebaseStoreAttributes(def),
    indexed: def.strategy.heldValues ? (attrs) => attrs.held : undefined,
    labels: (attrs) => attrs.labels,
    // 0 ("keep all", as storage reads it): bounded by the ring's size cap only.
    historyWindowMs: options.historyWindowSeconds === 0 ? Number.POSITIVE_INFINITY : (options.historyWindowSeconds ?? 300) * 1000,
    bookmarkIntervalMs: options.bookmarkIntervalMs,
    maxQueuedEvents: options.maxQueuedEvents,
    onError: (err) => process.emitWarning(`watch cache of ${prefix} failed, re-initializing: ${err instanceof Error ? err.message : String(err)}`),
  });
}
