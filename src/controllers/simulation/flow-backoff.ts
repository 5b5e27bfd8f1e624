// client-go's flowcontrol.Backoff, on the server clock (ms since the epoch): per key, a delay that starts at
// `initialMs` and doubles with each step up to `maxMs`; a key not stepped for twice `maxMs` starts again.

export interface FlowBackoff {
  /** Next: steps the key's delay (or starts it) at `now`. */
  next(key: string, now: number): void;
  /** IsInBackOffSinceUpdate: whether the key's delay since its last step has not passed yet at `now`. */
  inBackoff(key: string, now: number): boolean;
  /** Get: the key's current delay (0 for a key never stepped). */
  delay(key: string): number;
}

export function createFlowBackoff(initialMs: number, maxMs: number): FlowBackoff {
  const entries = new Map<string, { delayMs: number; lastUpdate: number }>();
  const expired = (entry: { lastUpdate: number }, now: number) => now - entry.lastUpdate > 2 * maxMs;
  return {
    next(key, now) {
      const entry = entries.get(key);
      if (!entry || expired(entry, now)) entries.set(key, { delayMs: initialMs, lastUpdate: now });
      else entries.set(key, { delayMs: Math.min(entry.delayMs * 2, maxMs), lastUpdate: now });
    },
    inBackoff(key, now) {
      const entry = entries.get(key);
      return entry !== undefined && !expired(entry, now) && now - entry.lastUpdate < entry.delayMs;
    },
    delay(key) {
      return entries.get(key)?.delayMs ?? 0;
    },
  };
}
