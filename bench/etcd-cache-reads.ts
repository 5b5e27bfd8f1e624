// Reads served from the watch cache (resourceVersion=0) on etcd3 against the same reads on sqlite, in one run: a fresh
// etcd3 server (its own key prefix on the bench's etcd member, so its cache holds only these objects) and a fresh
// sqlite server get the same 100 ConfigMaps of 1 KiB; then rounds alternate between the two (the machine is shared),
// with the same lean client and the same requests. The watch cache is the same code over either backend, so the
// rates should match; what could differ is the etcd instance's background work (its etcd watch feed, progress
// notifications, lease renewals: about 7 ms of CPU a second when idle, against 2 for sqlite). The server's CPU per
// request is shown beside each rate.
import type { LoadResult } from './load.ts';
import { cpuMs } from './crd.ts';
import { CONCURRENCY, configMap, fmt, load, median, spawnServer, stop, type BenchServer, type EtcdBenchRow } from './etcd-common.ts';

const NAMESPACE = 'cached';
const OBJECTS = 100;
const ROUNDS = 5;
/**
 * "The same rate": within 10%. Both sides run the same cache code, so a real difference is systematic and would
 * show in most rounds; single rounds on a shared 2-core machine spread by 10-30%, hence the median of 5 paired ones.
 */
const TOLERANCE = 0.9;

async function fill(server: BenchServer): Promise<void> {
  await load(server, 1, () => ({ method: 'POST', path: '/api/v1/namespaces', body: JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NAMESPACE } }) }));
  await load(server, OBJECTS, (i) => ({ method: 'POST', path: `/api/v1/namespaces/${NAMESPACE}/configmaps`, body: JSON.stringify(configMap(`cm-${i}`, NAMESPACE)) }));
}

const getPath = (i: number) => ({ method: 'GET', path: `/api/v1/namespaces/${NAMESPACE}/configmaps/cm-${i % OBJECTS}?resourceVersion=0` });
const listPath = () => ({ method: 'GET', path: `/api/v1/namespaces/${NAMESPACE}/configmaps?resourceVersion=0` });

interface Run extends LoadResult {
  /** The server's CPU per request (ms). */
  serverCpuMs: number;
}

async function measure(server: BenchServer, requests: number, request: (i: number) => { method: string; path: string }): Promise<Run> {
  const c0 = await cpuMs(server.child.pid ?? 0);
  const r = await load(server, requests, request);
  return { ...r, serverCpuMs: ((await cpuMs(server.child.pid ?? 0)) - c0) / requests };
}

function row(what: string, etcd: Run[], sqlite: Run[]): EtcdBenchRow {
  const e = median(etcd.map((r) => r.perSecond));
  const s = median(sqlite.map((r) => r.perSecond));
  // Judged per round (the two sides ran back to back), so a slow stretch of the shared machine cancels out.
  const perRound = etcd.map((r, i) => r.perSecond / sqlite[i].perSecond);
  const ratio = median(perRound);
  const detail = (rs: Run[]) =>
    `median of ${ROUNDS} (${rs.map((r) => fmt(r.perSecond)).join(', ')}; p99 ${fmt(median(rs.map((r) => r.p99Ms)), 1)} ms; server ${fmt(median(rs.map((r) => r.serverCpuMs)), 3)} ms CPU per request)`;
  return {
    what,
    capstan: `${fmt(e)}/s ${detail(etcd)}`,
    raw: `${fmt(s)}/s ${detail(sqlite)}: the same reads of the same objects on a sqlite instance, same lean client, ${CONCURRENCY} in flight`,
    ratio: `${fmt(ratio, 2)}x sqlite, median of the rounds' ratios (${perRound.map((x) => fmt(x, 2)).join(', ')}) (target >= ${TOLERANCE}x, "the same rate": ${ratio >= TOLERANCE ? 'met' : 'MISSED'})`,
  };
}

export async function benchCacheReads(etcdServers: string[], options: { quick?: boolean } = {}): Promise<EtcdBenchRow[]> {
  const gets = options.quick ? 4000 : 10_000;
  const lists = options.quick ? 500 : 1500;
  const etcd = await spawnServer('memory', { storageBackend: 'etcd3', etcd: { servers: etcdServers, prefix: '/cachebench', compactionIntervalMs: 0 } });
  let sqlite: BenchServer | undefined;
  try {
    sqlite = await spawnServer('sqlite', {});
    const servers = [etcd, sqlite];
    for (const s of servers) await fill(s);
    // Warm-up: connections, JIT, the encode caches.
    for (const s of servers) {
      await load(s, gets / 4, getPath);
      await load(s, lists / 4, listPath);
    }
    const results = { get: [[], []] as Run[][], list: [[], []] as Run[][] };
    for (let r = 0; r < ROUNDS; r++) {
      // Which side goes first alternates too, so neither always follows the other's load.
      const order = r % 2 === 0 ? [0, 1] : [1, 0];
      for (const i of order) results.get[i].push(await measure(servers[i], gets, getPath));
      for (const i of order) results.list[i].push(await measure(servers[i], lists, listPath));
    }
    return [
      row('get resourceVersion=0 (watch cache) over HTTPS, etcd3 vs sqlite', results.get[0], results.get[1]),
      row(`list of ${OBJECTS} resourceVersion=0 (watch cache) over HTTPS, etcd3 vs sqlite`, results.list[0], results.list[1]),
    ];
  } finally {
    await stop(etcd.child);
    if (sqlite) await stop(sqlite.child);
  }
}
