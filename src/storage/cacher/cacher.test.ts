import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createMemoryStorage } from '../memory/memory-storage.ts';
import type { KeyValue, Storage, WatchCallbacks } from '../types.ts';
import { StorageError } from '../types.ts';
import { createCacher } from './cacher.ts';
import { cacherStats } from './stats.ts';
import { CacheTooLargeError, CacheTooOldError, type CacheFilter, type CacheWatchEvent, type Cacher } from './types.ts';

type Attrs = { color: string | undefined };
const attributes = (kv: KeyValue): Attrs => ({ color: (JSON.parse(kv.value) as { color?: string }).color });
const P = '/registry/widgets/';
const val = (color: string, n = 0) => JSON.stringify({ color, n });

async function ready<A>(c: Cacher<A>): Promise<void> {
  assert.equal(await c.waitReady(1000), true);
}

const tick = () => new Promise<void>((r) => setImmediate(r));
async function until(cond: () => boolean, ms = 1000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 2));
  }
}

function show(ev: CacheWatchEvent<Attrs>): string {
  if (ev.type === 'BOOKMARK') return `BOOKMARK ${ev.revision}${ev.initialEventsEnd ? ' end' : ''}`;
  return `${ev.type} ${ev.object.kv.key.slice(P.length)} ${ev.revision}`;
}

function collect(c: Cacher<Attrs>, req: Partial<Parameters<Cacher<Attrs>['watch']>[0]>) {
  const events: string[] = [];
  const ends: string[] = [];
  const h = c.watch({ prefix: P, filter: undefined, start: 'state', bookmarks: false, ...req, onEvent: (ev) => void events.push(show(ev)), onEnd: (r) => void ends.push(r) });
  return { events, ends, h };
}

const red: CacheFilter<Attrs> = { key: 'color=red', matches: (o) => o.attrs.color === 'red' };

test('loads the current objects, serves lists in key order at its revision, and follows changes', async () => {
  const s = createMemoryStorage();
  await s.create(`${P}ns/b`, val('red'));
  await s.create(`${P}ns/a`, val('blue'));
  await s.create('/registry/other/x', '{}');
  const c = createCacher({ storage: s, prefix: P, attributes });
  await ready(c);
  assert.deepEqual(c.list(P).objects.map((o) => o.kv.key), [`${P}ns/a`, `${P}ns/b`]);
  assert.equal(c.list(P).revision, 3);
  assert.deepEqual(c.list(P, red).objects.map((o) => o.kv.key), [`${P}ns/b`]);
  await s.create(`${P}other/c`, val('red'));
  await until(() => c.revision() === 4);
  assert.deepEqual(c.list(`${P}ns/`).objects.length, 2);
  assert.equal(c.get(`${P}other/c`)?.attrs.color, 'red');
  c.stop();
});

test('a watch from the current state sends ADDED for each object, then the changes after the snapshot', async () => {
  const s = createMemoryStorage();
  await s.create(`${P}ns/a`, val('red'));
  const c = createCacher({ storage: s, prefix: P, attributes });
  await ready(c);
  const w = collect(c, {});
  const b = await s.create(`${P}ns/b`, val('red'));
  await s.update(`${P}ns/b`, val('red', 1), b.modRevision);
  await s.delete(`${P}ns/a`);
  await until(() => w.events.length === 4);
  assert.deepEqual(w.events, ['ADDED ns/a 1', 'ADDED ns/b 2', 'MODIFIED ns/b 3', 'DELETED ns/a 4']);
  w.h.stop();
  assert.equal(c.watcherCount(), 0);
  c.stop();
});

