// Small helpers for reading and shaping decoded objects whose content is unchecked JSON.

export type Obj = Record<string, unknown>;

export function isObj(v: unknown): v is Obj {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** The object at obj[key], created (and replacing a non-object) when missing. */
export function ensureObj(obj: Obj, key: string): Obj {
  const v = obj[key];
  if (isObj(v)) return v;
  const created: Obj = {};
  obj[key] = created;
  return created;
}

/** obj[key] as an object, or undefined. */
export function objAt(obj: unknown, key: string): Obj | undefined {
  if (!isObj(obj)) return undefined;
  const v = obj[key];
  return isObj(v) ? v : undefined;
}

/** Follow a path of keys; undefined when any step is missing or not an object. */
export function getPath(obj: unknown, ...keys: string[]): unknown {
  let cur: unknown = obj;
  for (const k of keys) {
    if (!isObj(cur)) return undefined;
    cur = cur[k];
  }
  return cur;
}

export function strAt(obj: unknown, ...keys: string[]): string {
  const v = getPath(obj, ...keys);
  return typeof v === 'string' ? v : '';
}

export function numAt(obj: unknown, ...keys: string[]): number {
  const v = getPath(obj, ...keys);
  return typeof v === 'number' ? v : 0;
}

export function arrAt(obj: unknown, ...keys: string[]): unknown[] {
  const v = getPath(obj, ...keys);
  return Array.isArray(v) ? v : [];
}

/** Array elements that are objects (others skipped). */
export function objsAt(obj: unknown, ...keys: string[]): Obj[] {
  return arrAt(obj, ...keys).filter(isObj);
}

export function stringMap(v: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (isObj(v)) for (const [k, x] of Object.entries(v)) if (typeof x === 'string') out[k] = x;
  return out;
}

/** Set obj[key] = value when obj[key] is missing or null. */
export function setDefault(obj: Obj, key: string, value: unknown): void {
  if (obj[key] === undefined || obj[key] === null) obj[key] = value;
}

/** Set obj[key] = value when obj[key] is missing, null or "" (Go's zero value for strings). */
export function setDefaultString(obj: Obj, key: string, value: string): void {
  if (obj[key] === undefined || obj[key] === null || obj[key] === '') obj[key] = value;
}

function isZeroish(v: unknown): boolean {
  return v === undefined || v === null || v === '' || (Array.isArray(v) && v.length === 0) || (isObj(v) && Object.keys(v).length === 0);
}

/**
 * apiequality.Semantic.DeepEqual over JSON: key order ignored; missing, null, "" and empty lists/maps are
 * equal (Go's zero values and nil/empty collections compare equal).
 */
export function semanticEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (isZeroish(a) || isZeroish(b)) return isZeroish(a) && isZeroish(b);
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    return a.every((x, i) => semanticEqual(x, b[i]));
  }
  if (isObj(a)) {
    if (!isObj(b)) return false;
    const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
    for (const k of keys) if (!semanticEqual(a[k], b[k])) return false;
    return true;
  }
  return false;
}

export function clone<T>(v: T): T {
  return v === undefined ? v : (JSON.parse(JSON.stringify(v)) as T);
}

/** A copy of a string map with keys sorted (Go prints maps sorted, also in error values). */
export function sortedMap(m: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const k of Object.keys(m).sort()) out[k] = m[k];
  return out;
}
