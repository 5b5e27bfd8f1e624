// An extension API server a test runs itself on loopback, as an aggregated API's backend: HTTPS with its own CA
// (the APIService's caBundle) and a serving certificate for <service>.<namespace>.svc, trusting callers the way
// k8s.io/apiserver's delegated authentication does: a client certificate of the request header CA with an allowed
// common name carries the user in the X-Remote-* headers (read from kube-system/extension-apiserver-authentication).
// It serves the group wardle.example.com/v1alpha1: flunders (namespaced, kept in memory, with a status subresource
// and watch) and fischers (cluster-scoped, none). HTTP/1.1 upgrades of a flunder's `echo` subresource (any protocol
// named in Upgrade) switch protocols and echo every byte back; those of `refuse` get a 400 Status.

import { X509Certificate } from 'node:crypto';
import { createServer, type Server } from 'node:https';
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import type { TLSSocket } from 'node:tls';
import { issueCertificate } from '../../src/server/certificates.ts';

export const WARDLE_GROUP = 'wardle.example.com';
export const WARDLE_VERSION = 'v1alpha1';
const GV = `${WARDLE_GROUP}/${WARDLE_VERSION}`;

/** The group-version's OpenAPI v3 document: a Flunder with a spec (what `kubectl explain` shows). */
const OPENAPI_V3 = {
  openapi: '3.0.0',
  info: { title: 'Wardle', version: 'v0.1.0' },
  paths: {
    [`/apis/${GV}/namespaces/{namespace}/flunders/{name}`]: {
      get: {
        operationId: 'readWardleV1alpha1NamespacedFlunder',
        responses: { '200': { description: 'OK', content: { 'application/json': { schema: { $ref: '#/components/schemas/com.example.wardle.v1alpha1.Flunder' } } } } },
        'x-kubernetes-action': 'get',
        'x-kubernetes-group-version-kind': { group: WARDLE_GROUP, version: WARDLE_VERSION, kind: 'Flunder' },
      },
    },
  },
  components: {
    schemas: {
      'com.example.wardle.v1alpha1.Flunder': {
        type: 'object',
        description: 'A flunder of the wardle test server.',
        properties: {
          apiVersion: { type: 'string', description: 'The versioned schema of this object.' },
          kind: { type: 'string', description: 'The REST resource this object represents.' },
          metadata: { type: 'object', description: 'Standard object metadata.' },
          spec: { type: 'object', description: 'What the flunder is.', properties: { reference: { type: 'string', description: 'What the flunder refers to.' } } },
        },
        'x-kubernetes-group-version-kind': [{ group: WARDLE_GROUP, kind: 'Flunder', version: WARDLE_VERSION }],
      },
    },
  },
};

export interface RequestHeaderTrust {
  readonly caPem: string;
  readonly allowedNames: readonly string[];
}

export interface SeenRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingHttpHeaders;
  /** The identity the front-proxy headers gave, or undefined when the caller was not trusted. */
  readonly user?: { name: string; groups: string[]; extra: Record<string, string[]> };
}

export interface ExtensionApiServer {
  readonly port: number;
  /** The CA certificate, base64 PEM (the APIService's caBundle). */
  readonly caBundle: string;
  /** Every request, in order. */
  readonly seen: SeenRequest[];
  /** Stops listening and drops open connections (watches included). */
  close(): Promise<void>;
}

function status(res: ServerResponse, code: number, reason: string, message: string): void {
  res.writeHead(code, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, code }));
}

function trustedUser(req: IncomingMessage, trust: RequestHeaderTrust): SeenRequest['user'] {
  const socket = req.socket as TLSSocket;
  const peer = socket.getPeerX509Certificate?.();
  if (!peer) return undefined;
  const ca = new X509Certificate(trust.caPem);
  if (!peer.checkIssued(ca) || !peer.verify(ca.publicKey)) return undefined;
  const cn = /(?:^|\n)CN=([^\n]*)/.exec(peer.subject)?.[1] ?? '';
  if (trust.allowedNames.length > 0 && !trust.allowedNames.includes(cn)) return undefined;
  const name = req.headers['x-remote-user'];
  if (typeof name !== 'string' || name === '') return undefined;
  const groups: string[] = [];
  const extra: Record<string, string[]> = {};
  for (let i = 0; i < req.rawHeaders.length; i += 2) {
    const key = req.rawHeaders[i]!.toLowerCase();
    const value = req.rawHeaders[i + 1]!;
    if (key === 'x-remote-group') groups.push(value);
    else if (key.startsWith('x-remote-extra-')) (extra[decodeURIComponent(key.slice('x-remote-extra-'.length))] ??= []).push(value);
  }
  return { name, groups, extra };
}

