// Protobuf vs JSON responses for the same objects (run by `npm run bench -- --only=protobuf`, or alone:
// node bench/protobuf.ts [--quick]): get and list throughput of ConfigMaps (1 KiB of data) and Pods (a typical
// spec) with Accept: application/vnd.kubernetes.protobuf against Accept: application/json, in one run, with a
// bare Node HTTPS server answering the same clients as the raw limit.

import type { ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { runLoad, type LoadResult, type TlsClientOptions } from './load.ts';
import { stop } from './children.ts';
import { spawnNode } from './pinning.ts';
import { parseQuickFlag } from '../scripts/script-args.ts';

const root = fileURLToPath(new URL('..', import.meta.url));
const CONCURRENCY = 32;
const PROTOBUF = 'application/vnd.kubernetes.protobuf';
const ROUNDS = 3;

function fmt(n: number, digits = 0): string {
  return n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
}

async function spawnJson(file: string, args: string[]): Promise<{ child: ChildProcess; info: Record<string, unknown> }> {
  const child = spawnNode('server', [join(root, file), ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout! });
  const first = await new Promise<string>((resolve, reject) => {
    lines.once('line', resolve);
    child.once('exit', (code) => reject(new Error(`${file} exited with ${code}`)));
  });
  return { child, info: JSON.parse(first) as Record<string, unknown> };
}

function configMap(i: number): Record<string, unknown> {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `cm-${i}`, labels: { app: 'bench' } }, data: { payload: 'x'.repeat(900) } };
}

function pod(i: number): Record<string, unknown> {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: `pod-${i}`, labels: { app: 'bench', tier: 'web' }, annotations: { 'example.com/owner': 'bench' } },
    spec: {
      containers: [
        {
          name: 'web',
          image: 'nginx:1.27',
          ports: [{ name: 'http', containerPort: 80 }],
          env: [{ name: 'MODE', value: 'bench' }, { name: 'POD', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } }],
          resources: { requests: { cpu: '100m', memory: '64Mi' }, limits: { cpu: '500m', memory: '128Mi' } },
          readinessProbe: { httpGet: { path: '/healthz', port: 'http' }, periodSeconds: 5 },
          volumeMounts: [{ name: 'config', mountPath: '/etc/web' }],
        },
      ],
      volumes: [{ name: 'config', configMap: { name: 'cm-0' } }],
    },
  };
}

interface Pair {
  json: LoadResult;
  protobuf: LoadResult;
}

/** The median run by throughput. */
function medianRun(runs: LoadResult[]): LoadResult {
  return [...runs].sort((a, b) => a.perSecond - b.perSecond)[Math.floor(runs.length / 2)]!;
}

/** JSON and protobuf runs interleaved (the machine's load moves under both alike); the median of each. */
async function both(port: number, tls: TlsClientOptions, requests: number, path: (i: number) => string): Promise<Pair> {
  const run = async (accept: string) => {
    const r = await runLoad({ url: `https://127.0.0.1:${port}`, tls, concurrency: CONCURRENCY, requests, request: (i) => ({ method: 'GET', path: path(i), headers: { accept } }) });
    if (r.errors > 0) throw new Error(`${r.errors} of ${r.requests} requests to ${path(0)} failed`);
    return r;
  };
  // Warm both paths, then measure them in alternation.
  await run('application/json');
  await run(PROTOBUF);
  const json: LoadResult[] = [];
  const protobuf: LoadResult[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    json.push(await run('application/json'));
    protobuf.push(await run(PROTOBUF));
  }
  return { json: medianRun(json), protobuf: medianRun(protobuf) };
}

export interface ProtobufRow {
  what: string;
  capstan: string;
  raw: string;
  ratio: string;
}

export async function benchProtobuf(opts: { quick: boolean }): Promise<ProtobufRow[]> {
  const objects = opts.quick ? 200 : 1000;
  const gets = opts.quick ? 2000 : 8000;
  const lists = opts.quick ? 100 : 500;
  process.stdout.write(`protobuf vs JSON (memory, ${CONCURRENCY} concurrent keep-alive HTTPS clients, ${objects} objects of each kind)\n`);
  const rows: ProtobufRow[] = [];
  const { child, info } = await spawnJson('bench/serve.ts', ['memory']);
  const port = info.port as number;
  const tls: TlsClientOptions = { ca: info.caCert as string, cert: info.clientCert as string, key: info.clientKey as string };
  try {
    const bareChild = await spawnJson('bench/bare-https.ts', [info.dataDir as string]);
    const bareLoad = () => runLoad({ url: `https://127.0.0.1:${bareChild.info.port as number}`, tls: { ca: tls.ca }, concurrency: CONCURRENCY, requests: gets, request: () => ({ method: 'GET', path: '/' }) });
    await bareLoad();
    const bare = await bareLoad();
    await stop(bareChild.child);

    for (const kind of ['configmaps', 'pods'] as const) {
      const make = kind === 'configmaps' ? configMap : pod;
      const created = await runLoad({
        url: `https://127.0.0.1:${port}`,
        tls,
        concurrency: CONCURRENCY,
        requests: objects,
        request: (i) => ({ method: 'POST', path: `/api/v1/namespaces/default/${kind}`, body: JSON.stringify(make(i)) }),
      });
      if (created.errors > 0) throw new Error(`creating ${kind}: ${created.errors} failed`);
      const prefix = kind === 'configmaps' ? 'cm' : 'pod';
      const get = await both(port, tls, gets, (i) => `/api/v1/namespaces/default/${kind}/${prefix}-${i % objects}`);
      const list = await both(port, tls, lists, () => `/api/v1/namespaces/default/${kind}?limit=100`);
      for (const [what, pair] of [[`get ${kind}`, get], [`list ${kind}, 100 per page`, list]] as const) {
        rows.push({
          what: `${what}, protobuf vs JSON`,
          capstan: `protobuf ${fmt(pair.protobuf.perSecond)}/s (p99 ${fmt(pair.protobuf.p99Ms, 1)} ms); JSON ${fmt(pair.json.perSecond)}/s (p99 ${fmt(pair.json.p99Ms, 1)} ms)`,
          raw: `${fmt(bare.perSecond)}/s bare HTTPS`,
          ratio: `protobuf ${fmt(pair.protobuf.perSecond / pair.json.perSecond, 2)}x JSON; ${fmt((100 * pair.protobuf.perSecond) / bare.perSecond, 1)}% of bare HTTPS (target >= 1x JSON: ${pair.protobuf.perSecond >= pair.json.perSecond ? 'met' : 'MISSED'})`,
        });
        const r = rows[rows.length - 1]!;
        process.stdout.write(`  ${r.what}: ${r.capstan} | raw ${r.raw} | ${r.ratio}\n`);
      }
    }
  } finally {
    await stop(child);
  }
  return rows;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await benchProtobuf({ quick: parseQuickFlag('node bench/protobuf.ts', 'Protobuf against JSON responses for the same objects (get and list of ConfigMaps and Pods), with a bare Node HTTPS server as the raw limit.') });
