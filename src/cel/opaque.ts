// Values of the Kubernetes library types (Quantity, URL, optional, IP, CIDR, authorizer handles). @bufbuild/cel knows
// only its built-in value kinds, so these travel through the evaluator as one-entry maps: the entry (under a symbol
// key no expression can write) carries the identity that CEL equality compares.

import { celMethod, celFunc, CelScalar, mapType } from '@bufbuild/cel';
import type { CelFunc, CelType, CelValue } from '@bufbuild/cel';

const MAP_BRAND = Symbol.for('@bufbuild/cel/map');
export const IDENTITY = Symbol('capstan.cel.identity');

/** The CEL type all library values share as far as @bufbuild/cel's overload matching is concerned. */
export const OPAQUE: CelType = mapType(CelScalar.DYN, CelScalar.DYN);

export abstract class OpaqueValue {
  readonly [MAP_BRAND] = {};
  abstract readonly typeName: string;
  /** What equality compares: two values of one type are equal when their identities are. */
  protected abstract identity(): CelValue | undefined;
  get size(): number {
    return this.identity() === undefined ? 0 : 1;
  }
  get(key: unknown): CelValue | undefined {
    return key === IDENTITY ? this.identity() : this.select(key);
  }
  /** Field selection on the value: none by default (optionals chain through it). */
  protected select(_key: unknown): CelValue | undefined {
    return undefined;
  }
  has(key: unknown): boolean {
    return this.get(key) !== undefined;
  }
  *entries(): IterableIterator<[unknown, CelValue]> {
    const id = this.identity();
    if (id !== undefined) yield [IDENTITY, id];
  }
  keys(): IterableIterator<unknown> {
    return [...this.entries()].map(([k]) => k)[Symbol.iterator]();
  }
  *values(): IterableIterator<CelValue> {
    for (const [, v] of this.entries()) yield v;
  }
  forEach(cb: (value: CelValue, key: unknown, map: unknown) => void): void {
    for (const [k, v] of this.entries()) cb(v, k, this);
  }
  [Symbol.iterator](): IterableIterator<[unknown, CelValue]> {
    return this.entries();
  }
}

/** The error a call with arguments no overload accepts raises (cel-go's wording). */
export function noSuchOverload(): Error {
  return new Error('no such overload');
}

type Ctor<T> = abstract new (...args: never[]) => T;

export function expect<T extends OpaqueValue>(cls: Ctor<T>, v: unknown): T {
  if (v instanceof cls) return v;
  throw noSuchOverload();
}

/** A method on a library type: the target is checked to be of that type. */
export function opaqueMethod<T extends OpaqueValue>(
  name: string,
  cls: Ctor<T>,
  args: readonly CelType[],
  result: CelType,
  impl: (self: T, ...args: CelValue[]) => unknown,
): CelFunc {
  return celMethod(name, OPAQUE, args, result, function (this: CelValue, ...a: CelValue[]) {
    return impl(expect(cls, this), ...a) as never;
  } as never);
}

export function func(name: string, args: readonly CelType[], result: CelType, impl: (...args: CelValue[]) => unknown): CelFunc {
  return celFunc(name, args, result, impl as never);
}

export function method(name: string, target: CelType, args: readonly CelType[], result: CelType, impl: (self: CelValue, ...args: CelValue[]) => unknown): CelFunc {
  return celMethod(name, target, args, result, function (this: CelValue, ...a: CelValue[]) {
    return impl(this, ...a) as never;
  } as never);
}
