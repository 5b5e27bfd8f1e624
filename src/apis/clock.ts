// The one clock every semantic timestamp and timer reads: creationTimestamp, deletionTimestamp and grace periods,
// managedFields and condition times, printed ages, bookmark timers, the watch cache's and the compactor's history
// window. Real time by default (one branch over Date.now); the test controls freeze, advance or set it.
//
// It is per process: servers sharing a process (forks, logical clusters, several startCapstan calls) share it.
// Real timeouts (request deadlines, shutdown grace, retry delays) keep using the real clock.

let frozenAt: number | undefined;
let offsetMs = 0;
const listeners = new Set<(before: number) => void>();

/**
 * Calls listener whenever the clock is frozen, moved or reset (e.g. so a compactor looks again at once), with the
 * clock's time just before the change.
 */
export function onClockChange(listener: (before: number) => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

function changed(before: number): void {
  for (const l of [...listeners]) {
    try {
      l(before);
    } catch {
      // A listener's failure must not stop the others.
    }
  }
}

/** Milliseconds since the epoch on the controllable clock. */
export function clockNow(): number {
  return frozenAt ?? (offsetMs === 0 ? Date.now() : Date.now() + offsetMs);
}

export function clockDate(): Date {
  return new Date(clockNow());
}

export interface ClockState {
  /** The clock's time now, RFC 3339 with milliseconds. */
  readonly now: string;
  readonly frozen: boolean;
  /** How far the clock is ahead of (positive) or behind real time, in ms. */
  readonly offsetMs: number;
}

export const clock = {
  now: clockNow,
  /** Stops the clock at its current time (or at `at`). */
  freeze(at?: number): void {
    const before = clockNow();
    frozenAt = at ?? before;
    changed(before);
  },
  /** Lets the clock run again from where it stands, at real-time speed. */
  resume(): void {
    if (frozenAt === undefined) return;
    const before = frozenAt;
    offsetMs = frozenAt - Date.now();
    frozenAt = undefined;
    changed(before);
  },
  /** Moves the clock forward by ms (frozen or running). */
  advance(ms: number): void {
    if (!Number.isFinite(ms) || ms < 0) throw new RangeError('the clock only moves forward: advance needs a duration >= 0');
    const before = clockNow();
    if (frozenAt !== undefined) frozenAt += ms;
    else offsetMs += ms;
    changed(before);
  },
  /** Sets the clock to t (ms since the epoch); a frozen clock stays frozen there. */
  set(t: number): void {
    if (!Number.isFinite(t)) throw new RangeError('clock.set needs a valid time');
    const before = clockNow();
    if (frozenAt !== undefined) frozenAt = t;
    else offsetMs = t - Date.now();
    changed(before);
  },
  /** Back to real time. */
  reset(): void {
    const before = clockNow();
    frozenAt = undefined;
    offsetMs = 0;
    changed(before);
  },
  state(): ClockState {
    return { now: new Date(clockNow()).toISOString(), frozen: frozenAt !== undefined, offsetMs: frozenAt !== undefined ? frozenAt - Date.now() : offsetMs };
  },
};

/** The server clock's day as Go's "2006-01-02" in UTC (legacy service account token tracking). */
export const utcDay = (t: number = clockNow()): string => new Date(t).toISOString().slice(0, 10);
