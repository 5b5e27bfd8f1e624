// Watch and list benchmarks (run by `npm run bench`, or alone: node bench/watch.ts [--quick]).
//
//   fan-out   1,000 concurrent watchers (JSON, and protobuf over HTTP/1.1) on one resource receiving 2,000 paced
//             writes: events delivered per second,
//             delay from write acknowledgement to delivery (p50/p99), server memory. Raw limit: a bare Node HTTPS
//             server (same listener kind and certificates) writing the same lines to as many open responses.
//   lists     10,000 and 50,000 1 KiB objects (sqlite) served from the watch cache and from storage, unpaged and
//             paged (500 per page). Raw limit: the bare server sending a body of the same size.
//   memory    heap per cached 1 KiB object, measured in this process around a cache fill from sqlite.
//
// Child modes (used by the benchmark itself): --serve <backend> <dataDir>, --bare <pkiDir>.

import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import http2 from 'node:http2';
import type { ClientRequest } from 'node:http';
import https from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { stop } from './children.ts';
import { parseQuickFlag } from '../scripts/script-args.ts';

const here = fileURLToPath(import.meta.url);

interface Tls {
  ca: string;
  cert?: string;
  key?: string;
}

interface Served {
  child: ChildProcess;
  port: number;
  tls: Tls;
  dataDir?: string;
}