test('a watch from a revision replays exactly the later events; a revision before the window is too old', async () => {
  const s = createMemoryStorage();
  let clock = 1000;
  const c = createCacher({ storage: s, prefix: P, attributes, historyWindowMs: 100, now: () => clock });
  await ready(c);
  for (let i = 0; i < 5; i++) await s.create(`${P}ns/o${i}`, val('red'));
  await until(() => c.revision() === 5);
  const w = collect(c, { start: 3 });
  await until(() => w.events.length === 2);
  assert.deepEqual(w.events, ['ADDED ns/o3 4', 'ADDED ns/o4 5']);
  // Nothing evicted yet: every revision since the initial list (0) is watchable.
  collect(c, { start: 0 }).h.stop();
  clock += 500;
  await s.create(`${P}ns/o5`, val('red'));
  await until(() => c.revision() === 6);
  // Events older than the window left the ring; the newest one stays.
  assert.equal(c.size().events, 1);
  assert.throws(() => c.watch({ prefix: P, filter: undefined, start: 4, bookmarks: false, onEvent() {}, onEnd() {} }), (e: unknown) => e instanceof CacheTooOldError && e.message === 'too old resource version: 4 (5)');
  const ok = collect(c, { start: 5 });
  await tick();
  assert.deepEqual(ok.events, ['ADDED ns/o5 6']);
  c.stop();
  assert.deepEqual(w.ends, ['closed']);
});

test('selector transitions: entering the selection is ADDED, leaving it DELETED with the old state', async () => {
  const s = createMemoryStorage();
  const c = createCacher({ storage: s, prefix: P, attributes });
  await ready(c);
  const w = collect(c, { filter: red, start: 0 });
  const a = await s.create(`${P}ns/a`, val('blue'));
  const a2 = await s.update(`${P}ns/a`, val('red'), a.modRevision);
  const a3 = await s.update(`${P}ns/a`, val('red', 2), a2.modRevision);
  const a4 = await s.update(`${P}ns/a`, val('blue', 3), a3.modRevision);
  await s.delete(`${P}ns/a`);
  await until(() => w.events.length === 3);
  await tick();
  assert.deepEqual(w.events, ['ADDED ns/a 2', 'MODIFIED ns/a 3', 'DELETED ns/a 4']);
  assert.equal(a4.modRevision, 4);
  c.stop();
});

test('waitFresh catches up through progress notifications when the last writes went elsewhere', async () => {
  const s = createMemoryStorage();
  const c = createCacher({ storage: s, prefix: P, attributes });
  await ready(c);
  for (let i = 0; i < 3; i++) await s.create(`/registry/other/${i}`, '{}');
  const current = await s.currentRevision();
  await c.waitFresh(current, 1000);
  assert.equal(c.revision(), current);
  await assert.rejects(c.waitFresh(current + 10, 50), (e: unknown) => e instanceof CacheTooLargeError && e.message === `Too large resource version: ${current + 10}, current: ${current}`);
  c.stop();
});

test('bookmarks: periodic, only at a newer revision, and the initial-events-end bookmark after the snapshot', async () => {
  const s = createMemoryStorage();
  await s.create(`${P}ns/a`, val('red'));
  const c = createCacher({ storage: s, prefix: P, attributes, bookmarkIntervalMs: 20 });
  await ready(c);
  const w = collect(c, { initialEventsEnd: true, bookmarks: true });
  await until(() => w.events.length === 2);
  assert.deepEqual(w.events, ['ADDED ns/a 1', 'BOOKMARK 1 end']);
  await new Promise((r) => setTimeout(r, 80));
  assert.equal(w.events.length, 2, 'no bookmark without a newer revision');
  await s.create('/registry/other/x', '{}');
  await until(() => w.events.length === 3);
  assert.equal(w.events[2], 'BOOKMARK 2');
  c.stop();
});

test('a paused watcher queues events until resumed, and is dropped past the queue limit', async () => {
  const s = createMemoryStorage();
  const c = createCacher({ storage: s, prefix: P, attributes, maxQueuedEvents: 3 });
  await ready(c);
  const got: string[] = [];
  const ends: string[] = [];
  let accept = false;
  const h = c.watch({ prefix: P, filter: undefined, start: 0, bookmarks: false, onEvent: (ev) => (got.push(show(ev)), accept), onEnd: (r) => void ends.push(r) });
  await s.create(`${P}ns/a`, val('red'));
  await s.create(`${P}ns/b`, val('red'));
  await until(() => c.revision() === 2);
  assert.deepEqual(got, ['ADDED ns/a 1']);
  accept = true;
  h.resume();
  assert.deepEqual(got, ['ADDED ns/a 1', 'ADDED ns/b 2']);
  accept = false;
  for (let i = 0; i < 6; i++) await s.create(`${P}ns/x${i}`, val('red'));
  await until(() => ends.length === 1);
  assert.deepEqual(ends, ['overflow']);
  assert.equal(c.watcherCount(), 0);
  c.stop();
});

