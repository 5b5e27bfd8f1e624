// Watch: served by the watch cache (kube's Cacher.Watch), with the straight storage watch kept for stores without a
// cache, a cache that is not ready, and WatchFromStorageWithoutResourceVersion. Both give kube's semantics: initial
// ADDED events for resourceVersion ""/"0" (or sendInitialEvents), selector transitions (stops matching -> DELETED
// with the old content, starts matching -> ADDED), an ERROR event with 410 Expired when the start revision is too
// old, BOOKMARK events when asked for. Decoded objects and events are shared by the watchers of one event.

import { clockNow } from '../apis/clock.ts';
import { isDNS1123Label } from '../apis/labels.ts';
import { requiresExactMatch } from '../apis/fields.ts';
import { StorageError, type KeyValue, type StorageEvent, type WatchHandle } from '../storage/types.ts';
import { CacheNotReadyError, CacheTooLargeError, CacheTooOldError, type CacheFilter, type CacheWatcherHandle, type CacheWatchEvent } from '../storage/cacher/types.ts';
import type { Status } from '../apis/errors.ts';
import { cacheFilter, type StoreAttrs, type StoreCacher } from './store-cache.ts';
import { heldMetadataJson } from './item-key-value.ts';
import { jsonLayout, withoutManagedFieldsJson } from './list-json.ts';
import { apiVersionOf, convertToVersion, decodeStored, servedObject, type ReadTarget } from './store-codec.ts';
import { rootFor, waitForRevision, type StoreCore } from './store-core.ts';
import { parseResourceVersion, tooLargeResourceVersion, watchTooOld } from './store-errors.ts';

const CACHE_READY_WAIT_MS = 3000;
import { buildPredicate, validateWatchOptions, type Predicate } from './store-selection.ts';
import type { KubeObject, ListOptions, RequestContext, ResourceDefinition, WatchEvent, WatchEventType, WatchStream } from './types.ts';

/** Per kv: the decoded object (with the revision it is shown at) and the events built from it, by type and version. */
interface Memo {
  objects: Map<number, KubeObject>;
  events: Map<string, WatchEvent>;
}
const memos = new WeakMap<KeyValue, Memo>();

function memoOf(kv: KeyValue): Memo {
  let m = memos.get(kv);
  if (!m) {
    m = { objects: new Map(), events: new Map() };
    memos.set(kv, m);
  }
  return m;
}

/**
 * The stored object of kv shown at `revision` (shared: watchers must not mutate event objects). Read defaults are
 * the CRD's, the same for every version of it that shares the memo.
 */
function decodedAt(kv: KeyValue, revision: number, def: ReadTarget): KubeObject {
  const m = memoOf(kv);
  let o = m.objects.get(revision);
  if (!o) {
    o = decodeStored(kv, def, revision);
    m.objects.set(revision, o);
  }
  return o;
}

function sharedEvent(kv: KeyValue, revision: number, type: WatchEventType, def: ResourceDefinition): WatchEvent {
  const m = memoOf(kv);
  const key = `${type} ${revision} ${apiVersionOf(def)}`;
  let ev = m.events.get(key);
  if (!ev) {
    ev = { type, object: convertToVersion(decodedAt(kv, revision, def), def) };
    m.events.set(key, ev);
  }
  return ev;
}

/** The watch event one storage event is for a watcher with this predicate, if any. */
export function translateEvent(ev: StorageEvent, pred: Predicate, def: ResourceDefinition): WatchEvent | undefined {
  const rev = ev.kv.modRevision;
  if (ev.type === 'delete') {
    const last = ev.prevKv ?? ev.kv;
    return pred.matches(decodedAt(last, rev, def)) ? sharedEvent(last, rev, 'DELETED', def) : undefined;
  }
  const nowMatches = pred.matches(decodedAt(ev.kv, rev, def));
  if (!ev.prevKv) return nowMatches ? sharedEvent(ev.kv, rev, 'ADDED', def) : undefined;
  const wasMatching = pred.empty || pred.matches(decodedAt(ev.prevKv, ev.prevKv.modRevision, def));
  if (nowMatches) return sharedEvent(ev.kv, rev, wasMatching ? 'MODIFIED' : 'ADDED', def);
  // Stopped matching: DELETED carrying the previous content at this event's revision.
  return wasMatching ? sharedEvent(ev.prevKv, rev, 'DELETED', def) : undefined;
}

