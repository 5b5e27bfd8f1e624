// The one clock every semantic timestamp and timer reads: creationTimestamp, deletionTimestamp and grace periods,
// managedFields and condition times, printed ages, bookmark timers, the watch cache's and the compactor's history
// window. Real time by default (one branch over Date.now); the test controls freeze, advance or set it.
//
// It is per process: servers sharing a process (forks, logical clusters, several startCapstan calls) share it.
// Real timeouts (request deadlines, shutdown grace, retry delays) keep using the real clock.

let frozenAt: number | undefined;
let offsetMs = 0;

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
    frozenAt = at ?? clockNow();
  },
  /** Lets the clock run again from where it stands, at real-time speed. */
  resume(): void {
    if (frozenAt === undefined) return;
    offsetMs = frozenAt - Date.now();
    frozenAt = undefined;
  },
  /** Moves the clock forward by ms (frozen or running). */
  advance(ms: number): void {
    if (!Number.isFinite(ms) || ms < 0) throw new RangeError('the clock only moves forward: advance needs a duration >= 0');
    if (frozenAt !== undefined) frozenAt += ms;
    else offsetMs += ms;
  },
  /** Sets the clock to t (ms since the epoch); a frozen clock stays frozen there. */
  set(t: number): void {
    if (!Number.isFinite(t)) throw new RangeError('clock.set needs a valid time');
    if (frozenAt !== undefined) frozenAt = t;
    else offsetMs = t - Date.now();
  },
  /** Back to real time. */
  reset(): void {
    frozenAt = undefined;
    offsetMs = 0;
  },
  state(): ClockState {
    return { now: new Date(clockNow()).toISOString(), frozen: frozenAt !== undefined, offsetMs: frozenAt !== undefined ? frozenAt - Date.now() : offsetMs };
  },
};