test('a failed storage watch resets the cache: watchers end, the state is re-read', async () => {
  const s = createMemoryStorage();
  let failWatch: ((err: StorageError) => void) | undefined;
  const faulty: Storage = {
    ...s,
    watch(prefix: string, from: number, cb: WatchCallbacks) {
      failWatch = (err) => cb.onError(err);
      return s.watch(prefix, from, cb);
    },
  };
  const c = createCacher({ storage: faulty, prefix: P, attributes, onError: () => {} });
  await ready(c);
  const w = collect(c, { start: 0 });
  await s.create(`${P}ns/a`, val('red'));
  failWatch!(new StorageError('Unavailable', P, 'gone away'));
  assert.deepEqual(w.ends, ['reset']);
  assert.equal(c.ready(), false);
  await ready(c);
  assert.deepEqual(c.list(P).objects.map((o) => o.kv.key), [`${P}ns/a`]);
  const before = cacherStats().caches;
  c.stop();
  assert.equal(cacherStats().caches, before - 1);
});

test('a bookmark goes out 2 s before the deadline even when the periodic one is further away', async () => {
  const s = createMemoryStorage();
  let clock = 10_000;
  const c = createCacher({ storage: s, prefix: P, attributes, bookmarkIntervalMs: 60_000, now: () => clock });
  await ready(c);
  const w = collect(c, { start: 0, bookmarks: true, deadline: clock + 2_500 });
  await s.create('/registry/other/x', '{}');
  await new Promise((r) => setTimeout(r, 300));
  assert.deepEqual(w.events, [], 'not due yet');
  clock += 600;
  await until(() => w.events.length === 1, 2000);
  assert.deepEqual(w.events, ['BOOKMARK 1']);
  // Past the pre-deadline bookmark nothing more is scheduled.
  clock += 120_000;
  await s.create('/registry/other/y', '{}');
  await new Promise((r) => setTimeout(r, 300));
  assert.deepEqual(w.events, ['BOOKMARK 1']);
  c.stop();
});

test('a watch from a future revision waits: events up to it are skipped, later ones delivered', async () => {
  const s = createMemoryStorage();
  const c = createCacher({ storage: s, prefix: P, attributes });
  await ready(c);
  const w = collect(c, { start: 3 });
  for (let i = 0; i < 5; i++) await s.create(`${P}ns/o${i}`, val('red'));
  await until(() => w.events.length === 2);
  assert.deepEqual(w.events, ['ADDED ns/o3 4', 'ADDED ns/o4 5']);
  c.stop();
});

test('a storage compacted past the cache (a restore) relists at once and tells watchers their revision expired', async () => {
  const s = createMemoryStorage();
  const c = createCacher({ storage: s, prefix: P, attributes, onError: () => assert.fail('a restore is not a failure') });
  await ready(c);
  await s.create(`${P}ns/a`, val('red'));
  const snap = await s.snapshot();
  await s.create(`${P}ns/b`, val('red'));
  await until(() => c.list(P).objects.length === 2);
  const ends: Array<{ reason: string; expired?: { requested: number; compacted: number } }> = [];
  c.watch({ prefix: P, filter: undefined, start: 0, bookmarks: false, onEvent: () => true, onEnd: (reason, expired) => ends.push({ reason, expired }) });
  const rev = await s.restore(snap);
  await until(() => ends.length === 1);
  assert.deepEqual(ends, [{ reason: 'expired', expired: { requested: 2, compacted: rev } }]);
  await ready(c);
  assert.deepEqual(c.list(P).objects.map((o) => [o.kv.key, o.kv.modRevision]), [[`${P}ns/a`, rev]]);
  c.stop();
});

