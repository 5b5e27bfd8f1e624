// Capstan on etcd against raw etcd, in one run (`npm run bench -- --only=etcd`, or alone: node bench/etcd.ts [--quick]).
// One etcd member started here (bench and server share the machine, as the other sections do). The raw limit:
// the same etcd client (src/storage/etcd/etcd-client.ts, its options and fault handling) sending the transaction a
// create is, create-if-absent (compare mod_revision = 0, put, range on failure), with the same 1 KiB ConfigMap
// JSON and the same 32 requests in flight. Capstan: POST of those ConfigMaps over HTTPS by the lean client, 32 in
// flight, to a server on --storage-backend=etcd3. Rounds of the two alternate (the machine is shared), and the CPU
// each side spends per create is shown. For profiling: BENCH_ETCD_PROFILE_DIR=<dir> writes the server's CPU
// profile there; BENCH_ETCD_CREATES_ONLY=1 runs only Capstan's creates (a profile of the create path alone).

import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { connectEtcd } from '../src/storage/etcd/etcd-client.ts';
import { startEtcdCluster } from '../src/storage/etcd/test-cluster.ts';
import { runLoad, type LoadResult, type TlsClientOptions } from './load.ts';
import { cpuMs } from './crd.ts';

const root = fileURLToPath(new URL('..', import.meta.url));
const CONCURRENCY = 32;

export interface EtcdBenchRow {
  what: string;
  capstan: string;
  raw: string;
  ratio: string;
}

function fmt(n: number, digits = 0): string {
  return n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
}

function configMap(name: string, namespace: string): Record<string, unknown> {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace, labels: { app: 'bench' } }, data: { payload: 'x'.repeat(900) } };
}

