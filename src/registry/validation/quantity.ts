// resource.Quantity parsing (k8s.io/apimachinery/pkg/api/resource): the accepted syntax with ParseQuantity's
// error messages, and an exact value in nano-units for comparisons and sums.

export const QUANTITY_SPLIT_RE = '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$';
export const ERR_FORMAT_WRONG = `quantities must match the regular expression '${QUANTITY_SPLIT_RE}'`;
export const ERR_NUMERIC = 'unable to parse numeric part of quantity';
export const ERR_SUFFIX = "unable to parse quantity's suffix";

const splitRe = new RegExp(QUANTITY_SPLIT_RE);
const binarySuffixes: Record<string, number> = { Ki: 10, Mi: 20, Gi: 30, Ti: 40, Pi: 50, Ei: 60 };
const decimalSuffixes: Record<string, number> = { n: -9, u: -6, m: -3, '': 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };

export type QuantityResult = { ok: true; nanos: bigint } | { ok: false; error: string };

// The same few quantity strings come back on every write (requests, limits, capacities): parses are kept.
const PARSED_LIMIT = 4096;
const parsed = new Map<string, QuantityResult>();

/** Parse a quantity string; nanos is the value times 10^9, rounded up as kube rounds sub-nano precision. */
export function parseQuantity(input: string): QuantityResult {
  let result = parsed.get(input);
  if (result === undefined) {
    result = parseQuantityText(input);
    if (parsed.size >= PARSED_LIMIT) parsed.clear();
    parsed.set(input, result);
  }
  return result;
}

function parseQuantityText(input: string): QuantityResult {
  const s = input.trim();
  if (s === '') return { ok: false, error: ERR_FORMAT_WRONG };
  const m = splitRe.exec(s);
  if (!m) return { ok: false, error: ERR_FORMAT_WRONG };
  const [, numPart, suffix] = m;
  const nm = /^([+-]?)(\d*)(?:\.(\d*))?$/.exec(numPart);
  if (!nm || (nm[2] === '' && (nm[3] ?? '') === '')) return { ok: false, error: ERR_NUMERIC };
  const negative = nm[1] === '-';
  const whole = nm[2] || '0';
  const frac = nm[3] ?? '';
  // value = (whole.frac) * 10^exp10 * 2^exp2
  let exp10 = 0;
  let exp2 = 0;
  if (Object.hasOwn(binarySuffixes, suffix)) exp2 = binarySuffixes[suffix];
  else if (Object.hasOwn(decimalSuffixes, suffix)) exp10 = decimalSuffixes[suffix];
  else {
    const em = /^[eE]([-+]?\d+)$/.exec(suffix);
    if (!em) return { ok: false, error: ERR_SUFFIX };
    exp10 = Number(em[1]);
  }
  // digits * 10^(exp10 - frac.length + 9) * 2^exp2 nanos
  const digits = BigInt(whole + frac);
  const scale = exp10 - frac.length + 9;
  let nanos: bigint;
  if (scale >= 0) nanos = digits * 10n ** BigInt(Math.min(scale, 400));
  else {
    const div = 10n ** BigInt(Math.min(-scale, 400));
    nanos = digits / div + (digits % div === 0n ? 0n : 1n);
  }
  nanos *= 2n ** BigInt(exp2);
  return { ok: true, nanos: negative ? -nanos : nanos };
}

/** Nano-units of a quantity value as found in JSON (string or number); undefined when unparseable. */
export function quantityNanos(v: unknown): bigint | undefined {
  if (typeof v === 'number') v = String(v);
  if (typeof v !== 'string') return undefined;
  const r = parseQuantity(v);
  return r.ok ? r.nanos : undefined;
}