test('the value index follows loads, puts, replacements, deletions and a relist after a restore', async () => {
  const s = createMemoryStorage();
  await s.create(`${P}ns/a`, val('red'));
  const c = createCacher({ storage: s, prefix: P, attributes, indexed: (a) => (a.color ? [a.color] : undefined) });
  await ready(c);
  assert.deepEqual(c.holders('red'), [`${P}ns/a`]);
  const snap = await s.snapshot();
  await s.create(`${P}ns/b`, val('red'));
  const kv = await s.create(`${P}ns/c`, val('blue'));
  await until(() => c.revision() === 3);
  assert.deepEqual([...c.holders('red')].sort(), [`${P}ns/a`, `${P}ns/b`]);
  await s.update(`${P}ns/c`, val('green'), kv.modRevision);
  await s.delete(`${P}ns/a`);
  await until(() => c.revision() === 5);
  assert.deepEqual(c.holders('red'), [`${P}ns/b`]);
  assert.deepEqual(c.holders('blue'), []);
  assert.deepEqual(c.holders('green'), [`${P}ns/c`]);
  await s.restore(snap);
  await until(() => c.holders('green').length === 0);
  await ready(c);
  assert.deepEqual(c.holders('red'), [`${P}ns/a`]);
  c.stop();
  const plain = createCacher({ storage: s, prefix: P, attributes });
  await ready(plain);
  assert.deepEqual(plain.holders('red'), []);
  plain.stop();
});

test('lists naming label equalities read the label index, and answer as a scan does through writes and deletes', async () => {
  type Labelled = { labels: Record<string, string> | undefined };
  const labelled = (kv: KeyValue): Labelled => ({ labels: (JSON.parse(kv.value) as { labels?: Record<string, string> }).labels });
  const s = createMemoryStorage();
  const c = createCacher({ storage: s, prefix: P, attributes: labelled, labels: (a) => a.labels });
  const put = (name: string, labels: Record<string, string> | undefined) => s.create(`${P}${name}`, JSON.stringify({ labels }));
  await put('ns1/b', { app: 'web', tier: 'front' });
  await put('ns1/a', { app: 'web' });
  await put('ns2/c', { app: 'web', tier: 'front' });
  await put('ns1/d', { app: 'db' });
  await put('ns1/e', undefined);
  await ready(c);
  await until(() => c.get(`${P}ns1/e`) !== undefined);
  const filter = (terms: [string, string][]): CacheFilter<Labelled> => ({
    key: JSON.stringify(terms),
    labelTerms: terms,
    matches: (o) => terms.every(([k, v]) => o.attrs.labels?.[k] === v),
  });
  // The same filter without terms makes the cache scan every key: the reference answer.
  const scan = (under: string, f: CacheFilter<Labelled>) => c.list(under, { key: f.key, matches: f.matches }).objects.map((o) => o.kv.key);
  const indexed = (under: string, f: CacheFilter<Labelled>) => c.list(under, f).objects.map((o) => o.kv.key);
  const check = (under: string, terms: [string, string][], expected: string[]) => {
    const f = filter(terms);
    assert.deepEqual(indexed(under, f), expected.map((n) => `${P}${n}`));
    assert.deepEqual(indexed(under, f), scan(under, f));
  };
  check(P, [['app', 'web']], ['ns1/a', 'ns1/b', 'ns2/c']);
  check(`${P}ns1/`, [['app', 'web']], ['ns1/a', 'ns1/b']);
  check(P, [['app', 'web'], ['tier', 'front']], ['ns1/b', 'ns2/c']);
  check(P, [['app', 'cache']], []);
  // Labels change, objects go and come: the index follows.
  await s.update(`${P}ns1/a`, JSON.stringify({ labels: { app: 'db' } }), 2);
  await s.delete(`${P}ns1/b`, 1);
  await put('ns1/f', { app: 'web' });
  await until(() => c.get(`${P}ns1/f`) !== undefined);
  check(P, [['app', 'web']], ['ns1/f', 'ns2/c']);
  check(P, [['app', 'db']], ['ns1/a', 'ns1/d']);
  check(P, [['app', 'web'], ['tier', 'front']], ['ns2/c']);
  c.stop();
});

