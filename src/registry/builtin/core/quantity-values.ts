// resource.Quantity values in core validation (pkg/apis/core/validation of kube 1.31): the checks on a quantity's
// value (ValidateNonnegativeQuantity, ValidatePositiveQuantityValue, validateBasicResource,
// ValidateResourceQuantityValue) and the way field.Error prints a Quantity or a ResourceList passed as the bad value.
//
// A Quantity's String() has a pointer receiver, so a Quantity value in a field error is no fmt.Stringer: Go prints
// the struct (%#v), e.g. `resource.Quantity{i:resource.int64Amount{value:2, scale:0}, d:resource.infDecAmount{
// Dec:(*inf.Dec)(nil)}, s:"2", Format:"DecimalSI"}`. Its s field caches String(): set when the text was already
// canonical at parse, or once String() ran on that very variable.

import { fieldErrors, renderedBadValue, type FieldError } from '../../../apis/errors.ts';
import { goQuote } from '../../../encoding/go-format.ts';
import { canonicalQuantity, goQuantityOf, quantityNanos, type GoQuantity } from '../../validation/quantity.ts';
import { isObj } from '../object.ts';
import { isIntegerResourceName } from './resource-names.ts';

const NANO = 1_000_000_000n;
/** SetDefaults_ResourceList rounds every quantity up to milli-units. */
const MILLI_EXPONENT = -3;

/** Quantity.String(): the canonical text ("0.5" is "500m"). */
export function quantityString(v: unknown): string {
  return canonicalQuantity(v) ?? (typeof v === 'string' ? v : String(v ?? ''));
}

/** Division rounded away from zero, as the int64Amount scaling rounds. */
function divideAwayFromZero(n: bigint, d: bigint): bigint {
  const q = n / d;
  if (n % d === 0n) return q;
  return n < 0n ? q - 1n : q + 1n;
}

/** The value as SetDefaults_ResourceList leaves it: below milli precision rounded up, its cached text dropped. */
function roundedToMilli(q: GoQuantity): GoQuantity {
  if (q.exponent >= MILLI_EXPONENT) return q;
  const mantissa = divideAwayFromZero(q.mantissa, 10n ** BigInt(MILLI_EXPONENT - q.exponent));
  return { mantissa, exponent: MILLI_EXPONENT, format: q.format, ...(q.decimal && { decimal: true }) };
}

/** Go's %#v of a big.Int: its magnitude as 64-bit words, least significant first. */
function goBigInt(n: bigint): string {
  const words: string[] = [];
  for (let abs = n < 0n ? -n : n; abs > 0n; abs >>= 64n) words.push(`0x${(abs & 0xffffffffffffffffn).toString(16)}`);
  return `big.Int{neg:${n < 0n}, abs:${words.length ? `big.nat{${words.join(', ')}}` : 'big.nat(nil)'}}`;
}

/** The quantity Go holds for this JSON value; undefined for one it would not decode. */
function goQuantityText(q: GoQuantity, cached: string): string {
  const dec = q.decimal ? `(*inf.Dec)(inf.Dec{unscaled:${goBigInt(q.mantissa)}, scale:${-q.exponent}})` : '(*inf.Dec)(nil)';
  const [value, scale] = q.decimal ? ['0', '0'] : [String(q.mantissa), String(q.exponent)];
  return `resource.Quantity{i:resource.int64Amount{value:${value}, scale:${scale}}, d:resource.infDecAmount{Dec:${dec}}, s:${goQuote(cached)}, Format:${goQuote(q.format)}}`;
}

/**
 * A resource.Quantity as field.Error prints it; `stringCalled` when the validation called String() on it before
 * the error was made (its s field then holds the canonical text).
 */
export function goQuantity(v: unknown, stringCalled = false): unknown {
  const parsed = goQuantityOf(v);
  if (!parsed) return renderedBadValue(goQuantityText({ mantissa: 0n, exponent: 0, format: 'DecimalSI' }, ''));
  const q = roundedToMilli(parsed);
  const cached = stringCalled ? quantityString(v) : q === parsed ? (parsed.text ?? '') : '';
  return renderedBadValue(goQuantityText(q, cached));
}

/** Go's %#v of a core.ResourceList (keys sorted as fmt prints a map). */
export function goResourceList(list: unknown): unknown {
  if (!isObj(list)) return renderedBadValue('core.ResourceList(nil)');
  const entries = Object.keys(list)
    .sort()
    .map((name) => {
      const parsed = goQuantityOf(list[name]);
      const q = parsed ? roundedToMilli(parsed) : { mantissa: 0n, exponent: 0, format: 'DecimalSI' as const };
      return `${goQuote(name)}:${goQuantityText(q, q === parsed ? (parsed.text ?? '') : '')}`;
    });
  return renderedBadValue(`core.ResourceList{${entries.join(', ')}}`);
}

/** Quantity.Value(): whole units, rounded away from zero. */
export function quantityValue(v: unknown): bigint | undefined {
  const nanos = quantityNanos(v);
  return nanos === undefined ? undefined : divideAwayFromZero(nanos, NANO);
}

/** Quantity.MilliValue(): milli-units, rounded away from zero. */
function quantityMilliValue(v: unknown): bigint | undefined {
  const nanos = quantityNanos(v);
  return nanos === undefined ? undefined : divideAwayFromZero(nanos, 1_000_000n);
}

/** ValidateNonnegativeQuantity. */
export function nonNegativeQuantityErrors(v: unknown, path: string): FieldError[] {
  const nanos = quantityNanos(v);
  return nanos !== undefined && nanos < 0n ? [fieldErrors.invalid(path, quantityString(v), 'must be greater than or equal to 0')] : [];
}

/** ValidatePositiveQuantityValue. */
export function positiveQuantityErrors(v: unknown, path: string): FieldError[] {
  const nanos = quantityNanos(v);
  return nanos !== undefined && nanos <= 0n ? [fieldErrors.invalid(path, quantityString(v), 'must be greater than zero')] : [];
}

/** validateBasicResource: the bad value is Value(), an int64. */
export function basicResourceErrors(v: unknown, path: string): FieldError[] {
  const value = quantityValue(v);
  return value !== undefined && value < 0n ? [fieldErrors.invalid(path, value, 'must be a valid resource quantity')] : [];
}

/** ValidateResourceQuantityValue: not negative, and whole units for the resources counted in them. */
export function resourceQuantityValueErrors(name: string, v: unknown, path: string): FieldError[] {
  const errs = nonNegativeQuantityErrors(v, path);
  const milli = quantityMilliValue(v);
  if (isIntegerResourceName(name) && milli !== undefined && milli % 1000n !== 0n) errs.push(fieldErrors.invalid(path, goQuantity(v), 'must be an integer'));
  return errs;
}
