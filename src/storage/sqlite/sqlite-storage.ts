// The sqlite backend (node:sqlite, synchronous): one database file, a log-structured kv table (see schema.ts).
//
// Durability: WAL with synchronous=NORMAL. A commit has reached the WAL file (the OS) before the write resolves, so
// acknowledged writes survive a crash of this process (kill -9). They may not survive power loss or an OS crash:
// NORMAL does not fsync the WAL on each commit (only at checkpoints).
//
// This process must be the database's only writer (the in-memory revision counter, key index and watch feed rely on
// it), so the file is opened with locking_mode=EXCLUSIVE: a second process fails to open it instead of corrupting
// the feed. Like etcd's tree index, the set of live keys is also kept in memory, so count() and a page's `remaining`
// are O(log n) instead of a scan.
import { closeSync, openSync } from 'node:fs';
import type { DatabaseSync as Database, StatementSync } from 'node:sqlite';
import type { GetResult, KeyValue, RangeOptions, RangeResult, Storage, StorageEvent, StorageSnapshot } from '../types.ts';
import { compactionNeeded, openState } from '../backend-state.ts';
import { compactedError, keyExists, keyNotFound, readRevision, revisionConflict, unavailable } from '../storage-errors.ts';
import { StorageError } from '../types.ts';
import { prefixEnd, prefixEndUtf8, rangeStart } from '../key-range.ts';
import { createWatchHub } from '../watch-hub.ts';
import { SortedKeys } from '../memory/sorted-keys.ts';
import * as sql from './schema.ts';

// Node 22 prints an ExperimentalWarning on stderr when node:sqlite first loads: not a line of Capstan's own log, and
// nothing a user of the backend can act on, so the load drops that one warning.
const { DatabaseSync } = withoutExperimentalWarning('SQLite', () => process.getBuiltinModule('node:sqlite'));

function withoutExperimentalWarning<T>(feature: string, load: () => T): T {
  const emitWarning = process.emitWarning;
  process.emitWarning = function (this: NodeJS.Process, warning: string | Error, ...rest: unknown[]) {
    const type = typeof rest[0] === 'object' && rest[0] !== null ? (rest[0] as { type?: unknown }).type : rest[0];
    if (type === 'ExperimentalWarning' && String(warning).startsWith(`${feature} is an experimental feature`)) return;
    return (emitWarning as (...args: unknown[]) => void).call(this, warning, ...rest);
  } as typeof process.emitWarning;
  try {
    return load();
  } finally {
    process.emitWarning = emitWarning;
  }
}

export interface SqliteStorageOptions {
  /** Watch replay page size (tests make it small to exercise paging). */
  replayPageSize?: number;
}

export interface SqliteStorage extends Storage {
  /** Open watches (for tests and metrics). */
  watcherCount(): number;
  snapshot(): Promise<StorageSnapshot>;
  restore(snapshot: StorageSnapshot): Promise<number>;
  /** The database file. */
  readonly path: string;
}

interface NewestRow {
  id: number;
  deleted: number;
  create_revision: number;
  value: string;
}

interface RangeRow {
  id: number;
  name: string;
  create_revision: number;
  value: string;
}

interface HistoryRow {
  id: number;
  name: string;
  created: number;
  deleted: number;
  create_revision: number;
  value: string;
  prev_id: number | null;
  prev_create_revision: number | null;
  prev_value: string | null;
}

function rowKv(key: string, row: NewestRow): KeyValue {
  return { key, value: row.value, createRevision: row.create_revision, modRevision: row.id };
}

function historyEvent(row: HistoryRow): StorageEvent {
  const kv: KeyValue = { key: row.name, value: row.value, createRevision: row.create_revision, modRevision: row.id };
  const prevKv: KeyValue | undefined =
    row.prev_id === null ? undefined : { key: row.name, value: row.prev_value!, createRevision: row.prev_create_revision!, modRevision: row.prev_id };
  const type = row.deleted === 1 ? 'delete' : 'put';
  return prevKv === undefined ? { type, kv } : { type, kv, prevKv };
}

