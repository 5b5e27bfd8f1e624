// 3 etcd members and 2 Capstan processes (the real CLI) behind the test's own client-side round robin, a write
// burst and informers: kill -9 one etcd member, then one Capstan instance, then restart both. Afterwards every
// acknowledged write is present with its resourceVersion or a later one, every informer's cache equals a fresh
// list, and no informer saw an event twice or missed one (compared against etcd's own history).
//
// Scaled down for CI time: 8 informers instead of 20, ~1.2 s between the steps, 4 writers.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { cp, mkdtemp, readFile, rm } from 'node:fs/promises';
import { Agent, request as httpsRequest } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { after, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import etcd3 from 'etcd3';
import { startEtcdCluster, type EtcdCluster } from '../../src/storage/etcd/test-cluster.ts';

const bin = fileURLToPath(new URL('../../bin/capstan.js', import.meta.url));
const PREFIX = '/registry/configmaps/failover/';
let scratch = '';
let etcd: EtcdCluster | undefined;
const children: ChildProcess[] = [];
/** Set when the test ends, however it ends: the informer and writer loops stop. */
let finished = false;

after(async () => {
  finished = true;
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  await etcd?.close();
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

interface Instance {
  child: ChildProcess;
  port: number;
  alive: boolean;
}

async function startInstance(dataDir: string, servers: string[]): Promise<Instance> {
  const child = spawn(process.execPath, [
    bin, '--storage-backend=etcd3', `--etcd-servers=${servers.join(',')}`, `--data-dir=${dataDir}`, '--secure-port=0',
    '--etcd-compaction-interval=0', '--leader-elect-lease-duration=3s', '--leader-elect-renew-deadline=2s', '--leader-elect-retry-period=500ms',
  ], { stdio: ['ignore', 'ignore', 'pipe'] });
  children.push(child);
  const lines = createInterface({ input: child.stderr! });
  lines.on('error', () => {});
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('capstan did not start in 30 s')), 30_000);
    lines.on('line', (line) => {
      if (!line.includes('Capstan serving')) return;
      clearTimeout(timer);
      resolve((JSON.parse(line) as { port: number }).port);
    });
    child.once('exit', (code) => reject(new Error(`capstan exited with ${code}`)));
  });
  return { child, port, alive: true };
}

interface Answer {
  status: number;
  body: string;
}

interface WatchEvent {
  type: string;
  object: { metadata: { name: string; resourceVersion: string }; code?: number };
}

