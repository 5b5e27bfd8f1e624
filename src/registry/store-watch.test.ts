import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ctx, fixture, rejection, widgets } from './store-testing.ts';
import type { KubeObject, WatchEvent, WatchStream } from './types.ts';

/** Collect events of a started stream until `count` arrived (or fail after a second). */
function collector(stream: WatchStream) {
  const events: WatchEvent[] = [];
  let ended: Error | undefined | null = null;
  let wake: (() => void) | undefined;
  stream.start(
    (ev) => {
      events.push(ev);
      wake?.();
    },
    (err) => {
      ended = err;
      wake?.();
    },
  );
  return {
    events,
    stop: () => stream.stop(),
    ended: () => ended,
    async until(count: number) {
      const deadline = Date.now() + 1000;
      while (events.length < count && Date.now() < deadline) await new Promise<void>((r) => ((wake = r), setTimeout(r, 20)));
      return events.map((e) => `${e.type} ${(e.object as KubeObject).metadata?.name ?? ''}`);
    },
  };
}

test('watch from "" replays the current objects as ADDED, then follows changes', async () => {
  const f = await fixture();
  const s = f.store(widgets());
  await s.create(ctx(), { metadata: { name: 'a' } });
  await s.create(ctx(), { metadata: { name: 'b' } });
  const stream = await s.watch(ctx(), {});
  const c = collector(stream);
  await s.update(ctx(), 'a', (cur) => ({ ...cur!, spec: { x: 1 } }));
  const del = await s.delete(ctx(), 'b');
  assert.deepEqual(await c.until(4), ['ADDED a', 'ADDED b', 'MODIFIED a', 'DELETED b']);
  const deleted = c.events[3].object as KubeObject;
  assert.ok(Number(deleted.metadata.resourceVersion) > Number(del.object.metadata.resourceVersion), 'DELETED carries the deletion revision');
  assert.equal((c.events[2].object as KubeObject).apiVersion, 'example.com/v1');
  stream.stop();
});

test('watch from a resourceVersion sends only later changes', async () => {
  const f = await fixture();
  const s = f.store(widgets());
  const a = await s.create(ctx(), { metadata: { name: 'a' } });
  await s.create(ctx(), { metadata: { name: 'b' } });
  const stream = await s.watch(ctx(), { resourceVersion: a.metadata.resourceVersion });
  const c = collector(stream);
  assert.deepEqual(await c.until(1), ['ADDED b']);
  stream.stop();
});

test('selectors: objects entering and leaving the selection are ADDED and DELETED', async () => {
  const f = await fixture();
  const s = f.store(widgets());
  await s.create(ctx(), { metadata: { name: 'a', labels: { on: 'no' } } });
  const stream = await s.watch(ctx(), { labelSelector: 'on=yes' });
  const c = collector(stream);
  await s.update(ctx(), 'a', (cur) => ({ ...cur!, metadata: { ...cur!.metadata, labels: { on: 'yes' } } }));
  await s.update(ctx(), 'a', (cur) => ({ ...cur!, spec: { n: 1 } }));
  await s.update(ctx(), 'a', (cur) => ({ ...cur!, metadata: { ...cur!.metadata, labels: { on: 'no' } }, spec: { n: 2 } }));
  assert.deepEqual(await c.until(3), ['ADDED a', 'MODIFIED a', 'DELETED a']);
  const last = c.events[2].object as KubeObject;
  assert.deepEqual(last.metadata.labels, { on: 'yes' }, 'DELETED carries the content that matched');
  assert.deepEqual(last.spec, { n: 1 });
  stream.stop();
});

test('watchers of one version share event objects', async () => {
  const f = await fixture();
  const s = f.store(widgets());
  const c1 = collector(await s.watch(ctx(), { resourceVersion: String(await f.storage.currentRevision()) }));
  const c2 = collector(await s.watch(ctx(''), { resourceVersion: String(await f.storage.currentRevision()) }));
  await s.create(ctx(), { metadata: { name: 'a' } });
  await c1.until(1);
  await c2.until(1);
  assert.equal(c1.events[0], c2.events[0]);
});

test('without a cache, a compacted start revision ends the watch with 410 Expired', async () => {
  const f = await fixture();
  const s = f.store(widgets(), { watchCache: false });
  await s.create(ctx(), { metadata: { name: 'a' } });
  await s.create(ctx(), { metadata: { name: 'b' } });
  const rev = await f.storage.currentRevision();
  await f.storage.compact(rev);
  const c = collector(await s.watch(ctx(), { resourceVersion: '1' }));
  assert.deepEqual(await c.until(1), ['ERROR ']);
  assert.deepEqual(c.events[0].object, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: `too old resource version: 1 (${rev})`, reason: 'Expired', code: 410 });
  await new Promise((r) => setTimeout(r, 20));
  assert.equal(c.ended(), undefined, 'the stream ended without an error of its own');
});

