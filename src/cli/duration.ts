// Go's time.ParseDuration, for kube's duration flags (--request-timeout=1m0s): a sequence of decimal numbers
// with units ns, us (µs), ms, s, m, h, optionally signed. Errors carry Go's wording.

const UNIT_MS: Record<string, number> = { ns: 1e-6, us: 1e-3, '\u00b5s': 1e-3, '\u03bcs': 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** The duration in milliseconds; throws Error(`time: invalid duration "x"`) like Go. */
export function parseGoDuration(text: string): number {
  const quoted = JSON.stringify(text);
  let rest = text;
  let sign = 1;
  if (rest.startsWith('-') || rest.startsWith('+')) {
    if (rest[0] === '-') sign = -1;
    rest = rest.slice(1);
  }
  if (rest === '0') return 0;
  if (rest === '') throw new Error(`time: invalid duration ${quoted}`);
  let total = 0;
  const part = /^(\d*(?:\.\d*)?)([a-z\u00b5\u03bc]*)/;
  while (rest !== '') {
    const m = part.exec(rest);
    if (!m || m[1] === '' || m[1] === '.') throw new Error(`time: invalid duration ${quoted}`);
    if (m[2] === '') throw new Error(`time: missing unit in duration ${quoted}`);
    const unit = UNIT_MS[m[2]];
    if (unit === undefined) throw new Error(`time: unknown unit ${JSON.stringify(m[2])} in duration ${quoted}`);
    total += Number(m[1]) * unit;
    rest = rest.slice(m[0].length);
  }
  return sign * total;
}
