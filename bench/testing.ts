// The test controls' figures beside their targets: reset of a 1,000-object store (memory < 10 ms; sqlite measured),
// fork of a server from a snapshot (< 50 ms) and an empty logical cluster (< 10 ms, < 1 MB). Each is shown as a
// ratio to a raw limit measured in the same run: the storage restore alone for a reset, a fresh empty server for
// fork and clusters (what a test would start without them).

import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { startCapstan, type Capstan } from '../src/cli/start.ts';
import { silentLogger } from '../src/server/log.ts';
import { createMemoryStorage } from '../src/storage/memory/memory-storage.ts';
import { runLoad } from './load.ts';

export interface BenchRow {
  what: string;
  capstan: string;
  raw: string;
  ratio: string;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

const ms = (n: number) => `${n.toFixed(n < 10 ? 2 : 1)} ms`;
const verdict = (ok: boolean) => (ok ? 'met' : 'MISSED');

function gcFunction(): () => void {
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
}

async function fill(server: Capstan, objects: number): Promise<void> {
  const r = await runLoad({
    url: server.url,
    tls: { ca: server.caCert, cert: server.clientCert, key: server.clientKey },
    concurrency: 16,
    requests: objects,
    request: (i) => ({ method: 'POST', path: '/api/v1/namespaces/default/configmaps', body: JSON.stringify({ metadata: { name: `cm-${i}`, labels: { app: 'bench' } }, data: { payload: 'x'.repeat(900) } }) }),
  });
  if (r.errors) throw new Error(`${r.errors} creates failed`);
}

export async function benchTesting(options: { quick?: boolean } = {}): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  const runs = options.quick ? 7 : 21;
  const objects = 1000;

  for (const backend of ['memory', 'sqlite'] as const) {
    const server = await startCapstan({ storageBackend: backend, logger: silentLogger });
    try {
      await fill(server, objects);
      const snapshotId = await server.snapshot();
      const resets: number[] = [];
      const cpu: number[] = [];
      for (let i = 0; i < runs; i++) {
        const c = process.cpuUsage();
        const t = performance.now();
        await server.restore(snapshotId);
        resets.push(performance.now() - t);
        const d = process.cpuUsage(c);
        cpu.push((d.user + d.system) / 1000);
      }
      // The raw limit: the same storage operation without the watch caches relisting or the controllers.
      const raw = await rawRestore(backend, objects, runs);
      const m = median(resets);
      rows.push({
        what: `restore/reset, ${objects} objects (${backend})`,
        capstan: `${ms(m)} wall, ${ms(median(cpu))} CPU (median of ${runs}, caches relisted)`,
        raw: `${ms(raw)} storage restore alone`,
        ratio: `${(m / raw).toFixed(1)}x raw${backend === 'memory' ? ` (target < 10 ms: ${verdict(m < 10)})` : ' (no target)'}`,
      });
      if (backend === 'memory') {
        const forks: number[] = [];
        const forkCpu: number[] = [];
        for (let i = 0; i < Math.min(runs, 9); i++) {
          const c = process.cpuUsage();
          const t = performance.now();
          const f = await server.fork(snapshotId);
          forks.push(performance.now() - t);
          const d = process.cpuUsage(c);
          forkCpu.push((d.user + d.system) / 1000);
          await f.close();
        }
        const fresh: number[] = [];
        for (let i = 0; i < Math.min(runs, 9); i++) {
          const t = performance.now();
          const f = await startCapstan({ logger: silentLogger });
          fresh.push(performance.now() - t);
          await f.close();
        }
        const fm = median(forks);
        const fr = median(fresh);
        rows.push({ what: `fork from a ${objects}-object snapshot`, capstan: `${ms(fm)} wall, ${ms(median(forkCpu))} CPU`, raw: `${ms(fr)} empty startCapstan()`, ratio: `${(fm / fr).toFixed(2)}x raw (target < 50 ms: ${verdict(fm < 50)})` });
      }
    } finally {
      await server.close();
    }
  }

