// One 'close' listener per response, however many parts of the filter chain want to know when it closes: each
// `once` would wrap its callback and grow the emitter's listener array on every request.
//
// An HTTP/2 stream the client resets while answers wait in its write buffer (a watcher that goes away during a
// burst of events) is aborted but, in Node 24, never closed: not even when the peer's connection is gone. Its
// response would then never emit 'close', and what waits for it (a watch in the watch cache, buffering every event)
// would live on. An aborted stream has nothing more to send, so it is destroyed, which closes it.

import type { HttpResponse } from './types.ts';

const CALLBACKS = Symbol('capstan.closeCallbacks');

type WithCallbacks = HttpResponse & { [CALLBACKS]?: (() => void)[] };

interface AbortableStream {
  once(event: 'aborted', fn: () => void): unknown;
  destroy(): void;
  readonly destroyed: boolean;
}

/** Calls fn when the response (or its stream) closes, in the order callbacks were added. */
export function whenClosed(res: HttpResponse, fn: () => void): void {
  const r = res as WithCallbacks;
  const list = r[CALLBACKS];
  if (list) {
    list.push(fn);
    return;
  }
  const callbacks = [fn];
  r[CALLBACKS] = callbacks;
  // 'close' comes once; `on` spares the wrapper `once` makes.
  res.on('close', () => {
    for (let i = 0; i < callbacks.length; i++) callbacks[i]!();
  });
  const stream = (res as { stream?: AbortableStream }).stream;
  stream?.once('aborted', () => {
    if (!stream.destroyed) stream.destroy();
  });
}
