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

// Canonical text: what kube-apiserver writes back for a Quantity it decoded (ParseQuantity, then MarshalJSON). A
// value already written canonically keeps its text ("100m", "1Ki", "1e3", even "+1"); any other is written from its
// value: the mantissa without trailing zeros, the exponent a multiple of three with its SI suffix ("0.5" is
// "500m", "1.5Gi" "1536Mi", 1e9 "1G"), binary suffixes kept for whole numbers of at least 1024.

type QuantityFormat = 'DecimalSI' | 'BinarySI' | 'DecimalExponent';

const DECIMAL_SI: Readonly<Record<string, number>> = { n: -9, u: -6, m: -3, '': 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };
const DECIMAL_SI_SUFFIX = new Map(Object.entries(DECIMAL_SI).map(([s, e]) => [e, s]));
const BINARY_SI: Readonly<Record<string, number>> = { Ki: 10, Mi: 20, Gi: 30, Ti: 40, Pi: 50, Ei: 60 };
const BINARY_SI_SUFFIX = new Map(Object.entries(BINARY_SI).map(([s, e]) => [e / 10, s]));
const MAX_INT64 = (1n << 63n) - 1n;
const MAX_INT64_FACTORS = 18;

/** A parsed quantity: mantissa x 10^exponent, its format, and its text when that is already canonical. */
export interface GoQuantity {
  mantissa: bigint;
  exponent: number;
  format: QuantityFormat;
  text?: string;
  /** Held as an inf.Dec (ParseQuantity's slow path) rather than an int64Amount. */
  decimal?: true;
}

/** quantitySuffixer.interpret: base, exponent and format of a suffix; undefined for one it does not know. */
function interpretSuffix(suffix: string): { base: 2 | 10; exponent: number; format: QuantityFormat } | undefined {
  if (Object.hasOwn(DECIMAL_SI, suffix)) return { base: 10, exponent: DECIMAL_SI[suffix]!, format: 'DecimalSI' };
  if (Object.hasOwn(BINARY_SI, suffix)) return { base: 2, exponent: BINARY_SI[suffix]!, format: 'BinarySI' };
  if (/^[eE][-+]?\d+$/.test(suffix)) {
    const exponent = Number(suffix.slice(1));
    return Number.isSafeInteger(exponent) && Math.abs(exponent) <= 2 ** 31 - 1 ? { base: 10, exponent, format: 'DecimalExponent' } : undefined;
  }
  return undefined;
}

/** ParseQuantity, for text it accepts (undefined otherwise). */
function goParseQuantity(str: string): GoQuantity | undefined {
  if (str === '0') return { mantissa: 0n, exponent: 0, format: 'DecimalSI', text: str };
  const m = /^([+-]?)(0*)(\d*)(?:\.(\d*))?([eEinumkKMGTP]*(?:[-+]?\d+)?)$/.exec(str);
  if (!m) return undefined;
  const [, sign, , digits, denom = '', suffix] = m;
  const positive = sign !== '-';
  const num = digits || '0';
  const parsed = interpretSuffix(suffix!);
  if (!parsed) return undefined;
  const { base, exponent } = parsed;
  let format = parsed.format;
  // The fast path: a value that fits an int64 at a scale of nano or coarser.
  let scale = 0;
  let multiplier = 1n;
  let precision: number;
  if (base === 10) {
    scale = exponent;
    precision = MAX_INT64_FACTORS - (num.length + denom.length);
  } else if (exponent >= 0 && denom.length === 0) {
    multiplier = 1n << BigInt(exponent);
    precision = 15 - num.length - Math.trunc(Math.fround((exponent * 3) / 10)) - 1;
  } else {
    precision = -1;
  }
  if (precision >= 0) {
    scale -= denom.length;
    if (scale >= -9) {
      const shifted = num + denom;
      const value = BigInt(shifted) * multiplier;
      if (value <= MAX_INT64) {
        const mantissa = positive ? value : -value;
        const canonical = format === 'BinarySI' ? exponent % 10 === 0 && (BigInt(shifted) & 7n) !== 0n : scale % 3 === 0 && !shifted.endsWith('000') && shifted[0] !== '0';
        return { mantissa, exponent: scale, format, ...(canonical && { text: str }) };
      }
    }
  }
  // The slow path: exact decimal arithmetic, rounded up to nano-units, binary values capped at the int64 maximum.
  let unscaled = BigInt(num + denom);
  let decimals = denom.length;
  if (base === 10) decimals -= exponent;
  else unscaled <<= BigInt(exponent);
  if (unscaled !== 0n && decimals > 9) {
    const div = 10n ** BigInt(decimals - 9);
    unscaled = unscaled / div + (unscaled % div === 0n ? 0n : 1n);
    decimals = 9;
  }
  if (format === 'BinarySI' && compareScaled(unscaled, decimals, MAX_INT64) > 0) {
    unscaled = MAX_INT64;
    decimals = 0;
  }
  if (format === 'BinarySI' && unscaled > 0n && compareScaled(unscaled, decimals, 1n) < 0) format = 'DecimalSI';
  return { mantissa: positive ? unscaled : -unscaled, exponent: -decimals, format, decimal: true };
}

