// --audit-webhook-config-file: events POSTed as an audit.k8s.io/v1 EventList to the server a kubeconfig-format
// file names (its current context, else its first cluster and user). Batch mode as kube's buffered backend:
// events are buffered and sent when a batch is full (--audit-webhook-batch-max-size, 400) or the oldest has
// waited --audit-webhook-batch-max-wait (30 s); a failed batch is logged and dropped.

import { readFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { dirname, isAbsolute, join } from 'node:path';
import { yaml } from '../../encoding/yaml.ts';
import type { Logger } from '../log.ts';
import { auditEventListJson } from './event-json.ts';
import type { AuditBackend, AuditEvent } from './types.ts';

export interface WebhookTargetConfig {
  readonly server: URL;
  readonly ca?: string;
  readonly cert?: string;
  readonly key?: string;
  readonly token?: string;
  readonly insecureSkipTLSVerify?: boolean;
}

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj => (v && typeof v === 'object' ? (v as Obj) : {});

function named(list: unknown, name: string | undefined, field: string): Obj {
  const items = Array.isArray(list) ? list.map(obj) : [];
  const item = (name !== undefined ? items.find((i) => i.name === name) : undefined) ?? items[0];
  return obj(item?.[field]);
}

/** Reads the connection facts of a kubeconfig file; relative file paths are relative to it. */
export function loadWebhookKubeconfig(path: string): WebhookTargetConfig {
  const base = dirname(path);
  const config = obj(yaml().parse(readFileSync(path, 'utf8')));
  const contexts = Array.isArray(config.contexts) ? config.contexts.map(obj) : [];
  const current = contexts.find((c) => c.name === config['current-context']) ?? contexts[0];
  const ctx = obj(current?.context);
  const cluster = named(config.clusters, ctx.cluster as string | undefined, 'cluster');
  const user = named(config.users, ctx.user as string | undefined, 'user');
  if (typeof cluster.server !== 'string' || cluster.server === '') throw new Error(`invalid configuration: no server found for cluster in ${path}`);
  const file = (p: unknown): string | undefined => (typeof p === 'string' && p !== '' ? readFileSync(isAbsolute(p) ? p : join(base, p), 'utf8') : undefined);
  const data = (d: unknown): string | undefined => (typeof d === 'string' && d !== '' ? Buffer.from(d, 'base64').toString('utf8') : undefined);
  return {
    server: new URL(cluster.server),
    ca: data(cluster['certificate-authority-data']) ?? file(cluster['certificate-authority']),
    cert: data(user['client-certificate-data']) ?? file(user['client-certificate']),
    key: data(user['client-key-data']) ?? file(user['client-key']),
    token: typeof user.token === 'string' ? user.token : undefined,
    insecureSkipTLSVerify: cluster['insecure-skip-tls-verify'] === true,
  };
}

export interface WebhookBackendOptions {
  readonly target: WebhookTargetConfig;
  readonly maxBatchSize?: number;
  readonly maxWaitMs?: number;
  readonly timeoutMs?: number;
  readonly log: Logger;
}

function post(target: WebhookTargetConfig, body: string, timeoutMs: number): Promise<void> {
  const headers: Record<string, string | number> = { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body), Accept: 'application/json' };
  if (target.token) headers.Authorization = `Bearer ${target.token}`;
  const secure = target.server.protocol === 'https:';
  return new Promise((resolve, reject) => {
    const options = { method: 'POST', headers, timeout: timeoutMs, ...(secure ? { ca: target.ca, cert: target.cert, key: target.key, rejectUnauthorized: !target.insecureSkipTLSVerify } : {}) };
    // node:https is loaded by the first call (as in oidc.ts and webhook/client.ts), not at start-up.
    const req = (secure ? process.getBuiltinModule('node:https').request : httpRequest)(target.server, options, (res) => {
      res.resume();
      res.on('end', () => ((res.statusCode ?? 0) < 300 ? resolve() : reject(new Error(`the server responded with the status code ${res.statusCode}`))));
    });
    req.on('timeout', () => req.destroy(new Error('context deadline exceeded')));
    req.on('error', reject);
    req.end(body);
  });
}

export function createWebhookBackend(options: WebhookBackendOptions): AuditBackend {
  const maxBatch = options.maxBatchSize ?? 400;
  const maxWait = options.maxWaitMs ?? 30_000;
  const timeoutMs = options.timeoutMs ?? 30_000;
  let buffer: AuditEvent[] = [];
  let timer: NodeJS.Timeout | undefined;
  const inFlight = new Set<Promise<void>>();

  const send = (): void => {
    clearTimeout(timer);
    timer = undefined;
    if (buffer.length === 0) return;
    const batch = buffer;
    buffer = [];
    const body = auditEventListJson(batch);
    const p = post(options.target, body, timeoutMs)
      .catch((e: unknown) => options.log.error('Error in audit plugin \'webhook\' affecting events', { events: batch.length, error: (e as Error).message }))
      .finally(() => inFlight.delete(p));
    inFlight.add(p);
  };

  return {
    processEvents(events) {
      for (const e of events) {
        buffer.push(e);
        if (buffer.length >= maxBatch) send();
      }
      if (buffer.length > 0 && !timer) {
        timer = setTimeout(send, maxWait);
        timer.unref();
      }
    },
    async shutdown() {
      send();
      await Promise.all([...inFlight]);
    },
  };
}