function fmt(n: number, digits = 0): string {
  return n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

function line(what: string, capstan: string, raw: string, ratio: string): void {
  process.stdout.write(`  ${what}: ${capstan} | raw ${raw} | ${ratio}\n`);
}

const verdict = (ok: boolean) => (ok ? 'met' : 'MISSED');

async function rssMiB(pid: number): Promise<number> {
  const s = await readFile(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(s)?.[1] ?? 0) / 1024;
}

async function spawnChild(args: string[]): Promise<{ child: ChildProcess; info: Record<string, unknown> }> {
  const flags = process.env.BENCH_CHILD_FLAGS ? process.env.BENCH_CHILD_FLAGS.split(' ') : [];
  const child = spawn(process.execPath, [...flags, here, ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout! });
  const first = await new Promise<string>((resolve, reject) => {
    lines.once('line', resolve);
    child.once('exit', (code) => reject(new Error(`bench child ${args[0]} exited with ${code}`)));
  });
  return { child, info: JSON.parse(first) as Record<string, unknown> };
}

async function serve(backend: 'memory' | 'sqlite', dataDir: string): Promise<Served> {
  const { child, info } = await spawnChild(['--serve', backend, dataDir]);
  return { child, port: info.port as number, tls: { ca: info.caCert as string, cert: info.clientCert as string, key: info.clientKey as string }, dataDir };
}

async function bare(pkiDir: string): Promise<Served> {
  const { child, info } = await spawnChild(['--bare', pkiDir]);
  return { child, port: info.port as number, tls: { ca: info.caCert as string } };
}

function agentFor(tls: Tls, sockets: number): https.Agent {
  return new https.Agent({ keepAlive: true, maxSockets: sockets, ca: tls.ca, cert: tls.cert, key: tls.key });
}

function request(port: number, agent: https.Agent, method: string, path: string, body?: string): Promise<{ status: number; bytes: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = https.request({ host: '127.0.0.1', port, path, method, agent, headers: { 'content-type': 'application/json' } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const buf = Buffer.concat(chunks);
        resolve({ status: res.statusCode ?? 0, bytes: buf.length, body: buf.length < 4096 ? buf.toString() : '' });
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}

// ---- fan-out ----

interface FanOut {
  delivered: number;
  perSecond: number;
  p50: number;
  p99: number;
  dropped: number;
  rssIdle: number;
  rssWatching: number;
  rssAfter: number;
  /** CPU ms of the server and of this (client) process from the first measured write to the last delivery. */
  serverCpuMs: number;
  clientCpuMs: number;
}

async function cpuMs(pid: number): Promise<number> {
  const fields = (await readFile(`/proc/${pid}/stat`, 'utf8')).split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/**
 * Opens `watchers` streams, then makes `writes` paced creates; measures ack-to-delivery delays. `protobuf`: the
 * watchers ask for application/vnd.kubernetes.protobuf;stream=watch and read length-prefixed frames.
 */
async function fanOut(target: Served, path: string, writes: number, watchers: number, ratePerSecond: number, h2Sessions = 0, protobuf = false): Promise<FanOut> {
  const accept = protobuf ? 'application/vnd.kubernetes.protobuf;stream=watch' : 'application/json';
  const watchAgent = agentFor(target.tls, watchers + 10);
  const writeAgent = agentFor(target.tls, 4);
  const rssIdle = await rssMiB(target.child.pid!);
  const acked = new Map<string, number>();
  const early = new Map<string, number[]>();
  const delays: number[] = [];
  let delivered = 0;
  let ended = 0;
  let firstDelivery = 0;
  let lastDelivery = 0;
  const note = (name: string, at: number) => {
    delivered++;
    if (firstDelivery === 0) firstDelivery = at;
    lastDelivery = at;
    const t = acked.get(name);
    if (t === undefined) (early.get(name) ?? early.set(name, []).get(name)!).push(at);
    else delays.push(Math.max(0, at - t));
  };
  const requests: ClientRequest[] = [];
  const sessions: http2.ClientHttp2Session[] = [];
  // Protobuf frames: a 4-byte big-endian length (read from the latin1 text, one char per byte), then the event.
  const onFrames = (chunk: string, tail: string): string => {
    const at = performance.now();
    const text = tail + chunk;
    let pos = 0;
    while (text.length - pos >= 4) {
      const len = ((text.charCodeAt(pos) << 24) | (text.charCodeAt(pos + 1) << 16) | (text.charCodeAt(pos + 2) << 8) | text.charCodeAt(pos + 3)) >>> 0;
      if (text.length - pos - 4 < len) break;
      const m = /(w-\d+)/.exec(text.slice(pos + 4, Math.min(pos + 4 + len, pos + 404)));
      if (m) note(m[1], at);
      pos += 4 + len;
    }
    return text.slice(pos);
  };
  const onLines = (chunk: string, tail: string): string => {
    const at = performance.now();
    const text = tail + chunk;
    let start = 0;
    for (let nl = text.indexOf('\n'); nl >= 0; nl = text.indexOf('\n', start)) {
      const m = /"name":"(w-\d+)"/.exec(text.slice(start, Math.min(nl, start + 400)));
      if (m) note(m[1], at);
      start = nl + 1;
    }
    return text.slice(start);
  };
  const onData = protobuf ? onFrames : onLines;
  // HTTP/2: the watchers share a few connections, as the informers of one client process do.
  const openH2 = (i: number) =>
    new Promise<void>((resolve, reject) => {
      const session = sessions[i % sessions.length];
      const stream = session.request({ ':path': `${path}?watch=true&timeoutSeconds=600`, accept });
      let tail = '';
      stream.setEncoding('latin1');
      stream.on('response', (h) => (h[':status'] === 200 ? resolve() : reject(new Error(`watch ${i}: ${h[':status']}`))));
      stream.on('data', (chunk: string) => (tail = onData(chunk, tail)));
      stream.on('close', () => ended++);
      stream.on('error', reject);
    });
  const open = (i: number) =>
    new Promise<void>((resolve, reject) => {
      const req = https.request({ host: '127.0.0.1', port: target.port, path: `${path}?watch=true&timeoutSeconds=600`, agent: watchAgent, headers: { accept } }, (res) => {
        if (res.statusCode !== 200) reject(new Error(`watch ${i}: ${res.statusCode}`));
        let tail = '';
        res.setEncoding('latin1');
        res.on('data', (chunk: string) => (tail = onData(chunk, tail)));
        res.on('end', () => ended++);
        res.on('close', () => ended++);
        resolve();
      });
      req.on('error', reject);
      req.end();
      requests.push(req);
    });
  if (h2Sessions > 0) {
    for (let i = 0; i < h2Sessions; i++) sessions.push(http2.connect(`https://127.0.0.1:${target.port}`, { ca: target.tls.ca, cert: target.tls.cert, key: target.tls.key, settings: { initialWindowSize: 1 << 20 } }));
  }
  const opener = h2Sessions > 0 ? openH2 : open;
  for (let i = 0; i < watchers; i += 50) await Promise.all(Array.from({ length: Math.min(50, watchers - i) }, (_, j) => opener(i + j)));
  await new Promise((r) => setTimeout(r, 500));
  const rssWatching = await rssMiB(target.child.pid!);

  const body = (name: string) => JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'fan' }, data: { payload: 'x'.repeat(200) } });
  // Warm-up writes (not measured: their names do not match), so the figures describe the steady state.
  for (let i = 0; i < 50; i++) {
    await request(target.port, writeAgent, 'POST', path, body(`warm-${i}`));
    await new Promise((r) => setTimeout(r, 1000 / ratePerSecond));
  }
  await new Promise((r) => setTimeout(r, 300));
  const serverCpu0 = await cpuMs(target.child.pid!);
  const clientCpu0 = process.cpuUsage();
  const t0 = performance.now();
  const gap = 1000 / ratePerSecond;
  const inflight: Promise<void>[] = [];
  for (let i = 0; i < writes; i++) {
    const due = t0 + i * gap;
    const wait = due - performance.now();
    if (wait > 1) await new Promise((r) => setTimeout(r, wait));
    const name = `w-${i}`;
    inflight.push(
      request(target.port, writeAgent, 'POST', path, body(name)).then((r) => {
        if (r.status !== 201) throw new Error(`write ${i}: ${r.status} ${r.body}`);
        const at = performance.now();
        acked.set(name, at);
        // Delivered before the writer saw its acknowledgement: no delay to count.
        for (const _ of early.get(name) ?? []) delays.push(0);
        early.delete(name);
      }),
    );
    if (inflight.length >= 8) await inflight.shift();
  }
  await Promise.all(inflight);
  const expected = writes * watchers;
  const deadline = performance.now() + 30_000;
  while (delivered < expected && performance.now() < deadline && ended < watchers) await new Promise((r) => setTimeout(r, 20));
  const serverCpuMs = (await cpuMs(target.child.pid!)) - serverCpu0;
  const clientCpu = process.cpuUsage(clientCpu0);
  await new Promise((r) => setTimeout(r, 200));
  const rssAfter = await rssMiB(target.child.pid!);
  for (const r of requests) r.destroy();
  for (const x of sessions) x.destroy();
  watchAgent.destroy();
  writeAgent.destroy();
  delays.sort((a, b) => a - b);
  const seconds = Math.max(0.001, (lastDelivery - firstDelivery) / 1000);
  return { delivered, perSecond: delivered / seconds, p50: percentile(delays, 50), p99: percentile(delays, 99), dropped: expected - delivered, rssIdle, rssWatching, rssAfter, serverCpuMs, clientCpuMs: (clientCpu.user + clientCpu.system) / 1000 };
}

// ---- lists ----

async function timeIt(f: () => Promise<unknown>, runs: number): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    await f();
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)];
}

