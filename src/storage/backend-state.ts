// The guards every backend keeps the same way around its own data: once closed, calls fail with Unavailable and
// watches end (also one opened while closing), and a compaction target is checked against the revision window.
import { futureRevision, unavailable } from './storage-errors.ts';
import type { WatchCallbacks, WatchHandle } from './types.ts';
import type { WatchHub } from './watch-hub.ts';

export interface OpenState {
  readonly closed: boolean;
  /** Throws Unavailable once closed. */
  checkOpen(): void;
  /** A watch on the hub; once the backend is closed it ends at once with Unavailable. */
  watch(prefix: string, fromRevision: number, callbacks: WatchCallbacks): WatchHandle;
  /** Marks the backend closed and ends every watch; false when it was closed already. */
  close(): boolean;
}

export function openState(hub: WatchHub): OpenState {
  let closed = false;
  return {
    get closed() {
      return closed;
    },
    checkOpen() {
      if (closed) throw unavailable('storage is closed');
    },
    watch(prefix, fromRevision, callbacks) {
      const handle = hub.watch(prefix, fromRevision, callbacks);
      if (closed) hub.closeAll(unavailable('storage is closed'));
      return handle;
    },
    close() {
      if (closed) return false;
      closed = true;
      hub.closeAll(unavailable('storage is closed'));
      return true;
    },
  };
}

/** Whether compacting through `requested` has anything to do; FutureRevision past the current revision. */
export function compactionNeeded(requested: number, compacted: number, current: number): boolean {
  if (requested <= compacted) return false;
  if (requested > current) throw futureRevision('', requested, current);
  return true;
}
