// Go-flavoured views of JSON values for error messages and equality: kube's patch libraries print values with
// fmt's %v, name types as reflect does, and compare interface{} values by dynamic type and value.

import type { JsonObject, JsonValue } from '../encoding/json-value.ts';
import { HandlerPanic } from '../apis/errors.ts';

/** The dynamic Go type a JSON value decodes to (ints preserved as int64, as kube decodes patches). */
export type GoKind = 'map' | 'slice' | 'string' | 'int64' | 'float64' | 'bool' | 'nil';

export function isJsonObject(v: unknown): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function hasOwn(obj: object, key: string): boolean {
  return Object.prototype.hasOwnProperty.call(obj, key);
}

export function goKind(v: unknown): GoKind {
  if (v === null || v === undefined) return 'nil';
  if (Array.isArray(v)) return 'slice';
  switch (typeof v) {
    case 'object':
      return 'map';
    case 'string':
      return 'string';
    case 'boolean':
      return 'bool';
    case 'number':
      return Number.isInteger(v) && Math.abs(v) < 2 ** 63 ? 'int64' : 'float64';
  }
  return 'nil';
}

/** reflect.TypeOf(v) printed with %s, as mergepatch.ErrBadArgType does. */
export function goTypeString(v: unknown): string {
  switch (goKind(v)) {
    case 'map':
      return 'map[string]interface {}';
    case 'slice':
      return '[]interface {}';
    case 'nil':
      return '%!s(<nil>)';
    default:
      return goKind(v);
  }
}

/** fmt's %v for a float64: shortest digits, exponent form below 1e-4 and from 1e6 (strconv 'g', -1). */
function formatFloatV(x: number): string {
  if (Number.isNaN(x)) return 'NaN';
  if (!Number.isFinite(x)) return x > 0 ? '+Inf' : '-Inf';
  if (x === 0) return Object.is(x, -0) ? '-0' : '0';
  const [mantissa, expText] = x.toExponential().split('e') as [string, string];
  const exp = Number(expText);
  if (exp < -4 || exp >= 6) {
    const sign = exp < 0 ? '-' : '+';
    return `${mantissa}e${sign}${String(Math.abs(exp)).padStart(2, '0')}`;
  }
  return String(x);
}

/** fmt.Sprint / %v of a decoded JSON value (maps print with sorted keys, as fmt does). */
export function goSprint(v: unknown): string {
  switch (goKind(v)) {
    case 'nil':
      return '<nil>';
    case 'map': {
      const obj = v as JsonObject;
      const keys = Object.keys(obj).sort();
      return `map[${keys.map((k) => `${k}:${goSprint(obj[k])}`).join(' ')}]`;
    }
    case 'slice':
      return `[${(v as JsonValue[]).map(goSprint).join(' ')}]`;
    case 'int64':
      return Math.abs(v as number) >= 1e21 ? BigInt(v as number).toString() : String(v);
    case 'float64':
      return formatFloatV(v as number);
    default:
      return String(v);
  }
}

/** fmt's %s: strings as they are, anything else as Go's bad-verb form "%!s(type=value)". */
export function goSprintS(v: unknown): string {
  if (typeof v === 'string') return v;
  const kind = goKind(v);
  if (kind === 'nil') return '%!s(<nil>)';
  if (kind === 'map' || kind === 'slice') return goSprint(v);
  return `%!s(${kind}=${goSprint(v)})`;
}

/** A Go runtime error inside kube's libraries: kube-apiserver panics (see HandlerPanic). */
export class GoRuntimePanic extends HandlerPanic {
  constructor(message: string) {
    super(`runtime error: ${message}`);
    this.name = 'GoRuntimePanic';
  }
}

/** Go's == on two interface{} values: equal dynamic type and value; maps and slices cannot be compared. */
export function goInterfaceEqual(a: unknown, b: unknown): boolean {
  const ka = goKind(a);
  const kb = goKind(b);
  if (ka !== kb) return false;
  if (ka === 'nil') return true;
  if (ka === 'map' || ka === 'slice') throw new GoRuntimePanic(`comparing uncomparable type ${goTypeString(a)}`);
  return a === b;
}

/** A key under which a hashable interface{} value can live in a JS Map, as Go's map[interface{}]T keys it. */
export function goHashKey(v: unknown): string {
  const kind = goKind(v);
  if (kind === 'map' || kind === 'slice') throw new GoRuntimePanic(`hash of unhashable type ${goTypeString(v)}`);
  return `${kind}:${String(v)}`;
}

const HTML_ESCAPES: Record<string, string> = { '<': '\\u003c', '>': '\\u003e', '&': '\\u0026', '\u2028': '\\u2028', '\u2029': '\\u2029' };

/** json.Marshal of a decoded value: keys sorted (Go maps), HTML characters escaped. */
export function goMarshal(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(goMarshal).join(',')}]`;
  if (isJsonObject(v)) {
    const keys = Object.keys(v).sort();
    return `{${keys.map((k) => `${goMarshal(k)}:${goMarshal(v[k])}`).join(',')}}`;
  }
  if (typeof v === 'string') return JSON.stringify(v).replace(/[<>&\u2028\u2029]/g, (c) => HTML_ESCAPES[c]!);
  if (v === undefined) return 'null';
  return JSON.stringify(v);
}

