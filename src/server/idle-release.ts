// Handing memory back once a burst of requests is over. V8 keeps the heap it grew under load (and the young
// generation it enlarged) until its own heuristics shrink it, which an idle server may not reach for minutes: after a
// busy period followed by a few quiet seconds, one memory-reducing full collection runs, which compacts the heap,
// shrinks the young generation and returns the freed pages to the system. Start-up can count as such a period.

export interface IdleRelease {
  /** Called for every request: marks the server busy. */
  touch(): void;
  /**
   * Start-up is over: one collection once no request has come for `quietMs` (start-up leaves garbage and a young
   * generation sized for its allocation burst behind).
   */
  afterStartup(quietMs: number): void;
  close(): void;
}

type Gc = (options?: { type: 'major'; execution: 'sync'; flavor: 'last-resort' }) => void;
let collect: Gc | undefined;

/** V8's gc(), obtained without starting Node with --expose-gc. */
function collector(): Gc {
  if (!collect) {
    // Loaded here, at the first collection, rather than with the server at start-up.
    const { setFlagsFromString } = process.getBuiltinModule('node:v8');
    const { runInNewContext } = process.getBuiltinModule('node:vm');
    setFlagsFromString('--expose-gc');
    collect = runInNewContext('gc') as Gc;
    setFlagsFromString('--no-expose-gc');
  }
  return collect;
}

export function createIdleRelease(options: { idleMs: number; onRelease?: (ms: number) => void }): IdleRelease {
  let lastActivity = 0;
  let busy = false;
  let startupTimer: NodeJS.Timeout | undefined;
  const release = (): void => {
    busy = false;
    const started = performance.now();
    // The "last resort" flavor is V8's memory-reducing collection (a plain gc() leaves the young generation's size).
    collector()({ type: 'major', execution: 'sync', flavor: 'last-resort' });
    options.onRelease?.(performance.now() - started);
  };
  const timer = setInterval(() => {
    if (!busy || performance.now() - lastActivity < options.idleMs) return;
    release();
  }, Math.max(50, Math.floor(options.idleMs / 2)));
  timer.unref();
  return {
    touch() {
      busy = true;
      lastActivity = performance.now();
    },
    afterStartup(quietMs) {
      lastActivity = performance.now();
      const check = (): void => {
        const quiet = performance.now() - lastActivity;
        if (quiet < quietMs) startupTimer = setTimeout(check, quietMs - quiet).unref();
        else release();
      };
      startupTimer = setTimeout(check, quietMs).unref();
    },
    close() {
      clearInterval(timer);
      clearTimeout(startupTimer);
    },
  };
}
