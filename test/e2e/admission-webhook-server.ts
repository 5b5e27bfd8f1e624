// A webhook server for admission tests: HTTPS on 127.0.0.1 with its own CA (caBundle for the configurations),
// a certificate for 127.0.0.1 and <name>.<namespace>.svc, and a handler per path. It records every review it gets.

import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { issueCertificate } from '../../src/server/certificates.ts';

export interface ReceivedReview {
  path: string;
  review: { apiVersion: string; kind: string; request: Record<string, any> };
}

/** What a handler answers: a response object (wrapped in an AdmissionReview with the request's uid), or raw. */
export type HookAnswer =
  | { response: Record<string, unknown>; delayMs?: number }
  | { raw: string; status?: number; delayMs?: number };

export type HookHandler = (request: Record<string, any>, review: ReceivedReview['review']) => HookAnswer;

export interface WebhookServer {
  readonly port: number;
  /** base64 PEM of the CA (clientConfig.caBundle). */
  readonly caBundle: string;
  readonly received: ReceivedReview[];
  url(path: string): string;
  handle(path: string, handler: HookHandler): void;
  close(): Promise<void>;
}

/** A JSON patch as a response field (base64). */
export function patchOf(ops: unknown[]): { patch: string; patchType: 'JSONPatch' } {
  return { patch: Buffer.from(JSON.stringify(ops)).toString('base64'), patchType: 'JSONPatch' };
}

export async function startWebhookServer(serviceNames: string[] = []): Promise<WebhookServer> {
  const now = Date.now();
  const ca = await issueCertificate({ subject: { commonName: 'webhook-test-ca' }, notBefore: new Date(now - 60_000), notAfter: new Date(now + 3600_000), isCa: true });
  const leaf = await issueCertificate(
    { subject: { commonName: 'webhook' }, notBefore: new Date(now - 60_000), notAfter: new Date(now + 3600_000), isCa: false, usage: 'server', altNames: ['127.0.0.1', ...serviceNames] },
    ca,
  );
  const handlers = new Map<string, HookHandler>();
  const received: ReceivedReview[] = [];
  const timers = new Set<NodeJS.Timeout>();
  const server: Server = createServer({ cert: leaf.certPem, key: leaf.keyPem }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = (req.url ?? '').split('?')[0];
      const review = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      received.push({ path, review });
      const handler = handlers.get(path);
      const answer: HookAnswer = handler ? handler(review.request, review) : { response: { allowed: true } };
      const send = () => {
        if ('raw' in answer) {
          res.writeHead(answer.status ?? 200, { 'content-type': 'application/json' });
          res.end(answer.raw);
          return;
        }
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ apiVersion: review.apiVersion, kind: 'AdmissionReview', response: { uid: review.request.uid, ...answer.response } }));
      };
      if (answer.delayMs) {
        const t = setTimeout(() => {
          timers.delete(t);
          if (!res.destroyed) send();
        }, answer.delayMs);
        timers.add(t);
      } else send();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    caBundle: Buffer.from(ca.certPem).toString('base64'),
    received,
    url: (path) => `https://127.0.0.1:${port}${path}`,
    handle: (path, handler) => void handlers.set(path, handler),
    async close() {
      for (const t of timers) clearTimeout(t);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
