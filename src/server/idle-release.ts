// Handing memory back once a burst of requests is over. V8 keeps the heap it grew under load until its own
// heuristics shrink it, which an idle server may not reach for minutes: after a busy period followed by a few
// quiet seconds, one full collection runs, which also returns the freed heap pages to the system.

import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

export interface IdleRelease {
  /** Called for every request: marks the server busy. */
  touch(): void;
  close(): void;
}

let collect: (() => void) | undefined;

/** V8's gc(), obtained without starting Node with --expose-gc. */
function collector(): () => void {
  if (!collect) {
    setFlagsFromString('--expose-gc');
    collect = runInNewContext('gc') as () => void;
    setFlagsFromString('--no-expose-gc');
  }
  return collect;
}

export function createIdleRelease(options: { idleMs: number; onRelease?: (ms: number) => void }): IdleRelease {
  let lastActivity = 0;
  let busy = false;
  const timer = setInterval(() => {
    if (!busy || performance.now() - lastActivity < options.idleMs) return;
    busy = false;
    const started = performance.now();
    collector()();
    options.onRelease?.(performance.now() - started);
  }, Math.max(50, Math.floor(options.idleMs / 2)));
  timer.unref();
  return {
    touch() {
      busy = true;
      lastActivity = performance.now();
    },
    close() {
      clearInterval(timer);
    },
  };
}
