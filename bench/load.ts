// A small closed-loop HTTPS load generator: N keep-alive clients, each sending its next request when the last answered.
// The requests are serialized up front and driven by a lean HTTP/1.1 client in its own process (bench/lean-client.ts),
// so the client neither shares the server's event loop nor caps it; runs that read response bodies (onBody) use
// Node's https client in this process instead.

import https from 'node:https';
import { spawnNode } from './pinning.ts';

export interface TlsClientOptions {
  ca: string;
  cert?: string;
  key?: string;
}

export interface LoadRequest {
  method: string;
  path: string;
  body?: string;
  headers?: Record<string, string>;
}

export interface LoadOptions {
  url: string;
  tls: TlsClientOptions;
  concurrency: number;
  /** Total requests to send (the run ends when all have answered). */
  requests: number;
  /** Builds request number i (0-based). */
  request(i: number): LoadRequest;
  /** Status codes counted as success. */
  okStatus?: number[];
  /** Called with each response body (only when given: bodies are otherwise discarded unread). */
  onBody?(body: string): void;
}

export interface LoadResult {
  requests: number;
  errors: number;
  seconds: number;
  perSecond: number;
  p50Ms: number;
  p99Ms: number;
  /** CPU time the client itself used (ms); undefined for the in-process client. */
  clientCpuMs?: number;
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

const leanClient = new URL('./lean-client.ts', import.meta.url).pathname;

/** Request i as raw HTTP/1.1 text (the headers the in-process client sends). */
function serialize(req: LoadRequest, host: string): string {
  const headers: Record<string, string> = { host, accept: 'application/json', ...req.headers };
  if (req.body !== undefined) {
    headers['content-type'] ??= 'application/json';
    headers['content-length'] = String(Buffer.byteLength(req.body));
  }
  let text = `${req.method} ${req.path} HTTP/1.1\r\n`;
  for (const [k, v] of Object.entries(headers)) text += `${k}: ${v}\r\n`;
  return `${text}\r\n${req.body ?? ''}`;
}

async function runLean(options: LoadOptions): Promise<LoadResult> {
  const target = new URL(options.url);
  const requests = Array.from({ length: options.requests }, (_, i) => serialize(options.request(i), target.host));
  const job = { host: target.hostname, port: Number(target.port), ...options.tls, concurrency: options.concurrency, ok: options.okStatus ?? [200, 201], requests };
  const child = spawnNode('client', [leanClient], { stdio: ['pipe', 'pipe', 'inherit'] });
  const out: Buffer[] = [];
  child.stdout!.on('data', (c: Buffer) => out.push(c));
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  child.stdin!.end(JSON.stringify(job));
  const code = await exited;
  if (code !== 0) throw new Error(`bench/lean-client.ts exited with ${code}`);
  const r = JSON.parse(Buffer.concat(out).toString('utf8')) as Omit<LoadResult, 'requests' | 'perSecond'>;
  return { ...r, requests: options.requests, perSecond: options.requests / r.seconds };
}

export async function runLoad(options: LoadOptions): Promise<LoadResult> {
  if (!options.onBody) return runLean(options);
  const target = new URL(options.url);
  const agent = new https.Agent({ keepAlive: true, maxSockets: options.concurrency, ca: options.tls.ca, cert: options.tls.cert, key: options.tls.key });
  const ok = new Set(options.okStatus ?? [200, 201]);
  const latencies: number[] = [];
  let next = 0;
  let errors = 0;

  const send = (req: LoadRequest): Promise<number> =>
    new Promise((resolve) => {
      const headers: Record<string, string> = { accept: 'application/json', ...req.headers };
      if (req.body !== undefined) {
        headers['content-type'] ??= 'application/json';
        headers['content-length'] = String(Buffer.byteLength(req.body));
      }
      const r = https.request({ host: target.hostname, port: target.port, method: req.method, path: req.path, agent, headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', options.onBody ? (c: Buffer) => void chunks.push(c) : () => {});
        res.on('end', () => {
          options.onBody?.(Buffer.concat(chunks).toString());
          resolve(res.statusCode ?? 0);
        });
        res.on('error', () => resolve(0));
      });
      r.on('error', () => resolve(0));
      if (req.body !== undefined) r.write(req.body);
      r.end();
    });

  const worker = async () => {
    while (next < options.requests) {
      const i = next++;
      const t0 = performance.now();
      const status = await send(options.request(i));
      latencies.push(performance.now() - t0);
      if (!ok.has(status)) errors++;
    }
  };

  const start = performance.now();
  await Promise.all(Array.from({ length: options.concurrency }, worker));
  const seconds = (performance.now() - start) / 1000;
  agent.destroy();
  latencies.sort((a, b) => a - b);
  return {
    requests: options.requests,
    errors,
    seconds,
    perSecond: options.requests / seconds,
    p50Ms: percentile(latencies, 50),
    p99Ms: percentile(latencies, 99),
  };
}
