// Go-compatible renderings that kube-apiserver exposes verbatim: encoding/json output (sorted map keys, HTML
// escaping), Go's string order, and fmt's %#v/%T of decoded JSON values in error messages (%v and %q are in
// src/encoding/go-format.ts).

import { goQuote, goValue } from '../encoding/go-format.ts';

/** Go's encoding/json Marshal of a decoded JSON value: map keys sorted, <, >, & and U+2028/U+2029 escaped. */
export function goJsonMarshal(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'string') return goJsonString(value);
  if (typeof value === 'number') return goJsonNumber(value);
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (Array.isArray(value)) return `[${value.map(goJsonMarshal).join(',')}]`;
  if (typeof value === 'object') {
    const obj = value as Record<string, unknown>;
    const keys = Object.keys(obj).filter((k) => obj[k] !== undefined).sort(compareGoStrings);
    return `{${keys.map((k) => `${goJsonString(k)}:${goJsonMarshal(obj[k])}`).join(',')}}`;
  }
  return 'null';
}

const GO_UNSAFE = /[<>&\u2028\u2029]/g;

export function goJsonString(s: string): string {
  const quoted = JSON.stringify(s);
  GO_UNSAFE.lastIndex = 0;
  return GO_UNSAFE.test(quoted) ? quoted.replace(GO_UNSAFE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`) : quoted;
}

function goJsonNumber(n: number): string {
  if (!Number.isFinite(n)) return 'null';
  // encoding/json switches to exponent form exactly where JavaScript does (< 1e-6 or >= 1e21) and trims the
  // exponent the same way ("1e-7", "1e+21").
  return JSON.stringify(n);
}

/** strings.Compare: byte order of the UTF-8 encodings, which is code point order (not UTF-16 unit order). */
export function compareGoStrings(a: string, b: string): number {
  if (a === b) return 0;
  const la = a.length;
  const lb = b.length;
  let i = 0;
  let j = 0;
  while (i < la && j < lb) {
    const ca = a.codePointAt(i)!;
    const cb = b.codePointAt(j)!;
    if (ca !== cb) return ca < cb ? -1 : 1;
    i += ca > 0xffff ? 2 : 1;
    j += cb > 0xffff ? 2 : 1;
  }
  if (i < la) return 1;
  if (j < lb) return -1;
  return 0;
}

/** fmt's %#v of a decoded JSON value. */
export function goValueSharpV(v: unknown): string {
  if (v === null || v === undefined) return 'interface {}(nil)';
  if (typeof v === 'string') return goQuote(v);
  if (typeof v === 'boolean') return String(v);
  if (typeof v === 'number') return goValue(v);
  if (Array.isArray(v)) return `[]interface {}{${v.map(goValueSharpV).join(', ')}}`;
  if (typeof v === 'object') {
    const obj = v as Record<string, unknown>;
    const keys = Object.keys(obj).sort(compareGoStrings);
    return `map[string]interface {}{${keys.map((k) => `${goQuote(k)}:${goValueSharpV(obj[k])}`).join(', ')}}`;
  }
  return String(v);
}

/** fmt's %T of a decoded JSON value. */
export function goTypeName(v: unknown): string {
  if (v === null || v === undefined) return '<nil>';
  if (typeof v === 'string') return 'string';
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'number') return Number.isInteger(v) ? 'int64' : 'float64';
  if (Array.isArray(v)) return '[]interface {}';
  return 'map[string]interface {}';
}
