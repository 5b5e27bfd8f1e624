// HTTP/1.1 answers leave together at the end of the event loop's I/O phase instead of one by one as each is ready.
// Each write to a loopback peer that sleeps waiting for it pays that peer's wake-up on the writing thread (about
// 10 µs of kernel time on a virtual machine, a third of a cached get's whole cost); answers written back to back
// find the peer awake. Corking the socket would not do: ServerResponse.end() uncorks it fully. HTTP/2 needs none of
// this: Node's session already sends its frames at the end of the turn. Answers still to encode (writeWithBatch) are
// encoded in the batch too: done together, after the turn's requests are read, the encoder's code and data stay warm
// (a create costs 2-4% less CPU than with its answer encoded in its own request's path, memory backend).
import { isHijacked } from './hijack.ts';
import type { HttpResponse } from './types.ts';

interface Endable {
  readonly writableEnded: boolean;
  readonly headersSent: boolean;
  end(body?: Uint8Array | string): unknown;
}

/** A held end: the body, or the whole writing of an answer (encoding included), run with the batch. */
type Held = Uint8Array | string | (() => void);

let ending = new Map<Endable, Held>();
/** True while the batch runs: what it writes ends at once. */
let flushing = false;

function endHeld(): void {
  const batch = ending;
  ending = new Map();
  flushing = true;
  try {
    for (const [res, held] of batch) {
      try {
        if (typeof held === 'function') held();
        else res.end(held);
      } catch {
        // The connection went away meanwhile; the other answers still leave.
      }
    }
  } finally {
    flushing = false;
  }
}

function hold(res: Endable, held: Held): void {
  if (ending.size === 0) setImmediate(endHeld);
  ending.set(res, held);
}

/** Whether the response is an HTTP/2 stream's (Http2ServerResponse has one; HTTP/1.1's ServerResponse not). */
export function isHttp2Response(res: object): boolean {
  return (res as { stream?: unknown }).stream !== undefined;
}

/**
 * Writes an answer (write does it whole: head, body, end) with the turn's batch over HTTP/1.1, at once over HTTP/2.
 * Encoding answers together, after the turn's requests are read, keeps the encoder's code and data warm.
 */
export function writeWithBatch(res: HttpResponse | Endable, write: () => void): void {
  if (flushing || isHttp2Response(res)) write();
  else hold(res as Endable, write);
}

/** Ends the response with this body: over HTTP/1.1 at the end of the current turn's I/O callbacks (setImmediate). */
export function endWithBody(res: HttpResponse | Endable, body: Uint8Array | string): void {
  if (flushing || isHttp2Response(res)) {
    res.end(body);
    return;
  }
  hold(res as Endable, body);
}

/** Whether the response is ended or about to be (its end held for the turn's batch), or its connection hijacked. */
export function responseEnded(res: HttpResponse | Endable): boolean {
  return res.writableEnded || ending.has(res as Endable) || isHijacked(res);
}

/**
 * A response whose head is already written, or whose answer is held, takes no second answer: it is ended (unless
 * held) and true is returned.
 */
export function endIfStarted(res: HttpResponse | Endable): boolean {
  // A held answer leaves with the batch; a hijacked connection carries no more answers.
  if (ending.has(res as Endable) || isHijacked(res)) return true;
  if (!res.headersSent) return false;
  if (!res.writableEnded) (res as Endable).end();
  return true;
}
