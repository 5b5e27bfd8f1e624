// Micro benchmark of a Storage backend's raw operations, the baseline the HTTP layer is compared with.
// Library: benchStorage(storage, options). Script: node bench/storage.ts [objects] [memory|sqlite ...]
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Storage } from '../src/storage/types.ts';
import { createMemoryStorage } from '../src/storage/memory/memory-storage.ts';
import { openSqliteStorage } from '../src/storage/sqlite/sqlite-storage.ts';
import { parseScriptArgs } from '../scripts/script-args.ts';

export interface StorageBenchOptions {
  /** Objects written (default 10000). */
  objects?: number;
  /** Bytes per value (default 1000, about a small ConfigMap). */
  valueBytes?: number;
  /** Namespaces the objects spread over (default 10). */
  namespaces?: number;
  /** Watchers for the fan-out measurement (default 10). */
  watchers?: number;
}

export interface StorageBenchResult {
  readonly op: string;
  readonly ops: number;
  readonly seconds: number;
  readonly perSecond: number;
}

async function timed(op: string, ops: number, body: () => Promise<void>): Promise<StorageBenchResult> {
  const start = performance.now();
  await body();
  const seconds = (performance.now() - start) / 1000;
  return { op, ops, seconds, perSecond: ops / seconds };
}

/** Runs the operations against an empty store, under the prefix /bench/. Leaves the objects deleted. */
export async function benchStorage(storage: Storage, options: StorageBenchOptions = {}): Promise<StorageBenchResult[]> {
  const n = options.objects ?? 10_000;
  const namespaces = options.namespaces ?? 10;
  const watchers = options.watchers ?? 10;
  const value = JSON.stringify({ data: 'x'.repeat(Math.max(0, (options.valueBytes ?? 1000) - 12)) });
  const key = (i: number) => `/bench/ns${i % namespaces}/obj${i}`;
  const mod: number[] = new Array(n);
  const results: StorageBenchResult[] = [];

  results.push(await timed('create', n, async () => {
    for (let i = 0; i < n; i++) mod[i] = (await storage.create(key(i), value)).modRevision;
  }));
  results.push(await timed('get', n, async () => {
    for (let i = 0; i < n; i++) await storage.get(key((i * 7919) % n));
  }));
  results.push(await timed('update', n, async () => {
    for (let i = 0; i < n; i++) mod[i] = (await storage.update(key(i), value, mod[i])).modRevision;
  }));
  const pages = Math.max(1, Math.floor(n / 500));
  results.push(await timed('range 500 (paged list, all namespaces)', pages, async () => {
    let startKey: string | undefined;
    for (let p = 0; p < pages; p++) {
      const r = await storage.range('/bench/', { startKey, limit: 500 });
      startKey = r.more ? r.kvs[r.kvs.length - 1].key + '\u0000' : undefined;
    }
  }));
  results.push(await timed('range one namespace', namespaces, async () => {
    for (let i = 0; i < namespaces; i++) await storage.range(`/bench/ns${i}/`);
  }));
  results.push(await timed('count', 1000, async () => {
    for (let i = 0; i < 1000; i++) await storage.count('/bench/');
  }));

  // Watch fan-out: updates delivered to every watcher of the prefix.
  let delivered = 0;
  const total = n * watchers;
  let done: () => void = () => {};
  const allDelivered = new Promise<void>((resolve) => (done = resolve));
  const from = await storage.currentRevision();
  const handles = Array.from({ length: watchers }, () =>
    storage.watch('/bench/', from, {
      onEvents(events) {
        delivered += events.length;
        if (delivered >= total) done();
      },
      onError(err) {
        throw err;
      },
    }),
  );
  results.push(await timed(`update + watch fan-out to ${watchers}`, n, async () => {
    for (let i = 0; i < n; i++) mod[i] = (await storage.update(key(i), value, mod[i])).modRevision;
    await allDelivered;
  }));
  for (const h of handles) h.stop();

  results.push(await timed('delete', n, async () => {
    for (let i = 0; i < n; i++) await storage.delete(key(i), mod[i]);
  }));
  return results;
}

export function formatBench(name: string, results: readonly StorageBenchResult[]): string {
  return results.map((r) => `${name.padEnd(8)} ${r.op.padEnd(40)} ${Math.round(r.perSecond).toString().padStart(10)} /s  (${r.ops} in ${r.seconds.toFixed(3)} s)`).join('\n');
}

async function main(): Promise<void> {
  const args = parseScriptArgs({
    command: 'node bench/storage.ts [OBJECTS] [BACKEND...]',
    summary: "Micro benchmark of the storage backends' raw operations, the baseline the HTTP layer is compared with.",
    positionals: { OBJECTS: 'how many 1 KB objects (default 10000)', 'BACKEND...': 'memory and/or sqlite (default both)' },
  });
  const objects = Number(args.positionals[0] ?? 10_000);
  const backends = args.positionals.slice(1);
  for (const backend of backends.length > 0 ? backends : ['memory', 'sqlite']) {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'capstan-bench-'));
    const storage = backend === 'sqlite' ? openSqliteStorage(path.join(dir, 'capstan.db')) : createMemoryStorage();
    try {
      console.log(formatBench(backend, await benchStorage(storage, { objects })));
    } finally {
      await storage.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }
}

if (process.argv[1] !== undefined && import.meta.filename === path.resolve(process.argv[1])) await main();
