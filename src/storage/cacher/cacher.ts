// The watch cache of one resource (kube's Cacher + watchCache): the current objects under a key prefix and a ring
// of recent events, fed by one storage watch from the revision of its initial range. It serves every watch and the
// lists and gets that may be answered from memory, and dispatches each change once to all its watchers.
//
// Freshness: the cache's revision is the newest event it applied, or the newest revision storage confirmed through
// a progress notification (WatchHandle.requestProgress), so a consistent read can wait until the cache has caught
// up with storage's current revision even when the last writes went to other resources.

import { clockNow } from '../../apis/clock.ts';
import { SortedKeys } from '../memory/sorted-keys.ts';
import { prefixEnd } from '../key-range.ts';
import { StorageError, type KeyValue, type StorageEvent, type WatchHandle } from '../types.ts';
import { createRing } from './ring.ts';
import { noteWatcherClosed, noteWatcherOpened, registerCacher, unregisterCacher } from './stats.ts';
import {
  CacheNotReadyError,
  CacheTooLargeError,
  CacheTooOldError,
  type CachedObject,
  type CacheEvent,
  type CacheFilter,
  type Cacher,
  type CacherOptions,
  type CacheWatchEvent,
  type CacheWatchRequest,
} from './types.ts';
import { createCacheWatcher, type CacheWatcher } from './watcher.ts';

const DEFAULT_WINDOW_MS = 300_000;
const DEFAULT_MAX_EVENTS = 100_000;
const DEFAULT_BOOKMARK_MS = 60_000;
const DEFAULT_MAX_QUEUED = 10_000;
/** Initial-range page size (kube's cacher lists storage in pages of 10000). */
const INIT_PAGE = 10_000;
/** kube sends the last bookmark this long before a watch's deadline. */
const PRE_DEADLINE_BOOKMARK_MS = 2_000;

interface FreshWaiter {
  readonly revision: number;
  resolve(): void;
  reject(err: Error): void;
}

/** The dispatch of one event: its translations are shared by every watcher (one object, with one memo, per outcome). */
interface Outcomes<A> {
  added?: CacheWatchEvent<A>;
  modified?: CacheWatchEvent<A>;
  deleted?: CacheWatchEvent<A>;
  deletedPrev?: CacheWatchEvent<A>;
  matches?: Map<string, boolean>;
}

function matchesMemo<A>(filter: CacheFilter<A>, obj: CachedObject<A>, memo: Outcomes<A>, which: 'c' | 'p'): boolean {
  const key = which + filter.key;
  const m = (memo.matches ??= new Map());
  let r = m.get(key);
  if (r === undefined) {
    r = safeMatch(filter, obj);
    m.set(key, r);
  }
  return r;
}

function safeMatch<A>(filter: CacheFilter<A>, obj: CachedObject<A>): boolean {
  try {
    return filter.matches(obj);
  } catch {
    return false;
  }
}

/** kube's watch-cache event translation for one watcher: selector transitions become ADDED/DELETED. */
function translate<A>(ev: CacheEvent<A>, filter: CacheFilter<A> | undefined, memo: Outcomes<A>): CacheWatchEvent<A> | undefined {
  if (ev.type === 'delete') {
    if (filter && !matchesMemo(filter, ev.object, memo, 'c')) return undefined;
    return (memo.deleted ??= { type: 'DELETED', object: ev.object, revision: ev.revision, source: ev });
  }
  const now = filter === undefined || matchesMemo(filter, ev.object, memo, 'c');
  const before = ev.prev !== undefined && (filter === undefined || matchesMemo(filter, ev.prev, memo, 'p'));
  if (now && before) return (memo.modified ??= { type: 'MODIFIED', object: ev.object, revision: ev.revision, source: ev });
  if (now) return (memo.added ??= { type: 'ADDED', object: ev.object, revision: ev.revision, source: ev });
  if (before) return (memo.deletedPrev ??= { type: 'DELETED', object: ev.prev!, revision: ev.revision, source: ev });
  return undefined;
}

