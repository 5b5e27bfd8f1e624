// Which protocol an HTTP/1.1 upgrade request asks for: what the endpoints check before they load the code that
// serves it (watches over WebSocket; exec, attach and port-forward over WebSocket or SPDY).

import { requestHeader } from './request-header.ts';
import type { HttpRequest } from './types.ts';

const header = (req: HttpRequest, name: string): string => (requestHeader(req, name) ?? '').trim();

/** httpstream.IsUpgradeRequest: a Connection header mentions "upgrade" (an HTTP/2 request has none). */
export function isUpgradeRequest(req: HttpRequest): boolean {
  return req.httpVersionMajor === 1 && header(req, 'connection').toLowerCase().includes('upgrade');
}

/** wsstream.IsWebSocketRequest: Connection lists "upgrade" and Upgrade is "websocket" (HTTP/1.1 only). */
export function isWebSocketRequest(req: HttpRequest): boolean {
  if (req.httpVersionMajor !== 1) return false;
  const connection = header(req, 'connection').toLowerCase().split(',').map((t) => t.trim());
  return connection.includes('upgrade') && header(req, 'upgrade').toLowerCase() === 'websocket';
}

/** What the spdy upgrader checks: Connection mentions "upgrade" and Upgrade mentions SPDY/3.1 (HTTP/1.1 only). */
export function isSpdyRequest(req: HttpRequest): boolean {
  if (req.httpVersionMajor !== 1) return false;
  return header(req, 'connection').toLowerCase().includes('upgrade') && header(req, 'upgrade').toLowerCase().includes('spdy/3.1');
}