function watchRoot(core: StoreCore, ctx: RequestContext, pred: Predicate): string {
  let namespace = core.namespaced ? ctx.namespace : '';
  if (core.namespaced && !namespace) {
    const pinned = requiresExactMatch(pred.field, 'metadata.namespace');
    if (pinned && isDNS1123Label(pinned).length === 0) namespace = pinned;
  }
  return rootFor(core, namespace);
}

export async function openWatch(core: StoreCore, def: ResourceDefinition, ctx: RequestContext, options: ListOptions): Promise<WatchStream> {
  const pred = buildPredicate(def, options);
  const gates = core.options.featureGates ?? {};
  validateWatchOptions(options, gates.WatchList === true);
  const root = watchRoot(core, ctx, pred);
  const rvText = options.resourceVersion ?? '';
  // The cacher parses first: a malformed resourceVersion is a plain (500) error.
  const rv = parseResourceVersion(rvText);
  // Without WatchList, sendInitialEvents is dropped (validation has refused it already).
  const sendInitialEvents = gates.WatchList === true ? options.sendInitialEvents : undefined;
  const cache = core.cache;
  const fromStorage = !cache || (gates.WatchFromStorageWithoutResourceVersion === true && sendInitialEvents === undefined && rvText === '');
  if (fromStorage || !(cache.ready() || (await cache.waitReady(CACHE_READY_WAIT_MS, ctx.signal)))) {
    return openStorageWatch(core, def, ctx, options, pred, root, rv);
  }

  let start: 'state' | number;
  if (sendInitialEvents === true) {
    // The state not older than rv ("": storage's current revision), then one initial-events-end bookmark.
    const required = rvText === '' ? await core.storage.currentRevision() : rv;
    try {
      if (required > 0) await cache.waitFresh(required, core.options.futureRevisionWaitMs ?? 3000, ctx.signal);
    } catch (e) {
      if (e instanceof CacheTooLargeError) return errorStream(tooLargeResourceVersion(required, e.current).toStatus());
      if (e instanceof CacheNotReadyError) return openStorageWatch(core, def, ctx, options, pred, root, rv);
      throw e;
    }
    start = 'state';
  } else if (sendInitialEvents === false) {
    // Changes only: after storage's current revision (""), the cache's ("0"), or rv.
    start = rvText === '' ? await core.storage.currentRevision() : rv === 0 ? cache.revision() : rv;
  } else {
    // Legacy: ""/"0" start with the cache's current state.
    start = rv === 0 ? 'state' : rv;
  }
  return cacheStream(cache, def, ctx, {
    root,
    filter: cacheFilter(pred, options),
    start,
    initialEventsEnd: sendInitialEvents === true && options.allowWatchBookmarks === true,
    bookmarks: options.allowWatchBookmarks === true,
    deadline: options.timeoutSeconds && options.timeoutSeconds > 0 ? clockNow() + options.timeoutSeconds * 1000 : undefined,
  });
}

/** A stream of one ERROR event (kube's errWatcher). */
function errorStream(status: Status): WatchStream {
  let stopped = false;
  return {
    start(onEvent, onEnd) {
      if (stopped) return;
      onEvent({ type: 'ERROR', object: status });
      if (!stopped) onEnd();
    },
    stop() {
      stopped = true;
    },
  };
}

interface CacheWatchPlan {
  readonly root: string;
  readonly filter: CacheFilter<StoreAttrs> | undefined;
  readonly start: 'state' | number;
  readonly initialEventsEnd: boolean;
  readonly bookmarks: boolean;
  readonly deadline: number | undefined;
}

function bookmarkEvent(def: ResourceDefinition, revision: number, initialEventsEnd: boolean): WatchEvent {
  const metadata: KubeObject['metadata'] = { resourceVersion: String(revision) };
  if (initialEventsEnd) metadata.annotations = { 'k8s.io/initial-events-end': 'true' };
  return { type: 'BOOKMARK', object: { kind: def.kind, apiVersion: apiVersionOf(def), metadata } };
}

