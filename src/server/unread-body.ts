// What Go's server does with a request whose body the handler did not read to the end: a small one (HTTP/1.1, a
// declared length up to 256 KiB) is read and dropped and the connection kept; it does not drain a larger or
// unbounded body, it closes the connection (HTTP/1.1) or resets the stream (HTTP/2) once the response is out.

import { constants as http2 } from 'node:http2';
import type { Http2ServerRequest, Http2ServerResponse } from 'node:http2';
import type { Socket } from 'node:net';
import type { HttpRequest, HttpResponse } from './types.ts';

const UNREAD_BODY_RESET_DELAY_MS = 1000;
/** Go's maxPostHandlerReadBytes. */
const MAX_POST_HANDLER_READ_BYTES = 256 * 1024;
/** How long the rest of a small unread body may take to arrive before the connection is given up. */
const DRAIN_LIMIT_MS = 10_000;

function isHttp2(req: HttpRequest): req is Http2ServerRequest {
  return req.httpVersionMajor === 2;
}

/** Whether the whole request body has arrived (read or buffered); a body-less request counts as read. */
export function isRequestBodyRead(req: HttpRequest): boolean {
  if (isHttp2(req)) {
    const stream = req.stream as unknown as { readableEnded: boolean; destroyed: boolean; _readableState?: { ended?: boolean } };
    return stream.destroyed || stream.readableEnded || stream._readableState?.ended === true;
  }
  return req.complete;
}

/**
 * The rest of an HTTP/1.1 body declared at most 256 KiB is read and dropped (Node's server then keeps the connection
 * for the next request), as Go's server discards it after the handler; false for a longer or chunked body.
 */
function drainSmallBody(req: HttpRequest): boolean {
  const length = Number(req.headers['content-length'] ?? Number.NaN);
  if (!(length <= MAX_POST_HANDLER_READ_BYTES)) return false;
  const socket = req.socket;
  const timer = setTimeout(() => socket.destroy(), DRAIN_LIMIT_MS).unref();
  const done = () => clearTimeout(timer);
  req.once('end', done);
  req.once('close', done);
  req.resume();
  return true;
}

/**
 * Stops taking the request's body. After a complete response: HTTP/2 resets the stream with NO_ERROR (RFC 9113
 * 8.1), HTTP/1.1 drops a small body's rest (with `drainSmall`) or closes the connection once the response is
 * flushed. `broken` (a response cut short) resets the stream with INTERNAL_ERROR or drops the connection at once.
 */
export function abandonRequest(req: HttpRequest, broken: boolean, drainSmall = false): void {
  if (isHttp2(req)) {
    const stream = req.stream;
    const reset = () => {
      if (!stream.closed && !stream.destroyed) stream.close(broken ? http2.NGHTTP2_INTERNAL_ERROR : http2.NGHTTP2_NO_ERROR);
      // What already arrived is dropped so the stream can finish closing (nothing more comes after the reset).
      stream.resume();
    };
    // A reset submitted while the response's frames still wait to be sent discards them, and Go clients then
    // report a stream error instead of the answer: after a complete response the peer gets a moment to read it
    // (Go's client resets the stream itself once it has the answer); the stream's flow-control window bounds
    // what it can send meanwhile.
    if (broken) reset();
    else setTimeout(reset, UNREAD_BODY_RESET_DELAY_MS).unref();
    return;
  }
  if (!broken && drainSmall && drainSmallBody(req)) return;
  const socket = req.socket as Socket & { destroySoon?: () => void };
  if (broken) socket.destroy();
  else if (socket.destroySoon) socket.destroySoon();
  else socket.end();
}

/**
 * Calls `done` once the response is fully written. HTTP/2 compatibility responses only emit 'finish' when the whole
 * stream closes, which a peer still sending a body never lets happen: there the stream's own 'finish' counts.
 */
export function onResponseWritten(req: HttpRequest, res: HttpResponse, done: () => void): void {
  if (isHttp2(req)) (res as Http2ServerResponse).stream.once('finish', done);
  else res.once('finish', done);
}
