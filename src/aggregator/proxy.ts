// Proxying a request for an aggregated group-version to its APIService's backend, as kube-aggregator's proxy
// handler does: after authentication, authorization and flow control here, the request goes on with the caller's
// identity in the front-proxy headers (X-Remote-User, X-Remote-Group, X-Remote-Extra-*) over a TLS connection made
// with the aggregator's client certificate, and the backend's answer streams back as it comes (watches too).
// Failures are kube's plain-text answers: 503 "service unavailable" for an APIService not Available or a Service
// that does not resolve, 503 with the connection error when the backend cannot be reached. An HTTP/1.1 upgrade request
// (a WebSocket or SPDY stream, as exec-like subresources open) goes on with its Connection and Upgrade headers, as
// kube's UpgradeAwareHandler sends it: when the backend switches protocols, its 101 answer is written to the caller's
// connection as it came and the two connections are joined, byte for byte, until either ends; any other answer is
// passed back as usual.

import { request as httpsRequest, type Agent } from 'node:https';
import type { IncomingHttpHeaders, IncomingMessage, OutgoingHttpHeaders } from 'node:http';
import type { Duplex } from 'node:stream';
import type { UserInfo } from '../auth/user.ts';
import type { HttpRequest, HttpResponse } from '../server/types.ts';
import { hijack } from '../server/hijack.ts';
import { describeNetworkError, type BackendAddress } from './backend.ts';

/** Request headers that describe one hop, never forwarded (RFC 9110 7.6.1, and Go's ReverseProxy list). */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'proxy-authenticate', 'proxy-authorization', 'te', 'trailer', 'transfer-encoding', 'upgrade', 'host', 'http2-settings']);