/** Compares unscaled x 10^-decimals with an integer. */
function compareScaled(unscaled: bigint, decimals: number, n: bigint): number {
  const [a, b] = decimals >= 0 ? [unscaled, n * 10n ** BigInt(decimals)] : [unscaled * 10n ** BigInt(-decimals), n];
  return a < b ? -1 : a > b ? 1 : 0;
}

/** CanonicalizeBytes: the text MarshalJSON writes for a quantity whose text is not kept. */
function canonicalText(q: GoQuantity): string {
  let { mantissa, exponent } = q;
  if (mantissa === 0n) return '0';
  let format = q.format;
  if (format === 'BinarySI') {
    const integral = exponent >= 0 ? mantissa * 10n ** BigInt(exponent) : mantissa % 10n ** BigInt(-exponent) === 0n ? mantissa / 10n ** BigInt(-exponent) : undefined;
    if (integral === undefined || (integral > -1024n && integral < 1024n)) format = 'DecimalSI';
    else {
      let times = 0;
      let amount = integral;
      while ((amount >= 1024n || amount <= -1024n) && amount % 1024n === 0n) {
        amount /= 1024n;
        times++;
      }
      return `${amount}${BINARY_SI_SUFFIX.get(times) ?? ''}`;
    }
  }
  while (mantissa % 10n === 0n) {
    mantissa /= 10n;
    exponent++;
  }
  while (exponent % 3 !== 0) {
    mantissa *= 10n;
    exponent--;
  }
  if (format === 'DecimalExponent') return exponent === 0 ? `${mantissa}` : `${mantissa}e${exponent}`;
  return `${mantissa}${DECIMAL_SI_SUFFIX.get(exponent) ?? ''}`;
}

/**
 * The text kube-apiserver writes back for a Quantity decoded from this JSON value (a string, or a number as
 * JavaScript prints it); undefined for a value ParseQuantity refuses.
 */
export function canonicalQuantity(v: unknown): string | undefined {
  if (typeof v !== 'string' && typeof v !== 'number') return undefined;
  const text = String(v).trim();
  let canonical = canonicalTexts.get(text);
  if (canonical === undefined && !canonicalTexts.has(text)) {
    const q = text !== '' && parseQuantity(text).ok ? goParseQuantity(text) : undefined;
    canonical = q === undefined ? undefined : (q.text ?? canonicalText(q));
    if (canonicalTexts.size >= PARSED_LIMIT) canonicalTexts.clear();
    canonicalTexts.set(text, canonical);
  }
  return canonical;
}

const canonicalTexts = new Map<string, string | undefined>();

/** The Quantity ParseQuantity makes of this JSON value (a string, or a number as JavaScript prints it). */
export function goQuantityOf(v: unknown): GoQuantity | undefined {
  if (typeof v !== 'string' && typeof v !== 'number') return undefined;
  const text = String(v).trim();
  return text !== '' && parseQuantity(text).ok ? goParseQuantity(text) : undefined;
}
