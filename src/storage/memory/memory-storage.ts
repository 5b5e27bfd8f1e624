// The in-memory MVCC backend. Nothing survives the process; meant for tests, development and benchmarks.
//
// One global log holds every retained event, indexed by revision (revisions are dense: one per write). Each key has
// its own history (the same event objects, ascending), so reads at an old revision binary-search one short array.
// Two ordered key sets serve ranges: `live` (keys alive now, with ranks for exact counts) and `known` (keys with any
// retained history, for reads at an older revision).
import type { GetResult, KeyValue, RangeOptions, RangeResult, Storage, StorageEvent, StorageSnapshot } from '../types.ts';
import { compactionNeeded, openState } from '../backend-state.ts';
import { compactedError, keyExists, keyNotFound, readRevision, revisionConflict } from '../storage-errors.ts';
import { prefixEnd, rangeStart } from '../key-range.ts';
import { createWatchHub } from '../watch-hub.ts';
import { SortedKeys } from './sorted-keys.ts';

export interface MemoryStorageOptions {
  /** Watch replay page size (tests make it small to exercise paging). */
  replayPageSize?: number;
}

export interface MemoryStorage extends Storage {
  /** Open watches (for tests and metrics). */
  watcherCount(): number;
  snapshot(): Promise<StorageSnapshot>;
  restore(snapshot: StorageSnapshot): Promise<number>;
}

/** The newest event of history at or below revision, or undefined. */
function eventAt(history: readonly StorageEvent[], revision: number): StorageEvent | undefined {
  let lo = 0;
  let hi = history.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (history[mid].kv.modRevision <= revision) lo = mid + 1;
    else hi = mid;
  }
  return lo === 0 ? undefined : history[lo - 1];
}

