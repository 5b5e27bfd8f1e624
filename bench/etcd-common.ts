// Shared by the etcd bench modules: a bench/serve.ts child on a given backend, the lean-client load with a failure
// check, and the row formatting helpers.
import type { ChildProcess } from 'node:child_process';
import { spawnNode } from './pinning.ts';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { runLoad, type LoadRequest, type LoadResult, type TlsClientOptions } from './load.ts';
import { stop } from './children.ts';

export const root = fileURLToPath(new URL('..', import.meta.url));
export const CONCURRENCY = 32;

export interface EtcdBenchRow {
  what: string;
  capstan: string;
  raw: string;
  ratio: string;
}

export interface BenchServer {
  child: ChildProcess;
  port: number;
  tls: TlsClientOptions;
}

export function fmt(n: number, digits = 0): string {
  return n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
}

export function median(xs: number[]): number {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

export function configMap(name: string, namespace: string): Record<string, unknown> {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace, labels: { app: 'bench' } }, data: { payload: 'x'.repeat(900) } };
}

/** bench/serve.ts on `backend` with startCapstan `options`; optionally under --cpu-prof. */
export async function spawnServer(backend: 'memory' | 'sqlite', options: Record<string, unknown>, profileDir?: string): Promise<BenchServer> {
  const flags = profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [];
  const child = spawnNode('server', [...flags, join(root, 'bench/serve.ts'), backend, JSON.stringify(options)], { stdio: ['ignore', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout! });
  const first = await new Promise<string>((resolve, reject) => {
    lines.once('line', resolve);
    child.once('exit', (code) => reject(new Error(`bench/serve.ts exited with ${code}`)));
  });
  const info = JSON.parse(first) as { port: number; caCert: string; clientCert: string; clientKey: string };
  return { child, port: info.port, tls: { ca: info.caCert, cert: info.clientCert, key: info.clientKey } };
}

export async function load(server: BenchServer, requests: number, request: (i: number) => LoadRequest): Promise<LoadResult> {
  const r = await runLoad({ url: `https://127.0.0.1:${server.port}`, tls: server.tls, concurrency: CONCURRENCY, requests, request });
  if (r.errors > 0) throw new Error(`${r.errors} of ${r.requests} requests failed`);
  return r;
}

export { stop };
