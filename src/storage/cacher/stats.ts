// Process-wide counts of the watch caches and their watchers (for /metrics-style diagnostics and for tests that
// check that disconnected watchers are freed).

import type { Cacher } from './types.ts';

const cachers = new Set<Cacher<unknown>>();
let openWatchers = 0;
let openedWatchers = 0;

export function registerCacher(c: Cacher<unknown>): void {
  cachers.add(c);
}

export function unregisterCacher(c: Cacher<unknown>): void {
  cachers.delete(c);
}

export function noteWatcherOpened(): void {
  openWatchers++;
  openedWatchers++;
}

export function noteWatcherClosed(): void {
  openWatchers--;
}

export interface CacherStats {
  /** Running caches in this process. */
  readonly caches: number;
  /** Open cache watchers across all caches. */
  readonly watchers: number;
  /** Watchers opened since the process started (a counter). */
  readonly opened: number;
  /** Objects held across all caches. */
  readonly objects: number;
}

export function cacherStats(): CacherStats {
  let objects = 0;
  for (const c of cachers) objects += c.size().objects;
  return { caches: cachers.size, watchers: openWatchers, opened: openedWatchers, objects };
}
