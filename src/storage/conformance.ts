// The backend-independent conformance suite: every Storage backend must pass it unchanged.
// A backend's test file calls runStorageConformance(name, open), where open() yields a fresh, empty store.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KeyValue, Storage, StorageErrorCode, StorageEvent, WatchHandle } from './types.ts';
import { StorageError } from './types.ts';

interface Recorder {
  readonly events: StorageEvent[];
  readonly errors: StorageError[];
  readonly handle: WatchHandle;
  /** Resolves once pred holds (checked after each delivery), rejects after timeoutMs. */
  until(pred: () => boolean, timeoutMs?: number): Promise<void>;
}

function record(storage: Storage, prefix: string, fromRevision: number, onBatch?: (events: StorageEvent[]) => void): Recorder {
  const events: StorageEvent[] = [];
  const errors: StorageError[] = [];
  let wake: (() => void) | undefined;
  const handle = storage.watch(prefix, fromRevision, {
    onEvents(batch) {
      onBatch?.(batch);
      events.push(...batch);
      wake?.();
    },
    onError(err) {
      errors.push(err);
      wake?.();
    },
  });
  return {
    events,
    errors,
    handle,
    async until(pred, timeoutMs = 3000) {
      const deadline = Date.now() + timeoutMs;
      while (!pred()) {
        const left = deadline - Date.now();
        if (left <= 0) throw new Error(`watch condition not met in ${timeoutMs} ms (events: ${events.length}, errors: ${errors.length})`);
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, left);
          wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
        wake = undefined;
      }
    },
  };
}

/** Lets a few event-loop turns pass (watch deliveries are batched per turn). */
async function turns(n = 5): Promise<void> {
  for (let i = 0; i < n; i++) await new Promise((resolve) => setImmediate(resolve));
}

async function rejectsWith(promise: Promise<unknown>, code: StorageErrorCode): Promise<StorageError> {
  try {
    await promise;
  } catch (err) {
    assert.ok(err instanceof StorageError, `expected a StorageError, got ${String(err)}`);
    assert.equal(err.code, code, err.message);
    return err;
  }
  assert.fail(`expected StorageError ${code}, but the call succeeded`);
}

function revs(events: readonly StorageEvent[]): number[] {
  return events.map((e) => e.kv.modRevision);
}

function kv(key: string, value: string, createRevision: number, modRevision: number): KeyValue {
  return { key, value, createRevision, modRevision };
}