test('kill -9 of an etcd member and of a Capstan instance loses no acknowledged write and no watch event', async () => {
  scratch = await mkdtemp(join(tmpdir(), 'capstan-failover-'));
  etcd = await startEtcdCluster(3);
  const dirs = [join(scratch, 'a'), join(scratch, 'b')];
  const instances: Instance[] = [await startInstance(dirs[0], etcd.clientUrls)];
  // Both instances serve one cluster: the second gets the first one's CA and certificates.
  await cp(join(dirs[0], 'pki'), join(dirs[1], 'pki'), { recursive: true });
  instances.push(await startInstance(dirs[1], etcd.clientUrls));
  const pki = join(dirs[0], 'pki');
  const [ca, cert, key] = await Promise.all(['ca.crt', 'admin.crt', 'admin.key'].map((f) => readFile(join(pki, f), 'utf8')));
  const agent = new Agent({ keepAlive: true, maxSockets: 16, ca, cert, key });
  const etcdClient = new etcd3.Etcd3({ hosts: etcd.clientUrls });
  try {

  let rr = 0;
  const once = (inst: Instance, method: string, path: string, body?: string): Promise<Answer> =>
    new Promise((resolve) => {
      const req = httpsRequest({ host: '127.0.0.1', port: inst.port, method, path, agent, timeout: 15_000, headers: body ? { 'content-type': 'application/json' } : {} }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (text += d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
        res.on('error', () => resolve({ status: 0, body: '' }));
      });
      req.on('timeout', () => req.destroy());
      req.on('error', () => resolve({ status: 0, body: '' }));
      req.end(body);
    });
  /** Round robin over the live instances; a refused connection moves on to the next one. */
  const call = async (method: string, path: string, body?: string): Promise<Answer> => {
    for (let tries = 0; tries < 4; tries++) {
      const inst = instances[rr++ % instances.length];
      if (!inst.alive) continue;
      const r = await once(inst, method, path, body);
      if (r.status !== 0) return r;
    }
    return { status: 0, body: '' };
  };

  assert.equal((await call('POST', '/api/v1/namespaces', JSON.stringify({ metadata: { name: 'failover' } }))).status, 201);
  const startRevision = Number((await etcdClient.getAll().prefix(PREFIX).exec()).header.revision);

  // ---- informers: list, then watch from the list's revision, resuming on the other instance when one fails ----
  interface Informer {
    cache: Map<string, string>;
    /** Per watch chain (from a list to the next relist): the revisions of the events seen, in order. */
    chains: { from: number; revs: number[] }[];
    relists: number;
    rv: string;
    stop: boolean;
    /** Watches resumed from the last revision on the other instance (no relist). */
    moves: number;
    port: number;
  }
  const informers: Informer[] = [];
  const watchOnce = (inf: Informer): Promise<void> =>
    new Promise((resolve) => {
      const inst = instances[rr++ % instances.length];
      if (!inst.alive) return resolve();
      if (inf.port !== 0 && inf.port !== inst.port && inf.rv !== '') inf.moves++;
      inf.port = inst.port;
      const path = `/api/v1/namespaces/failover/configmaps?watch=1&allowWatchBookmarks=true&timeoutSeconds=20&resourceVersion=${inf.rv}`;
      const req = httpsRequest({ host: '127.0.0.1', port: inst.port, path, agent: false, ca, cert, key }, (res) => {
        if (res.statusCode !== 200) {
          res.resume();
          res.on('end', () => resolve());
          return;
        }
        const lines = createInterface({ input: res });
        lines.on('error', () => resolve());
        lines.on('line', (line) => {
          if (line.trim() === '') return;
          const ev = JSON.parse(line) as WatchEvent;
          if (ev.type === 'ERROR') {
            if (ev.object.code === 410) inf.rv = ''; // too old: relist
            return;
          }
          const rv = ev.object.metadata.resourceVersion;
          inf.rv = rv;
          if (ev.type === 'BOOKMARK') return;
          inf.chains[inf.chains.length - 1].revs.push(Number(rv));
          if (ev.type === 'DELETED') inf.cache.delete(ev.object.metadata.name);
          else inf.cache.set(ev.object.metadata.name, rv);
        });
        lines.on('close', () => resolve());
        res.on('error', () => resolve());
      });
      req.on('error', () => resolve());
      req.end();
    });
  const relist = async (inf: Informer): Promise<boolean> => {
    const r = await call('GET', '/api/v1/namespaces/failover/configmaps');
    if (r.status !== 200) return false;
    const list = JSON.parse(r.body) as { metadata: { resourceVersion: string }; items: { metadata: { name: string; resourceVersion: string } }[] };
    inf.cache = new Map(list.items.map((o) => [o.metadata.name, o.metadata.resourceVersion]));
    inf.rv = list.metadata.resourceVersion;
    inf.chains.push({ from: Number(inf.rv), revs: [] });
    inf.relists++;
    return true;
  };
  const running: Promise<void>[] = [];
  for (let i = 0; i < 8; i++) {
    const inf: Informer = { cache: new Map(), chains: [], relists: -1, rv: '', stop: false, moves: 0, port: 0 };
    informers.push(inf);
    running.push(
      (async () => {
        while (!inf.stop && !finished) {
          if (inf.rv === '' && !(await relist(inf))) {
            await new Promise((r) => setTimeout(r, 100));
            continue;
          }
          await watchOnce(inf);
          if (!inf.stop) await new Promise((r) => setTimeout(r, 50));
        }
      })(),
    );
  }

  // ---- the write burst: creates and updates from 4 writers through the round robin ----
  const acked = new Map<string, number>();
  let writing = true;
  let seq = 0;
  const writers = Array.from({ length: 4 }, async () => {
    while (writing && !finished) {
      const n = seq++;
      const name = `cm-${n}`;
      const made = await call('POST', '/api/v1/namespaces/failover/configmaps', JSON.stringify({ metadata: { name }, data: { v: '0' } }));
      if (made.status !== 201) {
        await new Promise((r) => setTimeout(r, 20));
        continue;
      }
      const obj = JSON.parse(made.body) as { metadata: { resourceVersion: string } };
      acked.set(name, Number(obj.metadata.resourceVersion));
      if (n % 3 === 0) {
        const updated = await call('PUT', `/api/v1/namespaces/failover/configmaps/${name}`, JSON.stringify({ metadata: { name, resourceVersion: obj.metadata.resourceVersion }, data: { v: '1' } }));
        if (updated.status === 200) acked.set(name, Number((JSON.parse(updated.body) as { metadata: { resourceVersion: string } }).metadata.resourceVersion));
      }
    }
  });
  const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));
  await pause(1200);
  await etcd.kill(0); // an etcd member, kill -9
  await pause(1200);
  instances[0].alive = false;
  instances[0].child.kill('SIGKILL'); // a Capstan instance, kill -9
  await pause(1200);
  await etcd.restart(0);
  instances[0] = await startInstance(dirs[0], etcd.clientUrls);
  await pause(1200);
  writing = false;
  await Promise.all(writers);
  assert.ok(acked.size > 20, `only ${acked.size} writes were acknowledged`);

  // ---- afterwards ----
  const fresh = await call('GET', '/api/v1/namespaces/failover/configmaps');
  assert.equal(fresh.status, 200, fresh.body);
  const list = JSON.parse(fresh.body) as { metadata: { resourceVersion: string }; items: { metadata: { name: string; resourceVersion: string } }[] };
  const stored = new Map(list.items.map((o) => [o.metadata.name, Number(o.metadata.resourceVersion)]));
  for (const [name, rv] of acked) {
    assert.ok(stored.has(name), `acknowledged ${name} is missing`);
    assert.ok(stored.get(name)! >= rv, `${name}: stored resourceVersion ${stored.get(name)} is older than the acknowledged ${rv}`);
  }
  const want = new Map([...stored].map(([k, v]) => [k, String(v)]));
  const top = Math.max(...stored.values());
  const same = (inf: Informer) => inf.cache.size === want.size && [...want].every(([k, v]) => inf.cache.get(k) === v);
  for (let i = 0; i < 200 && !informers.every(same); i++) await pause(50);
  for (const inf of informers) inf.stop = true;

  // etcd's own history of the prefix: every event revision since the start.
  const history: number[] = await new Promise((resolve, reject) => {
    const revs: number[] = [];
    setTimeout(() => reject(new Error(`etcd history reached ${revs.at(-1)}, not ${top}`)), 10_000).unref();
    etcdClient.watch().prefix(PREFIX).startRevision(String(startRevision + 1)).create().then((w) => {
      const note = (kv: { mod_revision: string }) => {
        revs.push(Number(kv.mod_revision));
        if (Number(kv.mod_revision) >= top) void w.cancel().then(() => resolve(revs));
      };
      w.on('put', note);
      w.on('delete', note);
    }, reject);
  });
  for (const [i, inf] of informers.entries()) {
    assert.deepEqual(inf.cache, want, `informer ${i}: cache equals a fresh list`);
    for (const chain of inf.chains) {
      const end = chain.revs.at(-1) ?? chain.from;
      const expected = history.filter((r) => r > chain.from && r <= end);
      assert.deepEqual(chain.revs, expected, `informer ${i}: the events of a watch chain from ${chain.from} are etcd's, each once`);
    }
  }
  assert.ok(informers.reduce((n, inf) => n + inf.moves, 0) >= 1, 'watches resumed on the other instance from their last revision');
  } finally {
    finished = true;
    etcdClient.close();
    agent.destroy();
    for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  }
});
