// The in-process watch broadcaster both backends share.
//
// A backend publishes each committed write's event synchronously, in revision order; the hub delivers events to the
// watchers whose prefix matches, batched once per event-loop turn (setImmediate), never inside the writer's stack.
// A watch from an older revision first replays the backend's history, one page per turn, then joins the live feed.
// Gap- and duplicate-freedom rest on one fact: backends are synchronous inside (a write commits and publishes in one
// synchronous step), so at any synchronous point every revision <= the current one is either in history or already
// published. A watcher joins live with `after` = the revision its replay read up to, and only events above it pass.
import type { StorageEvent, WatchCallbacks, WatchHandle } from './types.ts';
import { StorageError } from './types.ts';
import { compactedError, unavailable } from './storage-errors.ts';

export interface HistorySource {
  /** The newest committed revision. */
  currentRevision(): number;
  compactedRevision(): number;
  /** Events of keys under prefix with after < revision <= upTo, ascending, at most limit. */
  history(prefix: string, after: number, upTo: number, limit: number): StorageEvent[];
}

export interface WatchHubOptions {
  /** Events replayed per turn (default 1000). */
  replayPageSize?: number;
}

export interface WatchHub {
  /** Queue a committed write's event for delivery. Call in revision order, right after the commit. */
  publish(event: StorageEvent): void;
  watch(prefix: string, fromRevision: number, callbacks: WatchCallbacks): WatchHandle;
  /** End every watch with err (delivered asynchronously). */
  closeAll(err: StorageError): void;
  /** Watches not yet stopped or ended. */
  watcherCount(): number;
}

type WatcherState = 'replaying' | 'live' | 'failed' | 'done';

interface Watcher {
  readonly prefix: string;
  readonly callbacks: WatchCallbacks;
  state: WatcherState;
  /** Every event of this watcher at or below `after` has been delivered or sits in `backlog`. */
  after: number;
  /** Replayed events waiting for the next flush. */
  backlog: StorageEvent[];
  failure: StorageError | undefined;
}

interface Group {
  readonly prefix: string;
  readonly watchers: Set<Watcher>;
}

const NO_EVENTS: StorageEvent[] = [];