/**
 * ADDED events of objects at their own revision (a watch's snapshot of the cache, and replays) have no dispatched
 * event shared by their watchers: they are shared here, per cached object and definition, so watchers starting
 * together decode and encode each object once (500 watchers of a 1 MiB object hold one copy, not 500). Kept for one
 * to two sweep periods after last use.
 */
const INITIAL_EVENT_SWEEP_MS = 30_000;
let recentInitial = new WeakMap<object, Map<ResourceDefinition, WatchEvent>>();
let olderInitial = new WeakMap<object, Map<ResourceDefinition, WatchEvent>>();
let sweeper: NodeJS.Timeout | undefined;

function initialEvents(cached: object): Map<ResourceDefinition, WatchEvent> {
  if (!sweeper) {
    sweeper = setInterval(() => {
      olderInitial = recentInitial;
      recentInitial = new WeakMap();
    }, INITIAL_EVENT_SWEEP_MS);
    sweeper.unref();
  }
  let byDef = recentInitial.get(cached);
  if (!byDef) {
    byDef = olderInitial.get(cached) ?? new Map();
    recentInitial.set(cached, byDef);
  }
  return byDef;
}

/**
 * The watch event of one cache event for this version: shared through the memo of the dispatched event (keyed by
 * definition), so it is decoded and encoded once for all its watchers, queued ones too.
 */
function cacheWatchEvent(def: ResourceDefinition, ev: CacheWatchEvent<StoreAttrs>): WatchEvent {
  if (ev.type === 'BOOKMARK') return bookmarkEvent(def, ev.revision, ev.initialEventsEnd);
  const memo = ev.source ? (ev.memo ??= new Map()) : undefined;
  let we = memo?.get(def) as WatchEvent | undefined;
  if (we) return we;
  const initial = ev.type === 'ADDED' && ev.revision === ev.object.kv.modRevision ? initialEvents(ev.object) : undefined;
  we = initial?.get(def);
  if (!we) {
    we = { type: ev.type, object: servedObject(ev.object.kv, def, ev.revision) };
    initial?.set(def, we);
  }
  memo?.set(def, we);
  return we;
}

/**
 * The watch event of one cache event with only kind, apiVersion and metadata (for in-process watchers that read
 * nothing else): metadata is parsed out of the stored text, the rest of the object never is, nor managedFields.
 */
function metadataWatchEvent(def: ResourceDefinition, ev: CacheWatchEvent<StoreAttrs>): WatchEvent {
  if (ev.type === 'BOOKMARK') return bookmarkEvent(def, ev.revision, ev.initialEventsEnd);
  let text = heldMetadataJson(ev.object.kv);
  if (text === undefined) {
    // Read once: a cached object's value may be derived on each read (item-key-value.ts).
    const value = ev.object.kv.value;
    const layout = ev.object.attrs.layout ?? jsonLayout(value);
    if (!layout) return cacheWatchEvent(def, ev);
    text = value.slice(layout.metadata[0], layout.metadata[1]);
  }
  const metadata = JSON.parse(withoutManagedFieldsJson(text)) as KubeObject['metadata'];
  metadata.resourceVersion = String(ev.revision);
  return { type: ev.type, object: { kind: def.kind, apiVersion: apiVersionOf(def), metadata } };
}

/** The watch event of one cache event, its object decoded (through cacheWatchEvent) only when read. */
function lazyWatchEvent(def: ResourceDefinition, ev: CacheWatchEvent<StoreAttrs>): WatchEvent {
  if (ev.type === 'BOOKMARK' || !ev.object.attrs.name) return cacheWatchEvent(def, ev);
  let decoded: WatchEvent | undefined;
  const { name, namespace } = ev.object.attrs;
  return {
    type: ev.type,
    peek: { namespace, name, revision: ev.revision },
    get object() {
      return (decoded ??= cacheWatchEvent(def, ev)).object;
    },
  };
}