  // What the controls cost a request: GETs of one ConfigMap with them on (recording every request) and off.
  {
    const on = await startCapstan({ logger: silentLogger });
    const off = await startCapstan({ logger: silentLogger, enableTestControls: false });
    try {
      const n = options.quick ? 2000 : 8000;
      await fill(on, 1);
      await fill(off, 1);
      // CPU per request (server and in-process client together) is steadier than throughput on a busy machine.
      const cpuPerGet = async (server: Capstan) => {
        const c = process.cpuUsage();
        const r = await runLoad({ url: server.url, tls: { ca: server.caCert, cert: server.clientCert, key: server.clientKey }, concurrency: 16, requests: n, request: () => ({ method: 'GET', path: '/api/v1/namespaces/default/configmaps/cm-0' }) });
        const d = process.cpuUsage(c);
        if (r.errors) throw new Error(`${r.errors} GETs failed`);
        return (d.user + d.system) / n;
      };
      // Alternate to spread the machine's noise over both.
      const cpu = { on: [] as number[], off: [] as number[] };
      for (let i = 0; i < 5; i++) {
        cpu.off.push(await cpuPerGet(off));
        cpu.on.push(await cpuPerGet(on));
        on.recording.clear();
      }
      const a = median(cpu.on);
      const b = median(cpu.off);
      rows.push({ what: 'GET with the test controls on (recording every request)', capstan: `${a.toFixed(0)} µs CPU/request`, raw: `${b.toFixed(0)} µs controls off`, ratio: `${(a / b).toFixed(2)}x raw CPU` });
    } finally {
      await on.close();
      await off.close();
    }
  }

  // Logical clusters: creation time and heap per empty cluster, against a whole empty server.
  const gc = gcFunction();
  const server = await startCapstan({ logger: silentLogger });
  try {
    const n = options.quick ? 50 : 200;
    const times: number[] = [];
    const cpu: number[] = [];
    gc();
    const before = process.memoryUsage().heapUsed;
    for (let i = 0; i < n; i++) {
      const c = process.cpuUsage();
      const t = performance.now();
      await server.createCluster(`bench-${i}`);
      times.push(performance.now() - t);
      const d = process.cpuUsage(c);
      cpu.push((d.user + d.system) / 1000);
    }
    await new Promise((r) => setTimeout(r, 200));
    gc();
    const perCluster = (process.memoryUsage().heapUsed - before) / n;
    const servers: Capstan[] = [];
    const serverTimes: number[] = [];
    gc();
    const before2 = process.memoryUsage().heapUsed;
    for (let i = 0; i < 10; i++) {
      const t = performance.now();
      servers.push(await startCapstan({ logger: silentLogger }));
      serverTimes.push(performance.now() - t);
    }
    await new Promise((r) => setTimeout(r, 200));
    gc();
    const perServer = (process.memoryUsage().heapUsed - before2) / 10;
    for (const s of servers) await s.close();
    const ct = median(times);
    rows.push({ what: 'empty logical cluster: creation', capstan: `${ms(ct)} wall, ${ms(median(cpu))} CPU (median of ${n})`, raw: `${ms(median(serverTimes))} empty startCapstan()`, ratio: `${(ct / median(serverTimes)).toFixed(2)}x raw (target < 10 ms: ${verdict(ct < 10)})` });
    rows.push({ what: 'empty logical cluster: heap', capstan: `${(perCluster / 1024).toFixed(0)} KiB each (${n} clusters)`, raw: `${(perServer / 1024).toFixed(0)} KiB per empty server`, ratio: `${(perCluster / perServer).toFixed(2)}x raw (target < 1 MB: ${verdict(perCluster < 1024 * 1024)})` });
  } finally {
    await server.close();
  }
  return rows;
}

/** Median time of the storage restore alone for `objects` ConfigMap-sized values. */
async function rawRestore(backend: 'memory' | 'sqlite', objects: number, runs: number): Promise<number> {
  const { mkdtemp, rm } = await import('node:fs/promises');
  const { tmpdir } = await import('node:os');
  const { join } = await import('node:path');
  const { openSqliteStorage } = await import('../src/storage/sqlite/sqlite-storage.ts');
  const dir = await mkdtemp(join(tmpdir(), 'capstan-bench-restore-'));
  const storage = backend === 'memory' ? createMemoryStorage() : openSqliteStorage(join(dir, 'raw.db'));
  try {
    const value = JSON.stringify({ metadata: { name: 'x' }, data: { payload: 'x'.repeat(900) } });
    for (let i = 0; i < objects; i++) await storage.create(`/registry/configmaps/default/cm-${String(i).padStart(4, '0')}`, value);
    const snap = await storage.snapshot();
    const times: number[] = [];
    for (let i = 0; i < runs; i++) {
      const t = performance.now();
      await storage.restore(snap);
      times.push(performance.now() - t);
    }
    return median(times);
  } finally {
    await storage.close();
    await rm(dir, { recursive: true, force: true });
  }
}
