// Relaying an HTTP request to a backend and its answer back, as Go's ReverseProxy and kube's UpgradeAwareHandler do
// for the aggregator's and the pod and service proxies: the caller's headers minus hop-by-hop ones go on, the
// backend's answer streams back as it comes (watches too), and an HTTP/1.1 upgrade request (a WebSocket or SPDY
// stream) goes on with its Connection and Upgrade headers: when the backend switches protocols, its 101 answer is
// written to the caller's connection as it came and the two connections are joined, byte for byte, until either
// ends; any other answer is passed back as usual.

import type { ClientRequest, IncomingMessage, OutgoingHttpHeaders } from 'node:http';
import type { Duplex } from 'node:stream';
import { hijack } from './hijack.ts';
import { isUpgradeRequest } from './upgrade-requests.ts';
import type { HttpRequest, HttpResponse } from './types.ts';

/** Request headers that describe one hop, never forwarded (RFC 9110 7.6.1, and Go's ReverseProxy list). */
export const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'proxy-authenticate', 'proxy-authorization', 'te', 'trailer', 'transfer-encoding', 'upgrade', 'host', 'http2-settings']);

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
function copyResponseHeaders(from: IncomingMessage, res: HttpResponse): void {
  for (const [name, value] of Object.entries(from.headers)) {
    if (value === undefined || HOP_BY_HOP.has(name) || name === 'audit-id') continue;
    res.setHeader(name, value);
  }
}

/** Where a relayed request goes and what answers the caller when it cannot get there. */
export interface Relay {
  /** Opens the backend's request (https through the aggregator's agent, or plain http) with these headers. */
  open(headers: OutgoingHttpHeaders): ClientRequest;
  /** The headers the backend gets, before the upgrade's (hop-by-hop ones already left out). */
  readonly headers: OutgoingHttpHeaders;
  /** The backend could not be reached: the caller's answer. */
  failed(err: unknown): void;
}

/** Sends the request to the backend and streams its answer back; resolves once the answer is out (or given up). */
export function relayRequest(req: HttpRequest, res: HttpResponse, relay: Relay): Promise<void> {
  return new Promise((resolve) => {
    const headers = { ...relay.headers };
    const upgrade = isUpgradeRequest(req);
    if (upgrade) {
      headers.connection = req.headers.connection;
      if (req.headers.upgrade !== undefined) headers.upgrade = req.headers.upgrade;
    }
    const outgoing = relay.open(headers);
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
      if (!res.writableEnded) relay.failed(err);
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
