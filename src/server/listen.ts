// Listeners: HTTPS serving HTTP/2 and HTTP/1.1 on one port (TLS client certificates requested, verified by
// the caller's authenticator), and the optional plain-HTTP debug listener. Both close gracefully: stop
// accepting, let in-flight requests finish for a grace period, then drop what is left (watches included).
// Connections are held to the limits kube-apiserver's Go server sets (secure_serving.go), so idle or slow
// peers are closed before they authenticate.

import type { IncomingMessage, Server as HttpServer } from 'node:http';
import type { Duplex } from 'node:stream';
import { createSecureServer } from 'node:http2';
import { Http1Response } from './http1-response.ts';
import type { Http2SecureServer, Http2Session } from 'node:http2';
import type { Socket } from 'node:net';
import type { RequestHandler } from './handler.ts';

/** http.Server.MaxHeaderBytes as kube sets it (1 MiB); Go reads 4096 bytes of slack past it. */
export const MAX_HEADER_BYTES = 1 << 20;
const HEADER_READ_SLACK_BYTES = 4096;
/** ReadHeaderTimeout (just shy of kube's requestTimeoutUpperBound); Go's TLS handshake timeout follows it. */
export const READ_HEADER_TIMEOUT_MS = 32_000;
/** IdleTimeout: keep-alive HTTP/1.1 connections and HTTP/2 connections without open streams. */
export const IDLE_TIMEOUT_MS = 90_000;
/** Go's http2 prefaceTimeout: the client preface (with its first SETTINGS) must arrive within it. */
export const HTTP2_PREFACE_TIMEOUT_MS = 10_000;
/** kube's resourceBody99Percentile: HTTP/2 frame size and per-stream receive window. */
const HTTP2_FRAME_BYTES = 256 * 1024;
/** Go's http2 maxHeaderListSize: MaxHeaderBytes plus 10 typical headers' 32-byte overhead. */
const HTTP2_MAX_HEADER_LIST_BYTES = MAX_HEADER_BYTES + 10 * 32;
/**
 * Node refuses a session's new streams (ENHANCE_YOUR_CALM) once its buffers pass this many MB, answers waiting for
 * the client's flow control included: at Node's default (10) one unread 12 MB list refused every other request on its
 * connection, where client-go sends all of them. Go's server refuses none for memory; the answers are held in memory
 * either way, so the bound is set out of reach.
 */
const HTTP2_SESSION_MEMORY_MB = 1 << 20;
/** kube's --http2-max-streams-per-connection default (0 on the command line means this). */
export const DEFAULT_HTTP2_MAX_STREAMS = 100;
/** How often Node checks HTTP/1.1 connections for the header timeout. */
const CONNECTION_CHECK_INTERVAL_MS = 1000;

export interface ServingLimits {
  /** --http2-max-streams-per-connection (0: the default, 100). */
  readonly http2MaxStreamsPerConnection?: number;
  /** Overrides for tests of the timeouts themselves; production uses kube's values. */
  readonly readHeaderTimeoutMs?: number;
  readonly idleTimeoutMs?: number;
  readonly http2PrefaceTimeoutMs?: number;
}

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

type Http1Limits = { maxHeaderSize: number; maxHeadersCount: number; headersTimeout: number; keepAliveTimeout: number; connectionsCheckingInterval: number };
const firstRequestTimer = Symbol('firstRequestTimer');
type TimedSocket = Socket & { [firstRequestTimer]?: NodeJS.Timeout; alpnProtocol?: string | false };

/** HTTP/1.1 limits of Go's server: header size and read timeout, keep-alive idle timeout, no header count cap. */
function limitHttp1(server: HttpServer | Http2SecureServer, limits: ServingLimits, secure: boolean): void {
  const s = server as unknown as Http1Limits;
  s.maxHeaderSize = MAX_HEADER_BYTES + HEADER_READ_SLACK_BYTES;
  s.maxHeadersCount = 0;
  s.headersTimeout = limits.readHeaderTimeoutMs ?? READ_HEADER_TIMEOUT_MS;
  s.keepAliveTimeout = limits.idleTimeoutMs ?? IDLE_TIMEOUT_MS;
  s.connectionsCheckingInterval = Math.min(CONNECTION_CHECK_INTERVAL_MS, s.headersTimeout);
  // Node's header timer starts with the first byte; a connection that never sends one is closed as Go closes it.
  server.on(secure ? 'secureConnection' : 'connection', (socket: TimedSocket) => {
    if (socket.alpnProtocol === 'h2') return;
    const timer = setTimeout(() => socket.destroy(), s.headersTimeout);
    timer.unref();
    socket[firstRequestTimer] = timer;
    socket.once('close', () => clearTimeout(timer));
  });
  server.on('request', (req: { socket: TimedSocket; httpVersionMajor: number }) => {
    if (req.httpVersionMajor !== 1) return;
    const timer = req.socket[firstRequestTimer];
    if (timer) {
      clearTimeout(timer);
      req.socket[firstRequestTimer] = undefined;
    }
  });
}

/**
 * Go's http2 server: the preface and first SETTINGS must come within the preface timeout, and a connection
 * without open streams is closed (GOAWAY) after the idle timeout.
 */
