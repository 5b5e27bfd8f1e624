// The cost of observability on the get path: a server recording request metrics (with /metrics scraped every
// second) and writing an audit log at Metadata level for every request, against the same server with neither,
// in the same run: alternating rounds of N gets from 32 keep-alive clients, medians compared (target: at most
// 10% fewer gets per second).

import type { ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import https from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { runLoad, type LoadResult } from './load.ts';
import { stop } from './children.ts';
import { spawnNode } from './pinning.ts';

const root = fileURLToPath(new URL('..', import.meta.url));
const CONCURRENCY = 32;

export interface BenchRow {
  what: string;
  capstan: string;
  raw: string;
  ratio: string;
}

interface Served {
  child: ChildProcess;
  port: number;
  tls: { ca: string; cert: string; key: string };
}

async function serve(options: Record<string, unknown>): Promise<Served> {
  const child = spawnNode('server', [join(root, 'bench/serve.ts'), 'memory', JSON.stringify(options)], { stdio: ['ignore', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout! });
  const first = await new Promise<string>((resolve, reject) => {
    lines.once('line', resolve);
    child.once('exit', (code) => reject(new Error(`bench/serve.ts exited with ${code}`)));
  });
  const info = JSON.parse(first) as { port: number; caCert: string; clientCert: string; clientKey: string };
  return { child, port: info.port, tls: { ca: info.caCert, cert: info.clientCert, key: info.clientKey } };
}

function scrape(s: Served): Promise<number> {
  return new Promise((resolve) => {
    const req = https.request({ host: '127.0.0.1', port: s.port, path: '/metrics', ...s.tls, agent: false }, (res) => {
      let n = 0;
      res.on('data', (c: Buffer) => (n += c.length));
      res.on('end', () => resolve(n));
    });
    req.on('error', () => resolve(0));
    req.end();
  });
}

async function gets(s: Served, n: number, scraping: boolean): Promise<LoadResult> {
  // One scrape per round: Prometheus scrapes every 15 s by default, longer than a round on a quiet machine.
  if (scraping) await scrape(s);
  {
    return await runLoad({
      url: `https://127.0.0.1:${s.port}`,
      tls: s.tls,
      concurrency: CONCURRENCY,
      requests: n,
      request: (i) => ({ method: 'GET', path: `/api/v1/namespaces/default/configmaps/cm-${i % 100}` }),
    });
  }
}

async function fill(s: Served): Promise<void> {
  const r = await runLoad({
    url: `https://127.0.0.1:${s.port}`,
    tls: s.tls,
    concurrency: 8,
    requests: 100,
    request: (i) => ({ method: 'POST', path: '/api/v1/namespaces/default/configmaps', body: JSON.stringify({ metadata: { name: `cm-${i}` }, data: { payload: 'x'.repeat(900) } }) }),
  });
  if (r.errors) throw new Error(`${r.errors} creates failed`);
}

/** The child's CPU time so far in ms (utime + stime of /proc/<pid>/stat, 100 ticks a second). */
async function cpuMs(s: Served): Promise<number> {
  const fields = (await readFile(`/proc/${s.child.pid}/stat`, 'utf8')).split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** Throughput and the server's CPU per request for one round. */
async function round(s: Served, n: number, scraping: boolean): Promise<{ perSecond: number; cpuUsPerGet: number }> {
  const before = await cpuMs(s);
  const r = await gets(s, n, scraping);
  if (r.errors) throw new Error(`${r.errors} gets failed`);
  return { perSecond: r.perSecond, cpuUsPerGet: ((await cpuMs(s)) - before) * 1000 / n };
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const fmt = (n: number, digits = 0): string => n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

export async function benchObservability(options: { quick?: boolean } = {}): Promise<BenchRow[]> {
  // Many short alternating rounds: on a shared machine the load drifts, and paired rounds see the same drift.
  const n = options.quick ? 2000 : 4000;
  const rounds = options.quick ? 9 : 15;
  const dir = await mkdtemp(join(tmpdir(), 'capstan-bench-audit-'));
  const policyFile = join(dir, 'policy.yaml');
  const logPath = join(dir, 'audit.log');
  // Every request at Metadata; RequestReceived omitted, as kube's documented example policy and managed clusters do
  // (the event at ResponseComplete carries everything the first one would).
  await writeFile(policyFile, 'apiVersion: audit.k8s.io/v1\nkind: Policy\nomitStages: [RequestReceived]\nrules:\n- level: Metadata\n');
  const bare = await serve({ metrics: false });
  const observed = await serve({ audit: { policyFile, logPath } });
  const noApf = await serve({ metrics: false, enablePriorityAndFairness: false });
  try {
    await fill(bare);
    await fill(observed);
    await fill(noApf);
    await gets(bare, n / 4, false);
    await gets(observed, n / 4, true);
    await gets(noApf, n / 4, false);
    const without: number[] = [];
    const withObs: number[] = [];
    const withoutApf: number[] = [];
    const cpuWithout: number[] = [];
    const cpuWith: number[] = [];
    const cpuNoApf: number[] = [];
    for (let i = 0; i < rounds; i++) {
      // Alternate, so all see the same drift of a shared machine.
      const a = await round(bare, n, false);
      const b = await round(observed, n, true);
      const c = await round(noApf, n, false);
      without.push(a.perSecond);
      withObs.push(b.perSecond);
      withoutApf.push(c.perSecond);
      cpuWithout.push(a.cpuUsPerGet);
      cpuWith.push(b.cpuUsPerGet);
      cpuNoApf.push(c.cpuUsPerGet);
    }
    const na = median(withoutApf);
    const w = median(withObs);
    const wo = median(without);
    const cost = 1 - median(withObs.map((x, i) => x / without[i]!));
    // On a shared machine throughput drifts; the server's CPU per get is the steadier measure of the cost.
    const cpuW = median(cpuWith);
    const cpuWo = median(cpuWithout);
    // The median of the paired per-round ratios: each compares rounds run back to back.
    const cpuRatio = median(cpuWith.map((c, i) => c / cpuWithout[i]!));
    const apfRatio = median(cpuWithout.map((c, i) => c / cpuNoApf[i]!));
    const cpuCost = cpuRatio - 1;
    const logBytes = (await stat(logPath)).size;
    // What a scrape costs the server: CPU over 20 renders of /metrics.
    const beforeScrapes = await cpuMs(observed);
    let exposition = 0;
    for (let i = 0; i < 20; i++) exposition = await scrape(observed);
    const scrapeMs = ((await cpuMs(observed)) - beforeScrapes) / 20;
    return [
      {
        what: `get with /metrics (scraped once per round) + audit log at Metadata, RequestReceived omitted (memory, ${CONCURRENCY} clients, median of ${rounds} alternating rounds of ${fmt(n)})`,
        capstan: `${fmt(w)} gets/s, ${fmt(cpuW)} µs server CPU per get (audit log ${fmt(logBytes / 1024 / 1024, 1)} MiB)`,
        raw: `${fmt(wo)} gets/s, ${fmt(cpuWo)} µs CPU per get, without metrics or audit`,
        ratio: `throughput ${(1 - cost).toFixed(3)}x (${(cost * 100).toFixed(1)}% cost), CPU per get ${cpuRatio.toFixed(3)}x (${(cpuCost * 100).toFixed(1)}% cost, median of paired rounds) (target <= 10%: ${Math.max(cost, cpuCost) <= 0.1 ? 'met' : 'MISSED'})`,
      },
      {
        what: '/metrics scrape (server CPU per scrape, mean of 20)',
        capstan: `${fmt(scrapeMs, 1)} ms for ${fmt(exposition / 1024, 1)} KiB of exposition`,
        raw: `${fmt(cpuWo, 0)} µs: one get without metrics`,
        ratio: `${fmt((scrapeMs * 1000) / cpuWo, 0)} gets' worth of CPU per scrape`,
      },
      {
        what: `get through API Priority and Fairness (classification cached; the admin's requests land on the exempt level; same rounds)`,
        capstan: `${fmt(wo)} gets/s, ${fmt(cpuWo)} µs CPU per get with APF`,
        raw: `${fmt(na)} gets/s, ${fmt(median(cpuNoApf))} µs CPU per get with --enable-priority-and-fairness=false`,
        ratio: `throughput ${(wo / na).toFixed(3)}x, CPU per get ${apfRatio.toFixed(3)}x (median of paired rounds)`,
      },
    ];
  } finally {
    await stop(bare.child);
    await stop(observed.child);
    await stop(noApf.child);
    await rm(dir, { recursive: true, force: true });
  }
}
