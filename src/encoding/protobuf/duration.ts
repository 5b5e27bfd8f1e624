// metav1.Duration's JSON form: Go's time.Duration String and ParseDuration.

const UNITS: Record<string, number> = { ns: 1, us: 1e3, '\u00b5s': 1e3, '\u03bcs': 1e3, ms: 1e6, s: 1e9, m: 60e9, h: 3600e9 };

/** time.ParseDuration, to nanoseconds ("1h30m", "-1.5s", "0"); NaN for text Go would reject. */
export function parseGoDuration(s: string): number {
  if (s === '0' || s === '+0' || s === '-0') return 0;
  const m = /^([+-]?)((?:\d+(?:\.\d*)?|\.\d+)(?:ns|us|\u00b5s|\u03bcs|ms|s|m|h))+$/.exec(s);
  if (!m) return NaN;
  let total = 0;
  for (const part of s.matchAll(/(\d+(?:\.\d*)?|\.\d+)(ns|us|\u00b5s|\u03bcs|ms|s|m|h)/g)) total += Number(part[1]) * UNITS[part[2]!]!;
  return Math.round(m[1] === '-' ? -total : total);
}

function trimFraction(whole: number, frac: number, digits: number): string {
  if (frac === 0) return String(whole);
  return `${whole}.${String(frac).padStart(digits, '0').replace(/0+$/, '')}`;
}

/** time.Duration.String: "1h0m0s", "1.5s", "300ms", "0s". */
export function formatGoDuration(ns: number): string {
  if (ns === 0) return '0s';
  const sign = ns < 0 ? '-' : '';
  let n = Math.abs(ns);
  if (n < 1e9) {
    if (n < 1e3) return `${sign}${n}ns`;
    if (n < 1e6) return `${sign}${trimFraction(Math.floor(n / 1e3), n % 1e3, 3)}\u00b5s`;
    return `${sign}${trimFraction(Math.floor(n / 1e6), n % 1e6, 6)}ms`;
  }
  const h = Math.floor(n / 3600e9);
  n -= h * 3600e9;
  const m = Math.floor(n / 60e9);
  n -= m * 60e9;
  const s = trimFraction(Math.floor(n / 1e9), n % 1e9, 9);
  if (h > 0) return `${sign}${h}h${m}m${s}s`;
  if (m > 0) return `${sign}${m}m${s}s`;
  return `${sign}${s}s`;
}
