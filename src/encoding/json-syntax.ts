// The syntax check of Go's encoding/json (checkValid): the input it accepts, its error messages, which
// kube-apiserver returns verbatim ("invalid character 'x' looking for beginning of value", "unexpected end of JSON
// input", ...), and its nesting limit; plus the repeated object keys, with the field paths kube reports them by.

import { goQuote } from './go-format.ts';
import { wellFormed, type JsonKind } from './json-value.ts';

/** Go's *json.SyntaxError (and the scanner's depth limit). */
export class JsonSyntaxError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'JsonSyntaxError';
  }
}

/** encoding/json's maxNestingDepth: deeper input is a syntax error ("exceeded max depth"). */
export const MAX_JSON_NESTING_DEPTH = 10000;


export interface ScanResult {
  /** Paths of repeated object keys in document order, e.g. "metadata.name", "spec.containers[0].image". */
  duplicates: string[];
  /** Kind of the top-level value. */
  topLevel: JsonKind;
}

/** encoding/json's quoteChar: the byte as a Go rune literal (strconv.Quote's escapes inside single quotes). */
function quoteChar(byte: number): string {
  if (byte === 0x27) return "'\\''";
  if (byte === 0x22) return '\'"\'';
  return `'${goQuote(String.fromCharCode(byte)).slice(1, -1)}'`;
}