function cacheStream(cache: StoreCacher, def: ResourceDefinition, ctx: RequestContext, plan: CacheWatchPlan): WatchStream {
  let handle: CacheWatcherHandle | undefined;
  let stopped = false;
  let ended = false;
  const stop = () => {
    stopped = true;
    handle?.stop();
    handle = undefined;
    ctx.signal?.removeEventListener('abort', stop);
  };
  return {
    start(onEvent, onEnd) {
      if (stopped) return;
      if (ctx.signal?.aborted) return stop();
      ctx.signal?.addEventListener('abort', stop, { once: true });
      const end = () => {
        if (ended || stopped) return;
        ended = true;
        handle = undefined;
        ctx.signal?.removeEventListener('abort', stop);
        onEnd();
      };
      try {
        handle = cache.watch({
          prefix: plan.root,
          filter: plan.filter,
          start: plan.start,
          initialEventsEnd: plan.initialEventsEnd,
          bookmarks: plan.bookmarks,
          deadline: plan.deadline,
          onEvent: (ev) => (stopped || ended ? false : onEvent(ctx.metadataOnly ? metadataWatchEvent(def, ev) : ctx.lazyObjects ? lazyWatchEvent(def, ev) : cacheWatchEvent(def, ev))),
          // Dropped as too slow, or the cache reset: the stream ends and the client watches again. After a restore
          // of the test controls the client learns its revision is gone at once (as a re-watch would tell it).
          onEnd: (_reason, expired) => {
            if (expired && !stopped && !ended) onEvent({ type: 'ERROR', object: watchTooOld(expired.requested, expired.compacted).toStatus() });
            end();
          },
        });
      } catch (e) {
        if (e instanceof CacheTooOldError) {
          onEvent({ type: 'ERROR', object: watchTooOld(e.requested, e.oldest).toStatus() });
          end();
          return;
        }
        if (e instanceof CacheNotReadyError) return end();
        throw e;
      }
    },
    stop,
    resume() {
      handle?.resume();
    },
  };
}

async function openStorageWatch(core: StoreCore, def: ResourceDefinition, ctx: RequestContext, options: ListOptions, pred: Predicate, root: string, rv: number): Promise<WatchStream> {
  const sendInitialEvents = options.sendInitialEvents === true;

  // resourceVersion ""/"0" (or sendInitialEvents): the current state as ADDED events, then changes after it.
  const initial: WatchEvent[] = [];
  let from = rv;
  if (rv === 0 || sendInitialEvents) {
    if (rv > 0) await waitForRevision(core, rv, ctx.signal);
    const snapshot = await core.storage.range(root);
    from = snapshot.revision;
    for (const kv of snapshot.kvs) {
      if (pred.matches(decodedAt(kv, kv.modRevision, def))) initial.push(sharedEvent(kv, kv.modRevision, 'ADDED', def));
    }
    if (sendInitialEvents && options.allowWatchBookmarks === true) initial.push(bookmarkEvent(def, from, true));
  }

  let handle: WatchHandle | undefined;
  let stopped = false;
  const stop = () => {
    stopped = true;
    handle?.stop();
  };
  return {
    start(onEvent, onEnd) {
      let ended = false;
      const end = (err?: Error) => {
        if (ended) return;
        ended = true;
        handle?.stop();
        onEnd(err);
      };
      for (const ev of initial) {
        if (stopped) return;
        onEvent(ev);
      }
      if (stopped) return;
      if (ctx.signal) {
        if (ctx.signal.aborted) return stop();
        ctx.signal.addEventListener('abort', stop, { once: true });
      }
      handle = core.storage.watch(root, from, {
        onEvents(events) {
          for (const ev of events) {
            if (stopped || ended) return;
            const we = translateEvent(ev, pred, def);
            if (we) onEvent(we);
          }
        },
        onError(err: StorageError) {
          if (stopped) return;
          if (err.code === 'Compacted') {
            onEvent({ type: 'ERROR', object: watchTooOld(from, err.revision || core.storage.compactedRevision()).toStatus() });
            end();
            return;
          }
          end(err);
        },
      });
    },
    stop,
  };
}
