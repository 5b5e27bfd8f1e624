// Kubernetes quantity library (k8s.io/apiserver/pkg/cel/library/quantity.go): quantity, isQuantity and the Quantity
// methods. Values are exact (nano-units), parsed by the same code that validates quantities in objects.

import { CelScalar } from '@bufbuild/cel';
import { parseQuantity } from '../../registry/validation/quantity.ts';
import { OpaqueValue, func, opaqueMethod, expect, OPAQUE } from '../opaque.ts';

const { STRING, BOOL, INT, DOUBLE } = CelScalar;
const NANO = 1_000_000_000n;
const INT64_MAX = 9223372036854775807n;
const INT64_MIN = -9223372036854775808n;

export class QuantityValue extends OpaqueValue {
  readonly typeName = 'kubernetes.Quantity';
  readonly nanos: bigint;
  constructor(nanos: bigint) {
    super();
    this.nanos = nanos;
  }
  protected identity(): bigint {
    return this.nanos;
  }
}

// Rules parse the same few strings (their constants, the object's values) again and again.
const parsed = new Map<string, QuantityValue | string>();

export function quantityOf(s: string): QuantityValue {
  let q = parsed.get(s);
  if (q === undefined) {
    const r = parseQuantity(s);
    q = r.ok ? new QuantityValue(r.nanos) : r.error;
    if (parsed.size >= 1000) parsed.clear();
    parsed.set(s, q);
  }
  if (typeof q === 'string') throw new Error(q);
  return q;
}

function nanosOf(v: unknown): bigint {
  if (typeof v === 'bigint') return v * NANO;
  return expect(QuantityValue, v).nanos;
}

function cmp(a: bigint, b: bigint): bigint {
  return a < b ? -1n : a > b ? 1n : 0n;
}

function asInteger(q: QuantityValue): bigint | undefined {
  if (q.nanos % NANO !== 0n) return undefined;
  const i = q.nanos / NANO;
  return i > INT64_MAX || i < INT64_MIN ? undefined : i;
}

export const quantityFuncs = [
  func('quantity', [STRING], OPAQUE, (s) => quantityOf(s as string)),
  func('isQuantity', [STRING], BOOL, (s) => {
    try {
      quantityOf(s as string);
      return true;
    } catch {
      return false;
    }
  }),
  opaqueMethod('sign', QuantityValue, [], INT, (q) => cmp(q.nanos, 0n)),
  opaqueMethod('isGreaterThan', QuantityValue, [OPAQUE], BOOL, (q, o) => q.nanos > nanosOf(o)),
  opaqueMethod('isLessThan', QuantityValue, [OPAQUE], BOOL, (q, o) => q.nanos < nanosOf(o)),
  opaqueMethod('compareTo', QuantityValue, [OPAQUE], INT, (q, o) => cmp(q.nanos, nanosOf(o))),
  opaqueMethod('add', QuantityValue, [OPAQUE], OPAQUE, (q, o) => new QuantityValue(q.nanos + nanosOf(o))),
  opaqueMethod('add', QuantityValue, [INT], OPAQUE, (q, o) => new QuantityValue(q.nanos + nanosOf(o))),
  opaqueMethod('sub', QuantityValue, [OPAQUE], OPAQUE, (q, o) => new QuantityValue(q.nanos - nanosOf(o))),
  opaqueMethod('sub', QuantityValue, [INT], OPAQUE, (q, o) => new QuantityValue(q.nanos - nanosOf(o))),
  opaqueMethod('isInteger', QuantityValue, [], BOOL, (q) => asInteger(q) !== undefined),
  opaqueMethod('asInteger', QuantityValue, [], INT, (q) => {
    const i = asInteger(q);
    if (i === undefined) throw new Error('cannot convert value to integer');
    return i;
  }),
  opaqueMethod('asApproximateFloat', QuantityValue, [], DOUBLE, (q) => Number(q.nanos) / 1e9),
];