test('held: the cache keeps the KeyValue the option gives, for loaded, written, replaced, deleted and relisted objects', async () => {
  const heldKvs = new WeakSet<KeyValue>();
  const held = (kv: KeyValue): KeyValue => {
    const copy = { key: kv.key, value: kv.value, createRevision: kv.createRevision, modRevision: kv.modRevision };
    heldKvs.add(copy);
    return copy;
  };
  const s = createMemoryStorage();
  await s.create(`${P}ns/a`, val('red'));
  const snap = await s.snapshot();
  const c = createCacher({ storage: s, prefix: P, attributes, held });
  await ready(c);
  const events: CacheWatchEvent<Attrs>[] = [];
  c.watch({ prefix: P, filter: red, start: 'state', bookmarks: false, onEvent: (ev) => void events.push(ev), onEnd: () => {} });
  const b = await s.create(`${P}ns/b`, val('red'));
  await s.update(`${P}ns/b`, val('blue'), b.modRevision);
  await s.delete(`${P}ns/a`);
  await until(() => c.revision() === 4);
  assert.deepEqual(events.map((ev) => (ev.type === 'BOOKMARK' ? 'BOOKMARK' : `${ev.type} ${ev.object.kv.key.slice(P.length)} ${ev.object.kv.value}`)), [
    `ADDED ns/a ${val('red')}`,
    `ADDED ns/b ${val('red')}`,
    `DELETED ns/b ${val('red')}`,
    `DELETED ns/a ${val('red')}`,
  ]);
  for (const ev of events) if (ev.type !== 'BOOKMARK') assert.ok(heldKvs.has(ev.object.kv), `${ev.type} ${ev.object.kv.key}`);
  assert.ok(heldKvs.has(c.get(`${P}ns/b`)!.kv));
  // A relist after a restore.
  await s.restore(snap);
  await until(() => c.get(`${P}ns/b`) === undefined && c.get(`${P}ns/a`) !== undefined);
  await ready(c);
  const a = c.get(`${P}ns/a`)!;
  assert.ok(heldKvs.has(a.kv));
  assert.equal(a.kv.value, val('red'));
  c.stop();
});

test('pageAt: pages of a prefix in key order, with or without a filter or a limit, and what remains after each', async () => {
  const s = createMemoryStorage();
  for (let i = 0; i < 300; i++) await s.create(`${P}ns/${String(i).padStart(3, '0')}`, val(i % 3 === 0 ? 'red' : 'blue', i));
  await s.create(`${P}nt/x`, val('red'));
  const c = createCacher({ storage: s, prefix: P, attributes });
  await ready(c);
  const at = c.revision();
  const names = (page: ReturnType<Cacher<Attrs>['pageAt']>) => page!.objects.map((o) => o.kv.key.slice(`${P}ns/`.length));
  const first = c.pageAt(`${P}ns/`, at, '', 100);
  assert.deepEqual(names(first), Array.from({ length: 100 }, (_, i) => String(i).padStart(3, '0')));
  assert.deepEqual([first!.more, first!.remaining], [true, 200]);
  const last = c.pageAt(`${P}ns/`, at, `${P}ns/250`, 100);
  assert.equal(names(last).length, 50);
  assert.deepEqual([last!.more, last!.remaining], [false, 0]);
  // a filter that keeps a third: the page reads on past its first batch of keys
  const reds = c.pageAt(`${P}ns/`, at, `${P}ns/001`, 40, red);
  assert.deepEqual(names(reds), Array.from({ length: 40 }, (_, i) => String(3 * (i + 1)).padStart(3, '0')));
  assert.deepEqual([reds!.more, reds!.remaining], [true, 300 - 121]);
  // no limit: everything from the start key, nothing past the prefix
  const rest = c.pageAt(`${P}ns/`, at, `${P}ns/290`, 0);
  assert.deepEqual(names(rest), ['290', '291', '292', '293', '294', '295', '296', '297', '298', '299']);
  assert.deepEqual([rest!.more, rest!.remaining], [false, 0]);
  c.stop();
});
