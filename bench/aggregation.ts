// `--only=aggregation`: what the aggregation layer costs on the get path. A bare extension API server
// (bench/aggregated-backend.ts, its own process) is registered through an APIService and an ExternalName Service;
// the lean client's gets of one of its objects through Capstan are set against the same gets sent to the backend
// directly (the raw limit), alternating, and against Capstan's own get of a ConfigMap of the same size.

import type { ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { cpuMs } from './apply.ts';
import { stop } from './children.ts';
import { spawnNode } from './pinning.ts';
import { runLoad, type LoadResult, type TlsClientOptions } from './load.ts';

const root = new URL('..', import.meta.url).pathname;
const CONCURRENCY = 32;

export interface AggregationRow {
  what: string;
  capstan: string;
  raw: string;
  ratio: string;
}

async function spawnJson(file: string, args: string[]): Promise<{ child: ChildProcess; info: Record<string, unknown> }> {
  const child = spawnNode('server', [join(root, file), ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
  const line = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`${file} exited with ${code}`)));
  });
  return { child, info: JSON.parse(line) as Record<string, unknown> };
}

const fmt = (n: number, digits = 0) => n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

export async function benchAggregation(options: { quick: boolean }): Promise<AggregationRow[]> {
  const requests = options.quick ? 4000 : 20000;
  const rounds = options.quick ? 2 : 3;
  const capstan = await spawnJson('bench/serve.ts', ['memory']);
  const backend = await spawnJson('bench/aggregated-backend.ts', []);
  try {
    const port = capstan.info.port as number;
    const tls: TlsClientOptions = { ca: capstan.info.caCert as string, cert: capstan.info.clientCert as string, key: capstan.info.clientKey as string };
    const url = `https://127.0.0.1:${port}`;
    const post = (path: string, obj: unknown) => runLoad({ url, tls, concurrency: 1, requests: 1, request: () => ({ method: 'POST', path, body: JSON.stringify(obj) }) });
    await post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'bench' } });
    await post('/api/v1/namespaces/bench/services', { apiVersion: 'v1', kind: 'Service', metadata: { name: 'bench-api' }, spec: { type: 'ExternalName', externalName: '127.0.0.1' } });
    await post('/api/v1/namespaces/bench/configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'thing' }, data: { payload: 'x'.repeat(900) } });
    await post('/apis/apiregistration.k8s.io/v1/apiservices', {
      apiVersion: 'apiregistration.k8s.io/v1',
      kind: 'APIService',
      metadata: { name: 'v1.bench.example.com' },
      spec: { group: 'bench.example.com', version: 'v1', service: { namespace: 'bench', name: 'bench-api', port: backend.info.port }, caBundle: backend.info.caBundle, groupPriorityMinimum: 1000, versionPriority: 15 },
    });
    // Available once the availability check has passed.
    for (let i = 0; ; i++) {
      const r = await runLoad({ url, tls, concurrency: 1, requests: 1, request: () => ({ method: 'GET', path: '/apis/bench.example.com/v1/namespaces/bench/things/thing' }) });
      if (r.errors === 0) break;
      if (i > 200) throw new Error('the bench APIService did not become available');
      await new Promise((res) => setTimeout(res, 50));
    }
    const thingPath = '/apis/bench.example.com/v1/namespaces/bench/things/thing';
    const proxied = (n: number) => runLoad({ url, tls, concurrency: CONCURRENCY, requests: n, request: () => ({ method: 'GET', path: thingPath }) });
    const direct = (n: number) => runLoad({ url: `https://127.0.0.1:${backend.info.port as number}`, tls: { ca: backend.info.caPem as string }, concurrency: CONCURRENCY, requests: n, request: () => ({ method: 'GET', path: thingPath }) });
    const local = (n: number) => runLoad({ url, tls, concurrency: CONCURRENCY, requests: n, request: () => ({ method: 'GET', path: '/api/v1/namespaces/bench/configmaps/thing' }) });
    const withCpu = async (pid: number, run: () => Promise<LoadResult>) => {
      const before = await cpuMs(pid);
      const r = await run();
      if (r.errors) throw new Error(`${r.errors} requests failed`);
      return { r, cpuUs: ((await cpuMs(pid)) - before) * 1000 / r.requests };
    };
    await proxied(requests / 4);
    await direct(requests / 4);
    await local(requests / 4);
    const results: { proxied: { r: LoadResult; cpuUs: number }; direct: { r: LoadResult; cpuUs: number }; local: { r: LoadResult; cpuUs: number } }[] = [];
    for (let i = 0; i < rounds; i++) {
      results.push({
        direct: await withCpu(backend.child.pid!, () => direct(requests)),
        proxied: await withCpu(capstan.child.pid!, () => proxied(requests)),
        local: await withCpu(capstan.child.pid!, () => local(requests)),
      });
    }
    const median = <T>(xs: T[], by: (x: T) => number) => [...xs].sort((a, b) => by(a) - by(b))[Math.floor(xs.length / 2)]!;
    const round = median(results, (x) => x.proxied.r.perSecond / x.direct.r.perSecond);
    const cpuRound = median(results, (x) => x.proxied.cpuUs / x.local.cpuUs);
    const rows: AggregationRow[] = [
      {
        what: 'get of an aggregated API\'s object through the aggregator (bare backend behind an APIService, memory)',
        capstan: `${fmt(round.proxied.r.perSecond)}/s (p99 ${fmt(round.proxied.r.p99Ms, 1)} ms)`,
        raw: `the same gets sent to the backend directly: ${fmt(round.direct.r.perSecond)}/s (p99 ${fmt(round.direct.r.p99Ms, 1)} ms)`,
        ratio: `${fmt((100 * round.proxied.r.perSecond) / round.direct.r.perSecond, 1)}% of direct; rounds ${results.map((x) => `${fmt((100 * x.proxied.r.perSecond) / x.direct.r.perSecond, 1)}%`).join(', ')}`,
      },
      {
        what: 'Capstan CPU per proxied get vs per get of its own ConfigMap of the same size',
        capstan: `${fmt(cpuRound.proxied.cpuUs)} µs`,
        raw: `${fmt(cpuRound.local.cpuUs)} µs per ConfigMap get (${fmt(cpuRound.local.r.perSecond)}/s)`,
        ratio: `${fmt(cpuRound.proxied.cpuUs / cpuRound.local.cpuUs, 2)}x`,
      },
    ];
    for (const r of rows) process.stdout.write(`  ${r.what}: ${r.capstan} | raw ${r.raw} | ${r.ratio}\n`);
    return rows;
  } finally {
    await stop(backend.child);
    await stop(capstan.child);
  }
}
