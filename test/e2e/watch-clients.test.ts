// Watch clients and watch hygiene against a real Capstan: the client-node informer (including resumption after
// server-side stream closes), kubectl get -w / --watch-only, slow clients dropped without holding others back,
// and disconnects freeing their watchers.

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { after, before, describe, test } from 'node:test';
import * as k8s from '@kubernetes/client-node';
import { cacherStats } from '../../src/storage/cacher/stats.ts';
import { startTestServer, type TestServer } from './helpers.ts';
import { call, cmPath, createCm, namespace, openWatch, patchCm, rvOf, settledWatcherCount, until } from './stream.ts';

const MAX_QUEUED = 5;

describe('watch clients', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer({ watchCacheTuning: { maxQueuedEvents: MAX_QUEUED } });
  });
  after(async () => {
    await s?.close();
  });

  test('disconnected watchers are freed: the open watcher count returns to where it was', async () => {
    // In-process watchers (the namespace controller's) stay; the earlier tests' streams are all gone.
    const baseline = await settledWatcherCount(() => cacherStats().watchers);
    const ws = await Promise.all(Array.from({ length: 5 }, () => openWatch(s, '/api/v1/configmaps?watch=true&timeoutSeconds=60')));
    await until(() => cacherStats().watchers >= baseline + 5, 10000, 'five more watchers');
    for (const w of ws) w.close();
    await until(() => cacherStats().watchers <= baseline, 10000, 'watchers to be freed');
  });

  test('HTTP/2 watchers that reset their streams while events wait in them, then exit, are freed', async () => {
    const ns = await namespace(s, 'w-h2reset');
    const baseline = await settledWatcherCount(() => cacherStats().watchers);
    const n = 30;
    // A client-go-like process: its watches share one connection and read slowly, so events pile up in the
    // server's streams; then it resets them and goes away. (Node 24 never closes such a stream on its own.)
    const client = `
      import http2 from 'node:http2';
      const [url, ca, cert, key, path, n] = JSON.parse(process.argv[1]);
      const session = http2.connect(url, { ca, cert, key });
      session.on('error', () => {});
      const streams = [];
      for (let i = 0; i < n; i++) {
        const st = session.request({ ':path': path });
        st.on('error', () => {});
        st.on('data', () => { st.pause(); setTimeout(() => st.resume(), 200); });
        streams.push(st);
      }
      process.stdin.once('data', () => {
        for (const st of streams) st.close();
        session.close();
        setTimeout(() => process.exit(0), 300);
      });
      process.stdout.write('open\\n');
    `;
    const child = spawn(process.execPath, ['--input-type=module', '-e', client, JSON.stringify([`https://127.0.0.1:${s.port}`, s.caCert, s.clientCert, s.clientKey, `${cmPath(ns)}?watch=true&timeoutSeconds=60`, n])], { stdio: ['pipe', 'pipe', 'inherit'] });
    try {
      await new Promise((r, j) => {
        child.stdout!.once('data', r);
        child.once('exit', (code) => j(new Error(`the watch client exited with ${code}`)));
      });
      await until(() => cacherStats().watchers >= baseline + n, 10000, 'the watchers to open');
      const payload = 'y'.repeat(8 * 1024);
      for (let i = 0; i < 60; i++) await createCm(s, ns, `burst-${i}`, {}, { payload });
      child.stdin!.write('go\n');
      await new Promise((r) => child.once('exit', r));
      await until(() => cacherStats().watchers <= baseline, 10000, 'the reset watchers to be freed');
    } finally {
      if (child.exitCode === null) child.kill();
    }
  });

  test('a slow watcher is dropped without holding the others back', async () => {
    const ns = await namespace(s, 'w-slow');
    const baseline = await settledWatcherCount(() => cacherStats().watchers);
    const fast = await openWatch(s, `${cmPath(ns)}?watch=true&timeoutSeconds=60`);
    const slow = await openWatch(s, `${cmPath(ns)}?watch=true&timeoutSeconds=60`);
    await until(() => cacherStats().watchers === baseline + 2, 10000, 'both watchers');
    slow.pause();
    const big = 'x'.repeat(400 * 1024);
    const n = 60;
    for (let i = 0; i < n; i++) await createCm(s, ns, `big-${i}`, {}, { big });
    await fast.waitFor(n, 10000);
    await until(() => cacherStats().watchers === baseline + 1, 10000, 'the slow watcher to be dropped');
    // Read on: the slow client gets what was already sent, then the end of its stream.
    slow.resume();
    await slow.ended;
    assert.ok(slow.events.length < n, `the slow watcher got ${slow.events.length} of ${n}`);
    fast.close();
  });

  test('client-node informer: add, update and delete; a server-side stream close resumes from the last version', async () => {
    // Streams end within [1, 2) s here, so the informer has to watch again several times.
    const s = await startTestServer({ minRequestTimeoutSeconds: 1 });
    const ns = await namespace(s, 'w-informer');
    const kc = new k8s.KubeConfig();
    kc.loadFromString(s.kubeconfig);
    const core = kc.makeApiClient(k8s.CoreV1Api);
    let lists = 0;
    const informer = k8s.makeInformer(kc, cmPath(ns), () => {
      lists++;
      return core.listNamespacedConfigMap({ namespace: ns });
    });
    const seen: string[] = [];
    let connects = 0;
    informer.on('add', (o) => seen.push(`add ${o.metadata?.name} ${o.metadata?.resourceVersion}`));
    informer.on('update', (o) => seen.push(`update ${o.metadata?.name} ${o.metadata?.resourceVersion}`));
    informer.on('delete', (o) => seen.push(`delete ${o.metadata?.name}`));
    informer.on('connect', () => connects++);
    informer.on('error', (e) => seen.push(`error ${String(e)}`));
    await informer.start();
    try {
      const a = await createCm(s, ns, 'a');
      const a2 = await patchCm(s, ns, 'a', { data: { k: '2' } });
      await call(s, 'DELETE', cmPath(ns, 'a'));
      await until(() => seen.length === 3, 3000, 'informer events');
      assert.deepEqual(seen, [`add a ${rvOf(a)}`, `update a ${rvOf(a2)}`, 'delete a']);
      // The server ends every stream within 2 s (min-request-timeout 1); the informer watches again from its version.
      const connectsBefore = connects;
      await until(() => connects > connectsBefore, 4000, 'the informer to reconnect');
      const b = await createCm(s, ns, 'b');
      await until(() => seen.length === 4, 3000, 'the event after the reconnect');
      await until(() => connects > connectsBefore + 1, 4000, 'a second reconnect');
      const b2 = await patchCm(s, ns, 'b', { data: { k: '3' } });
      await until(() => seen.length === 5, 3000, 'the update after the second reconnect');
      await new Promise((r) => setTimeout(r, 200));
      assert.deepEqual(seen.slice(3), [`add b ${rvOf(b)}`, `update b ${rvOf(b2)}`]);
      assert.equal(lists, 1, 'resumed by watching from its resourceVersion, never by listing again');
    } finally {
      await informer.stop();
      await s.close();
    }
  });

  test('kubectl get -w prints the table then each change; --watch-only only the changes', async () => {
    const ns = await namespace(s, 'w-kubectl');
    await createCm(s, ns, 'first');
    const kubeconfig = await s.writeKubeconfig('watcher', { clientCert: s.clientCert, clientKey: s.clientKey });
    const run = (args: string[], expectLines: number, act: () => Promise<void>) =>
      new Promise<string[]>((resolve, reject) => {
        const opened = cacherStats().opened;
        const child = spawn('kubectl', ['--kubeconfig', kubeconfig, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
        let out = '';
        let err = '';
        const timer = setTimeout(() => {
          child.kill('SIGKILL');
          reject(new Error(`kubectl ${args.join(' ')}: expected ${expectLines} lines, got ${JSON.stringify(out)} ${err}`));
        }, 8000);
        child.stderr.on('data', (d: Buffer) => (err += d.toString()));
        // Act once kubectl's watch is open (with --watch-only it prints nothing before the first event).
        until(() => cacherStats().opened > opened, 6000, "kubectl's watch")
          .then(act)
          .catch(reject);
        child.stdout.on('data', (d: Buffer) => {
          out += d.toString();
          // Complete lines only.
          const lines = out.split('\n').slice(0, -1).filter((l) => l.trim());
          if (lines.length >= expectLines) {
            clearTimeout(timer);
            child.kill('SIGKILL');
            resolve(lines.map((l) => l.split(/\s+/).slice(0, 2).join(' ')));
          }
        });
      });
    const watched = await run(['get', 'configmaps', '-n', ns, '-w'], 3, async () => {
      await createCm(s, ns, 'second', {}, { a: '1', b: '2' });
    });
    assert.deepEqual(watched, ['NAME DATA', 'first 1', 'second 2']);
    const only = await run(['get', 'configmaps', '-n', ns, '--watch-only'], 3, async () => {
      await patchCm(s, ns, 'first', { data: { k: 'v', extra: 'x', more: 'y' } });
      await createCm(s, ns, 'third');
    });
    // The header comes with the first event; the objects listed before the watch are not printed.
    assert.deepEqual(only, ['NAME DATA', 'first 3', 'third 1']);
  });
});
