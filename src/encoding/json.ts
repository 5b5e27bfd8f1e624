// JSON as kube-apiserver reads and writes it: a validating scanner that reports syntax errors with
// Go's encoding/json wording and duplicate object keys with their field paths, and an encoder that
// escapes like Go's (HTML-safe) encoder.

export class JsonSyntaxError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'JsonSyntaxError';
  }
}

export interface ScanResult {
  /** Paths of repeated object keys in document order, e.g. "metadata.name", "spec.containers[0].image". */
  duplicates: string[];
  /** Kind of the top-level value. */
  topLevel: 'object' | 'array' | 'string' | 'number' | 'bool' | 'null';
}

/** Go's quoteChar: how encoding/json names an unexpected byte. */
function quoteChar(code: number): string {
  if (code === 0x27) return `'\\''`;
  if (code === 0x22) return `'"'`;
  let s: string;
  switch (code) {
    case 0x07: s = '\\a'; break;
    case 0x08: s = '\\b'; break;
    case 0x0c: s = '\\f'; break;
    case 0x0a: s = '\\n'; break;
    case 0x0d: s = '\\r'; break;
    case 0x09: s = '\\t'; break;
    case 0x0b: s = '\\v'; break;
    case 0x5c: s = '\\\\'; break;
    default:
      if (code < 0x20 || code === 0x7f) s = `\\x${code.toString(16).padStart(2, '0')}`;
      else if (code >= 0x80 && code < 0xa0) s = `\\u${code.toString(16).padStart(4, '0')}`;
      else s = String.fromCharCode(code);
  }
  return `'${s}'`;
}

/** The first UTF-8 byte of the code point at i (Go's scanner sees bytes, not UTF-16 units). */
function firstByte(text: string, i: number): number {
  const cp = text.codePointAt(i) ?? 0;
  if (cp < 0x80) return cp;
  if (cp < 0x800) return 0xc0 | (cp >> 6);
  if (cp < 0x10000) return 0xe0 | (cp >> 12);
  return 0xf0 | (cp >> 18);
}

interface Frame {
  kind: 'object' | 'array';
  path: string;
  keys: Set<string> | undefined;
  index: number;
}

/** encoding/json's maxNestingDepth: deeper input is a syntax error ("exceeded max depth"). */
export const MAX_JSON_NESTING_DEPTH = 10000;

function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;
}

function isDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}

function isHex(c: number): boolean {
  return isDigit(c) || (c >= 0x61 && c <= 0x66) || (c >= 0x41 && c <= 0x46);
}

/**
 * Validates `text` as one JSON value. Throws JsonSyntaxError with Go's message
 * ("invalid character 'x' looking for beginning of value", "unexpected end of JSON input", ...).
 */