/** Header names may hold these bytes only; others in an extra's key are percent-encoded (kube's headerKeyEscape). */
const HEADER_KEY_BYTE = /[!#$&'*+\-.^_`|~0-9A-Za-z]/;

export function escapeExtraKey(key: string): string {
  let out = '';
  for (const byte of Buffer.from(key, 'utf8')) {
    const ch = String.fromCharCode(byte);
    out += byte < 0x80 && HEADER_KEY_BYTE.test(ch) && ch !== '%' ? ch : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

/**
 * The headers the backend gets: the caller's, minus hop-by-hop ones, HTTP/2 pseudo-headers and any front-proxy
 * headers the caller sent itself, plus the identity the aggregator vouches for (transport.SetAuthProxyHeaders).
 */
export function forwardedHeaders(incoming: IncomingHttpHeaders, user: UserInfo, clientAddress: string | undefined): OutgoingHttpHeaders {
  const out: OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(incoming)) {
    if (value === undefined || name.startsWith(':') || HOP_BY_HOP.has(name)) continue;
    if (name === 'x-remote-user' || name === 'x-remote-group' || name === 'x-remote-uid' || name.startsWith('x-remote-extra-')) continue;
    out[name] = value;
  }
  out['X-Remote-User'] = user.name;
  if (user.groups.length > 0) out['X-Remote-Group'] = [...user.groups];
  for (const [key, values] of Object.entries(user.extra ?? {})) if (values.length > 0) out[`X-Remote-Extra-${escapeExtraKey(key)}`] = [...values];
  if (clientAddress) {
    const prior = incoming['x-forwarded-for'];
    out['x-forwarded-for'] = prior ? `${Array.isArray(prior) ? prior.join(', ') : prior}, ${clientAddress}` : clientAddress;
  }
  return out;
}

/** httpstream.IsUpgradeRequest: a Connection header naming "upgrade" (HTTP/2 has no upgrades). */
export function isUpgradeRequest(req: HttpRequest): boolean {
  const connection = req.headers.connection;
  return req.httpVersionMajor === 1 && connection !== undefined && connection.toLowerCase().includes('upgrade');
}

/** The backend's 101 answer as it came: status line and raw headers. */
function switchingProtocolsHead(answer: IncomingMessage): string {
  let head = `HTTP/${answer.httpVersion} ${answer.statusCode} ${answer.statusMessage}\r\n`;
  for (let i = 0; i < answer.rawHeaders.length; i += 2) head += `${answer.rawHeaders[i]}: ${answer.rawHeaders[i + 1]}\r\n`;
  return `${head}\r\n`;
}

/** Joins the caller's connection and the backend's upgraded one; each ends the other. */
function joinConnections(client: Duplex, backend: Duplex): void {
  const close = (): void => {
    client.destroy();
    backend.destroy();
  };
  client.on('error', close);
  backend.on('error', close);
  client.once('close', close);
  backend.once('close', close);
  backend.pipe(client);
  client.pipe(backend);
}

/** The path and query the backend gets: the path as sent, the query re-encoded with its keys sorted (Go's Values.Encode). */
export function forwardedPath(url: string): string {
  const q = url.indexOf('?');
  if (q < 0) return url;
  const params = new URLSearchParams(url.slice(q + 1));
  params.sort();
  const query = params.toString();
  return query ? `${url.slice(0, q)}?${query}` : url.slice(0, q);
}

/** kube's http.Error: a plain-text body ending in a newline. */
export function writePlainError(res: HttpResponse, code: number, message: string): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const body = `${message}\n`;
  res.statusCode = code;
  res.setHeader('Content-Type', 'text/plain; charset=utf-8');
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Content-Length', Buffer.byteLength(body));
  res.end(body);
}

function copyResponseHeaders(from: IncomingMessage, res: HttpResponse): void {
  for (const [name, value] of Object.entries(from.headers)) {
    if (value === undefined || HOP_BY_HOP.has(name) || name === 'audit-id') continue;
    res.setHeader(name, value);
  }
}

export interface ProxyTarget {
  readonly address: BackendAddress;
  readonly agent: Agent;
}

/** Sends the request to the backend and streams its answer back; resolves once the answer is out (or given up). */
export function proxyRequest(req: HttpRequest, res: HttpResponse, user: UserInfo, target: ProxyTarget): Promise<void> {
  return new Promise((resolve) => {
    const headers = forwardedHeaders(req.headers, user, req.socket?.remoteAddress);
    const upgrade = isUpgradeRequest(req);
    if (upgrade) {
      headers.connection = req.headers.connection;
      if (req.headers.upgrade !== undefined) headers.upgrade = req.headers.upgrade;
    }
    const outgoing = httpsRequest({
      host: target.address.host,
      port: target.address.port,
      method: req.method ?? 'GET',
      path: forwardedPath(req.url ?? '/'),
      headers: { ...headers, host: target.address.host.includes(':') ? `[${target.address.host}]:${target.address.port}` : `${target.address.host}:${target.address.port}` },
      agent: target.agent,
    });
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      resolve();
    };
    // The caller went away: the backend's request goes too (a watch through the proxy ends with its client).
    res.once('close', () => {
      if (!outgoing.destroyed) outgoing.destroy();
      finish();
    });
    outgoing.once('error', (err) => {
      // After a timeout's 504 or the caller's going away, there is no one left to tell.
      if (!res.writableEnded) writePlainError(res, 503, describeNetworkError(err, target.address));
      finish();
    });
    // A write racing the response's end (a timeout) must not become an unhandled 'error'.
    res.on('error', () => outgoing.destroy());
    outgoing.once('response', (answer) => {
      res.statusCode = answer.statusCode ?? 502;
      copyResponseHeaders(answer, res);
      // The body's bytes go out as they arrive, at the client's pace. A body of unknown length (a watch) may wait
      // for its first event: its head goes out at once. Others leave with their first bytes, in one write.
      if (answer.headers['content-length'] === undefined) {
        (res as { writeHead(code: number): unknown }).writeHead(res.statusCode);
        (res as { flushHeaders?: () => void }).flushHeaders?.();
      }
      answer.pipe(res as unknown as NodeJS.WritableStream);
      answer.once('end', finish);
      answer.once('error', () => {
        res.destroy();
        finish();
      });
    });
    if (upgrade) {
      outgoing.once('upgrade', (answer: IncomingMessage, backendSocket: Duplex, head: Buffer) => {
        const client = req.socket;
        if (res.writableEnded || client.destroyed) {
          backendSocket.destroy();
          return finish();
        }
        hijack(res);
        res.statusCode = answer.statusCode ?? 101;
        client.write(switchingProtocolsHead(answer));
        if (head.length > 0) client.write(head);
        joinConnections(client, backendSocket);
        finish();
      });
    }
    if (hasBody(req)) req.pipe(outgoing);
    else outgoing.end();
  });
}

/** Whether the request comes with a body to forward (a GET or DELETE usually has none). */
function hasBody(req: HttpRequest): boolean {
  if (req.httpVersionMajor === 2) return !(req as { stream?: { endAfterHeaders?: boolean } }).stream?.endAfterHeaders;
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}
