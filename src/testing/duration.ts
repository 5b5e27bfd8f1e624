// Durations the test controls accept: Go's time.ParseDuration form ("10m", "1h30m", "250ms", "1.5s") or a number
// of milliseconds, so the same values read the same from JavaScript, curl and a Go test.

const UNITS: Record<string, number> = { ns: 1e-6, us: 1e-3, '\u00b5s': 1e-3, '\u03bcs': 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
const PART = /(\d+(?:\.\d*)?|\.\d+)(ns|us|\u00b5s|\u03bcs|ms|s|m|h)/y;

/** Milliseconds, or an Error naming the bad value. */
export function parseDuration(value: unknown, what: string): number {
  if (typeof value === 'number') {
    if (Number.isFinite(value) && value >= 0) return value;
    throw new Error(`${what}: ${value} is not a duration (want a number of milliseconds >= 0 or a string like "10m")`);
  }
  if (typeof value !== 'string' || value === '') throw new Error(`${what}: want a duration such as "10m", "1h30m", "250ms" or a number of milliseconds`);
  if (value === '0') return 0;
  let ms = 0;
  PART.lastIndex = 0;
  let at = 0;
  while (at < value.length) {
    PART.lastIndex = at;
    const m = PART.exec(value);
    if (!m) throw new Error(`${what}: time: invalid duration ${JSON.stringify(value)}`);
    ms += Number(m[1]) * UNITS[m[2]];
    at = PART.lastIndex;
  }
  return ms;
}
