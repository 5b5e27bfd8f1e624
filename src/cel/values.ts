// JSON data seen from CEL through a declared type (the CEL view of an OpenAPI schema): objects with known fields,
// maps, lists and scalars, wrapped lazily so a rule that reads one field converts one field. Integers become CEL
// ints, numbers doubles; `dyn` (int-or-string, preserved unknown fields) converts by the JSON value's own shape.

import { celEnv, isCelList, isCelMap, isCelUint, parse, plan } from '@bufbuild/cel';
import type { CelList, CelMap, CelValue } from '@bufbuild/cel';
import { charge } from './cost.ts';
import { DYN, type DeclField, type DeclType } from './decl.ts';

export { DYN } from './decl.ts';
export type { DeclField, DeclType } from './decl.ts';

const MAP_BRAND = Symbol.for('@bufbuild/cel/map');
const LIST_BRAND = Symbol.for('@bufbuild/cel/list');

/** The CEL value of a JSON value under a declared type; undefined for JSON null/absent (no CEL value). */
export function jsonToCel(v: unknown, t: DeclType): CelValue {
  if (v === null || v === undefined) return null;
  switch (t.kind) {
    case 'int':
      return typeof v === 'number' && Number.isInteger(v) ? BigInt(v) : dynToCel(v);
    case 'double':
      return typeof v === 'number' ? v : dynToCel(v);
    case 'string':
    case 'bool':
      return typeof v === 'object' ? dynToCel(v) : (v as CelValue);
    case 'bytes':
      return typeof v === 'string' ? new Uint8Array(Buffer.from(v, 'base64')) : dynToCel(v);
    case 'timestamp':
      return typeof v === 'string' ? convert(timestampProgram, t.dateOnly ? `${v}T00:00:00Z` : v) : dynToCel(v);
    case 'duration':
      return typeof v === 'string' ? convert(durationProgram, v) : dynToCel(v);
    case 'object':
      return v !== null && typeof v === 'object' && !Array.isArray(v) ? (new ObjectValue(v as Record<string, unknown>, t.fields) as unknown as CelValue) : dynToCel(v);
    case 'map':
      return v !== null && typeof v === 'object' && !Array.isArray(v) ? (new MapValue(v as Record<string, unknown>, t.value) as unknown as CelValue) : dynToCel(v);
    case 'list':
      return Array.isArray(v) ? (new ListValue(v, t.elem, t.listType, t.mapKeys) as unknown as CelValue) : dynToCel(v);
    case 'uint':
    case 'dyn':
      return dynToCel(v);
  }
}

function dynToCel(v: unknown): CelValue {
  switch (typeof v) {
    case 'number':
      return Number.isInteger(v) ? BigInt(v) : v;
    case 'string':
    case 'boolean':
      return v;
    case 'object':
      if (v === null) return null;
      if (Array.isArray(v)) return new ListValue(v, DYN) as unknown as CelValue;
      return new MapValue(v as Record<string, unknown>, DYN) as unknown as CelValue;
    default:
      return null;
  }
}

abstract class JsonMap {
  readonly [MAP_BRAND] = {};
  protected readonly raw: Record<string, unknown>;
  constructor(raw: Record<string, unknown>) {
    this.raw = raw;
  }
  abstract get(key: unknown): CelValue | undefined;
  abstract keys(): IterableIterator<string>;
  abstract get size(): number;
  has(key: unknown): boolean {
    return this.get(key) !== undefined;
  }
  *entries(): IterableIterator<[string, CelValue]> {
    for (const k of this.keys()) yield [k, this.get(k) as CelValue];
  }
  *values(): IterableIterator<CelValue> {
    for (const k of this.keys()) yield this.get(k) as CelValue;
  }
  forEach(cb: (value: CelValue, key: string, map: unknown) => void): void {
    for (const [k, v] of this.entries()) cb(v, k, this);
  }
  [Symbol.iterator](): IterableIterator<[string, CelValue]> {
    return this.entries();
  }
}

/** An object with declared fields, seen under their CEL (escaped) names; null-valued fields are absent. */
class ObjectValue extends JsonMap {
  private readonly fields: ReadonlyMap<string, DeclField>;
  constructor(raw: Record<string, unknown>, fields: ReadonlyMap<string, DeclField>) {
    super(raw);
    this.fields = fields;
  }
  get(key: unknown): CelValue | undefined {
    if (typeof key !== 'string') return undefined;
    const f = this.fields.get(key);
    if (!f) return undefined;
    const v = this.raw[f.name];
    if (v === undefined || v === null) return undefined;
    charge(1);
    return jsonToCel(v, f.type);
  }
  *keys(): IterableIterator<string> {
    for (const [celName, f] of this.fields) if (this.raw[f.name] !== undefined && this.raw[f.name] !== null) yield celName;
  }
  get size(): number {
    let n = 0;
    for (const _ of this.keys()) n++;
    return n;
  }
}

