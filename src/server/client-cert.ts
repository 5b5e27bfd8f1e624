// The client certificate of a request's TLS connection, read once per connection.

import type { TLSSocket } from 'node:tls';
import type { ClientCertificate } from '../auth/authn/types.ts';
import type { HttpRequest } from './types.ts';

const cache = new WeakMap<object, ClientCertificate | null>();

/** The TLS connection a request came on (HTTP/2: its session's socket). */
export function tlsSocketOf(req: HttpRequest): TLSSocket | undefined {
  // HTTP/2: the stream's session owns the socket; HTTP/1.1: the request's socket is it.
  const h2 = (req as { stream?: { session?: { socket?: unknown } } }).stream?.session?.socket;
  const sock = (h2 ?? req.socket) as Partial<TLSSocket> | undefined;
  return sock && typeof sock.getPeerCertificate === 'function' ? (sock as TLSSocket) : undefined;
}

function asList(v: string | string[] | undefined): string[] {
  if (v === undefined) return [];
  return Array.isArray(v) ? v : [v];
}

export function clientCertificateOf(req: HttpRequest): ClientCertificate | undefined {
  const sock = tlsSocketOf(req);
  if (!sock) return undefined;
  const hit = cache.get(sock);
  if (hit !== undefined) return hit ?? undefined;
  let result: ClientCertificate | null = null;
  const peer = sock.getPeerCertificate();
  if (peer && Object.keys(peer).length > 0 && peer.raw) {
    const subject = (peer.subject ?? {}) as unknown as Record<string, string | string[] | undefined>;
    const authError = sock.authorizationError as unknown;
    result = {
      verified: sock.authorized === true,
      verifyError: authError ? String(authError instanceof Error ? authError.message : authError) : undefined,
      commonName: asList(subject.CN)[0] ?? '',
      organizations: asList(subject.O),
      raw: peer.raw,
    };
  }
  cache.set(sock, result);
  return result ?? undefined;
}
