// Periodic compaction that keeps a window of history: every interval, compact to the newest revision that was
// already current more than windowSeconds ago.
//
// Revisions are timed by sampling: at each tick the compactor notes (now, current revision). A sample (t, r) says
// every revision <= r existed at time t, so compacting to the newest sample older than the window never drops a
// revision younger than the window. History is kept for between windowSeconds and windowSeconds + one interval.
import { clockNow, onClockChange } from '../apis/clock.ts';
import type { Storage } from './types.ts';

export interface CompactorOptions {
  windowSeconds: number;
  intervalMs: number;
  /** Clock (ms), for tests. */
  now?: () => number;
  /** Failed compactions (default: a process warning). */
  onError?: (err: unknown) => void;
}

export interface CompactionPlan {
  /** Notes that `revision` was current at `time` (ms). */
  observe(time: number, revision: number): void;
  /** The revision to compact to at `time`: the newest observed at or before time - window; undefined if none. */
  target(time: number): number | undefined;
}

export function createCompactionPlan(windowMs: number): CompactionPlan {
  const samples: { time: number; revision: number }[] = [];
  return {
    observe(time, revision) {
      const last = samples[samples.length - 1];
      // An unchanged revision keeps its older (stronger) sample.
      if (last === undefined || revision > last.revision) samples.push({ time, revision });
    },
    target(time) {
      let i = -1;
      while (i + 1 < samples.length && samples[i + 1].time <= time - windowMs) i++;
      if (i < 0) return undefined;
      samples.splice(0, i); // samples before the target are no longer needed
      return samples[0].revision;
    },
  };
}

/** Starts the loop; returns the function that stops it. The timer does not keep the process alive. */
export function startCompactor(storage: Storage, options: CompactorOptions): () => void {
  const now = options.now ?? clockNow;
  const onError = options.onError ?? ((err: unknown) => process.emitWarning(`storage compaction failed: ${err instanceof Error ? err.message : String(err)}`));
  const plan = createCompactionPlan(options.windowSeconds * 1000);
  let stopped = false;
  let running = false;

  /** sampledAt: when the current revision is known to have existed (default: now). */
  async function tick(sampledAt?: number): Promise<void> {
    if (stopped || running) return;
    running = true;
    try {
      const revision = await storage.currentRevision();
      plan.observe(Math.min(sampledAt ?? now(), now()), revision);
      const target = plan.target(now());
      if (!stopped && target !== undefined && target > storage.compactedRevision()) await storage.compact(target);
    } catch (err) {
      if (!stopped) onError(err);
    } finally {
      running = false;
    }
  }

  void tick();
  const timer = setInterval(() => void tick(), options.intervalMs);
  timer.unref();
  // On the test controls' clock, moving time past the window compacts at once (continue tokens and old
  // resourceVersions expire as they would after that much real time).
  // Every revision written so far existed at the time the clock showed before it moved.
  const off = options.now ? undefined : onClockChange((before) => void tick(before));
  return () => {
    stopped = true;
    clearInterval(timer);
    off?.();
  };
}

/** The interval openStorage uses for a window: a tenth of it, between 0.1 s and 60 s. */
export function compactionIntervalMs(windowSeconds: number): number {
  return Math.min(60_000, Math.max(100, windowSeconds * 100));
}
