// Capstan on etcd against raw etcd, in one run (`npm run bench -- --only=etcd`, or alone: node bench/etcd.ts [--quick]).
// One etcd member started here (bench and server share the machine, as the other sections do). The raw limit:
// the same etcd client (src/storage/etcd/etcd-client.ts, its options and fault handling) sending the transaction a
// create is, create-if-absent (compare mod_revision = 0, put, range on failure), with the same 1 KiB ConfigMap
// JSON and the same 32 requests in flight. Capstan: POST of those ConfigMaps over HTTPS by the lean client, 32 in
// flight, to a server on --storage-backend=etcd3. Rounds of the two alternate (the machine is shared), and the CPU
// each side spends per create is shown. For profiling: BENCH_ETCD_PROFILE_DIR=<dir> writes the server's CPU
// profile there; BENCH_ETCD_CREATES_ONLY=1 runs only Capstan's creates (a profile of the create path alone).
// Then, on the same member, reads from the watch cache against sqlite (bench/etcd-cache-reads.ts), and on a
// 3-member cluster of its own the HA failover time (bench/etcd-failover.ts).

import { connectEtcd } from '../src/storage/etcd/etcd-client.ts';
import { startEtcdCluster } from '../src/storage/etcd/test-cluster.ts';
import type { LoadResult } from './load.ts';
import { cpuMs } from './crd.ts';
import { benchCacheReads } from './etcd-cache-reads.ts';
import { benchFailover } from './etcd-failover.ts';
import { CONCURRENCY, configMap, fmt, load, median, spawnServer, stop, type EtcdBenchRow } from './etcd-common.ts';
import { parseQuickFlag } from '../scripts/script-args.ts';

export type { EtcdBenchRow } from './etcd-common.ts';

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
        const res = await conn.unary('nonRepeatable', (o) => conn.kv.txn(
          {
            compare: [{ key, target: 'Mod', result: 'Equal', mod_revision: 0 }],
            success: [{ request_put: { key, value: values[i] } }],
            failure: [{ request_range: { key } }],
          },
          o,
        ));
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

/** Rounds of raw and Capstan creates alternate, so that both meet the same load of a shared machine. */
const ROUNDS = 3;

export async function benchEtcd(options: { quick?: boolean } = {}): Promise<EtcdBenchRow[]> {
  const n = options.quick ? 1000 : 3000;
  const etcd = await startEtcdCluster(1);
  const rows: EtcdBenchRow[] = [];
  try {
    const server = await spawnServer('memory', { storageBackend: 'etcd3', etcd: { servers: etcd.clientUrls, compactionIntervalMs: 0 } }, process.env.BENCH_ETCD_PROFILE_DIR);
    const child = server.child;
    const raw: { perSecond: number; p99Ms: number }[] = [];
    const creates: LoadResult[] = [];
    const serverCpu: number[] = [];
    const rawCpu: number[] = [];
    const etcdPid = etcd.members[0].process?.pid ?? 0;
    const etcdCpu: { raw: number[]; capstan: number[] } = { raw: [], capstan: [] };
    let get: LoadResult;
    try {
      const post = (round: string) => (i: number) => ({ method: 'POST', path: '/api/v1/namespaces/bench/configmaps', body: JSON.stringify(configMap(`${round}-${i}`, 'bench')) });
      // Warm-up of etcd, the client and the server.
      await load(server, 1, () => ({ method: 'POST', path: '/api/v1/namespaces', body: JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'bench' } }) }));
      await rawCreates(etcd.clientUrls, '/warmup', 500);
      await load(server, 500, post('warm'));
      if (process.env.BENCH_ETCD_CREATES_ONLY) {
        await load(server, n * 3, post('profile'));
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
        creates.push(await load(server, n, post(`r${r}`)));
        serverCpu.push(((await cpuMs(child.pid ?? 0)) - s0) / n);
        etcdCpu.capstan.push(((await cpuMs(etcdPid)) - e0) / n);
      }
      get = await load(server, n * 4, (i) => ({ method: 'GET', path: `/api/v1/namespaces/bench/configmaps/r0-${i % n}` }));
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
    rows.push(...(await benchCacheReads(etcd.clientUrls, options)));
  } finally {
    await etcd.close();
  }
  rows.push(...(await benchFailover(options)));
  return rows;
}

if (process.argv[1] !== undefined && import.meta.filename === process.argv[1]) {
  for (const r of await benchEtcd({ quick: parseQuickFlag('node bench/etcd.ts', 'Capstan on etcd against raw etcd transactions through the same client, watch-cache reads against sqlite, and the HA failover time (starts its own local etcd members).') })) process.stdout.write(`${r.what}: ${r.capstan} | raw ${r.raw} | ${r.ratio}\n`);
}