export function createWatchHub(source: HistorySource, options: WatchHubOptions = {}): WatchHub {
  const pageSize = Math.max(1, options.replayPageSize ?? 1000);
  const groups = new Map<string, Group>();
  const all = new Set<Watcher>();
  /** Watchers with a backlog or a failure to deliver at the next flush. */
  const dirty = new Set<Watcher>();
  /** Watchers that asked for a progress notification (answered once they are live). */
  const progress = new Set<Watcher>();
  let pending: StorageEvent[] = [];
  let scheduled = false;
  /** Groups whose prefix does not end with '/' (the others are found by the key's own slashes). */
  let unslashedGroups = 0;

  function schedule(): void {
    if (scheduled) return;
    scheduled = true;
    setImmediate(flush);
  }

  function join(w: Watcher): void {
    let group = groups.get(w.prefix);
    if (group === undefined) {
      group = { prefix: w.prefix, watchers: new Set() };
      groups.set(w.prefix, group);
      if (!w.prefix.endsWith('/')) unslashedGroups++;
    }
    group.watchers.add(w);
  }

  function leave(w: Watcher): void {
    const group = groups.get(w.prefix);
    if (group === undefined) return;
    group.watchers.delete(w);
    if (group.watchers.size > 0) return;
    groups.delete(w.prefix);
    if (!w.prefix.endsWith('/')) unslashedGroups--;
  }

  function finish(w: Watcher): void {
    if (w.state === 'live') leave(w);
    w.state = 'done';
    w.backlog = NO_EVENTS;
    dirty.delete(w);
    progress.delete(w);
    all.delete(w);
  }

  function fail(w: Watcher, err: StorageError): void {
    if (w.state === 'done' || w.state === 'failed') return;
    if (w.state === 'live') leave(w);
    w.state = 'failed';
    w.failure = err;
    dirty.add(w);
    schedule();
  }

  /** Reads the next page of history; joins the live feed once caught up. Runs synchronously. */
  function replayStep(w: Watcher): void {
    if (w.state !== 'replaying') return;
    const compacted = source.compactedRevision();
    if (w.after < compacted) {
      fail(w, compactedError(w.prefix, w.after, compacted));
      return;
    }
    let page: StorageEvent[];
    const upTo = source.currentRevision();
    try {
      page = w.after < upTo ? source.history(w.prefix, w.after, upTo, pageSize) : NO_EVENTS;
    } catch (err) {
      fail(w, unavailable(`watch replay failed: ${err instanceof Error ? err.message : String(err)}`));
      return;
    }
    if (page.length >= pageSize) {
      w.after = page[page.length - 1].kv.modRevision;
    } else {
      if (upTo > w.after) w.after = upTo;
      w.state = 'live';
      join(w);
    }
    if (page.length > 0) {
      w.backlog = page;
      dirty.add(w);
      schedule();
    }
  }

  function callSafely(w: Watcher, events: StorageEvent[]): void {
    try {
      w.callbacks.onEvents(events);
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      process.emitWarning(`storage watch callback threw, ending that watch: ${message}`);
      fail(w, unavailable(`watch consumer failed: ${message}`));
    }
  }

  /** Delivers w's backlog plus the live events above w.after; then ends it or continues its replay. */
  function serve(w: Watcher, live: StorageEvent[]): void {
    if (w.state === 'done') return;
    let i = 0;
    while (i < live.length && live[i].kv.modRevision <= w.after) i++;
    let out = i === 0 ? live : live.slice(i);
    if (out.length > 0) w.after = out[out.length - 1].kv.modRevision;
    if (w.backlog.length > 0) {
      out = out.length > 0 ? w.backlog.concat(out) : w.backlog;
      w.backlog = NO_EVENTS;
    }
    dirty.delete(w);
    if (out.length > 0) callSafely(w, out);
    const state = w.state as WatcherState;
    if (state === 'failed') {
      const err = w.failure!;
      finish(w);
      try {
        w.callbacks.onError(err);
      } catch (cbErr) {
        process.emitWarning(`storage watch onError threw: ${cbErr instanceof Error ? cbErr.message : String(cbErr)}`);
      }
    } else if (state === 'replaying') {
      replayStep(w);
    }
  }

  function flush(): void {
    scheduled = false;
    // Every revision up to here is committed and its event sits in `pending` (publish is synchronous with commit).
    const upTo = progress.size > 0 ? source.currentRevision() : 0;
    const events = pending;
    pending = [];
    if (events.length > 0) {
      const matched = eventsByGroup(events);
      for (const group of groups.values()) {
        const ofGroup = matched.get(group);
        // One array per group and flush, shared by its watchers (see WatchCallbacks.onEvents).
        if (ofGroup !== undefined) for (const w of group.watchers) serve(w, ofGroup);
      }
    }
    // A snapshot: a replay page read while serving waits for the next turn.
    if (dirty.size > 0) for (const w of [...dirty]) serve(w, NO_EVENTS);
    if (progress.size > 0) answerProgress(upTo);
  }

  /**
   * Each group's events, in order. A group whose prefix ends with '/' is found by one lookup per slash of the key
   * (a handful) rather than by testing every group's prefix (one per cached resource) against every event.
   */
  function eventsByGroup(events: readonly StorageEvent[]): Map<Group, StorageEvent[]> {
    const matched = new Map<Group, StorageEvent[]>();
    const add = (group: Group, ev: StorageEvent): void => {
      const list = matched.get(group);
      if (list === undefined) matched.set(group, [ev]);
      else list.push(ev);
    };
    for (const ev of events) {
      const key = ev.kv.key;
      for (let slash = key.indexOf('/'); slash >= 0; slash = key.indexOf('/', slash + 1)) {
        const group = groups.get(key.slice(0, slash + 1));
        if (group !== undefined) add(group, ev);
      }
      if (unslashedGroups > 0) {
        for (const group of groups.values()) if (!group.prefix.endsWith('/') && key.startsWith(group.prefix)) add(group, ev);
      }
    }
    return matched;
  }

  /** Tells live watchers that asked that they have seen everything up to `upTo`; others keep waiting. */
  function answerProgress(upTo: number): void {
    for (const w of [...progress]) {
      if (w.state !== 'live' || w.backlog.length > 0) continue;
      progress.delete(w);
      if (w.after < upTo) w.after = upTo;
      try {
        w.callbacks.onProgress?.(upTo);
      } catch (err) {
        process.emitWarning(`storage watch onProgress threw: ${err instanceof Error ? err.message : String(err)}`);
      }
    }
    if (progress.size > 0) schedule();
  }

  return {
    publish(event) {
      if (groups.size === 0) return;
      pending.push(event);
      schedule();
    },

    watch(prefix, fromRevision, callbacks) {
      const w: Watcher = { prefix, callbacks, state: 'replaying', after: fromRevision, backlog: NO_EVENTS, failure: undefined };
      all.add(w);
      if (!Number.isSafeInteger(fromRevision) || fromRevision < 0) {
        fail(w, new StorageError('FutureRevision', prefix, `invalid watch revision ${fromRevision}`));
      } else {
        replayStep(w);
      }
      return {
        stop() {
          finish(w);
        },
        requestProgress() {
          if (w.state === 'done' || w.state === 'failed') return;
          progress.add(w);
          schedule();
        },
      };
    },

    closeAll(err) {
      for (const w of all) fail(w, err);
    },

    watcherCount() {
      return all.size;
    },
  };
}
