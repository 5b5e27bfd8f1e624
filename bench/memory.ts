// Memory handed back after load (issue 16): RSS of `capstan` (bin/capstan.js, as users run it) before, at peak during
// and 60 s after a mixed load of 10,000 requests with 500 watchers open (each sent a 1 MiB object among its initial
// events). The raw limit is the
// server's own pre-load RSS, measured in the same run (target: back within 1.5x of it); a bare Node HTTPS server's
// idle RSS is printed for context.
//
//   node bench/run.ts --only=memory [--quick]   (quick: 2,000 requests, 100 watchers, 20 s settle)

import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import http2 from 'node:http2';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { runLoad } from './load.ts';
import { stop } from './children.ts';
import { parseQuickFlag } from '../scripts/script-args.ts';

const root = new URL('..', import.meta.url).pathname;

export interface MemoryRow {
  what: string;
  capstan: string;
  raw: string;
  ratio: string;
}

async function rssMiB(pid: number): Promise<number> {
  const s = await readFile(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(s)?.[1] ?? 0) / 1024;
}

async function spawnJson(file: string, args: string[]): Promise<{ child: ChildProcess; info: Record<string, string | number> }> {
  const child = spawn(process.execPath, [join(root, file), ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
  const first = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`${file} exited with ${code}`)));
  });
  return { child, info: JSON.parse(first) as Record<string, string | number> };
}

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const a = s.address();
      s.close(() => resolve(typeof a === 'object' && a ? a.port : 0));
    });
  });
}

/** `capstan` as users run it (bin/capstan.js, allocator settings included), ready, with the admin credentials. */
async function startCli(dataDir: string): Promise<{ child: ChildProcess; port: number; tls: { ca: string; cert: string; key: string } }> {
  const port = await freePort();
  const child = spawn(process.execPath, [join(root, 'bin/capstan.js'), '--storage-backend=memory', `--data-dir=${dataDir}`, `--secure-port=${port}`], { stdio: ['ignore', 'ignore', 'inherit'] });
  const started = performance.now();
  for (;;) {
    if (child.exitCode !== null) throw new Error(`capstan exited with ${child.exitCode}`);
    if (performance.now() - started > 30_000) throw new Error('capstan did not become ready in 30 s');
    const kubeconfig = await readFile(join(dataDir, 'admin.kubeconfig'), 'utf8').catch(() => '');
    const field = (name: string) => Buffer.from(new RegExp(`${name}: (\\S+)`).exec(kubeconfig)?.[1] ?? '', 'base64').toString('utf8');
    const tls = { ca: field('certificate-authority-data'), cert: field('client-certificate-data'), key: field('client-key-data') };
    if (tls.key) {
      const r = await runLoad({ url: `https://127.0.0.1:${port}`, tls, concurrency: 1, requests: 1, request: () => ({ method: 'GET', path: '/readyz' }) }).catch(() => undefined);
      if (r && r.errors === 0) return { child, port, tls };
    }
    await sleep(100);
  }
}