export function scanJson(text: string): ScanResult {
  const n = text.length;
  const duplicates: string[] = [];
  const stack: Frame[] = [];
  let i = 0;
  let topLevel: ScanResult['topLevel'] = 'null';

  const fail = (at: number, context: string): never => {
    if (at >= n) throw new JsonSyntaxError('unexpected end of JSON input');
    throw new JsonSyntaxError(`invalid character ${quoteChar(firstByte(text, at))} ${context}`);
  };
  const skipSpace = () => {
    while (i < n && isSpace(text.charCodeAt(i))) i++;
  };

  // Scans a string starting at the opening quote; returns the raw content span.
  const scanString = (): [number, number, boolean] => {
    const start = ++i;
    let escaped = false;
    for (;;) {
      if (i >= n) fail(i, '');
      const c = text.charCodeAt(i);
      if (c === 0x22) {
        const end = i++;
        return [start, end, escaped];
      }
      if (c === 0x5c) {
        escaped = true;
        i++;
        if (i >= n) fail(i, '');
        const e = text.charCodeAt(i);
        if (e === 0x75) {
          for (let k = 1; k <= 4; k++) {
            if (i + k >= n) fail(i + k, '');
            if (!isHex(text.charCodeAt(i + k))) fail(i + k, 'in \\u hexadecimal character escape');
          }
          i += 5;
          continue;
        }
        if (e === 0x22 || e === 0x5c || e === 0x2f || e === 0x62 || e === 0x66 || e === 0x6e || e === 0x72 || e === 0x74) {
          i++;
          continue;
        }
        fail(i, 'in string escape code');
      }
      if (c < 0x20) fail(i, 'in string literal');
      i++;
    }
  };

  const scanLiteral = (word: string) => {
    for (let k = 1; k < word.length; k++) {
      if (i + k >= n) fail(i + k, '');
      if (text.charCodeAt(i + k) !== word.charCodeAt(k)) fail(i + k, `in literal ${word} (expecting ${quoteChar(word.charCodeAt(k))})`);
    }
    i += word.length;
  };

  const scanNumber = () => {
    if (text.charCodeAt(i) === 0x2d) {
      i++;
      if (i >= n) fail(i, '');
      if (!isDigit(text.charCodeAt(i))) fail(i, 'in numeric literal');
    }
    if (text.charCodeAt(i) === 0x30) i++;
    else while (i < n && isDigit(text.charCodeAt(i))) i++;
    if (i < n && text.charCodeAt(i) === 0x2e) {
      i++;
      if (i >= n) fail(i, '');
      if (!isDigit(text.charCodeAt(i))) fail(i, 'after decimal point in numeric literal');
      while (i < n && isDigit(text.charCodeAt(i))) i++;
    }
    if (i < n && (text.charCodeAt(i) === 0x65 || text.charCodeAt(i) === 0x45)) {
      i++;
      if (i < n && (text.charCodeAt(i) === 0x2b || text.charCodeAt(i) === 0x2d)) i++;
      if (i >= n) fail(i, '');
      if (!isDigit(text.charCodeAt(i))) fail(i, 'in exponent of numeric literal');
      while (i < n && isDigit(text.charCodeAt(i))) i++;
    }
  };

  const childPath = (frame: Frame | undefined, key: string): string => (frame && frame.path ? `${frame.path}.${key}` : key);

  // Parses one value at i; pushes a frame for containers and returns true when it opened one.
  const beginValue = (path: string, context: string): boolean => {
    skipSpace();
    if (i >= n) fail(i, '');
    const c = text.charCodeAt(i);
    switch (c) {
      case 0x7b: // {
        if (stack.length >= MAX_JSON_NESTING_DEPTH) fail(i, 'exceeded max depth');
        i++;
        stack.push({ kind: 'object', path, keys: undefined, index: 0 });
        return true;
      case 0x5b: // [
        if (stack.length >= MAX_JSON_NESTING_DEPTH) fail(i, 'exceeded max depth');
        i++;
        stack.push({ kind: 'array', path, keys: undefined, index: 0 });
        return true;
      case 0x22:
        scanString();
        return false;
      case 0x74:
        scanLiteral('true');
        return false;
      case 0x66:
        scanLiteral('false');
        return false;
      case 0x6e:
        scanLiteral('null');
        return false;
      default:
        if (c === 0x2d || isDigit(c)) {
          scanNumber();
          return false;
        }
        return fail(i, context);
    }
  };

  skipSpace();
  if (i < n) {
    const c = text.charCodeAt(i);
    topLevel = c === 0x7b ? 'object' : c === 0x5b ? 'array' : c === 0x22 ? 'string' : c === 0x74 || c === 0x66 ? 'bool' : c === 0x6e ? 'null' : 'number';
  }
  beginValue('', 'looking for beginning of value');

  // Each loop iteration handles the position right after '{', '[', or a completed value inside a container.
  let justOpened = stack.length > 0;
  while (stack.length > 0) {
    const frame = stack[stack.length - 1];
    skipSpace();
    if (frame.kind === 'object') {
      if (justOpened) {
        if (i < n && text.charCodeAt(i) === 0x7d) {
          i++;
          stack.pop();
          justOpened = false;
          continue;
        }
      } else {
        if (i >= n) fail(i, '');
        const c = text.charCodeAt(i);
        if (c === 0x7d) {
          i++;
          stack.pop();
          continue;
        }
        if (c !== 0x2c) fail(i, 'after object key:value pair');
        i++;
        skipSpace();
      }
      if (i >= n || text.charCodeAt(i) !== 0x22) fail(i, 'looking for beginning of object key string');
      const [s, e, escaped] = scanString();
      let key = text.slice(s, e);
      if (escaped) key = JSON.parse(text.slice(s - 1, e + 1)) as string;
      frame.keys ??= new Set();
      const path = childPath(frame, key);
      if (frame.keys.has(key)) duplicates.push(path);
      else frame.keys.add(key);
      skipSpace();
      if (i >= n || text.charCodeAt(i) !== 0x3a) fail(i, 'after object key');
      i++;
      justOpened = beginValue(path, 'looking for beginning of value');
    } else {
      if (justOpened) {
        if (i < n && text.charCodeAt(i) === 0x5d) {
          i++;
          stack.pop();
          justOpened = false;
          continue;
        }
      } else {
        if (i >= n) fail(i, '');
        const c = text.charCodeAt(i);
        if (c === 0x5d) {
          i++;
          stack.pop();
          continue;
        }
        if (c !== 0x2c) fail(i, 'after array element');
        i++;
        frame.index++;
      }
      justOpened = beginValue(`${frame.path}[${frame.index}]`, 'looking for beginning of value');
    }
  }
  skipSpace();
  if (i < n) fail(i, 'after top-level value');
  return { duplicates, topLevel };
}

export interface ParsedJson {
  value: unknown;
  duplicates: string[];
  topLevel: ScanResult['topLevel'];
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

function topLevelOf(v: unknown): ScanResult['topLevel'] {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  switch (typeof v) {
    case 'object':
      return 'object';
    case 'string':
      return 'string';
    case 'boolean':
      return 'bool';
    default:
      return 'number';
  }
}

/**
 * Parses JSON text, reporting Go-worded syntax errors (JsonSyntaxError) and duplicate keys. The common case costs
 * one JSON.parse and one native regex count: when the text's key ends number exactly the parsed value's keys, no key
 * was repeated (a repeat would make the parsed count smaller, a false match the text count larger). Anything else
 * (a syntax error, a possible duplicate, deep nesting) takes the full scan for Go's messages and duplicate paths.
 */
export function parseJson(text: string): ParsedJson {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    value = undefined;
  }
  if (value !== undefined) {
    const keys = countKeys(value, 0);
    if (keys >= 0) {
      let ends = 0;
      KEY_END.lastIndex = 0;
      while (KEY_END.exec(text) !== null) ends++;
      if (ends === keys) return { value, duplicates: [], topLevel: topLevelOf(value) };
    }
  }
  const scan = scanJson(text);
  return { value: value === undefined ? JSON.parse(text) : value, duplicates: scan.duplicates, topLevel: scan.topLevel };
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
