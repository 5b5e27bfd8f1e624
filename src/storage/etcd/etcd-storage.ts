// The etcd backend: every read and write goes to etcd (guarded writes are single transactions), and one etcd watch
// per process feeds the in-process watch hub that the watch caches read from.
//
// The feed: one watch over etcd's whole key space, from the revision current at open. Every etcd revision is made
// by a write to some key, so this watch sees every revision in order; events under our root go into a local log
// (the hub's history) and to the hub, the others only move the clock. That clock answers progress requests: a
// consistent read asks etcd for its current revision, waits until the feed has delivered it, then the hub reports
// progress. (etcd 3.4's own progress notifications may overtake events still queued for a watcher, etcd #15220,
// so they are not trusted for this; kube 1.31 likewise only uses them from etcd 3.4.31 / 3.5.13 on.)
//
// Batching: while writes of this process are in flight, received events are held (up to HOLD_MS) so that the
// writes of one event-loop turn reach watchers as one batch, as the other backends deliver them.
import type { GetResult, KeyValue, RangeResult, Storage, StorageEvent, WatchCallbacks, WatchHandle } from '../types.ts';
import { StorageError } from '../types.ts';
import { compactedError, futureRevision, keyExists, keyNotFound, revisionConflict } from '../storage-errors.ts';
import { openState } from '../backend-state.ts';
import { createWatchHub } from '../watch-hub.ts';
import type * as RPC from 'etcd3';
import { connectEtcd, int, isCompactedError, isFutureRevisionError, unreachable, type EtcdConnection, type EtcdConnectionOptions } from './etcd-client.ts';
import { createKeySpace } from './key-space.ts';
import { TEXT_VALUES, type ValueCodec } from '../value-codec.ts';

export interface EtcdStorageOptions extends EtcdConnectionOptions {
  /** Storage keys start with this (the registry root, "/registry"); in etcd it is replaced by `remotePrefix`. */
  readonly localPrefix: string;
  /** --etcd-prefix. */
  readonly remotePrefix: string;
  /**
   * Tests only: revisions are reported relative to etcd's revision at open (so a test store starts at 0). Real
   * servers use etcd's revisions as they are (resourceVersion = etcd revision, as kube).
   */
  readonly relativeRevisions?: boolean;
  /** Watch replay page size. */
  readonly replayPageSize?: number;
  /** Events kept in the local history (older ones: watches from there end with Compacted). Default 200000. */
  readonly historyLimit?: number;
  /** What values become in etcd and back (--storage-media-type). Default: their UTF-8 text. */
  readonly codec?: ValueCodec;
}

export interface EtcdStorage extends Storage {
  watcherCount(): number;
  /** The etcd connection (for the compactor, leases and allocation transactions). */
  readonly connection: EtcdConnection;
  /** Storage key <-> etcd revision translation for the compactor. */
  toEtcdRevision(revision: number): number;
  fromEtcdRevision(revision: number): number;
  /** Tells the store that etcd was compacted to `revision` (storage revisions) by someone. */
  noteCompacted(revision: number): void;
  /** Waits until the feed has delivered `revision` (storage revision); false on timeout. */
  waitFeed(revision: number, timeoutMs: number): Promise<boolean>;
}

const HOLD_MS = 20;
const RECONNECT_MS = [50, 100, 200, 400, 800, 1000];

