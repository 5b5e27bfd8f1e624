// Reads served from the watch cache (resourceVersion=0) on etcd3 against the same reads on sqlite, in one run: a fresh
// etcd3 server (its own key prefix on the bench's etcd member, so its cache holds only these objects) and a fresh
// sqlite server get the same 100 ConfigMaps of 1 KiB; then rounds alternate between the two (the machine is shared),
// with the same lean client and the same requests. The watch cache is the same code over either backend, so the
// rates should match; what could differ is the etcd instance's background work (its etcd watch feed, progress
// notifications, lease renewals) taking CPU from the request path.
import type { LoadResult } from './load.ts';
import { CONCURRENCY, configMap, fmt, load, median, spawnServer, stop, type BenchServer, type EtcdBenchRow } from './etcd-common.ts';

const NAMESPACE = 'cached';
const OBJECTS = 100;
const ROUNDS = 3;
/**
 * "The same rate": within 10%. Both sides run the same cache code, so a real difference is systematic and would
 * show in every round; rounds of the same server on this shared 2-core machine already spread by several percent.
 */
const TOLERANCE = 0.9;

async function fill(server: BenchServer): Promise<void> {
  await load(server, 1, () => ({ method: 'POST', path: '/api/v1/namespaces', body: JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NAMESPACE } }) }));
  await load(server, OBJECTS, (i) => ({ method: 'POST', path: `/api/v1/namespaces/${NAMESPACE}/configmaps`, body: JSON.stringify(configMap(`cm-${i}`, NAMESPACE)) }));
}

const getPath = (i: number) => ({ method: 'GET', path: `/api/v1/namespaces/${NAMESPACE}/configmaps/cm-${i % OBJECTS}?resourceVersion=0` });
const listPath = () => ({ method: 'GET', path: `/api/v1/namespaces/${NAMESPACE}/configmaps?resourceVersion=0` });

function row(what: string, etcd: LoadResult[], sqlite: LoadResult[]): EtcdBenchRow {
  const e = median(etcd.map((r) => r.perSecond));
  const s = median(sqlite.map((r) => r.perSecond));
  const ratio = e / s;
  const detail = (rs: LoadResult[]) => `median of ${ROUNDS} (${rs.map((r) => fmt(r.perSecond)).join(', ')}; p99 ${fmt(median(rs.map((r) => r.p99Ms)), 1)} ms)`;
  return {
    what,
    capstan: `${fmt(e)}/s ${detail(etcd)}`,
    raw: `${fmt(s)}/s ${detail(sqlite)}: the same reads of the same objects on a sqlite instance, same lean client, ${CONCURRENCY} in flight`,
    ratio: `${fmt(ratio, 2)}x sqlite (target >= ${TOLERANCE}x, "the same rate": ${ratio >= TOLERANCE ? 'met' : 'MISSED'})`,
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
    const results = { get: [[], []] as LoadResult[][], list: [[], []] as LoadResult[][] };
    for (let r = 0; r < ROUNDS; r++) {
      // Which side goes first alternates too, so neither always follows the other's load.
      const order = r % 2 === 0 ? [0, 1] : [1, 0];
      for (const i of order) results.get[i].push(await load(servers[i], gets, getPath));
      for (const i of order) results.list[i].push(await load(servers[i], lists, listPath));
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