function limitHttp2Sessions(server: Http2SecureServer, limits: ServingLimits): void {
  const prefaceMs = limits.http2PrefaceTimeoutMs ?? HTTP2_PREFACE_TIMEOUT_MS;
  const idleMs = limits.idleTimeoutMs ?? IDLE_TIMEOUT_MS;
  server.on('session', (session: Http2Session) => {
    const preface = setTimeout(() => session.destroy(), prefaceMs);
    preface.unref();
    session.once('remoteSettings', () => clearTimeout(preface));
    let open = 0;
    let idle: NodeJS.Timeout | undefined;
    const armIdle = (): void => {
      idle = setTimeout(() => {
        if (!session.closed && !session.destroyed) session.close();
        // A peer that ignores GOAWAY is dropped after a second idle period.
        setTimeout(() => session.destroy(), idleMs).unref();
      }, idleMs);
      idle.unref();
    };
    armIdle();
    session.on('stream', (stream) => {
      open++;
      clearTimeout(idle);
      stream.once('close', () => {
        if (--open === 0 && !session.destroyed) armIdle();
      });
    });
    session.once('close', () => {
      clearTimeout(preface);
      clearTimeout(idle);
    });
  });
}

export async function listenSecure(port: number, host: string, tls: TlsMaterial, handler: RequestHandler, limits: ServingLimits = {}): Promise<Listener> {
  const maxStreams = limits.http2MaxStreamsPerConnection || DEFAULT_HTTP2_MAX_STREAMS;
  const server = createSecureServer(
    {
      allowHTTP1: true,
      Http1ServerResponse: Http1Response,
      // TCP_NODELAY, as Go's servers and Node's own http.Server have it: without it the first write after a flushed
      // head (a watch's first event) waits for the client's delayed ACK, 40 ms on Linux. HTTP/2 sets it itself.
      noDelay: true,
      cert: tls.certPem,
      key: tls.keyPem,
      ca: [...tls.clientCaPems],
      requestCert: true,
      // Unverified client certificates reach the authenticator, which answers 401 (as kube does).
      rejectUnauthorized: false,
      minVersion: 'TLSv1.2',
      // Go bounds the TLS handshake by ReadHeaderTimeout.
      handshakeTimeout: limits.readHeaderTimeoutMs ?? READ_HEADER_TIMEOUT_MS,
      maxHeaderListPairs: Math.ceil(HTTP2_MAX_HEADER_LIST_BYTES / 32),
      maxSessionMemory: HTTP2_SESSION_MEMORY_MB,
      settings: {
        maxConcurrentStreams: maxStreams,
        maxFrameSize: HTTP2_FRAME_BYTES,
        initialWindowSize: HTTP2_FRAME_BYTES,
        maxHeaderListSize: HTTP2_MAX_HEADER_LIST_BYTES,
      },
    },
    handler,
  );
  limitHttp1(server, limits, true);
  limitHttp2Sessions(server, limits);
  server.on('clientError', answerClientError);
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

/** Node's answers to an HTTP/1.1 request it cannot parse (its default clientError handling), by parser error. */
const CLIENT_ERROR_STATUS: Readonly<Record<string, string>> = {
  HPE_HEADER_OVERFLOW: '431 Request Header Fields Too Large',
  HPE_CHUNK_EXTENSIONS_OVERFLOW: '413 Payload Too Large',
  ERR_HTTP_REQUEST_TIMEOUT: '408 Request Timeout',
};
/** How long the rest of a refused request is read and dropped before the connection closes (Go's rstAvoidanceDelay). */
const RST_AVOIDANCE_MS = 500;
const answered = new WeakSet<Duplex>();

/**
 * An HTTP/1.1 request the parser refused (headers past 1 MiB: 431; malformed: 400) is answered, then the connection
 * is half-closed and what the client still sends is read and dropped for a moment before it closes, as Go's server
 * does. Node's default handling closes at once: with the client's unread bytes in the receive buffer the kernel
 * resets the connection, and the client, still writing its oversized headers, may never read the answer.
 */
function answerClientError(err: NodeJS.ErrnoException, socket: Duplex): void {
  if (answered.has(socket)) return;
  answered.add(socket);
  const started = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage?.headersSent === true;
  if (!socket.writable || started || err.code === 'ECONNRESET') return void socket.destroy();
  // The parser is done with this connection: what arrives now is only drained.
  socket.removeAllListeners('data');
  socket.on('data', () => {});
  socket.end(`HTTP/1.1 ${CLIENT_ERROR_STATUS[err.code ?? ''] ?? '400 Bad Request'}\r\nConnection: close\r\n\r\n`);
  setTimeout(() => socket.destroy(), RST_AVOIDANCE_MS).unref();
}

/** Plain HTTP/1.1 for local debugging only: requests and credentials travel unencrypted. */
export async function listenPlain(port: number, host: string, handler: RequestHandler, limits: ServingLimits = {}): Promise<Listener> {
  // Loaded only here: importing node:http as an ES module also loads its bundled fetch/WebSocket client.
  const { createServer } = await import('node:http');
  const server = createServer({ ServerResponse: Http1Response }, handler);
  limitHttp1(server, limits, false);
  server.on('clientError', answerClientError);
  serveUpgrades(server, handler);
  const conns = trackConnections(server);
  const bound = await listenOn(server, port, host);
  return { ...bound, close: closer(server, handler, conns) };
}