function openDatabase(path: string): Database {
  // The database holds every object, Secrets included: owner-only, like a private key. SQLite gives its -wal and
  // -shm files the database file's mode, so creating it 0600 covers them too.
  if (path !== ':memory:') {
    try {
      closeSync(openSync(path, 'wx', 0o600));
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
  }
  const db = new DatabaseSync(path);
  try {
    db.exec(sql.PRAGMAS);
    db.exec(sql.SCHEMA);
  } catch (err) {
    db.close();
    const message = err instanceof Error ? err.message : String(err);
    throw unavailable(`cannot open sqlite storage ${path}: ${message}${/locked|busy/i.test(message) ? ' (is another process using it?)' : ''}`);
  }
  return db;
}

export function openSqliteStorage(path: string, options: SqliteStorageOptions = {}): SqliteStorage {
  const db = openDatabase(path);
  const stmt = (text: string): StatementSync => db.prepare(text);
  const begin = stmt('BEGIN IMMEDIATE');
  const commitTx = stmt('COMMIT');
  const rollbackTx = stmt('ROLLBACK');
  const selectNewest = stmt(sql.SELECT_NEWEST);
  const selectNewestAt = stmt(sql.SELECT_NEWEST_AT);
  const insertRow = stmt(sql.INSERT_ROW);
  const selectRange = stmt(sql.SELECT_RANGE);
  const countAfter = stmt(sql.COUNT_AFTER);
  const selectHistory = stmt(sql.SELECT_HISTORY);
  const compactRows = stmt(sql.COMPACT);
  const upsertMeta = stmt(sql.UPSERT_META);
  const deleteAll = stmt('DELETE FROM kv');
  const selectMeta = stmt(sql.SELECT_META);

  let compacted = Number((selectMeta.get('compact_revision') as { value: number } | undefined)?.value ?? 0);
  // Compaction may have removed the newest rows (tombstones), so the revision never falls below the compacted one.
  let revision = Math.max(Number((stmt(sql.SELECT_MAX_ID).get() as { id: number | null }).id ?? 0), compacted);
  let live = new SortedKeys();
  for (const row of stmt(sql.SELECT_LIVE_NAMES).iterate()) live.add((row as { name: string }).name);

  const hub = createWatchHub(
    {
      currentRevision: () => revision,
      compactedRevision: () => compacted,
      history(prefix, after, upTo, limit) {
        const rows = selectHistory.all(after, upTo, prefix, prefixEndUtf8(prefix), limit) as unknown as HistoryRow[];
        return rows.map(historyEvent);
      },
    },
    { replayPageSize: options.replayPageSize },
  );

  const state = openState(hub);
  const { checkOpen } = state;

  /** Rolls back the open transaction, if one is (sqlite ends some itself on an error; Node < 22.16 has no isTransaction). */
  function rollbackOpen(): void {
    if (db.isTransaction === false) return;
    try {
      rollbackTx.run();
    } catch {
      // none was open
    }
  }

  /** Runs fn in one IMMEDIATE transaction; on any failure rolls back, so nothing of it remains. */
  function transaction<T>(fn: () => T): T {
    begin.run();
    try {
      const result = fn();
      commitTx.run();
      return result;
    } catch (err) {
      rollbackOpen();
      throw err;
    }
  }

  function newest(key: string): NewestRow | undefined {
    return selectNewest.get(key) as NewestRow | undefined;
  }

  /**
   * The live row of a key and its KeyValue, for a write guarded by expectedModRevision (no guard when undefined);
   * NotFound or Conflict otherwise. Call inside a transaction.
   */
  function guardedRow(key: string, expectedModRevision: number | undefined): { row: NewestRow; current: KeyValue } {
    const row = newest(key);
    if (row === undefined || row.deleted === 1) throw keyNotFound(key);
    const current = rowKv(key, row);
    if (expectedModRevision !== undefined && row.id !== expectedModRevision) throw revisionConflict(key, expectedModRevision, current);
    return { row, current };
  }

  /** Appends the row of revision kv.modRevision; call inside a transaction. */
  function appendRow(kv: KeyValue, created: boolean, deleted: boolean, prevRevision: number): void {
    insertRow.run(kv.modRevision, kv.key, created ? 1 : 0, deleted ? 1 : 0, kv.createRevision, prevRevision, kv.value);
  }

  function published(ev: StorageEvent): void {
    revision = ev.kv.modRevision;
    hub.publish(ev);
  }

  // Group commit: the writes that arrive in one turn of the event loop run together in one transaction at its end,
  // each in order on the state the ones before it left, and are acknowledged (and published) once it commits. A
  // transaction costs about as much as three inserts, so concurrent writers share it. Nothing of a write is visible
  // before its commit.
  interface PendingWrite {
    /** Runs inside the transaction at the given revision; throws a StorageError to fail alone. */
    readonly run: (rev: number) => StorageEvent;
    readonly resolve: (ev: StorageEvent) => void;
    readonly reject: (err: unknown) => void;
  }
  let pending: PendingWrite[] = [];

  function write(run: PendingWrite['run']): Promise<StorageEvent> {
    checkOpen();
    return new Promise((resolve, reject) => {
      pending.push({ run, resolve, reject });
      if (pending.length === 1) setImmediate(commitPending);
    });
  }

  function commitPending(): void {
    const writes = pending;
    pending = [];
    if (writes.length === 0) return;
    if (state.closed) {
      for (const w of writes) w.reject(unavailable('storage is closed'));
      return;
    }
    const outcomes: ({ ev: StorageEvent } | { err: unknown })[] = [];
    let rev = revision;
    try {
      begin.run();
      for (const w of writes) {
        try {
          outcomes.push({ ev: w.run(rev + 1) });
          rev++;
        } catch (err) {
          // A refused write (exists, not found, conflict) changed nothing; anything else fails the whole batch.
          if (!(err instanceof StorageError)) throw err;
          outcomes.push({ err });
        }
      }
      commitTx.run();
    } catch (err) {
      rollbackOpen();
      for (const w of writes) w.reject(err);
      return;
    }
    writes.forEach((w, i) => {
      const outcome = outcomes[i]!;
      if ('err' in outcome) {
        w.reject(outcome.err);
        return;
      }
      const ev = outcome.ev;
      if (ev.type === 'delete') live.delete(ev.kv.key);
      else if (ev.prevKv === undefined) live.add(ev.kv.key);
      published(ev);
      w.resolve(ev);
    });
  }

  return {
    name: 'sqlite',
    path,

    async get(key, rev): Promise<GetResult> {
      checkOpen();
      const at = readRevision(key, rev, revision, compacted);
      const row = (at === revision ? selectNewest.get(key) : selectNewestAt.get(key, at)) as NewestRow | undefined;
      return { kv: row === undefined || row.deleted === 1 ? undefined : rowKv(key, row), revision: at };
    },

    async range(prefix, opts: RangeOptions = {}): Promise<RangeResult> {
      checkOpen();
      const at = readRevision(prefix, opts.revision, revision, compacted);
      const start = rangeStart(prefix, opts.startKey);
      const limit = opts.limit !== undefined && opts.limit > 0 ? opts.limit : -1;
      const end = prefixEndUtf8(prefix);
      const rows = selectRange.all(start, end, at, at, limit) as unknown as RangeRow[];
      const kvs: KeyValue[] = rows.map((r) => ({ key: r.name, value: r.value, createRevision: r.create_revision, modRevision: r.id }));
      let remaining = 0;
      if (limit > 0 && kvs.length === limit) {
        const last = kvs[kvs.length - 1].key;
        remaining =
          at === revision
            ? live.rank(prefixEnd(prefix)) - live.rank(last) - 1
            : Number((countAfter.get(last, end, at) as { n: number }).n);
      }
      return { kvs, more: remaining > 0, remaining, revision: at };
    },

    async count(prefix) {
      checkOpen();
      return live.rank(prefixEnd(prefix)) - live.rank(prefix);
    },

    async create(key, value) {
      const ev = await write((rev) => {
        const row = newest(key);
        if (row !== undefined && row.deleted === 0) throw keyExists(key, rowKv(key, row));
        const kv: KeyValue = { key, value, createRevision: rev, modRevision: rev };
        appendRow(kv, true, false, row?.id ?? 0);
        return { type: 'put', kv };
      });
      return ev.kv;
    },

    async update(key, value, expectedModRevision) {
      const ev = await write((rev) => {
        const { row, current } = guardedRow(key, expectedModRevision);
        const kv: KeyValue = { key, value, createRevision: row.create_revision, modRevision: rev };
        appendRow(kv, false, false, row.id);
        return { type: 'put', kv, prevKv: current };
      });
      return ev.kv;
    },

    async delete(key, expectedModRevision) {
      const ev = await write((rev) => {
        const { row, current } = guardedRow(key, expectedModRevision);
        const kv: KeyValue = { key, value: row.value, createRevision: row.create_revision, modRevision: rev };
        appendRow(kv, false, true, row.id);
        return { type: 'delete', kv, prevKv: current };
      });
      return ev.kv;
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
      commitPending();
      if (!compactionNeeded(rev, compacted, revision)) return;
      transaction(() => {
        compactRows.run(compacted, rev);
        upsertMeta.run('compact_revision', rev);
      });
      compacted = rev;
    },

    watch: state.watch,

    async snapshot(): Promise<StorageSnapshot> {
      checkOpen();
      const rows = selectRange.all('', '\u{10ffff}', revision, revision, -1) as unknown as RangeRow[];
      return { revision, kvs: rows.map((r) => ({ key: r.name, value: r.value, createRevision: r.create_revision, modRevision: r.id })) };
    },

    async restore(snap) {
      checkOpen();
      // Writes taken before the restore land before it, as they were asked for.
      commitPending();
      const first = revision + 1;
      const last = Math.max(first, revision + snap.kvs.length);
      transaction(() => {
        deleteAll.run();
        let rev = revision;
        for (const kv of snap.kvs) {
          rev++;
          insertRow.run(rev, kv.key, 1, 0, rev, 0, kv.value);
        }
        upsertMeta.run('compact_revision', last);
      });
      const fresh = new SortedKeys();
      for (const kv of snap.kvs) fresh.add(kv.key);
      live = fresh;
      revision = last;
      compacted = last;
      hub.closeAll(compactedError('', last, last));
      return last;
    },

    async ready() {
      if (state.closed) return false;
      selectMeta.get('schema_version');
      return true;
    },

    async close() {
      // Writes already taken are committed (and answered) before the file closes.
      if (!state.closed) commitPending();
      if (state.close()) db.close();
    },

    watcherCount: () => hub.watcherCount(),
  };
}