export function createCacher<A>(options: CacherOptions<A>): Cacher<A> {
  const { storage, prefix } = options;
  const now = options.now ?? clockNow;
  const windowMs = options.historyWindowMs ?? DEFAULT_WINDOW_MS;
  const bookmarkMs = Math.max(1, options.bookmarkIntervalMs ?? DEFAULT_BOOKMARK_MS);
  const maxQueued = options.maxQueuedEvents ?? DEFAULT_MAX_QUEUED;
  const ring = createRing<CacheEvent<A>>(windowMs, options.maxEvents ?? DEFAULT_MAX_EVENTS);

  let objects = new Map<string, CachedObject<A>>();
  let keys = new SortedKeys();
  let listRevision = 0;
  let removedSinceList = false;
  let lastEventRevision = 0;
  let revision = 0;
  let isReady = false;
  let stopped = false;
  let handle: WatchHandle | undefined;
  let generation = 0;
  let retryDelay = 50;
  let retryTimer: NodeJS.Timeout | undefined;

  const watchers = new Set<CacheWatcher<A>>();
  const bookmarkWatchers = new Set<CacheWatcher<A>>();
  let bookmarkTimer: NodeJS.Timeout | undefined;
  let freshWaiters: FreshWaiter[] = [];
  let readyWaiters: Array<(ok: boolean) => void> = [];

  // ---- the value index (CacherOptions.indexed), changed together with `objects` ----

  const indexed = options.indexed;
  let index = new Map<string | number, Set<string>>();

  function indexAdd(into: Map<string | number, Set<string>>, key: string, obj: CachedObject<A>): void {
    for (const v of indexed?.(obj.attrs) ?? []) {
      let holders = into.get(v);
      if (holders === undefined) into.set(v, (holders = new Set()));
      holders.add(key);
    }
  }

  function indexRemove(key: string, obj: CachedObject<A>): void {
    for (const v of indexed?.(obj.attrs) ?? []) {
      const holders = index.get(v);
      if (holders === undefined) continue;
      holders.delete(key);
      if (holders.size === 0) index.delete(v);
    }
  }

  // ---- the label index (CacherOptions.labels): label key -> value -> object keys, for the keys lists asked for ----

  const labelsOf = options.labels;
  let labelIndex = new Map<string, Map<string, Set<string>>>();

  function labelIndexFor(labelKey: string): Map<string, Set<string>> {
    let byValue = labelIndex.get(labelKey);
    if (byValue === undefined) {
      byValue = new Map();
      for (const [key, obj] of objects) labelAdd(byValue, labelKey, key, obj);
      labelIndex.set(labelKey, byValue);
    }
    return byValue;
  }

  function labelAdd(byValue: Map<string, Set<string>>, labelKey: string, key: string, obj: CachedObject<A>): void {
    const value = labelsOf?.(obj.attrs)?.[labelKey];
    if (value === undefined) return;
    let keys = byValue.get(value);
    if (keys === undefined) byValue.set(value, (keys = new Set()));
    keys.add(key);
  }

  function labelsChanged(key: string, prev: CachedObject<A> | undefined, next: CachedObject<A> | undefined): void {
    for (const [labelKey, byValue] of labelIndex) {
      const before = prev && labelsOf!(prev.attrs)?.[labelKey];
      const after = next && labelsOf!(next.attrs)?.[labelKey];
      if (before === after) continue;
      if (before !== undefined) {
        const keys = byValue.get(before);
        keys?.delete(key);
        if (keys?.size === 0) byValue.delete(before);
      }
      if (after !== undefined && next) labelAdd(byValue, labelKey, key, next);
    }
  }

  /** The keys under prefix that can match the filter, ascending, when its label terms narrow them; else undefined. */
  function labelCandidates(under: string, filter: CacheFilter<A> | undefined): string[] | undefined {
    const terms = filter?.labelTerms;
    if (!labelsOf || !terms || terms.length === 0) return undefined;
    let smallest: Set<string> | undefined;
    for (const [labelKey, value] of terms) {
      const keys = labelIndexFor(labelKey).get(value);
      if (keys === undefined) return [];
      if (smallest === undefined || keys.size < smallest.size) smallest = keys;
    }
    const out: string[] = [];
    for (const key of smallest!) if (key.startsWith(under)) out.push(key);
    return out.sort();
  }

  function attrsOf(kv: KeyValue): A {
    return options.attributes(kv);
  }

  function holding(kv: KeyValue, attrs: A): CachedObject<A> {
    return { kv: options.held ? options.held(kv, attrs) : kv, attrs };
  }

  function cached(kv: KeyValue): CachedObject<A> {
    return holding(kv, attrsOf(kv));
  }

  /** A relisted object: an unchanged stored value keeps (or rebases) the attributes computed before. */
  function relisted(kv: KeyValue, old: CachedObject<A> | undefined): CachedObject<A> {
    if (old === undefined || old.kv.value !== kv.value) return cached(kv);
    if (old.kv.modRevision === kv.modRevision && old.kv.createRevision === kv.createRevision) return old;
    return holding(kv, options.rebase ? options.rebase(old.attrs, kv) : attrsOf(kv));
  }

  // ---- freshness ----

  function advance(rev: number): void {
    if (rev <= revision) return;
    revision = rev;
    if (freshWaiters.length === 0) return;
    const still: FreshWaiter[] = [];
    for (const w of freshWaiters) {
      if (w.revision <= revision) w.resolve();
      else still.push(w);
    }
    freshWaiters = still;
  }

  function requestProgress(): void {
    try {
      handle?.requestProgress?.();
    } catch {
      // a backend without progress support: waiters time out and callers fall back
    }
  }

  // ---- applying storage events ----

  function apply(events: StorageEvent[]): void {
    const time = now();
    for (const se of events) {
      const rev = se.kv.modRevision;
      if (rev <= lastEventRevision) continue;
      lastEventRevision = rev;
      const key = se.kv.key;
      const prev = objects.get(key);
      let ev: CacheEvent<A>;
      if (se.type === 'put') {
        const obj = cached(se.kv);
        objects.set(key, obj);
        if (indexed) {
          if (prev !== undefined) indexRemove(key, prev);
          indexAdd(index, key, obj);
        }
        if (labelIndex.size > 0) labelsChanged(key, prev, obj);
        if (prev === undefined) keys.add(key);
        ev = { type: 'put', revision: rev, object: obj, prev: prev ?? (se.prevKv ? cached(se.prevKv) : undefined), time };
      } else {
        const last = prev ?? cached(se.prevKv ?? se.kv);
        if (prev !== undefined) {
          objects.delete(key);
          keys.delete(key);
          if (indexed) indexRemove(key, prev);
          if (labelIndex.size > 0) labelsChanged(key, prev, undefined);
        }
        ev = { type: 'delete', revision: rev, object: last, prev: undefined, time };
      }
      ring.push(ev);
      advance(rev);
      dispatch(ev);
    }
    if (ring.evict(time) > 0) removedSinceList = true;
  }

  function dispatch(ev: CacheEvent<A>): void {
    if (watchers.size === 0) return;
    const key = ev.object.kv.key;
    const memo: Outcomes<A> = {};
    for (const w of watchers) {
      if (!key.startsWith(w.prefix)) continue;
      const out = translate(ev, w.filter, memo);
      if (out !== undefined) w.offer(out);
    }
  }

  // ---- lifecycle ----

  function endAll(reason: 'reset' | 'expired' | 'closed', compacted?: number): void {
    for (const w of [...watchers]) w.end(reason, compacted);
    for (const f of freshWaiters) f.reject(new CacheNotReadyError('watch cache is re-initializing'));
    freshWaiters = [];
  }

  function fail(err: unknown, gen: number): void {
    if (gen !== generation || stopped) return;
    generation++;
    isReady = false;
    handle?.stop();
    handle = undefined;
    // Storage compacted past the cache's position (a restore of the test controls): the cache relists at once and
    // its watchers learn that their revision is gone, as a re-watch from it would.
    if (err instanceof StorageError && err.code === 'Compacted') {
      endAll('expired', err.revision);
      void init();
      return;
    }
    options.onError?.(err);
    endAll('reset');
    retryTimer = setTimeout(() => void init(), retryDelay);
    retryTimer.unref();
    retryDelay = Math.min(retryDelay * 2, 2000);
  }

  async function init(): Promise<void> {
    if (stopped) return;
    const gen = ++generation;
    try {
      const fresh = new Map<string, CachedObject<A>>();
      const freshKeys = new SortedKeys();
      const freshIndex = new Map<string | number, Set<string>>();
      const previous = objects;
      let res = await storage.range(prefix, { limit: INIT_PAGE });
      const at = res.revision;
      for (;;) {
        for (const kv of res.kvs) {
          const obj = relisted(kv, previous.get(kv.key));
          fresh.set(kv.key, obj);
          freshKeys.add(kv.key);
          if (indexed) indexAdd(freshIndex, kv.key, obj);
        }
        if (!res.more || res.kvs.length === 0) break;
        res = await storage.range(prefix, { revision: at, startKey: `${res.kvs[res.kvs.length - 1].key}\u0000`, limit: INIT_PAGE });
      }
      if (gen !== generation || stopped) return;
      objects = fresh;
      keys = freshKeys;
      index = freshIndex;
      // Made again, from the new objects, by the next lists that use it.
      labelIndex = new Map();
      ring.clear();
      removedSinceList = false;
      listRevision = at;
      lastEventRevision = at;
      revision = at;
      handle = storage.watch(prefix, at, {
        onEvents: (events) => {
          if (gen !== generation) return;
          apply(events);
        },
        onError: (err) => fail(err, gen),
        onProgress: (rev) => {
          if (gen !== generation) return;
          advance(rev);
          if (pendingBookmarks) sendBookmarks();
        },
      });
      isReady = true;
      retryDelay = 50;
      const waiters = readyWaiters;
      readyWaiters = [];
      for (const r of waiters) r(true);
    } catch (err) {
      fail(err, gen);
    }
  }

  // ---- bookmarks ----

  let pendingBookmarks = false;

  function nextBookmarkTime(w: CacheWatcher<A>, t: number): number | undefined {
    let next = t + bookmarkMs;
    const deadline = w.request.deadline;
    if (deadline !== undefined && deadline > 0) {
      const pre = deadline - PRE_DEADLINE_BOOKMARK_MS;
      if (pre < next) next = pre;
      if (next < t) return undefined;
    }
    return next;
  }

  function sendBookmarks(): void {
    pendingBookmarks = false;
    const t = now();
    for (const w of [...bookmarkWatchers]) {
      if (w.ended) {
        bookmarkWatchers.delete(w);
        continue;
      }
      if (w.nextBookmark === undefined || w.nextBookmark > t) continue;
      // Only a newer revision than the watcher has seen makes a useful bookmark (kube skips the others).
      if (revision > w.lastRevision) w.offer({ type: 'BOOKMARK', revision, initialEventsEnd: false });
      w.nextBookmark = nextBookmarkTime(w, t);
      if (w.nextBookmark === undefined) bookmarkWatchers.delete(w);
    }
    if (bookmarkWatchers.size === 0) stopBookmarkTimer();
  }

  function bookmarkTick(): void {
    const t = now();
    let due = false;
    for (const w of bookmarkWatchers) {
      if (w.nextBookmark !== undefined && w.nextBookmark <= t) {
        due = true;
        break;
      }
    }
    if (!due) return;
    // Ask storage how far it is, so bookmarks carry the newest revision; without progress support send now.
    if (handle?.requestProgress) {
      pendingBookmarks = true;
      requestProgress();
    } else {
      sendBookmarks();
    }
  }

  function startBookmarkTimer(): void {
    if (bookmarkTimer) return;
    bookmarkTimer = setInterval(bookmarkTick, Math.max(5, Math.min(1000, Math.floor(bookmarkMs / 4))));
    bookmarkTimer.unref();
  }

  function stopBookmarkTimer(): void {
    if (!bookmarkTimer) return;
    clearInterval(bookmarkTimer);
    bookmarkTimer = undefined;
  }

  // ---- serving ----

  function oldestWatchable(): number {
    // kube: without evictions since the list, events after the list revision; else from the first kept event.
    const first = ring.first();
    if (!removedSinceList || first === undefined) return listRevision;
    return first.revision - 1;
  }

  const cacher: Cacher<A> = {
    prefix,
    ready: () => isReady,
    waitReady(timeoutMs, signal) {
      if (isReady) return Promise.resolve(true);
      if (stopped) return Promise.resolve(false);
      return new Promise((resolve) => {
        let done = false;
        const finish = (ok: boolean) => {
          if (done) return;
          done = true;
          clearTimeout(timer);
          signal?.removeEventListener('abort', onAbort);
          resolve(ok);
        };
        const onAbort = () => finish(false);
        const timer = setTimeout(() => finish(false), timeoutMs);
        timer.unref();
        signal?.addEventListener('abort', onAbort, { once: true });
        readyWaiters.push(finish);
      });
    },
    revision: () => revision,
    catchUp: requestProgress,
    waitFresh(rev, timeoutMs, signal) {
      if (!isReady) return Promise.reject(new CacheNotReadyError());
      if (rev <= revision) return Promise.resolve();
      return new Promise<void>((resolve, reject) => {
        let done = false;
        const waiter: FreshWaiter = {
          revision: rev,
          resolve: () => settle(() => resolve()),
          reject: (err) => settle(() => reject(err)),
        };
        const settle = (f: () => void) => {
          if (done) return;
          done = true;
          clearTimeout(timer);
          signal?.removeEventListener('abort', onAbort);
          freshWaiters = freshWaiters.filter((x) => x !== waiter);
          f();
        };
        const onAbort = () => waiter.reject(new CacheTooLargeError(rev, revision));
        const timer = setTimeout(() => waiter.reject(new CacheTooLargeError(rev, revision)), timeoutMs);
        timer.unref();
        signal?.addEventListener('abort', onAbort, { once: true });
        freshWaiters.push(waiter);
        requestProgress();
      });
    },
    list(under, filter) {
      const out: CachedObject<A>[] = [];
      const candidates = labelCandidates(under, filter);
      if (candidates !== undefined) {
        for (const key of candidates) {
          const obj = objects.get(key)!;
          if (safeMatch(filter!, obj)) out.push(obj);
        }
        return { revision, objects: out };
      }
      const inRange: string[] = [];
      keys.collect(under, prefixEnd(under), Infinity, inRange);
      for (let i = 0; i < inRange.length; i++) {
        const obj = objects.get(inRange[i]!)!;
        if (filter === undefined || safeMatch(filter, obj)) out.push(obj);
      }
      return { revision, objects: out };
    },
    pageAt(under, at, startKey, limit, filter) {
      if (!isReady || at < lastEventRevision || at > revision) return undefined;
      const out: CachedObject<A>[] = [];
      const end = prefixEnd(under);
      let last = '';
      let full = false;
      // Keys read a page at a time (as many as the page still needs), until it is full or the range ends.
      const cap = limit > 0 ? limit : Infinity;
      const batch: string[] = [];
      for (let from = startKey < under ? under : startKey; !full; from = `${last}\u0000`) {
        batch.length = 0;
        const wanted = cap - out.length;
        if (keys.collect(from, end, wanted, batch) === 0) break;
        for (let i = 0; i < batch.length; i++) {
          const obj = objects.get(batch[i]!)!;
          if (filter !== undefined && !safeMatch(filter, obj)) continue;
          out.push(obj);
          if (out.length === cap) {
            full = true;
            break;
          }
        }
        last = batch[batch.length - 1]!;
        if (batch.length < wanted) break;
      }
      if (full) last = out[out.length - 1]!.kv.key;
      const remaining = full ? keys.rank(end) - keys.rank(last) - 1 : 0;
      return { objects: out, more: remaining > 0, remaining };
    },
    get: (key) => objects.get(key),
    holders: (value) => [...(index.get(value) ?? [])],
    watch(request: CacheWatchRequest<A>) {
      if (!isReady) throw new CacheNotReadyError();
      let snapshot: CachedObject<A>[] | undefined;
      let replay: CacheWatchEvent<A>[] = [];
      let startRevision: number;
      if (request.start === 'state') {
        snapshot = cacher.list(request.prefix).objects;
        startRevision = revision;
      } else {
        const from = request.start;
        const oldest = oldestWatchable();
        if (from < oldest) throw new CacheTooOldError(from, oldest);
        startRevision = from;
        for (const ev of ring.since(from)) {
          if (!ev.object.kv.key.startsWith(request.prefix)) continue;
          const out = translate(ev, request.filter, {});
          if (out !== undefined) replay.push(out);
        }
      }
      const w = createCacheWatcher(request, snapshot, startRevision, replay, maxQueued, {
        ended(x) {
          if (watchers.delete(x as CacheWatcher<A>)) noteWatcherClosed();
          bookmarkWatchers.delete(x as CacheWatcher<A>);
          if (bookmarkWatchers.size === 0) stopBookmarkTimer();
        },
      });
      watchers.add(w);
      noteWatcherOpened();
      if (request.bookmarks) {
        w.nextBookmark = nextBookmarkTime(w, now());
        if (w.nextBookmark !== undefined) {
          bookmarkWatchers.add(w);
          startBookmarkTimer();
        }
      }
      return {
        resume: () => w.resume(),
        stop: () => w.end('stopped'),
      };
    },
    watcherCount: () => watchers.size,
    size: () => ({ objects: objects.size, events: ring.length }),
    stop() {
      if (stopped) return;
      stopped = true;
      generation++;
      isReady = false;
      if (retryTimer) clearTimeout(retryTimer);
      handle?.stop();
      handle = undefined;
      stopBookmarkTimer();
      endAll('closed');
      for (const r of readyWaiters) r(false);
      readyWaiters = [];
      unregisterCacher(cacher as Cacher<unknown>);
    },
  };
  registerCacher(cacher as Cacher<unknown>);
  void init();
  return cacher;
}
