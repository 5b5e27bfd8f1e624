// Watch against a real Capstan: kube's event semantics (initial state, exact resumption, selector transitions,
// 410 for a resourceVersion older than the cache's window, bookmarks, sendInitialEvents, future versions,
// timeouts). Clients and resource hygiene are in watch-clients.test.ts.

import assert from 'node:assert/strict';
import { connect as tlsConnect } from 'node:tls';
import { after, before, describe, test } from 'node:test';
import { startTestServer, type TestServer } from './helpers.ts';
import { call, cmPath, createCm, namespace, openWatch, patchCm, rvOf, summarize } from './stream.ts';

const BOOKMARK_MS = 300;

describe('watch', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer({ watchCacheTuning: { bookmarkIntervalMs: BOOKMARK_MS }, minRequestTimeoutSeconds: 1, featureGates: { WatchList: true } });
  });
  after(async () => {
    await s?.close();
  });

  test('resourceVersion unset: ADDED for the current state, then each change; "0" the same', async () => {
    const ns = await namespace(s, 'w-state');
    const a = await createCm(s, ns, 'a');
    const b = await createCm(s, ns, 'b');
    const w = await openWatch(s, `${cmPath(ns)}?watch=true&timeoutSeconds=30`);
    assert.equal(w.status, 200);
    assert.equal(w.headers['content-type'], 'application/json');
    await w.waitFor(2);
    const a2 = await patchCm(s, ns, 'a', { data: { k: 'v2' } });
    await call(s, 'DELETE', cmPath(ns, 'b'));
    await w.waitFor(4);
    const deleted = w.events[3];
    assert.deepEqual(w.summary().slice(0, 3), [`ADDED a ${rvOf(a)}`, `ADDED b ${rvOf(b)}`, `MODIFIED a ${rvOf(a2)}`]);
    assert.equal(deleted.type, 'DELETED');
    assert.ok(Number(deleted.object.metadata!.resourceVersion) > Number(rvOf(a2)), 'DELETED carries the deletion revision');
    assert.deepEqual(deleted.object.data, { k: 'v' });
    assert.equal(w.events[0].object.kind, 'ConfigMap');
    assert.equal(w.events[0].object.apiVersion, 'v1');
    const zero = await openWatch(s, `${cmPath(ns)}?watch=true&resourceVersion=0&timeoutSeconds=30`);
    assert.deepEqual((await zero.waitFor(1)).map(summarize), [`ADDED a ${rvOf(a2)}`]);
    w.close();
    zero.close();
  });

  test('resourceVersion N: exactly the changes after N, in order, without the state before', async () => {
    const ns = await namespace(s, 'w-exact');
    const a = await createCm(s, ns, 'a');
    const b = await createCm(s, ns, 'b');
    const c = await patchCm(s, ns, 'a', { data: { x: '1' } });
    const w = await openWatch(s, `${cmPath(ns)}?watch=true&resourceVersion=${rvOf(a)}&timeoutSeconds=30`);
    await w.waitFor(2);
    const d = await createCm(s, ns, 'd');
    await w.waitFor(3);
    assert.deepEqual(w.summary(), [`ADDED b ${rvOf(b)}`, `MODIFIED a ${rvOf(c)}`, `ADDED d ${rvOf(d)}`]);
    w.close();
  });

  test('selectors: starting to match is ADDED, stopping is DELETED with the last matching state', async () => {
    const ns = await namespace(s, 'w-select');
    const w = await openWatch(s, `${cmPath(ns)}?watch=true&labelSelector=app%3Dx&timeoutSeconds=30`);
    await createCm(s, ns, 'a', { app: 'y' });
    const on = await patchCm(s, ns, 'a', { metadata: { labels: { app: 'x' } } });
    const mod = await patchCm(s, ns, 'a', { data: { k: 'changed' } });
    const off = await patchCm(s, ns, 'a', { metadata: { labels: { app: 'y' } } });
    await patchCm(s, ns, 'a', { data: { k: 'unseen' } });
    await w.waitFor(3);
    await new Promise((r) => setTimeout(r, 100));
    assert.deepEqual(w.summary(), [`ADDED a ${rvOf(on)}`, `MODIFIED a ${rvOf(mod)}`, `DELETED a ${rvOf(off)}`]);
    assert.deepEqual(w.events[2].object.metadata!.labels, { app: 'x' });
    assert.deepEqual(w.events[2].object.data, { k: 'changed' });
    w.close();
  });

  test('a future resourceVersion: the watch waits and sends only what comes after it', async () => {
    const ns = await namespace(s, 'w-future');
    const start = await createCm(s, ns, 'start');
    const future = Number(rvOf(start)) + 3;
    const w = await openWatch(s, `${cmPath(ns)}?watch=true&resourceVersion=${future}&timeoutSeconds=30`);
    const made = [];
    for (let i = 0; i < 5; i++) made.push(await createCm(s, ns, `o${i}`));
    const expected = made.filter((o) => Number(rvOf(o)) > future).map((o) => `ADDED ${o.metadata.name} ${rvOf(o)}`);
    await w.waitFor(expected.length);
    assert.deepEqual(w.summary(), expected);
    w.close();
  });

  test('allowWatchBookmarks: periodic BOOKMARKs carry kind, apiVersion and a newer resourceVersion only', async () => {
    const ns = await namespace(s, 'w-bookmark');
    const a = await createCm(s, ns, 'a');
    const w = await openWatch(s, `${cmPath(ns)}?watch=true&resourceVersion=${rvOf(a)}&allowWatchBookmarks=true&timeoutSeconds=30`);
    // A write elsewhere moves the global revision; the next bookmark reports it.
    const other = await call(s, 'POST', `/api/v1/namespaces/${ns}/secrets`, { metadata: { name: 's' } });
    await w.waitFor(1, 3000);
    const bm = w.events[0];
    assert.equal(bm.type, 'BOOKMARK');
    assert.deepEqual(Object.keys(bm.object), ['kind', 'apiVersion', 'metadata']);
    assert.deepEqual(bm.object.kind, 'ConfigMap');
    assert.deepEqual(bm.object.apiVersion, 'v1');
    assert.deepEqual(Object.keys(bm.object.metadata!), ['resourceVersion']);
    assert.ok(Number(bm.object.metadata!.resourceVersion) >= Number(rvOf(other)));
    w.close();
  });

  test('sendInitialEvents=true: ADDED for each object, then one BOOKMARK marking the end; changes follow', async () => {
    const ns = await namespace(s, 'w-initial');
    await createCm(s, ns, 'a');
    const b = await createCm(s, ns, 'b');
    const q = 'watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true&timeoutSeconds=30';
    const w = await openWatch(s, `${cmPath(ns)}?${q}`);
    await w.waitFor(3);
    assert.deepEqual(w.events.slice(0, 2).map((e) => `${e.type} ${e.object.metadata!.name}`), ['ADDED a', 'ADDED b']);
    const end = w.events[2];
    assert.equal(end.type, 'BOOKMARK');
    assert.deepEqual(end.object.metadata!.annotations, { 'k8s.io/initial-events-end': 'true' });
    assert.ok(Number(end.object.metadata!.resourceVersion) >= Number(rvOf(b)));
    const c = await createCm(s, ns, 'c');
    await w.waitFor(4);
    assert.equal(summarize(w.events[3]), `ADDED c ${rvOf(c)}`);
    w.close();
    // Without allowWatchBookmarks there is no end marker (kube sends it only to clients that accept bookmarks).
    const quiet = await openWatch(s, `${cmPath(ns)}?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&timeoutSeconds=1`);
    await quiet.ended;
    assert.deepEqual(quiet.events.map((e) => e.type), ['ADDED', 'ADDED', 'ADDED']);
    // Its validation, as kube words it.
    const bad = await s.adminRequest(`${cmPath(ns)}?watch=true&sendInitialEvents=true`);
    assert.equal(bad.status, 422);
    assert.equal(JSON.parse(bad.body).message, 'ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan');
  });

  test('timeoutSeconds ends the stream cleanly; without it, min-request-timeout bounds it to [t, 2t)', async () => {
    const t0 = Date.now();
    const w = await openWatch(s, '/api/v1/namespaces/default/configmaps?watch=true&resourceVersion=0&timeoutSeconds=1');
    await w.ended;
    const took = Date.now() - t0;
    assert.ok(took >= 900 && took < 2500, `ended after ${took} ms`);
    assert.ok(!w.events.some((e) => e.type === 'ERROR'));
    const t1 = Date.now();
    const idle = await openWatch(s, '/api/v1/namespaces/default/configmaps?watch=true&resourceVersion=0');
    await idle.ended;
    const idleTook = Date.now() - t1;
    assert.ok(idleTook >= 900 && idleTook < 2600, `idle stream ended after ${idleTook} ms`);
  });

  test('a reader that falls behind is paused, not dropped, and catches up with every event', async () => {
    const ns = await namespace(s, 'w-behind');
    const w = await openWatch(s, `${cmPath(ns)}?watch=true&timeoutSeconds=60`);
    w.pause();
    const big = 'y'.repeat(300 * 1024);
    const n = 40;
    const made: string[] = [];
    for (let i = 0; i < n; i++) made.push(rvOf(await createCm(s, ns, `b-${i}`, {}, { big })));
    w.resume();
    await w.waitFor(n, 10000);
    assert.deepEqual(w.events.map((e) => e.object.metadata!.resourceVersion), made);
    assert.equal(w.isEnded(), false);
    w.close();
  });

  test('a resourceVersion older than the window is an ERROR event: 410 Expired "too old resource version"', async () => {
    const small = await startTestServer({ historyWindowSeconds: 1 });
    try {
      const ns = await namespace(small, 'w-old');
      const a = await createCm(small, ns, 'a');
      await namespace(small, 'w-old-gap');
      await new Promise((r) => setTimeout(r, 1200));
      const b = await createCm(small, ns, 'b');
      await new Promise((r) => setTimeout(r, 50));
      const w = await openWatch(small, `${cmPath(ns)}?watch=true&resourceVersion=${rvOf(a)}`);
      await w.ended;
      assert.equal(w.status, 200);
      assert.equal(w.events.length, 1);
      assert.deepEqual(w.events[0], {
        type: 'ERROR',
        object: { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: `too old resource version: ${rvOf(a)} (${Number(rvOf(b)) - 1})`, reason: 'Expired', code: 410 },
      });
      // The revision just before the kept event is still fine.
      const ok = await openWatch(small, `${cmPath(ns)}?watch=true&resourceVersion=${Number(rvOf(b)) - 1}&timeoutSeconds=1`);
      await ok.ended;
      assert.deepEqual(ok.summary(), [`ADDED b ${rvOf(b)}`]);
    } finally {
      await small.close();
    }
  });

  test('HTTP/1.1: the first event follows the head at once (TCP_NODELAY, no wait for the client\'s delayed ACK)', async () => {
    const ns = await namespace(s, 'w-nodelay');
    const a = await createCm(s, ns, 'a');
    await createCm(s, ns, 'b');
    // The head is flushed first and the events from the given revision are written after it: with Nagle's algorithm
    // on, they wait for the ACK of the head, which Linux delays by 40 ms. The best of 3 tries leaves out load spikes.
    const gaps: number[] = [];
    for (let i = 0; i < 3; i++) {
      gaps.push(
        await new Promise<number>((resolve, reject) => {
          const socket = tlsConnect({ host: '127.0.0.1', port: s.port, ca: s.caCert, cert: s.clientCert, key: s.clientKey, ALPNProtocols: ['http/1.1'], servername: 'localhost' }, () => {
            socket.write(`GET ${cmPath(ns)}?watch=true&resourceVersion=${rvOf(a)}&timeoutSeconds=5 HTTP/1.1\r\nhost: localhost\r\n\r\n`);
          });
          let text = '';
          let headAt = 0;
          socket.on('data', (d: Buffer) => {
            text += d.toString('latin1');
            if (headAt === 0 && text.includes('\r\n\r\n')) headAt = performance.now();
            if (text.includes('"ADDED"')) {
              resolve(performance.now() - headAt);
              socket.destroy();
            }
          });
          socket.once('error', reject);
        }),
      );
    }
    assert.ok(Math.min(...gaps) < 25, `head to first event: ${gaps.map((g) => g.toFixed(1)).join(', ')} ms`);
  });
});