/** The first UTF-8 byte of the code point at i: Go's scanner reports bytes, not characters. */
function firstUtf8Byte(text: string, i: number): number {
  const cp = text.codePointAt(i) ?? 0;
  if (cp < 0x80) return cp;
  if (cp < 0x800) return 0xc0 | (cp >> 6);
  if (cp < 0x10000) return 0xe0 | (cp >> 12);
  return 0xf0 | (cp >> 18);
}

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
 * Go's error for the byte at `at`. Past the end: Go's scanner.eof feeds the scanner one space, so input that ends
 * inside a literal, number or escape (`inToken`) fails on that space ("invalid character ' ' in literal true
 * (expecting 'e')"); input that ends where a space is allowed is "unexpected end of JSON input".
 */
function syntaxError(text: string, at: number, context: string, inToken: boolean, bytes: boolean): JsonSyntaxError {
  if (at < text.length) return new JsonSyntaxError(`invalid character ${quoteChar(bytes ? text.charCodeAt(at) : firstUtf8Byte(text, at))} ${context}`);
  return new JsonSyntaxError(inToken ? `invalid character ' ' ${context}` : 'unexpected end of JSON input');
}

interface Frame {
  kind: 'object' | 'array';
  path: string;
  keys: Set<string> | undefined;
  index: number;
}

/**
 * Validates `text` as one JSON value, as Go validates input before decoding it (so the first syntax error wins over
 * anything decoding would find). Throws JsonSyntaxError with Go's message. Iterative: nesting cannot overflow the stack.
 * `bytes`: the text holds one byte per character (latin1), so an error names the byte Go would, even in input that is
 * not valid UTF-8.
 */
export function scanJson(text: string, bytes = false): ScanResult {
  const n = text.length;
  const duplicates: string[] = [];
  const stack: Frame[] = [];
  let i = 0;
  let topLevel: JsonKind = 'null';

  const fail = (at: number, context: string): never => {
    throw syntaxError(text, at, context, false, bytes);
  };
  /** Fails inside a token: at the end of input, on the space Go feeds there. */
  const failInToken = (at: number, context: string): never => {
    throw syntaxError(text, at, context, true, bytes);
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
        if (i >= n) failInToken(i, 'in string escape code');
        const e = text.charCodeAt(i);
        if (e === 0x75) {
          for (let k = 1; k <= 4; k++) {
            if (i + k >= n || !isHex(text.charCodeAt(i + k))) failInToken(i + k, 'in \\u hexadecimal character escape');
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
      if (i + k >= n || text.charCodeAt(i + k) !== word.charCodeAt(k)) {
        failInToken(i + k, `in literal ${word} (expecting ${quoteChar(word.charCodeAt(k))})`);
      }
    }
    i += word.length;
  };

  const scanDigits = (context: string) => {
    if (i >= n || !isDigit(text.charCodeAt(i))) failInToken(i, context);
    while (i < n && isDigit(text.charCodeAt(i))) i++;
  };

  const scanNumber = () => {
    if (text.charCodeAt(i) === 0x2d) {
      i++;
      if (i >= n || !isDigit(text.charCodeAt(i))) failInToken(i, 'in numeric literal');
    }
    if (text.charCodeAt(i) === 0x30) i++;
    else while (i < n && isDigit(text.charCodeAt(i))) i++;
    if (i < n && text.charCodeAt(i) === 0x2e) {
      i++;
      scanDigits('after decimal point in numeric literal');
    }
    if (i < n && (text.charCodeAt(i) === 0x65 || text.charCodeAt(i) === 0x45)) {
      i++;
      if (i < n && (text.charCodeAt(i) === 0x2b || text.charCodeAt(i) === 0x2d)) i++;
      scanDigits('in exponent of numeric literal');
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

  // Reads an object member's key and colon at i, then begins its value; returns what beginValue returns.
  const beginMember = (frame: Frame): boolean => {
    skipSpace();
    if (i >= n || text.charCodeAt(i) !== 0x22) fail(i, 'looking for beginning of object key string');
    const [s, e, escaped] = scanString();
    // Keys compare as Go decodes them: escapes resolved, a lone surrogate as U+FFFD.
    const key = escaped ? wellFormed(JSON.parse(text.slice(s - 1, e + 1)) as string) : text.slice(s, e);
    frame.keys ??= new Set();
    const path = childPath(frame, key);
    if (frame.keys.has(key)) duplicates.push(path);
    else frame.keys.add(key);
    skipSpace();
    if (i >= n || text.charCodeAt(i) !== 0x3a) fail(i, 'after object key');
    i++;
    return beginValue(path, 'looking for beginning of value');
  };

  // Each loop iteration handles the position right after '{', '[', or a completed value inside a container.
  let justOpened = stack.length > 0;
  while (stack.length > 0) {
    const frame = stack[stack.length - 1];
    const inObject = frame.kind === 'object';
    const close = inObject ? 0x7d : 0x5d;
    skipSpace();
    if (justOpened) {
      if (i < n && text.charCodeAt(i) === close) {
        i++;
        stack.pop();
        justOpened = false;
        continue;
      }
    } else {
      if (i >= n) fail(i, '');
      const c = text.charCodeAt(i);
      if (c === close) {
        i++;
        stack.pop();
        continue;
      }
      if (c !== 0x2c) fail(i, inObject ? 'after object key:value pair' : 'after array element');
      i++;
      if (!inObject) frame.index++;
    }
    justOpened = inObject ? beginMember(frame) : beginValue(`${frame.path}[${frame.index}]`, 'looking for beginning of value');
  }
  skipSpace();
  if (i < n) fail(i, 'after top-level value');
  return { duplicates, topLevel };
}

/**
 * Scans JSON bytes as Go does, byte by byte: what UTF-8 decoding would replace (bytes that are not UTF-8) is named in
 * an error as Go names it ('\u0081'). For errors and kinds only: its duplicate paths are then byte strings.
 */
export function scanJsonBytes(data: Uint8Array): ScanResult {
  return scanJson(Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString('latin1'), true);
}

/** Go's syntax error for bytes whose UTF-8 decoding failed to scan with `error` (the same error, named by bytes). */
export function bytesSyntaxError(data: Uint8Array, error: JsonSyntaxError): JsonSyntaxError {
  try {
    scanJsonBytes(data);
  } catch (e) {
    if (e instanceof JsonSyntaxError) return e;
    throw e;
  }
  return error;
}