export function createMemoryStorage(options: MemoryStorageOptions = {}): MemoryStorage {
  let revision = 0;
  let compacted = 0;
  const histories = new Map<string, StorageEvent[]>();
  let live = new SortedKeys();
  let known = new SortedKeys();
  /** log[i] is the event of revision logBase + i. */
  let log: StorageEvent[] = [];
  let logBase = 1;

  const hub = createWatchHub(
    {
      currentRevision: () => revision,
      compactedRevision: () => compacted,
      history(prefix, after, upTo, limit) {
        const out: StorageEvent[] = [];
        for (let r = Math.max(after + 1, logBase); r <= upTo && out.length < limit; r++) {
          const ev = log[r - logBase];
          if (ev.kv.key.startsWith(prefix)) out.push(ev);
        }
        return out;
      },
    },
    { replayPageSize: options.replayPageSize },
  );

  const state = openState(hub);
  const { checkOpen } = state;

  function currentKv(key: string): KeyValue | undefined {
    const history = histories.get(key);
    if (history === undefined) return undefined;
    const last = history[history.length - 1];
    return last.type === 'put' ? last.kv : undefined;
  }

  function kvAt(key: string, rev: number): KeyValue | undefined {
    const history = histories.get(key);
    if (history === undefined) return undefined;
    const ev = eventAt(history, rev);
    return ev !== undefined && ev.type === 'put' ? ev.kv : undefined;
  }

  function commit(ev: StorageEvent): void {
    const key = ev.kv.key;
    const history = histories.get(key);
    if (history === undefined) {
      histories.set(key, [ev]);
      known.add(key);
    } else {
      history.push(ev);
    }
    log.push(ev);
    revision = ev.kv.modRevision;
    hub.publish(ev);
  }

  function rangeCurrent(prefix: string, start: string, limit: number): RangeResult {
    const keys: string[] = [];
    const end = prefixEnd(prefix);
    live.collect(start, end, limit, keys);
    const kvs = keys.map((key) => currentKv(key)!);
    const remaining = kvs.length < limit ? 0 : live.rank(end) - live.rank(keys[keys.length - 1]!) - 1;
    return { kvs, more: remaining > 0, remaining, revision };
  }

  function rangeAt(prefix: string, start: string, limit: number, rev: number): RangeResult {
    const kvs: KeyValue[] = [];
    let remaining = 0;
    known.forEachFrom(start, (key) => {
      if (!key.startsWith(prefix)) return false;
      const kv = kvAt(key, rev);
      if (kv !== undefined) {
        if (kvs.length < limit) kvs.push(kv);
        else remaining++;
      }
      return true;
    });
    return { kvs, more: remaining > 0, remaining, revision: rev };
  }

  return {
    name: 'memory',

    async get(key, rev): Promise<GetResult> {
      checkOpen();
      const at = readRevision(key, rev, revision, compacted);
      return { kv: at === revision ? currentKv(key) : kvAt(key, at), revision: at };
    },

    async range(prefix, opts: RangeOptions = {}): Promise<RangeResult> {
      checkOpen();
      const at = readRevision(prefix, opts.revision, revision, compacted);
      const start = rangeStart(prefix, opts.startKey);
      const limit = opts.limit !== undefined && opts.limit > 0 ? opts.limit : Infinity;
      return at === revision ? rangeCurrent(prefix, start, limit) : rangeAt(prefix, start, limit, at);
    },

    async count(prefix) {
      checkOpen();
      return live.rank(prefixEnd(prefix)) - live.rank(prefix);
    },

    async create(key, value) {
      checkOpen();
      const current = currentKv(key);
      if (current !== undefined) throw keyExists(key, current);
      const rev = revision + 1;
      const kv: KeyValue = { key, value, createRevision: rev, modRevision: rev };
      live.add(key);
      commit({ type: 'put', kv });
      return kv;
    },

    async update(key, value, expectedModRevision) {
      checkOpen();
      const current = currentKv(key);
      if (current === undefined) throw keyNotFound(key);
      if (current.modRevision !== expectedModRevision) throw revisionConflict(key, expectedModRevision, current);
      const kv: KeyValue = { key, value, createRevision: current.createRevision, modRevision: revision + 1 };
      commit({ type: 'put', kv, prevKv: current });
      return kv;
    },

    async delete(key, expectedModRevision) {
      checkOpen();
      const current = currentKv(key);
      if (current === undefined) throw keyNotFound(key);
      if (expectedModRevision !== undefined && current.modRevision !== expectedModRevision) {
        throw revisionConflict(key, expectedModRevision, current);
      }
      const kv: KeyValue = { key, value: current.value, createRevision: current.createRevision, modRevision: revision + 1 };
      live.delete(key);
      commit({ type: 'delete', kv, prevKv: current });
      return kv;
    },

    async currentRevision() {
      return revision;
    },

    revisionNow: () => revision,

    compactedRevision() {
      return compacted;
    },

    async compact(rev) {
      checkOpen();
      if (!compactionNeeded(rev, compacted, revision)) return;
      const touched = new Set<string>();
      for (let r = logBase; r <= rev; r++) touched.add(log[r - logBase].kv.key);
      for (const key of touched) {
        const history = histories.get(key)!;
        let keep = 0;
        while (keep + 1 < history.length && history[keep + 1].kv.modRevision <= rev) keep++;
        if (history[keep].type === 'delete' && history[keep].kv.modRevision <= rev) keep++;
        if (keep === 0) continue;
        if (keep === history.length) {
          histories.delete(key);
          known.delete(key);
        } else {
          histories.set(key, history.slice(keep));
        }
      }
      log = log.slice(rev + 1 - logBase);
      logBase = rev + 1;
      compacted = rev;
    },

    watch: state.watch,

    async snapshot(): Promise<StorageSnapshot> {
      checkOpen();
      const keys: string[] = [];
      live.collect('', undefined, Infinity, keys);
      return { revision, kvs: keys.map((key) => currentKv(key)!) };
    },

    async restore(snap) {
      checkOpen();
      histories.clear();
      live = new SortedKeys();
      known = new SortedKeys();
      let rev = revision;
      for (const old of snap.kvs) {
        rev++;
        const kv: KeyValue = { key: old.key, value: old.value, createRevision: rev, modRevision: rev };
        histories.set(kv.key, [{ type: 'put', kv }]);
        live.add(kv.key);
        known.add(kv.key);
      }
      // An empty snapshot still moves the revision, so every watcher's position is older than the new state.
      if (rev === revision) rev++;
      log = [];
      logBase = rev + 1;
      revision = rev;
      compacted = rev;
      hub.closeAll(compactedError('', rev, rev));
      return rev;
    },

    async ready() {
      return !state.closed;
    },

    async close() {
      state.close();
    },

    watcherCount: () => hub.watcherCount(),
  };
}
