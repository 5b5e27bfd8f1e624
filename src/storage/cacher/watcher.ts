// One cache watcher: what it still has to send (the initial snapshot, replayed or queued events) and the pace
// its consumer allows. Delivery is synchronous while the consumer keeps up; once it pauses (onEvent returned
// false), events queue by reference up to a limit, past which the watcher is ended as too slow.

import type { CachedObject, CacheFilter, CacheWatchEvent, CacheWatchRequest } from './types.ts';

/** Initial events delivered per turn, so a large snapshot does not hold the event loop. */
const INITIAL_CHUNK = 1000;

export interface WatcherHooks {
  /** The watcher ended on its own (overflow); the cacher forgets it. */
  ended(w: CacheWatcher<unknown>): void;
}

export interface CacheWatcher<A> {
  readonly request: CacheWatchRequest<A>;
  readonly prefix: string;
  readonly filter: CacheFilter<A> | undefined;
  /** The newest revision delivered or queued (bookmarks must be newer). */
  lastRevision: number;
  /** When the next periodic bookmark is due (ms); undefined: none. */
  nextBookmark: number | undefined;
  /** Offer one live event (in revision order). */
  offer(event: CacheWatchEvent<A>): void;
  resume(): void;
  /** Ends the watcher; calls onEnd unless stopped by its consumer. */
  end(reason: 'overflow' | 'reset' | 'expired' | 'closed' | 'stopped', compacted?: number): void;
  readonly ended: boolean;
}

export function createCacheWatcher<A>(
  request: CacheWatchRequest<A>,
  snapshot: CachedObject<A>[] | undefined,
  snapshotRevision: number,
  replay: CacheWatchEvent<A>[],
  maxQueued: number,
  hooks: WatcherHooks,
): CacheWatcher<A> {
  let initial = snapshot;
  let initialIndex = 0;
  let sendInitialEnd = snapshot !== undefined && request.initialEventsEnd === true;
  let queue: CacheWatchEvent<A>[] = replay;
  let queueHead = 0;
  let paused = false;
  let ended = false;
  let pumpScheduled = false;

  function deliver(ev: CacheWatchEvent<A>): void {
    if (request.onEvent(ev) === false) paused = true;
  }

  function pending(): boolean {
    return initial !== undefined || sendInitialEnd || queueHead < queue.length;
  }

  function schedulePump(): void {
    if (pumpScheduled || ended) return;
    pumpScheduled = true;
    setImmediate(() => {
      pumpScheduled = false;
      pump();
    });
  }

  function pump(): void {
    let budget = INITIAL_CHUNK;
    while (!paused && !ended) {
      if (initial !== undefined) {
        if (budget-- <= 0) return schedulePump();
        if (initialIndex >= initial.length) {
          initial = undefined;
          continue;
        }
        const obj = initial[initialIndex++];
        if (w.filter === undefined || w.filter.matches(obj)) deliver({ type: 'ADDED', object: obj, revision: obj.kv.modRevision, source: undefined });
        continue;
      }
      if (sendInitialEnd) {
        sendInitialEnd = false;
        deliver({ type: 'BOOKMARK', revision: snapshotRevision, initialEventsEnd: true });
        continue;
      }
      if (queueHead < queue.length) {
        const ev = queue[queueHead];
        queue[queueHead++] = undefined as unknown as CacheWatchEvent<A>;
        if (queueHead === queue.length) {
          queue = [];
          queueHead = 0;
        }
        deliver(ev);
        continue;
      }
      return;
    }
  }

  const w: CacheWatcher<A> = {
    request,
    prefix: request.prefix,
    filter: request.filter,
    lastRevision: snapshotRevision,
    nextBookmark: undefined,
    get ended() {
      return ended;
    },
    offer(ev) {
      // A watch from a revision the cache has not reached yet waits for the changes after it.
      if (ended || (ev.type !== 'BOOKMARK' && ev.revision <= snapshotRevision)) return;
      if (ev.revision > w.lastRevision) w.lastRevision = ev.revision;
      if (!paused && !pending()) {
        deliver(ev);
        return;
      }
      queue.push(ev);
      if (queue.length - queueHead > maxQueued) w.end('overflow');
    },
    resume() {
      if (ended || !paused) return;
      paused = false;
      pump();
    },
    end(reason, compacted) {
      if (ended) return;
      ended = true;
      initial = undefined;
      queue = [];
      queueHead = 0;
      hooks.ended(w as CacheWatcher<unknown>);
      if (reason !== 'stopped') request.onEnd(reason, reason === 'expired' ? { requested: w.lastRevision, compacted: compacted ?? 0 } : undefined);
    },
  };
  for (const ev of replay) if (ev.revision > w.lastRevision) w.lastRevision = ev.revision;
  // The first delivery waits a turn: the caller gets its handle before any event arrives.
  if (pending()) schedulePump();
  return w;
}
