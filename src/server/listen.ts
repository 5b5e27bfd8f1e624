// Listeners: HTTPS serving HTTP/2 and HTTP/1.1 on one port (TLS client certificates requested, verified by
// the caller's authenticator), and the optional plain-HTTP debug listener. Both close gracefully: stop
// accepting, let in-flight requests finish for a grace period, then drop what is left (watches included).

import type { IncomingMessage, Server as HttpServer } from 'node:http';
import type { Duplex } from 'node:stream';
import { createSecureServer } from 'node:http2';
import type { Http2SecureServer, Http2Session } from 'node:http2';
import type { Socket } from 'node:net';
import type { RequestHandler } from './handler.ts';

export interface TlsMaterial {
  readonly certPem: string;
  readonly keyPem: string;
  /** CA certificates accepted for client certificates. */
  readonly clientCaPems: readonly string[];
}

export interface Listener {
  readonly port: number;
  readonly address: string;
  /** Stops accepting, waits up to graceMs for in-flight (non-long-running) requests, then closes every connection. */
  close(graceMs: number): Promise<void>;
}

function trackConnections(server: HttpServer | Http2SecureServer): { sockets: Set<Socket>; sessions: Set<Http2Session> } {
  const sockets = new Set<Socket>();
  const sessions = new Set<Http2Session>();
  const onSocket = (s: Socket): void => {
    sockets.add(s);
    s.once('close', () => sockets.delete(s));
  };
  server.on('connection', onSocket);
  server.on('session', (session: Http2Session) => {
    sessions.add(session);
    session.once('close', () => sessions.delete(session));
  });
  return { sockets, sessions };
}

/**
 * HTTP/1.1 Upgrade requests (WebSocket watches) go through the same handler and filters as any request, with a
 * response bound to the raw socket (Node hands such sockets over detached from its HTTP parser). An endpoint that
 * accepts the upgrade takes the socket over; any other answer is a normal response, after which the socket closes.
 */
function serveUpgrades(server: HttpServer | Http2SecureServer, handler: RequestHandler): void {
  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on('error', () => socket.destroy());
    if (head.length > 0) socket.unshift(head);
    void import('node:http').then(({ ServerResponse }) => {
      const res = new ServerResponse(req);
      res.shouldKeepAlive = false;
      res.assignSocket(socket as import('node:net').Socket);
      res.on('finish', () => socket.end());
      handler(req, res);
    });
  });
}

function listenOn(server: HttpServer | Http2SecureServer, port: number, host: string): Promise<{ port: number; address: string }> {
  return new Promise((resolve, reject) => {
    const onError = (err: Error): void => reject(err);
    server.once('error', onError);
    server.listen({ port, host }, () => {
      server.off('error', onError);
      const addr = server.address();
      if (addr && typeof addr === 'object') resolve({ port: addr.port, address: addr.address });
      else reject(new Error('listener has no address'));
    });
  });
}

function closer(server: HttpServer | Http2SecureServer, handler: RequestHandler, conns: ReturnType<typeof trackConnections>): (graceMs: number) => Promise<void> {
  let closing: Promise<void> | undefined;
  return (graceMs) =>
    (closing ??= (async () => {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      // HTTP/2: GOAWAY lets open streams finish while refusing new ones.
      for (const s of conns.sessions) if (!s.closed && !s.destroyed) s.close();
      if ('closeIdleConnections' in server) server.closeIdleConnections();
      const deadline = Date.now() + graceMs;
      while (handler.inFlight() > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
      for (const s of conns.sessions) s.destroy();
      for (const s of conns.sockets) s.destroy();
      await closed;
    })());
}

export async function listenSecure(port: number, host: string, tls: TlsMaterial, handler: RequestHandler): Promise<Listener> {
  const server = createSecureServer(
    {
      allowHTTP1: true,
      cert: tls.certPem,
      key: tls.keyPem,
      ca: [...tls.clientCaPems],
      requestCert: true,
      // Unverified client certificates reach the authenticator, which answers 401 (as kube does).
      rejectUnauthorized: false,
      minVersion: 'TLSv1.2',
    },
    handler,
  );
  // Client misbehaviour (failed handshakes, reset streams, broken sessions) is the client's problem: a stream
  // or session error without a listener would otherwise take the process down.
  server.on('tlsClientError', () => {});
  server.on('sessionError', () => {});
  server.on('streamError', () => {});
  serveUpgrades(server, handler);
  const conns = trackConnections(server);
  const bound = await listenOn(server, port, host);
  return { ...bound, close: closer(server, handler, conns) };
}

/** Plain HTTP/1.1 for local debugging only: requests and credentials travel unencrypted. */
export async function listenPlain(port: number, host: string, handler: RequestHandler): Promise<Listener> {
  // Loaded only here: importing node:http as an ES module also loads its bundled fetch/WebSocket client.
  const { createServer } = await import('node:http');
  const server = createServer(handler);
  server.on('clientError', (_err, socket) => socket.destroy());
  serveUpgrades(server, handler);
  const conns = trackConnections(server);
  const bound = await listenOn(server, port, host);
  return { ...bound, close: closer(server, handler, conns) };
}
