// A small closed-loop HTTPS load generator: N keep-alive clients, each sending its next request when the last answered.

import https from 'node:https';

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
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

export async function runLoad(options: LoadOptions): Promise<LoadResult> {
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
