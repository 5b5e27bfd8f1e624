// Helpers of the watch and list end-to-end tests: a streaming watch client (newline-delimited JSON events from a
// raw HTTPS request) and small REST calls as the admin.

import { Agent, request as httpsRequest } from 'node:https';
import type { IncomingMessage } from 'node:http';
import assert from 'node:assert/strict';
import type { TestServer } from './helpers.ts';

export interface WatchEventJson {
  type: string;
  object: {
    kind?: string;
    apiVersion?: string;
    metadata?: { name?: string; resourceVersion?: string; annotations?: Record<string, string>; labels?: Record<string, string> };
    code?: number;
    reason?: string;
    message?: string;
    [k: string]: unknown;
  };
}

export interface WatchClient {
  readonly status: number;
  readonly headers: IncomingMessage['headers'];
  readonly events: WatchEventJson[];
  /** Resolves when the server ends the stream. */
  readonly ended: Promise<void>;
  isEnded(): boolean;
  /** Waits until at least n events arrived (fails after ms). */
  waitFor(n: number, ms?: number): Promise<WatchEventJson[]>;
  /** Event summaries "TYPE name rv". */
  summary(): string[];
  /** Stops reading (the socket stays open): a slow client. */
  pause(): void;
  resume(): void;
  close(): void;
}

export function summarize(e: WatchEventJson): string {
  return `${e.type} ${e.object.metadata?.name ?? ''} ${e.object.metadata?.resourceVersion ?? ''}`.trim();
}

/** Opens GET path (which should carry watch=true) as the admin; resolves once the response headers arrived. */
export function openWatch(s: TestServer, path: string): Promise<WatchClient> {
  return new Promise((resolve, reject) => {
    const req = httpsRequest(
      { host: '127.0.0.1', port: s.port, path, method: 'GET', ca: s.caCert, cert: s.clientCert, key: s.clientKey, agent: false },
      (res) => {
        const events: WatchEventJson[] = [];
        let buffered = '';
        let ended = false;
        let wake: (() => void) | undefined;
        const ping = () => {
          const w = wake;
          wake = undefined;
          w?.();
        };
        const endedPromise = new Promise<void>((done) => {
          const finish = () => {
            if (ended) return;
            ended = true;
            ping();
            done();
          };
          res.on('end', finish);
          res.on('close', finish);
          res.on('error', finish);
        });
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          buffered += chunk;
          let nl: number;
          while ((nl = buffered.indexOf('\n')) >= 0) {
            const line = buffered.slice(0, nl);
            buffered = buffered.slice(nl + 1);
            if (line.trim()) events.push(JSON.parse(line) as WatchEventJson);
          }
          ping();
        });
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          events,
          ended: endedPromise,
          isEnded: () => ended,
          async waitFor(n, ms = 5000) {
            const deadline = Date.now() + ms;
            while (events.length < n) {
              if (ended || Date.now() > deadline) throw new Error(`expected ${n} events, got ${events.length}: ${JSON.stringify(events.map(summarize))}${ended ? ' (stream ended)' : ''}`);
              await new Promise<void>((r) => {
                wake = r;
                setTimeout(r, 50);
              });
            }
            return events;
          },
          summary: () => events.map(summarize),
          pause: () => res.pause(),
          resume: () => res.resume(),
          close: () => req.destroy(),
        });
      },
    );
    req.on('error', reject);
    req.end();
  });
}

// ---- REST calls ----

export type Json = Record<string, any>;

export async function call(s: TestServer, method: string, path: string, body?: unknown, contentType = 'application/json'): Promise<Json> {
  const r = await s.adminRequest(path, { method, body: body === undefined ? undefined : JSON.stringify(body), headers: { 'content-type': contentType } });
  assert.ok(r.status < 300, `${method} ${path}: ${r.status} ${r.body}`);
  return JSON.parse(r.body) as Json;
}

export const cmPath = (ns: string, name = '') => `/api/v1/namespaces/${ns}/configmaps${name ? `/${name}` : ''}`;
export const createCm = (s: TestServer, ns: string, name: string, labels: Record<string, string> = {}, data: Record<string, string> = { k: 'v' }) =>
  call(s, 'POST', cmPath(ns), { metadata: { name, labels }, data });
export const patchCm = (s: TestServer, ns: string, name: string, patch: unknown) => call(s, 'PATCH', cmPath(ns, name), patch, 'application/merge-patch+json');
export const rvOf = (o: Json) => o.metadata.resourceVersion as string;

export async function namespace(s: TestServer, name: string): Promise<string> {
  await call(s, 'POST', '/api/v1/namespaces', { metadata: { name } });
  return name;
}

/**
 * The process's open cache watcher count once it has held still for half a second: in-process controllers open
 * and re-open their own watches, so a test counting its watchers starts from a settled number.
 */
export async function settledWatcherCount(read: () => number, ms = 10000): Promise<number> {
  const end = Date.now() + ms;
  let last = read();
  let still = 0;
  while (still < 10 && Date.now() < end) {
    await new Promise((r) => setTimeout(r, 50));
    const now = read();
    still = now === last ? still + 1 : 0;
    last = now;
  }
  return last;
}

export async function until(cond: () => boolean, ms = 3000, what = 'condition'): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}


/** Admin requests over kept-alive connections (the raw helpers open one connection per request). */
export function keepAliveClient(s: TestServer, sockets = 8): { send(method: string, path: string, body?: unknown): Promise<number>; close(): void } {
  const agent = new Agent({ keepAlive: true, maxSockets: sockets, ca: s.caCert, cert: s.clientCert, key: s.clientKey });
  return {
    send: (method, path, body) =>
      new Promise((resolve, reject) => {
        const req = httpsRequest({ host: '127.0.0.1', port: s.port, path, method, agent, headers: { 'content-type': 'application/json' } }, (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode ?? 0));
        });
        req.on('error', reject);
        req.end(body === undefined ? undefined : JSON.stringify(body));
      }),
    close: () => agent.destroy(),
  };
}