async function spawnServer(etcdServers: string[], profileDir: string | undefined): Promise<{ child: ChildProcess; info: Record<string, unknown> }> {
  const options = { storageBackend: 'etcd3', etcd: { servers: etcdServers, compactionIntervalMs: 0 } };
  const flags = profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [];
  const child = spawn(process.execPath, [...flags, join(root, 'bench/serve.ts'), 'memory', JSON.stringify(options)], { stdio: ['ignore', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout! });
  const first = await new Promise<string>((resolve, reject) => {
    lines.once('line', resolve);
    child.once('exit', (code) => reject(new Error(`bench/serve.ts exited with ${code}`)));
  });
  return { child, info: JSON.parse(first) as Record<string, unknown> };
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  await new Promise<void>((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

/** Raw etcd: `requests` create-if-absent transactions, `CONCURRENCY` in flight, through Capstan's etcd client. */
async function rawCreates(servers: string[], prefix: string, requests: number): Promise<{ perSecond: number; p99Ms: number }> {
  const conn = connectEtcd({ servers });
  try {
    const values = Array.from({ length: requests }, (_, i) => Buffer.from(JSON.stringify(configMap(`cm-${i}`, 'bench')), 'utf8'));
    const latencies: number[] = [];
    let next = 0;
    const worker = async () => {
      for (let i = next++; i < requests; i = next++) {
        const key = Buffer.from(`${prefix}/configmaps/bench/cm-${i}`);
        const t0 = performance.now();
        const res = await conn.kv.txn(
          {
            compare: [{ key, target: 'Mod', result: 'Equal', mod_revision: 0 }],
            success: [{ request_put: { key, value: values[i] } }],
            failure: [{ request_range: { key } }],
          },
          conn.callOptions(),
        );
        if (!res.succeeded) throw new Error(`raw create of ${key.toString()} found the key`);
        latencies.push(performance.now() - t0);
      }
    };
    const start = performance.now();
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    const seconds = (performance.now() - start) / 1000;
    latencies.sort((a, b) => a - b);
    return { perSecond: requests / seconds, p99Ms: latencies[Math.floor(latencies.length * 0.99)] ?? 0 };
  } finally {
    conn.close();
  }
}

async function load(port: number, tls: TlsClientOptions, requests: number, request: (i: number) => { method: string; path: string; body?: string }): Promise<LoadResult> {
  const r = await runLoad({ url: `https://127.0.0.1:${port}`, tls, concurrency: CONCURRENCY, requests, request });
  if (r.errors > 0) throw new Error(`${r.errors} of ${r.requests} requests failed`);
  return r;
}

function median(xs: number[]): number {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

/** Rounds of raw and Capstan creates alternate, so that both meet the same load of a shared machine. */
const ROUNDS = 3;

export async function benchEtcd(options: { quick?: boolean } = {}): Promise<EtcdBenchRow[]> {
  const n = options.quick ? 1000 : 3000;
  const etcd = await startEtcdCluster(1);
  const rows: EtcdBenchRow[] = [];
  try {
    const { child, info } = await spawnServer(etcd.clientUrls, process.env.BENCH_ETCD_PROFILE_DIR);
    const raw: { perSecond: number; p99Ms: number }[] = [];
    const creates: LoadResult[] = [];
    const serverCpu: number[] = [];
    const rawCpu: number[] = [];
    const etcdPid = etcd.members[0].process?.pid ?? 0;
    const etcdCpu: { raw: number[]; capstan: number[] } = { raw: [], capstan: [] };
    let get: LoadResult;
    try {
      const port = info.port as number;
      const tls: TlsClientOptions = { ca: info.caCert as string, cert: info.clientCert as string, key: info.clientKey as string };
      const post = (round: string) => (i: number) => ({ method: 'POST', path: '/api/v1/namespaces/bench/configmaps', body: JSON.stringify(configMap(`${round}-${i}`, 'bench')) });
      // Warm-up of etcd, the client and the server.
      await load(port, tls, 1, () => ({ method: 'POST', path: '/api/v1/namespaces', body: JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'bench' } }) }));
      await rawCreates(etcd.clientUrls, '/warmup', 500);
      await load(port, tls, 500, post('warm'));
      if (process.env.BENCH_ETCD_CREATES_ONLY) {
        await load(port, tls, n * 3, post('profile'));
        return [];
      }
      for (let r = 0; r < ROUNDS; r++) {
        let e0 = await cpuMs(etcdPid);
        const c0 = process.cpuUsage();
        raw.push(await rawCreates(etcd.clientUrls, `/raw${r}`, n));
        const c1 = process.cpuUsage(c0);
        rawCpu.push((c1.user + c1.system) / 1000 / n);
        etcdCpu.raw.push(((await cpuMs(etcdPid)) - e0) / n);
        e0 = await cpuMs(etcdPid);
        const s0 = await cpuMs(child.pid ?? 0);
        creates.push(await load(port, tls, n, post(`r${r}`)));
        serverCpu.push(((await cpuMs(child.pid ?? 0)) - s0) / n);
        etcdCpu.capstan.push(((await cpuMs(etcdPid)) - e0) / n);
      }
      get = await load(port, tls, n * 4, (i) => ({ method: 'GET', path: `/api/v1/namespaces/bench/configmaps/r0-${i % n}` }));
    } finally {
      await stop(child);
    }
    const rawRate = median(raw.map((r) => r.perSecond));
    const createRate = median(creates.map((r) => r.perSecond));
    const ratio = createRate / rawRate;
    rows.push({
      what: 'create over HTTPS, etcd3',
      capstan: `${fmt(createRate)}/s median of ${ROUNDS} (${creates.map((r) => fmt(r.perSecond)).join(', ')}; p99 ${fmt(median(creates.map((r) => r.p99Ms)), 1)} ms; server ${fmt(median(serverCpu), 2)} ms CPU, etcd ${fmt(median(etcdCpu.capstan), 2)} ms CPU per create)`,
      raw: `${fmt(rawRate)}/s median of ${ROUNDS} (${raw.map((r) => fmt(r.perSecond)).join(', ')}): etcd create-if-absent txns, same client, ${CONCURRENCY} in flight (client ${fmt(median(rawCpu), 2)} ms CPU, etcd ${fmt(median(etcdCpu.raw), 2)} ms CPU per txn)`,
      ratio: `${fmt(100 * ratio, 1)}% (target >= 60%: ${ratio >= 0.6 ? 'met' : 'MISSED'})`,
    });
    rows.push({ what: 'get over HTTPS, etcd3', capstan: `${fmt(get.perSecond)}/s (p99 ${fmt(get.p99Ms, 1)} ms)`, raw: '-', ratio: '-' });
  } finally {
    await etcd.close();
  }
  return rows;
}

if (process.argv[1] !== undefined && import.meta.filename === process.argv[1]) {
  for (const r of await benchEtcd({ quick: process.argv.includes('--quick') })) process.stdout.write(`${r.what}: ${r.capstan} | raw ${r.raw} | ${r.ratio}\n`);
}
