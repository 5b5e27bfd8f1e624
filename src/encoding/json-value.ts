// Decoded JSON as Go's json.Unmarshal into interface{} gives it, and the helpers that build and name such values.

export type JsonValue = null | boolean | number | string | JsonValue[] | JsonObject;
export interface JsonObject {
  [key: string]: JsonValue;
}

/** JSON's name for the kind of a value, as encoding/json's UnmarshalTypeError reports it. */
export type JsonKind = 'object' | 'array' | 'string' | 'number' | 'bool' | 'null';

export function jsonKind(v: unknown): JsonKind {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  switch (typeof v) {
    case 'object':
      return 'object';
    case 'number':
      return 'number';
    case 'boolean':
      return 'bool';
    default:
      return 'string';
  }
}

/** Sets an own data property, even for keys like "__proto__". */
export function setOwn(obj: JsonObject, key: string, value: JsonValue): void {
  if (key === '__proto__') Object.defineProperty(obj, key, { value, writable: true, enumerable: true, configurable: true });
  else obj[key] = value;
}

const LONE_SURROGATE = /\p{Cs}/u;
const LONE_SURROGATES = /\p{Cs}/gu;

/** A string with each surrogate that is not half of a pair replaced by U+FFFD, as Go's decoder unquotes it. */
export function wellFormed(s: string): string {
  return LONE_SURROGATE.test(s) ? s.replace(LONE_SURROGATES, '\ufffd') : s;
}

/**
 * Replaces lone surrogates in every string and key of a decoded value, in place where it can (JSON.parse keeps
 * "\ud800"; Go decodes it as U+FFFD, so keys that differ only there become one, the last value winning). Walks with
 * an explicit stack: decoded values nest up to 10000 levels.
 */
export function replaceLoneSurrogates(root: JsonValue): JsonValue {
  const pending: (JsonObject | JsonValue[])[] = [];
  const visit = (v: JsonValue): JsonValue => {
    if (typeof v === 'string') return wellFormed(v);
    if (typeof v === 'object' && v !== null) pending.push(v);
    return v;
  };
  const result = visit(root);
  for (let c = pending.pop(); c !== undefined; c = pending.pop()) {
    if (Array.isArray(c)) {
      for (let i = 0; i < c.length; i++) c[i] = visit(c[i]!);
      continue;
    }
    const entries = Object.entries(c);
    if (entries.some(([k]) => LONE_SURROGATE.test(k))) {
      // Renamed keys go back in their original order, so the whole object is rebuilt in place.
      for (const [k] of entries) delete c[k];
      for (const [k, v] of entries) setOwn(c, wellFormed(k), visit(v));
    } else {
      for (const [k, v] of entries) setOwn(c, k, visit(v));
    }
  }
  return result;
}