export function runStorageConformance(name: string, open: () => Promise<Storage>): void {
  /** Runs body with a fresh store, closing it afterwards. */
  const withStore = (body: (s: Storage) => Promise<void>) => async () => {
    const s = await open();
    try {
      await body(s);
    } finally {
      await s.close();
    }
  };

  test(`${name}: a fresh store is empty at revision 0 and ready`, withStore(async (s) => {
    assert.equal(await s.currentRevision(), 0);
    assert.equal(s.compactedRevision(), 0);
    assert.equal(await s.ready(), true);
    assert.deepEqual(await s.get('/a'), { kv: undefined, revision: 0 });
    assert.deepEqual(await s.range('/'), { kvs: [], more: false, remaining: 0, revision: 0 });
    assert.equal(await s.count('/'), 0);
  }));

  test(`${name}: create stores at the next revision; a second create is KeyExists and changes nothing`, withStore(async (s) => {
    const a = await s.create('/r/a', 'v1');
    assert.deepEqual(a, kv('/r/a', 'v1', 1, 1));
    const b = await s.create('/r/b', 'v2');
    assert.deepEqual(b, kv('/r/b', 'v2', 2, 2));
    const err = await rejectsWith(s.create('/r/a', 'other'), 'KeyExists');
    assert.equal(err.key, '/r/a');
    assert.equal(await s.currentRevision(), 2);
    assert.deepEqual(await s.get('/r/a'), { kv: a, revision: 2 });
    const c = await s.create('/r/c', '');
    assert.deepEqual(c, kv('/r/c', '', 3, 3), 'an empty value is a value');
  }));

  test(`${name}: get reads the current value or the value at an older revision`, withStore(async (s) => {
    const v1 = await s.create('/g/x', 'one');
    const other = await s.create('/g/y', 'y');
    const v2 = await s.update('/g/x', 'two', v1.modRevision);
    const deleted = await s.delete('/g/x');
    assert.deepEqual(await s.get('/g/x', v1.modRevision), { kv: v1, revision: 1 });
    assert.deepEqual(await s.get('/g/x', other.modRevision), { kv: v1, revision: 2 });
    assert.deepEqual(await s.get('/g/x', v2.modRevision), { kv: v2, revision: 3 });
    assert.deepEqual(await s.get('/g/x', deleted.modRevision), { kv: undefined, revision: 4 });
    assert.deepEqual(await s.get('/g/x'), { kv: undefined, revision: 4 });
    assert.deepEqual(await s.get('/g/y', 1), { kv: undefined, revision: 1 });
    const again = await s.create('/g/x', 'three');
    assert.deepEqual(again, kv('/g/x', 'three', 5, 5), 'a re-created key starts a new life');
    assert.deepEqual((await s.get('/g/x', 3)).kv, v2);
    const future = await rejectsWith(s.get('/g/x', 6), 'FutureRevision');
    assert.equal(future.revision, 5);
  }));

  test(`${name}: update is guarded by the mod revision; a Conflict carries the current kv`, withStore(async (s) => {
    const v1 = await s.create('/u/x', 'one');
    await s.create('/u/other', 'o');
    const v2 = await s.update('/u/x', 'two', v1.modRevision);
    assert.deepEqual(v2, kv('/u/x', 'two', 1, 3));
    const conflict = await rejectsWith(s.update('/u/x', 'stale', v1.modRevision), 'Conflict');
    assert.equal(conflict.key, '/u/x');
    assert.deepEqual(conflict.current, v2);
    await rejectsWith(s.update('/u/missing', 'x', 1), 'NotFound');
    assert.equal(await s.currentRevision(), 3, 'failed updates do not take a revision');
    assert.deepEqual((await s.get('/u/x')).kv, v2);
    await s.delete('/u/x');
    await rejectsWith(s.update('/u/x', 'after delete', 4), 'NotFound');
  }));

  test(`${name}: delete returns the last value at the deletion revision, guarded when asked`, withStore(async (s) => {
    const v1 = await s.create('/d/x', 'one');
    const v2 = await s.update('/d/x', 'two', v1.modRevision);
    const conflict = await rejectsWith(s.delete('/d/x', v1.modRevision), 'Conflict');
    assert.deepEqual(conflict.current, v2);
    assert.equal(await s.currentRevision(), 2);
    const gone = await s.delete('/d/x', v2.modRevision);
    assert.deepEqual(gone, kv('/d/x', 'two', 1, 3));
    await rejectsWith(s.delete('/d/x'), 'NotFound');
    await rejectsWith(s.delete('/d/never', 1), 'NotFound');
    await s.create('/d/y', 'y');
    assert.deepEqual(await s.delete('/d/y'), kv('/d/y', 'y', 4, 5), 'unguarded delete');
    assert.equal(await s.currentRevision(), 5);
    assert.equal(await s.count('/d/'), 0);
  }));

  test(`${name}: range matches by prefix, ascending by key`, withStore(async (s) => {
    for (const key of ['/a/bc', '/a/b/2', '/a/b', '/a/b/1', '/a/b/x/y', '/a/c/1', '/b/1', '/a/b/']) await s.create(key, `v${key}`);
    const keysOf = (r: { kvs: KeyValue[] }) => r.kvs.map((k) => k.key);
    const under = await s.range('/a/b/');
    assert.deepEqual(keysOf(under), ['/a/b/', '/a/b/1', '/a/b/2', '/a/b/x/y']);
    assert.deepEqual(under.kvs[1], kv('/a/b/1', 'v/a/b/1', 4, 4));
    assert.equal(under.more, false);
    assert.equal(under.remaining, 0);
    assert.equal(under.revision, 8);
    assert.deepEqual(keysOf(await s.range('/a/b')), ['/a/b', '/a/b/', '/a/b/1', '/a/b/2', '/a/b/x/y', '/a/bc']);
    assert.deepEqual(keysOf(await s.range('/a/c/')), ['/a/c/1']);
    assert.deepEqual(keysOf(await s.range('/z/')), []);
    assert.equal((await s.range('')).kvs.length, 8, 'the empty prefix matches every key');
    assert.equal(await s.count('/a/b/'), 4);
    assert.equal(await s.count('/a/'), 7);
    assert.equal(await s.count(''), 8);
    await s.delete('/a/b/1');
    assert.deepEqual(keysOf(await s.range('/a/b/')), ['/a/b/', '/a/b/2', '/a/b/x/y']);
    assert.equal(await s.count('/a/b/'), 3);
  }));

  test(`${name}: startKey and limit page through a fixed revision while writes continue`, withStore(async (s) => {
    const key = (i: number) => `/p/k${String(i).padStart(3, '0')}`;
    for (let i = 0; i < 25; i++) await s.create(key(i), `v${i}`);
    await s.create('/q/outside', 'x');
    const snapshot = await s.range('/p/');
    assert.equal(snapshot.kvs.length, 25);
    const at = snapshot.revision;
    const pages: { keys: string[]; more: boolean; remaining: number; revision: number }[] = [];
    let startKey: string | undefined;
    for (;;) {
      const page = await s.range('/p/', { revision: at, startKey, limit: 10 });
      pages.push({ keys: page.kvs.map((k) => k.key), more: page.more, remaining: page.remaining, revision: page.revision });
      // Writes between pages: they must not show in the pinned revision.
      await s.create(key(100 + pages.length), 'new');
      await s.delete(key(pages.length * 3));
      const top = (await s.get(key(24))).kv!;
      await s.update(key(24), `changed${pages.length}`, top.modRevision);
      if (!page.more) break;
      startKey = page.kvs[page.kvs.length - 1].key + '\u0000';
    }
    assert.deepEqual(pages.map((p) => [p.keys.length, p.more, p.remaining, p.revision]), [
      [10, true, 15, at],
      [10, true, 5, at],
      [5, false, 0, at],
    ]);
    assert.deepEqual(pages.flatMap((p) => p.keys), snapshot.kvs.map((k) => k.key));
    const last = await s.range('/p/', { revision: at, startKey: key(24) });
    assert.deepEqual(last.kvs, [snapshot.kvs[24]], 'values are those of the pinned revision');

    // Paging at the current revision counts exactly what is live now.
    const liveNow = await s.count('/p/');
    const first = await s.range('/p/', { limit: 4 });
    assert.equal(first.kvs.length, 4);
    assert.equal(first.remaining, liveNow - 4);
    assert.equal(first.more, true);
    const exact = await s.range('/p/', { limit: liveNow });
    assert.equal(exact.more, false, 'a limit equal to the count leaves nothing more');
    assert.equal(exact.remaining, 0);
    const tail = await s.range('/p/', { startKey: first.kvs[3].key, limit: 2 });
    assert.deepEqual(tail.kvs[0], first.kvs[3], 'startKey is inclusive');
    assert.equal(tail.remaining, liveNow - 5);
  }));

  test(`${name}: startKey outside the prefix: before it reads from the prefix, after it reads nothing`, withStore(async (s) => {
    await s.create('/s/a', 'a');
    await s.create('/s/b', 'b');
    await s.create('/t/a', 'a');
    assert.deepEqual((await s.range('/s/', { startKey: '/a' })).kvs.map((k) => k.key), ['/s/a', '/s/b']);
    assert.deepEqual(await s.range('/s/', { startKey: '/t/' }), { kvs: [], more: false, remaining: 0, revision: 3 });
    assert.deepEqual((await s.range('/s/', { startKey: '/s/b', limit: 0 })).kvs.map((k) => k.key), ['/s/b'], 'limit 0: no limit');
  }));

  test(`${name}: range at an older revision sees the keys and values of that time`, withStore(async (s) => {
    await s.create('/h/a', 'a1');
    await s.create('/h/b', 'b1');
    await s.create('/h/c', 'c1');
    const at = await s.currentRevision();
    await s.update('/h/a', 'a2', 1);
    await s.delete('/h/b');
    await s.create('/h/d', 'd1');
    const old = await s.range('/h/', { revision: at });
    assert.deepEqual(old.kvs, [kv('/h/a', 'a1', 1, 1), kv('/h/b', 'b1', 2, 2), kv('/h/c', 'c1', 3, 3)]);
    const paged = await s.range('/h/', { revision: at, limit: 1 });
    assert.deepEqual([paged.kvs.map((k) => k.key), paged.more, paged.remaining], [['/h/a'], true, 2]);
    const now = await s.range('/h/');
    assert.deepEqual(now.kvs.map((k) => [k.key, k.value]), [['/h/a', 'a2'], ['/h/c', 'c1'], ['/h/d', 'd1']]);
    await rejectsWith(s.range('/h/', { revision: 99 }), 'FutureRevision');
  }));

  test(`${name}: compaction drops history below it; reads and watches there fail with Compacted`, withStore(async (s) => {
    const a1 = await s.create('/c/a', 'a1'); // 1
    await s.create('/c/b', 'b1'); // 2
    const a2 = await s.update('/c/a', 'a2', a1.modRevision); // 3
    await s.delete('/c/b'); // 4
    const c1 = await s.create('/c/c', 'c1'); // 5
    const a3 = await s.update('/c/a', 'a3', a2.modRevision); // 6
    await s.compact(4);
    assert.equal(s.compactedRevision(), 4);
    const below = await rejectsWith(s.get('/c/a', 3), 'Compacted');
    assert.equal(below.revision, 4);
    await rejectsWith(s.range('/c/', { revision: 2 }), 'Compacted');
    assert.deepEqual(await s.get('/c/a', 4), { kv: a2, revision: 4 }, 'the compacted revision itself stays readable');
    assert.deepEqual(await s.get('/c/b', 4), { kv: undefined, revision: 4 });
    assert.deepEqual((await s.range('/c/', { revision: 5 })).kvs, [a2, c1]);
    assert.deepEqual((await s.range('/c/')).kvs, [a3, c1]);
    assert.equal(await s.count('/c/'), 2);

    const early = record(s, '/c/', 3);
    await early.until(() => early.errors.length > 0);
    assert.equal(early.errors[0].code, 'Compacted');
    assert.equal(early.errors[0].revision, 4);
    assert.deepEqual(early.events, []);
    const atCompacted = record(s, '/c/', 4);
    await atCompacted.until(() => atCompacted.events.length >= 2);
    assert.deepEqual(atCompacted.events, [
      { type: 'put', kv: c1 },
      { type: 'put', kv: a3, prevKv: a2 },
    ], 'history above the compacted revision replays with prevKv');
    atCompacted.handle.stop();

    await s.compact(2); // below: nothing to do
    assert.equal(s.compactedRevision(), 4);
    await rejectsWith(s.compact(7), 'FutureRevision');
    await s.compact(6);
    assert.deepEqual((await s.get('/c/a', 6)).kv, a3);
    await rejectsWith(s.get('/c/a', 5), 'Compacted');
    // A key deleted and compacted away can be created again, and the revision keeps counting.
    assert.deepEqual(await s.create('/c/b', 'b2'), kv('/c/b', 'b2', 7, 7));
  }));

  test(`${name}: watch delivers matching events in revision order, asynchronously, with prevKv and deletes carrying the last value`, withStore(async (s) => {
    const w = record(s, '/w/', 0);
    const other = record(s, '/x/', 0);
    let inWrite = false;
    const sawInWrite: boolean[] = [];
    const probe = record(s, '', 0, () => sawInWrite.push(inWrite));
    const run = async <T>(write: () => Promise<T>) => {
      inWrite = true;
      const p = write();
      inWrite = false;
      return p;
    };
    const a1 = await run(() => s.create('/w/a', 'a1'));
    const x1 = await run(() => s.create('/x/1', 'x'));
    const a2 = await run(() => s.update('/w/a', 'a2', a1.modRevision));
    const b1 = await run(() => s.create('/w/b', 'b1'));
    const aDel = await run(() => s.delete('/w/a'));
    await run(() => s.create('/wx', 'outside')).catch(() => undefined);
    await w.until(() => w.events.length >= 4);
    assert.deepEqual(w.events, [
      { type: 'put', kv: a1 },
      { type: 'put', kv: a2, prevKv: a1 },
      { type: 'put', kv: b1 },
      { type: 'delete', kv: kv('/w/a', 'a2', 1, 5), prevKv: a2 },
    ]);
    assert.deepEqual(aDel, kv('/w/a', 'a2', 1, 5));
    await other.until(() => other.events.length >= 1);
    assert.deepEqual(other.events, [{ type: 'put', kv: x1 }]);
    await probe.until(() => probe.events.length >= 6);
    assert.deepEqual(revs(probe.events), [1, 2, 3, 4, 5, 6]);
    assert.ok(sawInWrite.every((v) => v === false), 'no event is delivered inside a write call');
    for (const r of [w, other, probe]) assert.deepEqual(r.errors, []);
  }));

  test(`${name}: writes of one event-loop turn reach a watcher as one batch`, withStore(async (s) => {
    const batches: number[][] = [];
    const w = record(s, '/batch/', 0, (events) => batches.push(revs(events)));
    const made = await Promise.all([s.create('/batch/a', '1'), s.create('/batch/b', '1'), s.create('/other', '1'), s.create('/batch/c', '1')]);
    await w.until(() => w.events.length === 3);
    await s.create('/batch/d', '1');
    await w.until(() => w.events.length === 4);
    // Concurrent writes may commit in any order (etcd orders them as they arrive); each batch is in revision order.
    const mine = made.filter((kv) => kv.key.startsWith('/batch/')).map((kv) => kv.modRevision).sort((x, y) => x - y);
    assert.deepEqual(batches, [mine, [5]]);
  }));

  test(`${name}: failed writes emit no events and take no revision`, withStore(async (s) => {
    const w = record(s, '/f/', 0);
    const a = await s.create('/f/a', 'a');
    await rejectsWith(s.create('/f/a', 'again'), 'KeyExists');
    await rejectsWith(s.update('/f/a', 'x', 99), 'Conflict');
    await rejectsWith(s.update('/f/none', 'x', 1), 'NotFound');
    await rejectsWith(s.delete('/f/a', 99), 'Conflict');
    await rejectsWith(s.delete('/f/none'), 'NotFound');
    const b = await s.create('/f/b', 'b');
    assert.equal(b.modRevision, a.modRevision + 1);
    await w.until(() => w.events.length >= 2);
    await turns();
    assert.deepEqual(revs(w.events), [1, 2]);
  }));

  test(`${name}: a watch from an old revision replays history then goes live, no gap and no duplicate under concurrent writes`, withStore(async (s) => {
    const writes: Promise<void>[] = [];
    const expected = new Map<number, string>(); // revision -> key, for every write
    const key = (i: number) => (i % 3 === 0 ? `/other/${i % 17}` : `/rw/${i % 23}`);
    const mod = new Map<string, number>();
    const writeOne = async (i: number) => {
      const k = key(i);
      const prev = mod.get(k);
      const res = prev === undefined ? await s.create(k, `v${i}`) : i % 5 === 0 ? await s.delete(k, prev) : await s.update(k, `v${i}`, prev);
      if (prev !== undefined && i % 5 === 0) mod.delete(k);
      else mod.set(k, res.modRevision);
      expected.set(res.modRevision, k);
    };
    // A watcher from the start keeps events queued in the broadcaster while the others replay and join.
    const background = record(s, '', 0);
    let i = 0;
    for (; i < 120; i++) await writeOne(i);
    const from = 37;
    let watchers: Recorder[] = [];
    const writer = (async () => {
      for (; i < 400; i++) {
        await writeOne(i);
        if (i === 150) watchers = [record(s, '/rw/', from), record(s, '/rw/', 0), record(s, '/rw/', 150)];
        if (i % 7 === 0) await new Promise((resolve) => setImmediate(resolve));
      }
    })();
    writes.push(writer);
    await Promise.all(writes);
    const top = await s.currentRevision();
    const want = (after: number) => [...expected].filter(([rev, k]) => rev > after && k.startsWith('/rw/')).map(([rev]) => rev).sort((x, y) => x - y);
    for (const [n, startedFrom] of [[0, from], [1, 0], [2, 150]] as const) {
      const w = watchers[n];
      await w.until(() => w.events.length > 0 && w.events[w.events.length - 1].kv.modRevision >= want(startedFrom).at(-1)!);
      assert.deepEqual(revs(w.events), want(startedFrom), `watch from ${startedFrom}`);
      assert.deepEqual(w.errors, []);
      w.handle.stop();
    }
    assert.equal(top, 400);
    await background.until(() => background.events.length === 400);
    assert.deepEqual(revs(background.events), Array.from({ length: 400 }, (_, j) => j + 1));
  }));

  test(`${name}: a watch from a future revision only sees events after it`, withStore(async (s) => {
    await s.create('/fw/a', '1');
    const w = record(s, '/fw/', 3);
    for (let i = 0; i < 4; i++) await s.create(`/fw/k${i}`, String(i));
    await w.until(() => w.events.length >= 2);
    await turns();
    assert.deepEqual(revs(w.events), [4, 5]);
  }));

  test(`${name}: compaction racing a long replay ends the watch with Compacted, after a gap-free prefix`, withStore(async (s) => {
    for (let i = 0; i < 2500; i++) await s.create(`/big/${i}`, 'v');
    const w = record(s, '/big/', 0);
    await s.compact(2000);
    await w.until(() => w.errors.length > 0);
    assert.equal(w.errors[0].code, 'Compacted');
    const got = revs(w.events);
    assert.deepEqual(got, Array.from({ length: got.length }, (_, j) => j + 1));
    assert.ok(got.length < 2500);
  }));

  test(`${name}: stop() ends delivery and frees the watcher; many watchers share events`, withStore(async (s) => {
    const count = () => (s as { watcherCount?: () => number }).watcherCount?.();
    const before = count();
    const a = record(s, '/st/', 0);
    const b = record(s, '/st/', 0);
    const c = record(s, '/st/x', 0);
    if (before !== undefined) assert.equal(count(), before + 3);
    await s.create('/st/x1', '1');
    await s.create('/st/y1', '1');
    await a.until(() => a.events.length === 2);
    await b.until(() => b.events.length === 2);
    await c.until(() => c.events.length === 1);
    a.handle.stop();
    a.handle.stop();
    if (before !== undefined) assert.equal(count(), before + 2);
    await s.create('/st/x2', '2');
    await b.until(() => b.events.length === 3);
    await c.until(() => c.events.length === 2);
    await turns();
    assert.equal(a.events.length, 2, 'a stopped watch gets nothing more');
    b.handle.stop();
    c.handle.stop();
    if (before !== undefined) assert.equal(count(), before);
    assert.deepEqual([a.errors, b.errors, c.errors], [[], [], []]);
  }));

  test(`${name}: a watcher whose callback throws is ended with Unavailable; others go on`, withStore(async (s) => {
    const errors: StorageError[] = [];
    let calls = 0;
    const originalEmit = process.emitWarning;
    const warnings: string[] = [];
    process.emitWarning = ((w: string | Error) => void warnings.push(String(w))) as typeof process.emitWarning;
    try {
      s.watch('/t/', 0, {
        onEvents() {
          calls++;
          throw new Error('consumer bug');
        },
        onError(err) {
          errors.push(err);
        },
      });
      const good = record(s, '/t/', 0);
      await s.create('/t/a', 'a');
      await good.until(() => good.events.length === 1 && errors.length === 1);
      await s.create('/t/b', 'b');
      await good.until(() => good.events.length === 2);
      await turns();
      assert.equal(calls, 1);
      assert.equal(errors[0].code, 'Unavailable');
      assert.match(warnings.join('\n'), /consumer bug/);
    } finally {
      process.emitWarning = originalEmit;
    }
  }));

  test(`${name}: restore brings back the snapshot's keys at new revisions, compacts history and ends watches`, withStore(async (s) => {
    if (!s.snapshot || !s.restore) return;
    await s.create('/r/a', 'a1');
    const b = await s.create('/r/b', 'b1');
    const snap = await s.snapshot();
    assert.deepEqual(snap.kvs.map((kv) => [kv.key, kv.value]), [['/r/a', 'a1'], ['/r/b', 'b1']]);
    await s.update('/r/b', 'b2', b.modRevision);
    await s.delete('/r/a');
    await s.create('/r/c', 'c1');
    const before = await s.currentRevision();
    const w = record(s, '/r/', before);
    const rev = await s.restore(snap);
    assert.equal(rev, before + 2);
    assert.equal(await s.currentRevision(), rev);
    assert.equal(s.compactedRevision(), rev);
    await w.until(() => w.errors.length === 1);
    assert.equal(w.errors[0].code, 'Compacted');
    const now = await s.range('/r/');
    assert.deepEqual(now.kvs.map((kv) => [kv.key, kv.value, kv.modRevision]), [['/r/a', 'a1', before + 1], ['/r/b', 'b1', before + 2]]);
    assert.equal(await s.count('/r/'), 2);
    await rejectsWith(s.get('/r/a', before), 'Compacted');
    // Writes go on from the restored state; a watch from the restore revision sees them.
    const after = record(s, '/r/', rev);
    await s.update('/r/a', 'a2', before + 1);
    await after.until(() => after.events.length === 1);
    assert.equal(after.events[0].kv.modRevision, rev + 1);
    after.handle.stop();
    // An empty snapshot empties the store and still moves the revision forward.
    const empty = await s.restore({ revision: 0, kvs: [] });
    assert.equal(empty, rev + 2);
    assert.equal((await s.range('/r/')).kvs.length, 0);
  }));

  test(`${name}: close() ends watches with Unavailable and later calls fail`, async () => {
    const s = await open();
    await s.create('/cl/a', 'a');
    const w = record(s, '/cl/', 0);
    await w.until(() => w.events.length === 1);
    await s.close();
    await w.until(() => w.errors.length === 1);
    assert.equal(w.errors[0].code, 'Unavailable');
    await rejectsWith(s.get('/cl/a'), 'Unavailable');
    await rejectsWith(s.create('/cl/b', 'b'), 'Unavailable');
    assert.equal(await s.ready(), false);
    const late = record(s, '/cl/', 0);
    await late.until(() => late.errors.length === 1);
    assert.equal(late.errors[0].code, 'Unavailable');
    await s.close();
  });
}
