// CEL optional values (cel-go's OptionalTypes library, which kube 1.31 enables): optional.of, optional.none,
// optional.ofNonZeroValue, hasValue, value, orValue, or, and the `x.?field` / `x[?key]` syntax. @bufbuild/cel's
// parser has no optional syntax, so rewriteOptionalSyntax turns it into calls of _optSelect_ / _optIndex_.

import { CelScalar, isCelList, isCelMap, isCelUint } from '@bufbuild/cel';
import type { CelList, CelMap, CelValue } from '@bufbuild/cel';
import { OpaqueValue, func, method, opaqueMethod, OPAQUE } from '../opaque.ts';

const { DYN, BOOL } = CelScalar;

export class OptionalValue extends OpaqueValue {
  readonly typeName = 'optional_type';
  readonly value: CelValue | undefined;
  constructor(value: CelValue | undefined) {
    super();
    this.value = value;
  }
  protected identity(): CelValue | undefined {
    return this.value;
  }
  /** Selecting a field of an optional yields an optional (optional chaining). */
  protected override select(key: unknown): CelValue {
    return selectOptional(this, key) as unknown as CelValue;
  }
  /** has(opt.f): the optional has a value and that value has the field. */
  override has(key: unknown): boolean {
    return selectOptional(this, key).value !== undefined;
  }
}

export const NONE = new OptionalValue(undefined);

function lookup(target: CelValue, key: CelValue): CelValue | undefined {
  if (isCelMap(target)) return (target as CelMap).get(key as never);
  if (isCelList(target)) {
    const k = isCelUint(key) ? key.value : key;
    if (typeof k === 'bigint' || (typeof k === 'number' && Number.isInteger(k))) return (target as CelList).get(Number(k));
    throw new Error('unsupported index type');
  }
  throw new Error('no such overload');
}

function selectOptional(target: CelValue | OptionalValue, key: unknown): OptionalValue {
  if (target instanceof OptionalValue) {
    if (target.value === undefined) return NONE;
    target = target.value;
  }
  const v = lookup(target as CelValue, key as CelValue);
  return v === undefined ? NONE : new OptionalValue(v);
}

function isZero(v: CelValue): boolean {
  if (v === null || v === false || v === 0 || v === 0n || v === '') return true;
  if (isCelUint(v)) return v.value === 0n;
  if (v instanceof Uint8Array) return v.length === 0;
  if (v instanceof OpaqueValue) return false;
  if (isCelList(v)) return (v as CelList).size === 0;
  if (isCelMap(v)) return (v as CelMap).size === 0;
  return false;
}

export const optionalFuncs = [
  func('optional.of', [DYN], OPAQUE, (v) => new OptionalValue(v)),
  func('optional.none', [], OPAQUE, () => NONE),
  func('optional.ofNonZeroValue', [DYN], OPAQUE, (v) => (isZero(v) ? NONE : new OptionalValue(v))),
  opaqueMethod('hasValue', OptionalValue, [], BOOL, (o) => o.value !== undefined),
  opaqueMethod('value', OptionalValue, [], DYN, (o) => {
    if (o.value === undefined) throw new Error('optional.none() dereference');
    return o.value;
  }),
  opaqueMethod('orValue', OptionalValue, [DYN], DYN, (o, v) => (o.value === undefined ? v : o.value)),
  opaqueMethod('or', OptionalValue, [OPAQUE], OPAQUE, (o, other) => (o.value === undefined ? other : o)),
  method('_optSelect_', DYN, [DYN], OPAQUE, (target, key) => selectOptional(target, key)),
  method('_optIndex_', DYN, [DYN], OPAQUE, (target, key) => selectOptional(target, key)),
];

/**
 * Rewrites `x.?f` to `x._optSelect_('f')` and `x[?k]` to `x._optIndex_(k)`, leaving string literals alone. Column
 * numbers in later error messages refer to the rewritten text only where optional syntax was used.
 */
export function rewriteOptionalSyntax(src: string): string {
  if (!src.includes('?')) return src;
  let out = '';
  const closers: string[] = [];
  let i = 0;
  let prevSignificant = '';
  while (i < src.length) {
    const c = src[i];
    // comments run to the end of the line
    if (c === '/' && src[i + 1] === '/') {
      const end = src.indexOf('\n', i);
      const stop = end < 0 ? src.length : end;
      out += src.slice(i, stop);
      i = stop;
      continue;
    }
    // string literals (with r/b prefixes and triple quotes) are copied verbatim
    if (c === '"' || c === "'") {
      const triple = src.startsWith(c.repeat(3), i);
      const q = triple ? c.repeat(3) : c;
      const raw = /[rR]/.test(src[i - 1] ?? '') || /[rR]/.test(src[i - 2] ?? '');
      let j = i + q.length;
      while (j < src.length && !src.startsWith(q, j)) j += !raw && src[j] === '\\' ? 2 : 1;
      out += src.slice(i, j + q.length);
      i = j + q.length;
      prevSignificant = c;
      continue;
    }
    if (c === '.' && src[i + 1] === '?') {
      const m = /^\s*([A-Za-z_][A-Za-z0-9_]*)/.exec(src.slice(i + 2));
      if (m) {
        out += `._optSelect_('${m[1]}')`;
        i += 2 + m[0].length;
        prevSignificant = ')';
        continue;
      }
    }
    if (c === '[') {
      const isIndex = /[A-Za-z0-9_)\]}"']/.test(prevSignificant);
      if (isIndex && src[i + 1] === '?') {
        out += '._optIndex_(';
        closers.push(')');
        i += 2;
        prevSignificant = '(';
        continue;
      }
      closers.push(']');
    } else if (c === ']') {
      out += closers.pop() ?? ']';
      i++;
      prevSignificant = ']';
      continue;
    }
    out += c;
    if (!/\s/.test(c)) prevSignificant = c;
    i++;
  }
  return out;
}
