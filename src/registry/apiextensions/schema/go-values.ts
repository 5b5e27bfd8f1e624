// How Go prints and compares the values kube-openapi's validator reports: %v of a float64, JSON numbers decoded
// as int64 or float64 (apimachinery's unstructured decoding), utf8.RuneCount, reflect.DeepEqual on JSON values.

/** A JSON number that Go's unstructured decoding keeps as int64 (integral and in range). */
export function isGoInt(n: number): boolean {
  return Number.isInteger(n) && Math.abs(n) <= 9223372036854775807;
}

/** fmt's %v of a float64: shortest representation, exponent form below 1e-4 and from 1e21, two-digit exponent. */
export function goFloat(n: number): string {
  if (Number.isNaN(n)) return 'NaN';
  if (!Number.isFinite(n)) return n > 0 ? '+Inf' : '-Inf';
  if (n === 0) return Object.is(n, -0) ? '-0' : '0';
  const abs = Math.abs(n);
  if (abs < 1e-4 || abs >= 1e21) {
    const [mant, exp] = n.toExponential().split('e');
    const sign = exp.startsWith('-') ? '-' : '+';
    const digits = exp.replace(/^[-+]/, '');
    return `${mant}e${sign}${digits.length < 2 ? '0' + digits : digits}`;
  }
  return String(n);
}

/** %v of a number decoded from JSON: int64 prints as an integer, float64 as goFloat. */
export function goNumber(n: number): string {
  return isGoInt(n) ? String(n) : goFloat(n);
}

/** utf8.RuneCountInString. */
export function runeCount(s: string): number {
  let n = s.length;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        n--;
        i++;
      }
    }
  }
  return n;
}

/** reflect.DeepEqual on decoded JSON (int64 and float64 differ in Go; here both are numbers). */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!jsonEqual(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const ak = Object.keys(a);
  if (ak.length !== Object.keys(b).length) return false;
  for (const k of ak) {
    if (!Object.hasOwn(b, k) || !jsonEqual((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k])) return false;
  }
  return true;
}

/** swag.IsFloat64AJSONInteger: integral up to a relative error of 1e-9. */
export function isFloatAJSONInteger(f: number): boolean {
  if (!Number.isFinite(f) || Math.abs(f) > 9007199254740991) return false;
  if (Number.isInteger(f)) return true;
  const g = Math.trunc(f);
  const diff = Math.abs(f - g);
  if (f === 0 || g === 0) return diff < 1e-9 * Number.MIN_VALUE;
  return diff / Math.min(Math.abs(f) + Math.abs(g), Number.MAX_VALUE) < 1e-9;
}

export function isPlainObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** Go's %#v of a decoded JSON value, as field.Error prints maps and slices: map[string]interface {}{"a":1}. */
export function goSharpV(v: unknown): string {
  if (v === null || v === undefined) return 'interface {}(nil)';
  switch (typeof v) {
    case 'string':
      return JSON.stringify(v);
    case 'number':
      return goNumber(v);
    case 'object':
      if (Array.isArray(v)) return `[]interface {}{${v.map(goSharpV).join(', ')}}`;
      return `map[string]interface {}{${Object.keys(v)
        .sort()
        .map((k) => `${JSON.stringify(k)}:${goSharpV((v as Record<string, unknown>)[k])}`)
        .join(', ')}}`;
    default:
      return String(v);
  }
}
