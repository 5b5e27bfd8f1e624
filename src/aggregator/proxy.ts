// Proxying a request for an aggregated group-version to its APIService's backend, as kube-aggregator's proxy
// handler does: after authentication, authorization and flow control here, the request goes on with the caller's
// identity in the front-proxy headers (X-Remote-User, X-Remote-Group, X-Remote-Extra-*) over a TLS connection made
// with the aggregator's client certificate, relayed as src/server/relay.ts relays (upgrades included). Failures are
// kube's plain-text answers: 503 "service unavailable" for an APIService not Available or a Service that does not
// resolve, 503 with the connection error when the backend cannot be reached.

import { request as httpsRequest, type Agent } from 'node:https';
import type { IncomingHttpHeaders, OutgoingHttpHeaders } from 'node:http';
import type { UserInfo } from '../auth/user.ts';
import type { HttpRequest, HttpResponse } from '../server/types.ts';
import { HOP_BY_HOP, relayRequest } from '../server/relay.ts';
import { describeNetworkError, type BackendAddress } from './backend.ts';

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

export interface ProxyTarget {
  readonly address: BackendAddress;
  readonly agent: Agent;
}

/** Sends the request to the backend with the caller's identity, and streams its answer back. */
export function proxyRequest(req: HttpRequest, res: HttpResponse, user: UserInfo, target: ProxyTarget): Promise<void> {
  const { host, port } = target.address;
  return relayRequest(req, res, {
    headers: { ...forwardedHeaders(req.headers, user, req.socket?.remoteAddress), host: host.includes(':') ? `[${host}]:${port}` : `${host}:${port}` },
    open: (headers) => httpsRequest({ host, port, method: req.method ?? 'GET', path: forwardedPath(req.url ?? '/'), headers, agent: target.agent }),
    failed: (err) => writePlainError(res, 503, describeNetworkError(err, target.address)),
  });
}