async function listOnce(port: number, agent: https.Agent, path: string): Promise<{ bytes: number }> {
  const r = await request(port, agent, 'GET', path);
  if (r.status !== 200) throw new Error(`GET ${path}: ${r.status} ${r.body}`);
  return { bytes: r.bytes };
}

async function listPaged(port: number, agent: https.Agent, path: string, limit: number): Promise<number> {
  let cont = '';
  let pages = 0;
  do {
    const r = await new Promise<string>((resolve, reject) => {
      const req = https.request({ host: '127.0.0.1', port, path: `${path}?limit=${limit}${cont ? `&continue=${cont}` : ''}`, agent }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => (res.statusCode === 200 ? resolve(Buffer.concat(chunks).toString()) : reject(new Error(`page: ${res.statusCode}`))));
      });
      req.on('error', reject);
      req.end();
    });
    const m = /"continue":"([^"]*)"/.exec(r.slice(0, 2000));
    cont = m ? m[1] : '';
    pages++;
  } while (cont);
  return pages;
}

function storedConfigMap(ns: string, name: string): string {
  return JSON.stringify({
    kind: 'ConfigMap',
    apiVersion: 'v1',
    metadata: { name, namespace: ns, uid: '6c1f5a3e-0000-4000-8000-000000000000', creationTimestamp: '2026-01-01T00:00:00Z', labels: { app: 'bench' } },
    data: { payload: 'x'.repeat(800) },
  });
}