test('watch options are checked as kube checks them', async () => {
  const f = await fixture();
  const s = f.store(widgets());
  const err = await rejection(s.watch(ctx(), { resourceVersionMatch: 'NotOlderThan' }));
  assert.equal(err.message, 'ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided');
  assert.equal((await rejection(s.watch(ctx(), { labelSelector: '=' }))).code, 400);
});

test('from the cache: a start revision older than its window is an ERROR event with 410 and kube\'s message', async () => {
  const f = await fixture();
  const s = f.store(widgets(), { watchCache: { historyWindowSeconds: 0.05 } });
  const a = await s.create(ctx(), { metadata: { name: 'a' } });
  await new Promise((r) => setTimeout(r, 80));
  await f.namespaces.create(ctx(''), { metadata: { name: 'gap' } });
  const b = await s.create(ctx(), { metadata: { name: 'b' } });
  await s.get(ctx(), 'b', { resourceVersion: b.metadata.resourceVersion });
  const c = collector(await s.watch(ctx(), { resourceVersion: a.metadata.resourceVersion }));
  assert.deepEqual(await c.until(1), ['ERROR ']);
  const st = c.events[0].object as { code: number; reason: string; message: string };
  assert.equal(st.code, 410);
  assert.equal(st.reason, 'Expired');
  assert.equal(st.message, `too old resource version: ${a.metadata.resourceVersion} (${Number(b.metadata.resourceVersion) - 1})`);
});

test('sendInitialEvents at a resourceVersion the cache does not reach: an ERROR event with 504', async () => {
  const f = await fixture();
  const s = f.store(widgets(), { featureGates: { WatchList: true } });
  const stream = await s.watch(ctx(), { resourceVersion: '999', resourceVersionMatch: 'NotOlderThan', sendInitialEvents: true, allowWatchBookmarks: true });
  const c = collector(stream);
  assert.deepEqual(await c.until(1), ['ERROR ']);
  const st = c.events[0].object as { code: number; message: string; details: unknown };
  assert.equal(st.code, 504);
  assert.match(st.message, /^Timeout: Too large resource version: 999, current: \d+$/);
  assert.deepEqual(st.details, { causes: [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }], retryAfterSeconds: 1 });
});

test('from the cache: watchers of one event share its WatchEvent (encoded once), and stopping frees them', async () => {
  const f = await fixture();
  const s = f.store(widgets());
  const c1 = collector(await s.watch(ctx(), { resourceVersion: '1' }));
  const c2 = collector(await s.watch(ctx(''), { resourceVersion: '1' }));
  await s.create(ctx(), { metadata: { name: 'shared' } });
  await c1.until(1);
  await c2.until(1);
  assert.equal(c1.events[0], c2.events[0]);
  const core = s.core;
  assert.equal(core.cache!.watcherCount(), 2);
  c1.stop();
  c2.stop();
  assert.equal(core.cache!.watcherCount(), 0);
});

test('from the cache: watchers starting together share the initial ADDED events (one decode and encoding per object)', async () => {
  const f = await fixture();
  const s = f.store(widgets());
  await s.create(ctx(), { metadata: { name: 'big' }, spec: { payload: 'x'.repeat(4096) } } as KubeObject);
  await s.create(ctx(), { metadata: { name: 'small' } });
  const watchers = await Promise.all(Array.from({ length: 3 }, async () => collector(await s.watch(ctx(), { resourceVersion: '0' }))));
  for (const w of watchers) assert.deepEqual(await w.until(2), ['ADDED big', 'ADDED small']);
  for (const i of [0, 1]) {
    assert.equal(watchers[1].events[i], watchers[0].events[i]);
    assert.equal(watchers[2].events[i], watchers[0].events[i]);
  }
  for (const w of watchers) w.stop();
});

test('from the cache: a watcher that paused gets the same WatchEvent from its queue as the others (not decoded again)', async () => {
  const f = await fixture();
  const s = f.store(widgets());
  await s.create(ctx(), { metadata: { name: 'a' } });
  const live = collector(await s.watch(ctx(), { resourceVersion: '2' }));
  const slow = await s.watch(ctx(), { resourceVersion: '2' });
  const queued: WatchEvent[] = [];
  slow.start(
    (ev) => {
      queued.push(ev);
      return false;
    },
    () => {},
  );
  await s.create(ctx(), { metadata: { name: 'b' } });
  await s.update(ctx(), 'a', (cur) => ({ ...cur!, spec: { changed: true } }));
  assert.deepEqual(await live.until(2), ['ADDED b', 'MODIFIED a']);
  assert.equal(queued.length, 1, 'paused after the first event');
  slow.resume!();
  assert.equal(queued.length, 2);
  assert.equal(queued[0], live.events[0]);
  assert.equal(queued[1], live.events[1], 'the queued MODIFIED is the WatchEvent the others got');
  live.stop();
  slow.stop();
});
