// What Go's server does with a request whose body the handler did not read to the end: it does not drain an
// unbounded body, it closes the connection (HTTP/1.1) or resets the stream (HTTP/2) once the response is out.

import { constants as http2 } from 'node:http2';
import type { Http2ServerRequest, Http2ServerResponse } from 'node:http2';
import type { Socket } from 'node:net';
import type { HttpRequest, HttpResponse } from './types.ts';

const UNREAD_BODY_RESET_DELAY_MS = 1000;

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
 * Stops taking the request's body. After a complete response: HTTP/2 resets the stream with NO_ERROR (RFC 9113
 * 8.1), HTTP/1.1 closes the connection once the response is flushed. `broken` (a response cut short) resets
 * the stream with INTERNAL_ERROR or drops the connection at once.
 */
export function abandonRequest(req: HttpRequest, broken: boolean): void {
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