class MapValue extends JsonMap {
  private readonly valueType: DeclType;
  constructor(raw: Record<string, unknown>, valueType: DeclType) {
    super(raw);
    this.valueType = valueType;
  }
  get(key: unknown): CelValue | undefined {
    if (typeof key !== 'string' || !Object.hasOwn(this.raw, key)) return undefined;
    const v = this.raw[key];
    if (v === undefined) return undefined;
    charge(1);
    return jsonToCel(v, this.valueType);
  }
  keys(): IterableIterator<string> {
    return Object.keys(this.raw)[Symbol.iterator]();
  }
  get size(): number {
    return Object.keys(this.raw).length;
  }
}

/** The size of the JSON list last indexed out of range (the evaluator's error does not carry it). */
export const lastOutOfRange = { size: -1 };

export class ListValue {
  readonly [LIST_BRAND] = {};
  private readonly raw: unknown[];
  private readonly elem: DeclType;
  /** x-kubernetes-list-type: a `set` compares unordered, a `map` by its keys (kube's unstructured lists). */
  readonly listType: string | undefined;
  readonly mapKeys: readonly string[];
  constructor(raw: unknown[], elem: DeclType, listType?: string, mapKeys?: readonly string[]) {
    this.raw = raw;
    this.elem = elem;
    this.listType = listType;
    this.mapKeys = mapKeys ?? [];
  }
  get size(): number {
    return this.raw.length;
  }
  get(index: number): CelValue | undefined {
    if (index < 0 || index >= this.raw.length) {
      lastOutOfRange.size = this.raw.length;
      return undefined;
    }
    charge(1);
    return jsonToCel(this.raw[index], this.elem);
  }
  *values(): IterableIterator<CelValue> {
    for (let i = 0; i < this.raw.length; i++) yield this.get(i) as CelValue;
  }
  [Symbol.iterator](): IterableIterator<CelValue> {
    return this.values();
  }
}

// Timestamp/duration conversion of formatted strings and ordering of values for library functions, delegated to the
// evaluator's own functions; equality is kube's (lists of x-kubernetes-list-type set/map compare as sets/maps).
const plainEnv = celEnv();
const timestampProgram = plan(plainEnv, parse('timestamp(s)'));
const durationProgram = plan(plainEnv, parse('duration(s)'));
const eqProgram = plan(plainEnv, parse('a == b'));
const ltProgram = plan(plainEnv, parse('a < b'));

function convert(program: (vars: never) => unknown, s: string): CelValue {
  const r = program({ s } as never);
  if (r instanceof Error) throw r;
  return r as CelValue;
}

function elements(list: CelList): CelValue[] {
  return [...list];
}

/** The map-list key of an item: its key fields, compared by CEL equality of their values. */
function sameKeys(a: CelValue, b: CelValue, keys: readonly string[]): boolean {
  if (!isCelMap(a) || !isCelMap(b)) return false;
  return keys.every((k) => {
    const x = (a as CelMap).get(k);
    const y = (b as CelMap).get(k);
    return x === undefined ? y === undefined : y !== undefined && celEquals(x, y);
  });
}

/** CEL equality with kube's list semantics; the left operand decides, as in cel-go's Equal. */
export function celEquals(a: CelValue, b: CelValue): boolean {
  if (a === b) return true;
  const ta = typeof a;
  const tb = typeof b;
  if (ta === 'string' || ta === 'boolean' || tb === 'string' || tb === 'boolean') return false;
  // int and double compare by value across types (NaN equals nothing)
  if ((ta === 'bigint' || ta === 'number') && (tb === 'bigint' || tb === 'number')) return a == b;
  if (isCelList(a) && isCelList(b)) {
    const la = a as CelList;
    const lb = b as CelList;
    if (la.size !== lb.size) return false;
    const xs = elements(la);
    const ys = elements(lb);
    if (a instanceof ListValue && a.listType === 'set') return xs.every((x) => ys.some((y) => celEquals(x, y)));
    if (a instanceof ListValue && a.listType === 'map' && a.mapKeys.length > 0) {
      const keys = a.mapKeys;
      return ys.every((y) => {
        const x = xs.find((e) => sameKeys(e, y, keys));
        return x !== undefined && celEquals(x, y);
      });
    }
    return xs.every((x, i) => celEquals(x, ys[i]));
  }
  if (isCelMap(a) && isCelMap(b)) {
    const ma = a as CelMap;
    const mb = b as CelMap;
    if (ma.size !== mb.size) return false;
    for (const [k, v] of ma) {
      const w = mb.get(k as never);
      if (w === undefined || !celEquals(v, w)) return false;
    }
    return true;
  }
  return eqProgram({ a, b } as never) === true;
}

/** -1, 0 or 1; throws when the two values have no ordering. */
export function compareValues(a: CelValue, b: CelValue): number {
  if ((typeof a === 'bigint' || typeof a === 'number') && (typeof b === 'bigint' || typeof b === 'number')) return a < b ? -1 : a > b ? 1 : 0;
  if (typeof a === 'string' && typeof b === 'string') return a < b ? -1 : a > b ? 1 : 0;
  if (isCelUint(a) && isCelUint(b)) return a.value < b.value ? -1 : a.value > b.value ? 1 : 0;
  const lt = ltProgram({ a, b } as never);
  if (lt instanceof Error) throw lt;
  if (lt === true) return -1;
  const gt = ltProgram({ a: b, b: a } as never);
  if (gt instanceof Error) throw gt;
  return gt === true ? 1 : 0;
}