/** Writes the objects straight into a sqlite data dir (the server then starts with them). */
async function seedSqlite(dataDir: string, sizes: Record<string, number>): Promise<number> {
  const { openSqliteStorage } = await import('../src/storage/sqlite/sqlite-storage.ts');
  const { SQLITE_FILE_NAME } = await import('../src/storage/open.ts');
  const { mkdir } = await import('node:fs/promises');
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  const storage = openSqliteStorage(join(dataDir, SQLITE_FILE_NAME));
  let bytes = 0;
  for (const [ns, n] of Object.entries(sizes)) {
    await storage.create(`/registry/namespaces/${ns}`, JSON.stringify({ kind: 'Namespace', apiVersion: 'v1', metadata: { name: ns, uid: '00000000-0000-4000-8000-000000000000', creationTimestamp: '2026-01-01T00:00:00Z' }, spec: { finalizers: ['kubernetes'] }, status: { phase: 'Active' } }));
    for (let i = 0; i < n; i++) {
      const v = storedConfigMap(ns, `cm-${String(i).padStart(6, '0')}`);
      bytes += v.length;
      await storage.create(`/registry/configmaps/${ns}/cm-${String(i).padStart(6, '0')}`, v);
    }
  }
  await storage.close();
  return bytes / Object.values(sizes).reduce((a, b) => a + b, 0);
}

interface InProcess {
  perObject: number;
  objects: number;
  /** Per namespace: ms to produce the list body from the cache and from storage (median). */
  lists: Record<string, { cache: number; storage: number }>;
}

/**
 * In this process, on the same sqlite file: heap bytes per object of a filled watch cache (after full GCs), and the
 * time to produce a list's response bytes from the cache and from storage without any network in between.
 */
async function inProcess(dataDir: string, namespaces: string[]): Promise<InProcess> {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  const { openSqliteStorage } = await import('../src/storage/sqlite/sqlite-storage.ts');
  const { SQLITE_FILE_NAME } = await import('../src/storage/open.ts');
  const { createGenericStore } = await import('../src/registry/store.ts');
  const { builtinDefinitions, loopbackContext } = await import('../src/registry/registry.ts');
  const { rawItemsOf } = await import('../src/registry/list-json.ts');
  const { rawListBody } = await import('../src/endpoints/list-body.ts');
  const { EventEmitter } = await import('node:events');
  const def = builtinDefinitions('').find((d) => d.group === '' && d.resource === 'configmaps')!;
  const storage = openSqliteStorage(join(dataDir, SQLITE_FILE_NAME));
  const settle = () => {
    for (let i = 0; i < 4; i++) gc();
    // The JS heap plus Buffer memory outside it (the cache keeps list item bytes in Buffers).
    const m = process.memoryUsage();
    return m.heapUsed + m.arrayBuffers;
  };
  const before = settle();
  const store = createGenericStore({ storage, definition: def });
  const cache = store.core.cache!;
  await cache.waitReady(120_000);
  const after = settle();
  // The storage side reads sqlite alone: with a watch cache, storage reads reuse the item bytes it holds.
  const uncached = createGenericStore({ storage, definition: def, watchCache: false });
  const objects = cache.size().objects;
  const lists: InProcess['lists'] = {};
  const rv = String(await storage.currentRevision());
  // The response body as the server writes it (in a pooled buffer, handed back once "sent").
  const body = (l: Awaited<ReturnType<typeof store.list>>) => {
    const response = new EventEmitter();
    const bytes = rawListBody(l, rawItemsOf(l)!, response).length;
    response.emit('close');
    return bytes;
  };
  for (const ns of namespaces) {
    const ctx = loopbackContext(ns);
    const cacheMs = await timeIt(async () => body(await store.list(ctx, {})), 5);
    const storageMs = await timeIt(async () => body(await uncached.list(ctx, { resourceVersion: rv, resourceVersionMatch: 'Exact' })), 5);
    lists[ns] = { cache: cacheMs, storage: storageMs };
  }
  cache.stop();
  await storage.close();
  return { perObject: (after - before) / objects, objects, lists };
}

export interface WatchBenchOptions {
  quick?: boolean;
}

