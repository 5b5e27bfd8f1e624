// A webhook server a test runs itself on loopback: HTTPS with its own CA and a serving certificate for 127.0.0.1
// and the Service names a test configures (<name>.<namespace>.svc), answering JSON POSTs with a handler.

import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { issueCertificate } from '../../src/server/certificates.ts';

export interface WebhookServer {
  readonly port: number;
  readonly url: string;
  /** The CA certificate, base64 PEM (a WebhookClientConfig's caBundle). */
  readonly caBundle: string;
  /** Every request body received, in order. */
  readonly received: unknown[];
  close(): Promise<void>;
}

export type WebhookHandler = (body: unknown, path: string) => unknown | Promise<unknown>;

export async function startWebhookServer(handler: WebhookHandler, dnsNames: readonly string[] = []): Promise<WebhookServer> {
  const now = Date.now();
  const ca = await issueCertificate({ subject: { commonName: 'webhook-test-ca' }, notBefore: new Date(now - 60_000), notAfter: new Date(now + 3_600_000), isCa: true });
  const serving = await issueCertificate(
    { subject: { commonName: 'webhook' }, notBefore: new Date(now - 60_000), notAfter: new Date(now + 3_600_000), isCa: false, usage: 'server', altNames: ['127.0.0.1', ...dnsNames] },
    ca,
  );
  const received: unknown[] = [];
  const server: Server = createServer({ cert: serving.certPem, key: serving.keyPem }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      try {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        received.push(body);
        const answer = await handler(body, req.url ?? '/');
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(typeof answer === 'string' ? answer : JSON.stringify(answer));
      } catch (e) {
        res.writeHead(500, { 'content-type': 'text/plain' });
        res.end(String(e));
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    url: `https://127.0.0.1:${port}`,
    caBundle: Buffer.from(ca.certPem).toString('base64'),
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
