// The loop every in-process controller runs (client-go's informer + work queue, in miniature): a keyed queue that
// processes keys one at a time (each at most once per pass) and retries failures after a delay, and, for the
// controllers that follow one resource, a watch through its store that queues the names of the objects the
// filter picks and re-opens itself when it ends.

import type { KubeObject, RequestContext, ResourceStore, WatchEvent } from '../registry/types.ts';

export interface KeyedQueue {
  enqueue(key: string, delayMs?: number): void;
  /** Resolves when everything queued so far has been processed. */
  idle(): Promise<void>;
  stop(): Promise<void>;
  /** Runs fn after delayMs unless the queue stopped meanwhile. */
  later(fn: () => void, delayMs: number): void;
  readonly stopped: boolean;
}

/** The work a group of queues has queued or running (the simulation's), and when it last changed. */
export interface Activity {
  readonly busy: number;
  /** performance.now() of the last key queued or finished. */
  readonly lastChange: number;
  begin(): void;
  end(): void;
}

export function createActivity(): Activity {
  let busy = 0;
  let lastChange = 0;
  return {
    get busy() {
      return busy;
    },
    get lastChange() {
      return lastChange;
    },
    begin() {
      busy++;
      lastChange = performance.now();
    },
    end() {
      busy--;
      lastChange = performance.now();
    },
  };
}

/** `activity`: counts this queue's queued and running keys into a group's. */
/**
 * How long the controllers' queues may run before they let the event loop take its I/O: a sync can resolve without
 * ever leaving the microtask queue (the memory store acknowledges a write at once), so a burst of work (a Deployment
 * scaled to thousands of pods) would otherwise keep every request waiting until it is done.
 */
const SLICE_MS = 10;
let sliceStart = performance.now();

/** Resolves at once within the time slice, else after the event loop has run (the slice starts again then). */
export function yieldWhenSliceSpent(): Promise<void> | undefined {
  if (performance.now() - sliceStart < SLICE_MS) return undefined;
  return new Promise((resolve) =>
    setImmediate(() => {
      sliceStart = performance.now();
      resolve();
    }),
  );
}

export function createKeyedQueue(sync: (key: string) => Promise<void>, retryMs = 1000, activity?: Activity): KeyedQueue {
  let stopped = false;
  const timers = new Set<NodeJS.Timeout>();
  const queued = new Set<string>();
  let draining: Promise<void> = Promise.resolve();

  function later(fn: () => void, delayMs: number) {
    if (stopped) return;
    const t = setTimeout(() => {
      timers.delete(t);
      if (!stopped) fn();
    }, delayMs);
    timers.add(t);
  }

  function enqueue(key: string, delayMs = 0) {
    if (delayMs > 0) return later(() => enqueue(key), delayMs);
    if (stopped || queued.has(key)) return;
    queued.add(key);
    activity?.begin();
    draining = draining.then(async () => {
      await yieldWhenSliceSpent();
      queued.delete(key);
      try {
        if (!stopped) await sync(key);
      } catch {
        enqueue(key, retryMs);
      } finally {
        activity?.end();
      }
    });
  }

  return {
    enqueue,
    later,
    idle: () => draining,
    get stopped() {
      return stopped;
    },
    async stop() {
      stopped = true;
      for (const t of timers) clearTimeout(t);
      timers.clear();
      await draining.catch(() => undefined);
    },
  };
}

/** Follows one store's watch (re-opened after it ends or fails); returns the function that stops it. */
export function followWatch(
  store: () => ResourceStore | undefined,
  context: RequestContext,
  onEvent: (event: WatchEvent) => void,
  queue: Pick<KeyedQueue, 'later' | 'stopped'>,
  retryMs: number,
): () => void {
  let stopWatch: (() => void) | undefined;
  let stopped = false;
  // A watch that cannot open yet (a cache still filling at start-up) is tried again soon, then at retryMs.
  let failures = 0;
  const retry = () => queue.later(() => void start(), failures++ < 10 ? 20 : retryMs);
  async function start() {
    const s = store();
    if (!s || stopped || queue.stopped) return retry();
    try {
      const w = await s.watch(context, {});
      if (stopped || queue.stopped) return w.stop();
      failures = 0;
      stopWatch = () => w.stop();
      w.start(
        (ev) => {
          if (ev.type !== 'BOOKMARK' && ev.type !== 'ERROR') onEvent(ev);
        },
        retry,
      );
    } catch {
      retry();
    }
  }
  void start();
  return () => {
    stopped = true;
    stopWatch?.();
  };
}

export interface WorkQueueOptions {
  /** The store to watch (looked up on each (re)start: it may not exist yet). */
  store(): ResourceStore | undefined;
  /** The context watches are opened with. */
  context: RequestContext;
  /** Which events queue their object's name (default: every ADDED, MODIFIED and DELETED). */
  filter?(event: WatchEvent): boolean;
  /** Processes one name; a thrown error retries it after retryMs. */
  sync(name: string): Promise<void>;
  /** Delay before a retry or a watch restart (default 1000 ms). */
  retryMs?: number;
}

export type WorkQueue = Pick<KeyedQueue, 'enqueue' | 'idle' | 'stop'>;

/** A keyed queue of names fed by one store's watch. */
export function startWorkQueue(options: WorkQueueOptions): WorkQueue {
  const retryMs = options.retryMs ?? 1000;
  const queue = createKeyedQueue(options.sync, retryMs);
  const stopWatch = followWatch(
    options.store,
    options.context,
    (ev) => {
      const name = (ev.object as KubeObject).metadata?.name;
      if (name && (options.filter?.(ev) ?? true)) queue.enqueue(name);
    },
    queue,
    retryMs,
  );
  return {
    enqueue: queue.enqueue,
    idle: queue.idle,
    async stop() {
      stopWatch();
      await queue.stop();
    },
  };
}

/**
 * A pass that runs one at a time: a call while it runs asks for one more pass after it (however many calls came),
 * and resolves when that one is done. Failures are the pass's own to report. `stopped` ends the repeats.
 */
export function coalescedPass(run: () => Promise<void>, stopped: () => boolean): { (): Promise<void>; running(): Promise<void> | undefined } {
  let running: Promise<void> | undefined;
  let again = false;
  const pass = (): Promise<void> => {
    if (running) {
      again = true;
      return running;
    }
    running = (async () => {
      do {
        again = false;
        await run().catch(() => undefined);
      } while (again && !stopped());
    })().finally(() => (running = undefined));
    return running;
  };
  return Object.assign(pass, { running: () => running });
}