export async function startExtensionApiServer(trust: RequestHeaderTrust, serviceName: string, namespace: string): Promise<ExtensionApiServer> {
  const now = Date.now();
  const validity = { notBefore: new Date(now - 60_000), notAfter: new Date(now + 3_600_000) };
  const ca = await issueCertificate({ subject: { commonName: 'wardle-ca' }, isCa: true, ...validity });
  const serving = await issueCertificate({ subject: { commonName: 'wardle' }, isCa: false, usage: 'server', altNames: [`${serviceName}.${namespace}.svc`], ...validity }, ca);
  const seen: SeenRequest[] = [];
  const flunders = new Map<string, Record<string, unknown>>();
  const watchers = new Set<ServerResponse>();
  let rv = 1;

  const server: Server = createServer({ cert: serving.certPem, key: serving.keyPem, requestCert: true, rejectUnauthorized: false }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const user = trustedUser(req, trust);
      seen.push({ method: req.method ?? 'GET', url: req.url ?? '/', headers: req.headers, user });
      if (!user) return status(res, 401, 'Unauthorized', 'Unauthorized');
      const url = new URL(req.url ?? '/', 'https://wardle');
      const path = url.pathname;
      if (path === `/apis/${GV}`) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({
            kind: 'APIResourceList',
            apiVersion: 'v1',
            groupVersion: GV,
            resources: [
              { name: 'fischers', singularName: 'fischer', namespaced: false, kind: 'Fischer', verbs: ['get', 'list'] },
              { name: 'flunders', singularName: 'flunder', namespaced: true, kind: 'Flunder', verbs: ['create', 'delete', 'get', 'list', 'watch'], shortNames: ['fl'], categories: ['wardle'] },
              { name: 'flunders/status', singularName: '', namespaced: true, kind: 'Flunder', verbs: ['get', 'update'] },
            ],
          }),
        );
        return;
      }
      if (path === '/openapi/v3') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ paths: { [`apis/${GV}`]: { serverRelativeURL: `/openapi/v3/apis/${GV}?hash=0123ABCD` } } }));
        return;
      }
      if (path === `/openapi/v3/apis/${GV}`) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify(OPENAPI_V3));
        return;
      }
      const m = /^\/apis\/wardle\.example\.com\/v1alpha1\/namespaces\/([^/]+)\/flunders(?:\/([^/]+))?$/.exec(path);
      if (!m) return status(res, 404, 'NotFound', 'the server could not find the requested resource');
      const [, ns, name] = m;
      if (req.method === 'POST' && !name) {
        const obj = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { metadata: Record<string, unknown> };
        const stored = { ...obj, apiVersion: GV, kind: 'Flunder', metadata: { ...obj.metadata, namespace: ns, resourceVersion: String(++rv), annotations: { 'wardle.example.com/created-by': user.name } } };
        flunders.set(`${ns}/${String(obj.metadata.name)}`, stored);
        for (const w of watchers) w.write(JSON.stringify({ type: 'ADDED', object: stored }) + '\n');
        res.writeHead(201, { 'content-type': 'application/json' });
        res.end(JSON.stringify(stored));
        return;
      }
      if (req.method !== 'GET') return status(res, 405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource');
      if (name) {
        const obj = flunders.get(`${ns}/${name}`);
        if (!obj) return status(res, 404, 'NotFound', `flunders.wardle.example.com "${name}" not found`);
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify(obj));
        return;
      }
      const items = [...flunders.entries()].filter(([k]) => k.startsWith(`${ns}/`)).map(([, v]) => v);
      if (url.searchParams.get('watch') === 'true' || url.searchParams.get('watch') === '1') {
        res.writeHead(200, { 'content-type': 'application/json', 'transfer-encoding': 'chunked' });
        for (const obj of items) res.write(JSON.stringify({ type: 'ADDED', object: obj }) + '\n');
        watchers.add(res);
        res.once('close', () => watchers.delete(res));
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ kind: 'FlunderList', apiVersion: GV, metadata: { resourceVersion: String(rv) }, items }));
    });
  });
  const upgraded = new Set<Duplex>();
  server.on('upgrade', (req: IncomingMessage, socket: Duplex) => {
    socket.on('error', () => socket.destroy());
    const user = trustedUser(req, trust);
    seen.push({ method: req.method ?? 'GET', url: req.url ?? '/', headers: req.headers, user });
    const m = /^\/apis\/wardle\.example\.com\/v1alpha1\/namespaces\/[^/]+\/flunders\/[^/]+\/(echo|refuse)$/.exec(req.url ?? '');
    if (!user || m?.[1] !== 'echo') {
      const code = user ? 400 : 401;
      const body = JSON.stringify({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: user ? 'upgrade refused' : 'Unauthorized', reason: user ? 'BadRequest' : 'Unauthorized', code });
      socket.end(`HTTP/1.1 ${code} ${user ? 'Bad Request' : 'Unauthorized'}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
      return;
    }
    socket.write(`HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: ${String(req.headers.upgrade)}\r\nX-Echo-User: ${user.name}\r\n\r\n`);
    upgraded.add(socket);
    socket.once('close', () => upgraded.delete(socket));
    socket.pipe(socket);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    caBundle: Buffer.from(ca.certPem).toString('base64'),
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        for (const w of watchers) w.destroy();
        for (const u of upgraded) u.destroy();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