export async function openEtcdStorage(options: EtcdStorageOptions): Promise<EtcdStorage> {
  const conn = connectEtcd(options);
  const keys = createKeySpace(options.localPrefix, options.remotePrefix);
  const historyLimit = options.historyLimit ?? 200_000;
  const kvApi = conn.kv;
  const codec = options.codec ?? TEXT_VALUES;

  // ---- revisions ----
  let base = 0;
  const local = (rev: string | number) => int(rev) - base;

  async function etcdRevision(timeoutMs?: number): Promise<number> {
    const res = await conn.unary('repeatable', (o) => kvApi.range({ key: Buffer.from([0]), count_only: true, limit: 1 }, o), timeoutMs);
    return int(res.header.revision);
  }

  let openRevision: number;
  try {
    openRevision = await etcdRevision();
  } catch (err) {
    conn.close();
    throw new Error(`cannot reach etcd at ${options.servers.join(',')}: ${unreachable(err).message}`);
  }
  if (options.relativeRevisions) base = openRevision;

  // ---- the local history (the hub's source) ----
  const log: StorageEvent[] = [];
  /** Revisions at or below the floor are not in the log (before open, trimmed, or lost by a restarted feed). */
  let floor = local(openRevision);
  let compacted = 0;
  /** Newest revision the feed has received / published to the hub. */
  let received = local(openRevision);
  let published = received;
  let held: StorageEvent[] = [];
  let heldRevision = received;
  let holdTimer: NodeJS.Timeout | undefined;
  let inFlight = 0;
  const feedWaiters: { revision: number; resolve: (ok: boolean) => void }[] = [];

  const hub = createWatchHub(
    {
      currentRevision: () => published,
      compactedRevision: () => Math.max(compacted, floor),
      history(prefix, after, upTo, limit) {
        const out: StorageEvent[] = [];
        let lo = 0;
        let hi = log.length;
        while (lo < hi) {
          const mid = (lo + hi) >> 1;
          if (log[mid].kv.modRevision <= after) lo = mid + 1;
          else hi = mid;
        }
        for (let i = lo; i < log.length && out.length < limit; i++) {
          const e = log[i];
          if (e.kv.modRevision > upTo) break;
          if (e.kv.key.startsWith(prefix)) out.push(e);
        }
        return out;
      },
    },
    { replayPageSize: options.replayPageSize },
  );
  const state = openState(hub);

  function publishHeld(): void {
    if (holdTimer !== undefined) {
      clearTimeout(holdTimer);
      holdTimer = undefined;
    }
    const events = held;
    held = [];
    for (const e of events) {
      log.push(e);
      hub.publish(e);
    }
    published = heldRevision;
    if (log.length > historyLimit) {
      const drop = log.length - historyLimit;
      floor = Math.max(floor, log[drop - 1].kv.modRevision);
      log.splice(0, drop);
    }
  }

  function maybePublish(): void {
    if (heldRevision === published) return;
    if (inFlight === 0) publishHeld();
    else if (holdTimer === undefined) holdTimer = setTimeout(publishHeld, HOLD_MS);
  }

  function noteReceived(rev: number): void {
    if (rev <= received) return;
    received = rev;
    heldRevision = rev;
    for (let i = feedWaiters.length - 1; i >= 0; i--) {
      if (feedWaiters[i].revision <= received) {
        feedWaiters[i].resolve(true);
        feedWaiters.splice(i, 1);
      }
    }
  }

  function waitFeed(revision: number, timeoutMs: number): Promise<boolean> {
    if (revision <= received) return Promise.resolve(true);
    return new Promise((resolve) => {
      const waiter = { revision, resolve };
      const timer = setTimeout(() => {
        const i = feedWaiters.indexOf(waiter);
        if (i >= 0) feedWaiters.splice(i, 1);
        resolve(false);
      }, timeoutMs);
      timer.unref();
      waiter.resolve = (ok) => {
        clearTimeout(timer);
        resolve(ok);
      };
      feedWaiters.push(waiter);
    });
  }

  // ---- the feed: one watch over the whole key space ----
  let stream: RPC.IDuplexStream<RPC.IWatchRequest, RPC.IWatchResponse> | undefined;
  let attempt = 0;
  let reconnectTimer: NodeJS.Timeout | undefined;

  function toKv(kv: RPC.IKeyValue, key: string): KeyValue {
    return { key, value: codec.decode(kv.value), createRevision: local(kv.create_revision), modRevision: local(kv.mod_revision) };
  }

  /** toKv for the feed, which must go on past a value it cannot read (reads of that key report the error). */
  function feedKv(kv: RPC.IKeyValue, key: string): KeyValue {
    try {
      return toKv(kv, key);
    } catch {
      return { key, value: kv.value.toString('utf8'), createRevision: local(kv.create_revision), modRevision: local(kv.mod_revision) };
    }
  }

  /** A read's kvs: a value that cannot be decoded fails the read, as kube's storage does. */
  function readKv(kv: RPC.IKeyValue, key: string): KeyValue {
    try {
      return toKv(kv, key);
    } catch (err) {
      throw new StorageError('Unavailable', key, `unable to decode ${key}: ${err instanceof Error ? err.message : String(err)}`);
    }
  }

  /** The bytes to put, and the value a read of them gives. */
  function encoded(value: string): { bytes: Uint8Array; value: string } {
    const bytes = codec.encode(value);
    return { bytes, value: codec.lossless ? value : codec.decode(bytes) };
  }

  function onWatchResponse(res: RPC.IWatchResponse): void {
    if (res.created) attempt = 0;
    if (res.canceled) {
      const compactRev = int(res.compact_revision);
      stream?.end();
      stream = undefined;
      if (compactRev > 0) restartAfterCompaction(local(compactRev));
      else scheduleReconnect();
      return;
    }
    if (res.events.length === 0) return; // created, or a progress notification (not trusted: see the header)
    let last = received;
    for (const ev of res.events) {
      const rev = local(ev.kv.mod_revision);
      last = rev;
      const key = keys.toLocal(ev.kv.key);
      if (key === undefined || rev <= received) continue;
      if (ev.type === 'Put') {
        held.push(ev.prev_kv ? { type: 'put', kv: feedKv(ev.kv, key), prevKv: feedKv(ev.prev_kv, key) } : { type: 'put', kv: feedKv(ev.kv, key) });
      } else {
        // etcd's delete event kv has only the key and the deletion revision; the value is prev_kv's.
        const prev = ev.prev_kv ? feedKv(ev.prev_kv, key) : { key, value: '', createRevision: 0, modRevision: 0 };
        held.push({ type: 'delete', kv: { key, value: prev.value, createRevision: prev.createRevision, modRevision: rev }, prevKv: prev });
      }
    }
    noteReceived(last);
    maybePublish();
  }

  function restartAfterCompaction(compactRev: number): void {
    // The feed fell behind a compaction (etcd was away long): events are lost, every watcher must start over.
    publishHeld();
    compacted = Math.max(compacted, compactRev);
    log.length = 0;
    void (async () => {
      try {
        const now = local(await etcdRevision());
        floor = Math.max(floor, now);
        received = Math.max(received, now);
        heldRevision = received;
        published = received;
        hub.closeAll(compactedError('', compactRev, compactRev));
      } catch {
        // reconnect below retries
      }
      scheduleReconnect();
    })();
  }

  function scheduleReconnect(): void {
    if (state.closed || reconnectTimer !== undefined) return;
    const delay = RECONNECT_MS[Math.min(attempt, RECONNECT_MS.length - 1)];
    attempt++;
    reconnectTimer = setTimeout(() => {
      reconnectTimer = undefined;
      void connectFeed();
    }, delay);
    reconnectTimer.unref();
  }

  async function connectFeed(): Promise<void> {
    if (state.closed) return;
    let s: RPC.IDuplexStream<RPC.IWatchRequest, RPC.IWatchResponse>;
    try {
      s = await conn.watch.watch();
    } catch {
      scheduleReconnect();
      return;
    }
    if (state.closed) {
      s.end();
      return;
    }
    stream = s;
    const lost = () => {
      if (stream !== s) return;
      stream = undefined;
      scheduleReconnect();
    };
    s.on('data', (res: RPC.IWatchResponse) => {
      if (stream === s) onWatchResponse(res);
    });
    s.on('error', lost);
    s.on('end', lost);
    s.write({ create_request: { key: Buffer.from([0]), range_end: Buffer.from([0]), start_revision: received + base + 1, prev_kv: true } });
  }

  await connectFeed();

  // ---- calls ----
  async function call<T>(run: () => Promise<T>, key = ''): Promise<T> {
    state.checkOpen();
    try {
      return await run();
    } catch (err) {
      if (isCompactedError(err)) throw compactedError(key, 0, compacted);
      throw unreachable(err);
    }
  }

  async function readAt(key: string, requested: number | undefined): Promise<number | undefined> {
    if (requested === undefined || requested === 0) return undefined;
    if (!Number.isSafeInteger(requested) || requested < 0) throw new StorageError('FutureRevision', key, `invalid revision ${requested}`);
    if (requested < compacted) throw compactedError(key, requested, compacted);
    return requested;
  }

  async function rangeCall(key: string, req: RPC.IRangeRequest, revision: number | undefined): Promise<RPC.IRangeResponse> {
    return call(async () => {
      try {
        return await conn.unary('repeatable', (o) => kvApi.range({ ...req, ...(revision !== undefined ? { revision: revision + base } : {}) }, o));
      } catch (err) {
        if (isFutureRevisionError(err)) throw futureRevision(key, revision ?? 0, local(await etcdRevision()));
        if (isCompactedError(err)) throw compactedError(key, revision ?? 0, Math.max(compacted, revision ?? 0));
        throw err;
      }
    }, key);
  }

  /** Runs a write, counting it in flight until the feed has received its revision (see the header). */
  async function write(key: string, req: RPC.ITxnRequest): Promise<RPC.ITxnResponse> {
    state.checkOpen();
    inFlight++;
    try {
      const res = await call(() => conn.unary('nonRepeatable', (o) => kvApi.txn(req, o)), key);
      if (res.succeeded) await waitFeed(local(res.header.revision), 2000);
      return res;
    } finally {
      inFlight--;
      maybePublish();
    }
  }

  function currentKv(res: RPC.ITxnResponse, key: string): KeyValue | undefined {
    const kv = res.responses[0]?.response_range?.kvs[0];
    return kv ? readKv(kv, key) : undefined;
  }

  const storage: EtcdStorage = {
    name: 'etcd',
    connection: conn,

    async get(key, revision) {
      const at = await readAt(key, revision);
      const res = await rangeCall(key, { key: keys.toRemote(key) }, at);
      const kv = res.kvs[0];
      const result: GetResult = { kv: kv ? readKv(kv, key) : undefined, revision: at ?? local(res.header.revision) };
      return result;
    },

    async range(prefix, options = {}) {
      const at = await readAt(prefix, options.revision);
      const span = keys.prefixRange(prefix);
      let start = span?.start;
      const startKey = options.startKey;
      if (span !== undefined && startKey !== undefined && startKey > prefix) {
        // A start key past the prefix but not under it lies after every key under it.
        start = startKey.startsWith(prefix) ? keys.toRemote(startKey) : undefined;
      }
      if (span === undefined || start === undefined) {
        const res = await rangeCall(prefix, { key: Buffer.from([0]), count_only: true, limit: 1 }, at);
        return { kvs: [], more: false, remaining: 0, revision: at ?? local(res.header.revision) };
      }
      const limit = options.limit ?? 0;
      const res = await rangeCall(prefix, { key: start, range_end: span.end, ...(limit > 0 ? { limit } : {}) }, at);
      const kvs: KeyValue[] = [];
      for (const kv of res.kvs) {
        const key = keys.toLocal(kv.key);
        if (key !== undefined) kvs.push(readKv(kv, key));
      }
      const count = int(res.count);
      const result: RangeResult = { kvs, more: count > kvs.length, remaining: Math.max(0, count - kvs.length), revision: at ?? local(res.header.revision) };
      return result;
    },

    async count(prefix) {
      const span = keys.prefixRange(prefix);
      if (span === undefined) return 0;
      const res = await rangeCall(prefix, { key: span.start, range_end: span.end, count_only: true }, undefined);
      return int(res.count);
    },

    async create(key, value) {
      const remote = keys.toRemote(key);
      const put = encoded(value);
      const res = await write(key, {
        compare: [{ key: remote, target: 'Mod', result: 'Equal', mod_revision: 0 }],
        success: [{ request_put: { key: remote, value: Buffer.from(put.bytes.buffer, put.bytes.byteOffset, put.bytes.byteLength) } }],
        failure: [{ request_range: { key: remote } }],
      });
      if (!res.succeeded) throw keyExists(key, currentKv(res, key));
      const rev = local(res.header.revision);
      return { key, value: put.value, createRevision: rev, modRevision: rev };
    },

    async update(key, value, expectedModRevision) {
      const remote = keys.toRemote(key);
      const put = encoded(value);
      const res = await write(key, {
        compare: [{ key: remote, target: 'Mod', result: 'Equal', mod_revision: expectedModRevision + base }],
        success: [{ request_put: { key: remote, value: Buffer.from(put.bytes.buffer, put.bytes.byteOffset, put.bytes.byteLength), prev_kv: true } }],
        failure: [{ request_range: { key: remote } }],
      });
      if (!res.succeeded) {
        const current = currentKv(res, key);
        if (current === undefined) throw keyNotFound(key);
        throw revisionConflict(key, expectedModRevision, current);
      }
      const prev = res.responses[0]?.response_put?.prev_kv;
      return { key, value: put.value, createRevision: prev ? local(prev.create_revision) : local(res.header.revision), modRevision: local(res.header.revision) };
    },

    async writeWithTtl(key, value, expectedModRevision, ttlSeconds) {
      const remote = keys.toRemote(key);
      const put = encoded(value);
      // A lease of its own per write, as kube's lease manager grants one when its previous lease cannot be reused
      // (for a 15 s TTL it never can); the previous lease expires unused.
      const granted = await call(() => conn.unary('repeatable', (o) => conn.lease.leaseGrant({ TTL: ttlSeconds }, o)), key);
      const res = await write(key, {
        compare: [{ key: remote, target: 'Mod', result: 'Equal', mod_revision: expectedModRevision === 0 ? 0 : expectedModRevision + base }],
        success: [{ request_put: { key: remote, value: Buffer.from(put.bytes.buffer, put.bytes.byteOffset, put.bytes.byteLength), lease: granted.ID, prev_kv: true } }],
        failure: [{ request_range: { key: remote } }],
      });
      if (!res.succeeded) {
        const current = currentKv(res, key);
        if (expectedModRevision === 0) throw keyExists(key, current);
        if (current === undefined) throw keyNotFound(key);
        throw revisionConflict(key, expectedModRevision, current);
      }
      const rev = local(res.header.revision);
      const prev = res.responses[0]?.response_put?.prev_kv;
      return { key, value: put.value, createRevision: prev ? local(prev.create_revision) : rev, modRevision: rev };
    },

    async delete(key, expectedModRevision) {
      const remote = keys.toRemote(key);
      const guard: RPC.ICompare =
        expectedModRevision === undefined
          ? { key: remote, target: 'Mod', result: 'Greater', mod_revision: 0 }
          : { key: remote, target: 'Mod', result: 'Equal', mod_revision: expectedModRevision + base };
      const res = await write(key, {
        compare: [guard],
        success: [{ request_delete_range: { key: remote, prev_kv: true } }],
        failure: [{ request_range: { key: remote } }],
      });
      if (!res.succeeded) {
        const current = currentKv(res, key);
        if (current === undefined || expectedModRevision === undefined) throw keyNotFound(key);
        throw revisionConflict(key, expectedModRevision, current);
      }
      const prev = res.responses[0]?.response_delete_range?.prev_kvs[0];
      if (prev === undefined) throw keyNotFound(key);
      const last = readKv(prev, key);
      return { key, value: last.value, createRevision: last.createRevision, modRevision: local(res.header.revision) };
    },

    async currentRevision() {
      return call(async () => local(await etcdRevision()));
    },

    compactedRevision: () => compacted,

    async compact(revision) {
      state.checkOpen();
      if (revision <= compacted) return;
      if (revision > received) {
        const now = await call(async () => local(await etcdRevision()));
        if (revision > now) throw futureRevision('', revision, now);
      }
      storage.noteCompacted(revision);
      await call(() => conn.unary('repeatable', (o) => kvApi.compact({ revision: revision + base, physical: false }, o)));
    },

    watch(prefix, fromRevision, callbacks: WatchCallbacks): WatchHandle {
      const handle = state.watch(prefix, fromRevision, callbacks);
      return {
        stop: () => handle.stop(),
        requestProgress() {
          // Progress means: every event up to etcd's current revision has been delivered.
          void (async () => {
            try {
              const now = local(await etcdRevision());
              if (!(await waitFeed(now, 5000))) return;
              publishHeld();
              handle.requestProgress?.();
            } catch {
              // etcd unreachable: no progress to report; the waiting read times out and fails
            }
          })();
        },
      };
    },

    async ready() {
      if (state.closed) return false;
      try {
        await etcdRevision(2000);
        return true;
      } catch {
        return false;
      }
    },

    async close() {
      if (!state.close()) return;
      if (reconnectTimer !== undefined) clearTimeout(reconnectTimer);
      if (holdTimer !== undefined) clearTimeout(holdTimer);
      for (const w of feedWaiters.splice(0)) w.resolve(false);
      const s = stream;
      stream = undefined;
      try {
        s?.end();
      } catch {
        // already gone
      }
      conn.close();
    },

    watcherCount: () => hub.watcherCount(),
    toEtcdRevision: (revision) => revision + base,
    fromEtcdRevision: (revision) => revision - base,
    noteCompacted(revision) {
      if (revision <= compacted) return;
      compacted = revision;
      let drop = 0;
      while (drop < log.length && log[drop].kv.modRevision <= revision) drop++;
      if (drop > 0) log.splice(0, drop);
    },
    waitFeed,
  };


  return storage;
}
