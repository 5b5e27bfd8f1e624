// JSON as kube-apiserver reads and writes it: a reader that decodes as Go's json.Unmarshal into interface{} does,
// with Go's syntax errors and the paths of repeated keys (from scanJson), and an encoder that escapes like Go's
// (HTML-safe) encoder.

import { scanJson } from './json-syntax.ts';
import { jsonKind, replaceLoneSurrogates, type JsonKind, type JsonValue } from './json-value.ts';

export interface ParsedJson {
  value: JsonValue;
  /** Paths of repeated object keys in document order (the last value is kept, as in Go). */
  duplicates: string[];
  topLevel: JsonKind;
}

/** The end of an object key: an unescaped quote followed by ':' (the opening quote of a value like ":x" also matches). */
const KEY_END = /(?<!\\)(?:\\\\)*"[ \t\r\n]*:/g;
/** Nesting past which the fast path leaves the depth check to scanJson. */
const FAST_DEPTH = 256;

/** Object keys in a parsed value, or -1 when it nests deeper than FAST_DEPTH. */
function countKeys(v: unknown, depth: number): number {
  if (typeof v !== 'object' || v === null) return 0;
  if (depth > FAST_DEPTH) return -1;
  let n = 0;
  if (Array.isArray(v)) {
    for (const x of v) {
      const k = countKeys(x, depth + 1);
      if (k < 0) return -1;
      n += k;
    }
    return n;
  }
  for (const key in v) {
    n++;
    const k = countKeys((v as Record<string, unknown>)[key], depth + 1);
    if (k < 0) return -1;
    n += k;
  }
  return n;
}

/** An escaped surrogate: JSON.parse keeps a lone one, Go decodes it as U+FFFD. */
const SURROGATE_ESCAPE = /\\u[dD][89a-fA-F]/;

/**
 * Parses JSON text as Go's json.Unmarshal into interface{} does, reporting Go-worded syntax errors (JsonSyntaxError)
 * and duplicate keys. The common case costs one JSON.parse and one native regex count: when the text's key ends
 * number exactly the parsed value's keys, no key was repeated (a repeat would make the parsed count smaller, a false
 * match the text count larger). Anything else (a syntax error, a possible duplicate, deep nesting, an escaped
 * surrogate) takes the full scan for Go's messages and duplicate paths.
 */
export function parseJson(text: string): ParsedJson {
  let value: JsonValue | undefined;
  try {
    value = JSON.parse(text) as JsonValue;
  } catch {
    value = undefined;
  }
  const surrogates = text.includes('\\u') && SURROGATE_ESCAPE.test(text);
  if (value !== undefined && !surrogates) {
    const keys = countKeys(value, 0);
    if (keys >= 0) {
      let ends = 0;
      KEY_END.lastIndex = 0;
      while (KEY_END.exec(text) !== null) ends++;
      if (ends === keys) return { value, duplicates: [], topLevel: jsonKind(value) };
    }
  }
  const scan = scanJson(text);
  if (value === undefined) value = JSON.parse(text) as JsonValue;
  return { value: surrogates ? replaceLoneSurrogates(value) : value, duplicates: scan.duplicates, topLevel: scan.topLevel };
}

const htmlUnsafe = /[<>&\u2028\u2029]/;
const htmlUnsafeAll = /[<>&\u2028\u2029]/g;
const escapes: Record<string, string> = { '<': '\\u003c', '>': '\\u003e', '&': '\\u0026', '\u2028': '\\u2028', '\u2029': '\\u2029' };

/** Characters Go's encoder escapes can only occur inside JSON strings, so a global replace is safe. */
export function goEscape(s: string): string {
  return htmlUnsafe.test(s) ? s.replace(htmlUnsafeAll, (c) => escapes[c]) : s;
}

/** Go's json.Encoder output: compact and newline-terminated, or MarshalIndent with two spaces and no newline. */
export function encodeJson(value: unknown, pretty = false): string {
  return pretty ? goEscape(JSON.stringify(value, null, 2)) : `${goEscape(JSON.stringify(value))}\n`;
}
