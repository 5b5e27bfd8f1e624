// HTTP/1.1 answers leave together at the end of the event loop's I/O phase instead of one by one as each is ready.
// Each write to a loopback peer that sleeps waiting for it pays that peer's wake-up on the writing thread (about
// 10 µs of kernel time on a virtual machine, a third of a cached get's whole cost); answers written back to back
// find the peer awake. Corking the socket would not do: ServerResponse.end() uncorks it fully. HTTP/2 needs none of
// this: Node's session already sends its frames at the end of the turn.
import type { HttpResponse } from './types.ts';

interface Endable {
  readonly writableEnded: boolean;
  readonly headersSent: boolean;
  end(body?: Uint8Array | string): unknown;
}

let ending = new Map<Endable, Uint8Array | string>();

function endHeld(): void {
  const batch = ending;
  ending = new Map();
  for (const [res, body] of batch) {
    try {
      res.end(body);
    } catch {
      // The connection went away meanwhile; the other answers still leave.
    }
  }
}

/** Ends the response with this body: over HTTP/1.1 at the end of the current turn's I/O callbacks (setImmediate). */
export function endWithBody(res: HttpResponse | Endable, body: Uint8Array | string): void {
  if ((res as { stream?: unknown }).stream !== undefined) {
    res.end(body);
    return;
  }
  if (ending.size === 0) setImmediate(endHeld);
  ending.set(res as Endable, body);
}

/** Whether the response is ended or about to be (its end held for the turn's batch). */
export function responseEnded(res: HttpResponse | Endable): boolean {
  return res.writableEnded || ending.has(res as Endable);
}

/**
 * A response whose head is already written takes no second answer: it is ended (unless its end is already held)
 * and true is returned.
 */
export function endIfStarted(res: HttpResponse | Endable): boolean {
  if (!res.headersSent) return false;
  if (!responseEnded(res)) (res as Endable).end();
  return true;
}
