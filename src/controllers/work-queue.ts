// The loop every in-process controller runs (client-go's informer + work queue, in miniature): watch one
// resource through its store, queue the names of the objects the filter picks, process names one at a time
// (each at most once per pass), retry failures after a delay, and re-open the watch when it ends.

import type { KubeObject, RequestContext, ResourceStore, WatchEvent } from '../registry/types.ts';

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

export interface WorkQueue {
  enqueue(name: string, delayMs?: number): void;
  /** Resolves when everything queued so far has been processed. */
  idle(): Promise<void>;
  stop(): Promise<void>;
}

export function startWorkQueue(options: WorkQueueOptions): WorkQueue {
  const retryMs = options.retryMs ?? 1000;
  let stopped = false;
  let stopWatch: (() => void) | undefined;
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

  function enqueue(name: string, delayMs = 0) {
    if (delayMs > 0) return later(() => enqueue(name), delayMs);
    if (stopped || queued.has(name)) return;
    queued.add(name);
    draining = draining.then(async () => {
      queued.delete(name);
      if (stopped) return;
      try {
        await options.sync(name);
      } catch {
        enqueue(name, retryMs);
      }
    });
  }

  async function startWatch() {
    const store = options.store();
    if (!store || stopped) return later(() => void startWatch(), retryMs);
    try {
      const w = await store.watch(options.context, {});
      if (stopped) return w.stop();
      stopWatch = () => w.stop();
      w.start(
        (ev) => {
          if (ev.type === 'BOOKMARK' || ev.type === 'ERROR') return;
          const name = (ev.object as KubeObject).metadata?.name;
          if (name && (options.filter?.(ev) ?? true)) enqueue(name);
        },
        () => later(() => void startWatch(), retryMs),
      );
    } catch {
      later(() => void startWatch(), retryMs);
    }
  }

  void startWatch();

  return {
    enqueue,
    idle: () => draining,
    async stop() {
      stopped = true;
      stopWatch?.();
      for (const t of timers) clearTimeout(t);
      timers.clear();
      await draining.catch(() => undefined);
    },
  };
}