export async function benchWatch(options: WatchBenchOptions = {}): Promise<void> {
  const quick = options.quick === true;
  const WATCHERS = Number(process.env.BENCH_WATCHERS ?? 1000);
  const WRITES = quick ? 500 : 2000;
  const RATE = Number(process.env.BENCH_WATCH_RATE ?? 50);
  const scratch = await mkdtemp(join(tmpdir(), 'capstan-bench-watch-'));
  try {
    // ---- fan-out ----
    // BENCH_WATCH_ONLY: 'lists', 'fanout', or 'http1' (the HTTP/1.1 fan-out alone, JSON and protobuf).
    const only = process.env.BENCH_WATCH_ONLY;
    for (const h2 of only === 'lists' ? [] : only === 'http1' ? [0] : [0, 10]) {
      const how = h2 ? `HTTP/2, ${h2} connections` : 'HTTP/1.1, one connection each';
      process.stdout.write(`watch fan-out: ${fmt(WATCHERS)} watchers (HTTPS, ${how}) on one resource, ${fmt(WRITES)} creates paced at ${RATE}/s\n`);
      const capstan = await serve('memory', join(scratch, `fan${h2}`));
      let ours: FanOut;
      let raw: FanOut;
      const agent = agentFor(capstan.tls, 2);
      try {
        await request(capstan.port, agent, 'POST', '/api/v1/namespaces', JSON.stringify({ metadata: { name: 'fan' } }));
        ours = await fanOut(capstan, '/api/v1/namespaces/fan/configmaps', WRITES, WATCHERS, RATE, h2);
      } finally {
        agent.destroy();
        await stop(capstan.child);
      }
      const b = await bare(join(scratch, `fan${h2}`, 'pki'));
      try {
        raw = await fanOut(b, '/fan', WRITES, WATCHERS, RATE, h2);
      } finally {
        await stop(b.child);
      }
      line('events delivered', `${fmt(ours.delivered)} (${fmt(ours.perSecond)}/s, dropped ${fmt(ours.dropped)})`, `${fmt(raw.delivered)} (${fmt(raw.perSecond)}/s) bare fan-out`, `${fmt(ours.perSecond / raw.perSecond, 2)}x the bare rate`);
      line('delay write ack -> delivery, p50', `${fmt(ours.p50, 1)} ms`, `${fmt(raw.p50, 1)} ms`, `${fmt(ours.p50 / Math.max(0.1, raw.p50), 2)}x`);
      line('delay write ack -> delivery, p99', `${fmt(ours.p99, 1)} ms`, `${fmt(raw.p99, 1)} ms`, `${fmt(ours.p99 / Math.max(0.1, raw.p99), 2)}x (target p99 < 100 ms: ${verdict(ours.p99 < 100)})`);
      const perEvent = (f: FanOut) => `${fmt((1000 * f.serverCpuMs) / Math.max(1, f.delivered), 1)} µs server CPU per delivered event (client ${fmt((1000 * f.clientCpuMs) / Math.max(1, f.delivered), 1)} µs)`;
      line('CPU per delivered event', perEvent(ours), perEvent(raw), `${fmt(ours.serverCpuMs / Math.max(1, raw.serverCpuMs), 2)}x the bare server's CPU`);
      line('server RSS idle / watching / after the writes', `${fmt(ours.rssIdle, 1)} / ${fmt(ours.rssWatching, 1)} / ${fmt(ours.rssAfter, 1)} MiB`, `${fmt(raw.rssIdle, 1)} / ${fmt(raw.rssWatching, 1)} / ${fmt(raw.rssAfter, 1)} MiB`, `${fmt(((ours.rssWatching - ours.rssIdle) / WATCHERS) * 1024, 1)} KiB per watcher (bare ${fmt(((raw.rssWatching - raw.rssIdle) / WATCHERS) * 1024, 1)})`);
      if (h2 === 0 && process.env.BENCH_WATCH_PROTOBUF !== '0') {
        // The same fan-out in protobuf: each event is encoded once for all the protobuf watchers.
        const pbServer = await serve('memory', join(scratch, 'fan-protobuf'));
        const pbAgent = agentFor(pbServer.tls, 2);
        let pb: FanOut;
        try {
          await request(pbServer.port, pbAgent, 'POST', '/api/v1/namespaces', JSON.stringify({ metadata: { name: 'fan' } }));
          pb = await fanOut(pbServer, '/api/v1/namespaces/fan/configmaps', WRITES, WATCHERS, RATE, 0, true);
        } finally {
          pbAgent.destroy();
          await stop(pbServer.child);
        }
        line('protobuf watchers: events delivered', `${fmt(pb.delivered)} (${fmt(pb.perSecond)}/s, dropped ${fmt(pb.dropped)})`, `${fmt(raw.delivered)} (${fmt(raw.perSecond)}/s) bare fan-out`, `${fmt(pb.perSecond / raw.perSecond, 2)}x the bare rate`);
        line('protobuf watchers: CPU per delivered event', `${fmt((1000 * pb.serverCpuMs) / Math.max(1, pb.delivered), 1)} µs server (client ${fmt((1000 * pb.clientCpuMs) / Math.max(1, pb.delivered), 1)} µs)`, `JSON ${fmt((1000 * ours.serverCpuMs) / Math.max(1, ours.delivered), 1)} µs server (client ${fmt((1000 * ours.clientCpuMs) / Math.max(1, ours.delivered), 1)} µs)`, `${fmt(pb.serverCpuMs / Math.max(1, ours.serverCpuMs), 2)}x JSON's server CPU`);
        line('protobuf watchers: delay write ack -> delivery, p99', `${fmt(pb.p99, 1)} ms (JSON ${fmt(ours.p99, 1)} ms)`, `${fmt(raw.p99, 1)} ms`, `${fmt(pb.p99 / Math.max(0.1, raw.p99), 2)}x bare; ${fmt(pb.p99 / Math.max(0.1, ours.p99), 2)}x JSON (target same p99 as JSON, < 100 ms: ${verdict(pb.p99 < 100)})`);
      }
    }

    if (only === 'fanout' || only === 'http1') return;

    // ---- lists ----
    const sizes: Record<string, number> = quick ? { l10k: 10_000 } : { l10k: 10_000, l50k: 50_000 };
    process.stdout.write(`lists of 1 KiB ConfigMaps (sqlite; ${Object.values(sizes).map((n) => fmt(n)).join(' and ')} objects in one resource)\n`);
    const dataDir = join(scratch, 'lists');
    const objBytes = await seedSqlite(dataDir, sizes);
    const mem = await inProcess(dataDir, Object.keys(sizes));
    line('memory per cached object', `${fmt(mem.perObject)} bytes (${fmt(mem.objects)} objects)`, `${fmt(objBytes)} bytes stored value`, `${fmt(mem.perObject / objBytes, 2)}x the value (target < 3 KiB: ${verdict(mem.perObject < 3072)})`);
    const server = await serve('sqlite', dataDir);
    const a = agentFor(server.tls, 2);
    try {
      const bodies: Record<string, number> = {};
      for (const [ns, n] of Object.entries(sizes)) {
        const path = `/api/v1/namespaces/${ns}/configmaps`;
        const runs = n > 20_000 ? 3 : 5;
        // Wait until the cache holds everything (a consistent read from the cache).
        const first = await request(server.port, a, 'GET', `${path}?limit=1`);
        const rv = /"resourceVersion":"(\d+)"/.exec(first.body)?.[1] ?? '';
        const size = (await listOnce(server.port, a, path)).bytes;
        bodies[ns] = size;
        const cacheMs = await timeIt(() => listOnce(server.port, a, path), runs);
        const zeroMs = await timeIt(() => listOnce(server.port, a, `${path}?resourceVersion=0`), runs);
        const storageMs = await timeIt(() => listOnce(server.port, a, `${path}?resourceVersion=${rv}&resourceVersionMatch=Exact`), runs);
        let pages = 0;
        const pagedMs = await timeIt(async () => (pages = await listPaged(server.port, a, path, 500)), runs);
        const cachePagedMs = await timeIt(() => listOnce(server.port, a, `${path}?resourceVersion=0&limit=500`), runs);
        const bareServer = await bare(join(dataDir, 'pki'));
        const bareAgent = agentFor(bareServer.tls, 2);
        let bareMs = 0;
        try {
          bareMs = await timeIt(() => listOnce(bareServer.port, bareAgent, `/size/${size}`), runs);
        } finally {
          bareAgent.destroy();
          await stop(bareServer.child);
        }
        const k = `${fmt(n / 1000)}k`;
        const local = mem.lists[ns];
        line(`list ${k} built in-process (no network): cache vs storage`, `${fmt(local.cache, 1)} ms`, `${fmt(local.storage, 1)} ms from sqlite`, `${fmt(local.storage / local.cache, 1)}x faster (target >= 5x: ${verdict(local.storage / local.cache >= 5)})`);
        line(`list ${k} from the cache (consistent, rv "")`, `${fmt(cacheMs, 1)} ms, ${fmt(size / 1048576, 1)} MiB`, `${fmt(bareMs, 1)} ms bare HTTPS body`, `${fmt(cacheMs / bareMs, 2)}x bare`);
        line(`list ${k} from the cache (rv "0")`, `${fmt(zeroMs, 1)} ms`, `${fmt(bareMs, 1)} ms`, `${fmt(zeroMs / bareMs, 2)}x bare`);
        line(`list ${k} at an Exact resourceVersion (storage's answer; the cache gives it when it holds exactly that revision)`, `${fmt(storageMs, 1)} ms`, `${fmt(bareMs, 1)} ms`, `${fmt(storageMs / bareMs, 2)}x bare`);
        line(`list ${k} paged by 500 (storage's pages; the cache gives those at a revision it holds exactly)`, `${fmt(pagedMs, 1)} ms (${pages} pages)`, `${fmt(bareMs, 1)} ms`, `${fmt(pagedMs / bareMs, 2)}x bare`);
        line(`list ${k} from the cache, rv "0" + limit 500 (limit ignored, as kube 1.31)`, `${fmt(cachePagedMs, 1)} ms`, `${fmt(bareMs, 1)} ms`, `${fmt(cachePagedMs / bareMs, 2)}x bare`);
      }
      line('server RSS with the lists cached', `${fmt(await rssMiB(server.child.pid!), 1)} MiB`, '-', '-');
    } finally {
      a.destroy();
      await stop(server.child);
    }
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

// ---- child modes ----

async function childServe(backend: 'memory' | 'sqlite', dataDir: string): Promise<void> {
  const { startCapstan } = await import('../src/index.ts');
  const capstan = await startCapstan({ storageBackend: backend, dataDir, port: 0, bindAddress: '127.0.0.1', historyWindowSeconds: 300, enableTestControls: false });
  process.stdout.write(JSON.stringify({ port: capstan.port, caCert: capstan.caCert, clientCert: capstan.clientCert, clientKey: capstan.clientKey }) + '\n');
  process.on('SIGTERM', async () => {
    await capstan.close();
    process.exit(0);
  });
}

/** The raw limit: fans each POSTed body out, as one line, to every open GET; GET /size/N answers N bytes. */
async function childBare(pkiDir: string): Promise<void> {
  const cert = await readFile(join(pkiDir, 'apiserver.crt'));
  const key = await readFile(join(pkiDir, 'apiserver.key'));
  const ca = await readFile(join(pkiDir, 'ca.crt'), 'utf8').catch(() => '');
  const open = new Set<http2.Http2ServerResponse>();
  const server = http2.createSecureServer({ cert, key, allowHTTP1: true, noDelay: true }, (req, res) => {
    const url = req.url ?? '/';
    if (req.method === 'POST') {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        // Acknowledge first, then fan out (as a server that commits, answers, then notifies watchers).
        res.writeHead(201, { 'content-type': 'application/json' });
        res.end('{}');
        const event = Buffer.from(`{"type":"ADDED","object":${Buffer.concat(chunks).toString()}}\n`);
        setImmediate(() => {
          for (const w of open) w.write(event);
        });
      });
      return;
    }
    const size = /^\/size\/(\d+)/.exec(url);
    if (size) {
      const body = Buffer.alloc(Number(size[1]), 0x78);
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': body.length });
      res.end(body);
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.write('');
    open.add(res);
    res.on('close', () => open.delete(res));
  });
  server.listen(0, '127.0.0.1', () => {
    const address = server.address();
    process.stdout.write(JSON.stringify({ port: typeof address === 'object' && address ? address.port : 0, caCert: ca }) + '\n');
  });
  process.on('SIGTERM', () => process.exit(0));
}

if (process.argv[1] === here) {
  const [mode, a, b] = process.argv.slice(2);
  if (mode === '--serve') await childServe(a === 'sqlite' ? 'sqlite' : 'memory', b);
  else if (mode === '--bare') await childBare(a);
  else await benchWatch({ quick: parseQuickFlag('node bench/watch.ts', 'Watch fan-out to 1,000 watchers, lists of 10,000 and 50,000 objects from the watch cache and from storage, and cache memory per object.') });
}