const fmt = (n: number, digits = 0): string => n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function benchMemory(opts: { quick: boolean }): Promise<MemoryRow[]> {
  const requests = opts.quick ? 2000 : 10_000;
  const watchers = Number(process.env.BENCH_WATCHERS ?? (opts.quick ? 100 : 500));
  const settleMs = opts.quick ? 20_000 : 60_000;
  process.stdout.write(`memory (${fmt(requests)} mixed requests, ${watchers} watchers, RSS ${settleMs / 1000} s after)\n`);
  const rows: MemoryRow[] = [];

  const dataDir = await mkdtemp(join(tmpdir(), 'capstan-bench-mem-'));
  const { child, port, tls } = await startCli(join(dataDir, 'data'));
  const bare = await spawnJson('bench/bare-https.ts', [join(dataDir, 'data')]);
  await sleep(1000);
  const bareRss = await rssMiB(bare.child.pid!);
  await stop(bare.child);
  const pid = child.pid!;
  const url = `https://127.0.0.1:${port}`;
  const sessions: http2.ClientHttp2Session[] = [];
  try {
    const ns = '/api/v1/namespaces/default/configmaps';
    const big = JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'big' }, data: { payload: 'x'.repeat(1024 * 1024 - 200) } });
    const seeded = await runLoad({ url, tls, concurrency: 1, requests: 1, request: () => ({ method: 'POST', path: ns, body: big, headers: { 'content-type': 'application/json' } }), okStatus: [201] });
    if (seeded.errors) throw new Error('could not create the 1 MiB object');
    await sleep(3000);
    const before = await rssMiB(pid);

    let peak = before;
    const sampler = setInterval(() => {
      rssMiB(pid).then((r) => (peak = Math.max(peak, r)), () => {});
    }, 100);

    // Watchers over HTTP/2 as client-go opens them: many streams per connection (100 each, kube's default limit).
    let received = 0;
    const streams: http2.ClientHttp2Stream[] = [];
    for (let i = 0; i < watchers; i++) {
      if (i % 100 === 0) {
        const session = http2.connect(url, tls);
        session.on('error', () => {});
        sessions.push(session);
      }
      const stream = sessions[sessions.length - 1].request({ ':path': `${ns}?watch=true&resourceVersion=0&allowWatchBookmarks=true` });
      stream.on('data', (d: Buffer) => (received += d.length));
      stream.on('error', () => {});
      streams.push(stream);
    }
    while (received < watchers * 1024 * 1024) await sleep(50);
    await sleep(500);
    const fed = await rssMiB(pid);

    const body = (i: number) => JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `m-${i % 200}`, labels: { app: 'bench' } }, data: { payload: 'y'.repeat(1000), n: String(i) } });
    const load = await runLoad({
      url,
      tls,
      concurrency: 32,
      requests,
      okStatus: [200, 201, 404, 409],
      request: (i) => {
        switch (i % 6) {
          case 0:
            return { method: 'POST', path: ns, body: body(i), headers: { 'content-type': 'application/json' } };
          case 1:
            return { method: 'GET', path: `${ns}/m-${i % 200}` };
          case 2:
            return { method: 'GET', path: `${ns}?labelSelector=app%3Dbench&limit=50` };
          case 3:
            return { method: 'PATCH', path: `${ns}/m-${i % 200}`, body: JSON.stringify({ data: { n: String(i) } }), headers: { 'content-type': 'application/merge-patch+json' } };
          case 4:
            return { method: 'PUT', path: `${ns}/m-${i % 200}`, body: body(i), headers: { 'content-type': 'application/json' } };
          default:
            return { method: 'DELETE', path: `${ns}/m-${(i + 100) % 200}` };
        }
      },
    });
    for (const s of streams) s.close();
    for (const s of sessions) s.close();
    await sleep(500);
    clearInterval(sampler);
    const peakAll = Math.max(peak, await rssMiB(pid));

    await sleep(settleMs);
    const after = await rssMiB(pid);
    const ratio = after / before;
    rows.push({ what: 'RSS before load (1 MiB object stored)', capstan: `${fmt(before, 1)} MB`, raw: `${fmt(bareRss, 1)} MB bare Node HTTPS server idle`, ratio: `${fmt(before / bareRss, 1)}x` });
    rows.push({ what: `RSS with ${watchers} watchers sent their initial events`, capstan: `${fmt(fed, 1)} MB`, raw: `${fmt(before, 1)} MB before`, ratio: `${fmt(fed / before, 2)}x` });
    rows.push({ what: `RSS peak (${fmt(requests)} requests at ${fmt(load.perSecond)}/s, ${load.errors} failed; ${watchers} watchers)`, capstan: `${fmt(peakAll, 1)} MB`, raw: `${fmt(before, 1)} MB before`, ratio: `${fmt(peakAll / before, 2)}x` });
    rows.push({ what: `RSS ${settleMs / 1000} s after load (watchers closed)`, capstan: `${fmt(after, 1)} MB`, raw: `${fmt(before, 1)} MB before`, ratio: `${fmt(ratio, 2)}x (target <= 1.5x: ${ratio <= 1.5 ? 'met' : 'MISSED'})` });
    for (const r of rows) process.stdout.write(`  ${r.what}: ${r.capstan} | raw ${r.raw} | ${r.ratio}\n`);
  } finally {
    for (const s of sessions) s.destroy();
    await stop(child);
    await rm(dataDir, { recursive: true, force: true });
  }
  return rows;
}

if (import.meta.url === `file://${process.argv[1]}`) await benchMemory({ quick: parseQuickFlag('node bench/memory.ts', 'RSS of capstan before, at peak during and after a mixed load with watchers open, against its own pre-load RSS.') });
