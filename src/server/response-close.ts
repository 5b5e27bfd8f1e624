// One 'close' listener per response, however many parts of the filter chain want to know when it closes: each
// `once` would wrap its callback and grow the emitter's listener array on every request.

import type { HttpResponse } from './types.ts';

const CALLBACKS = Symbol('capstan.closeCallbacks');

type WithCallbacks = HttpResponse & { [CALLBACKS]?: (() => void)[] };

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
  res.once('close', () => {
    for (let i = 0; i < callbacks.length; i++) callbacks[i]!();
  });
}
