// A JSON reader that accepts exactly what Go's encoding/json accepts and fails with Go's messages, because
// kube-apiserver returns those messages verbatim for malformed patch bodies ("invalid character 'x' looking
// for beginning of value", "unexpected end of JSON input", ...).

import { goQuote } from '../encoding/go-format.ts';

export type JsonValue = null | boolean | number | string | JsonValue[] | JsonObject;
export interface JsonObject {
  [key: string]: JsonValue;
}

/** Go's *json.SyntaxError (and the scanner's depth limit). */
export class GoJsonSyntaxError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'GoJsonSyntaxError';
  }
}

export interface GoJsonParseOptions {
  /** Called for every repeated key of an object, with the dotted path of the key (sigs.k8s.io/json style). */
  onDuplicateKey?: (path: string) => void;
}

const MAX_NESTING_DEPTH = 10000;

/** The first byte of the character's UTF-8 encoding: Go's scanner reports bytes, not characters. */
function firstUtf8Byte(codePoint: number): number {
  if (codePoint < 0x80) return codePoint;
  if (codePoint < 0x800) return 0xc0 | (codePoint >> 6);
  if (codePoint < 0x10000) return 0xe0 | (codePoint >> 12);
  return 0xf0 | (codePoint >> 18);
}

/** encoding/json's quoteChar: the byte as a Go rune literal (strconv.Quote's escapes inside single quotes). */
function quoteChar(byte: number): string {
  if (byte === 0x27) return "'\\''";
  if (byte === 0x22) return '\'"\'';
  return `'${goQuote(String.fromCharCode(byte)).slice(1, -1)}'`;
}

function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;
}

function isDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}

function isNumberChar(c: number): boolean {
  return isDigit(c) || c === 0x2d || c === 0x2b || c === 0x2e || c === 0x65 || c === 0x45;
}

function isHex(c: number): boolean {
  return isDigit(c) || (c >= 0x61 && c <= 0x66) || (c >= 0x41 && c <= 0x46);
}

/**
 * Checks `text` the way Go's scanner does (checkValid) and throws its error. Kept separate from value building
 * because Go validates the whole input before decoding, so the first syntax error wins over any type error.
 */
export function checkGoJsonSyntax(text: string): void {
  const scanner = new Scanner(text);
  scanner.run();
}

type Step = (c: number) => void;

class Scanner {
  private readonly text: string;
  private pos = 0;
  private step: Step;
  private readonly stack: ('key' | 'value' | 'array')[] = [];
  private endTop = false;

  constructor(text: string) {
    this.text = text;
    this.step = this.beginValue;
  }

  run(): void {
    const t = this.text;
    const n = t.length;
    while (this.pos < n) {
      if (this.step === this.inString) {
        // Fast path through ordinary string content; quotes, escapes and control characters take the step.
        let c = t.charCodeAt(this.pos);
        while (c !== 0x22 && c !== 0x5c && c >= 0x20 && ++this.pos < n) c = t.charCodeAt(this.pos);
        if (this.pos >= n) break;
      }
      const cp = t.codePointAt(this.pos)!;
      this.step(cp);
      this.pos += cp > 0xffff ? 2 : 1;
    }
    // scanner.eof: feed one space so that trailing numbers and literals terminate.
    if (this.endTop) return;
    this.step(0x20);
    if (this.endTop) return;
    throw new GoJsonSyntaxError('unexpected end of JSON input');
  }

  private fail(c: number, context: string): never {
    throw new GoJsonSyntaxError(`invalid character ${quoteChar(firstUtf8Byte(c))} ${context}`);
  }

  /** pushParseState: past the limit it is scanner.error(c, "exceeded max depth"), naming the opening byte. */
  private push(kind: 'key' | 'array', c: number): void {
    this.stack.push(kind);
    if (this.stack.length > MAX_NESTING_DEPTH) this.fail(c, 'exceeded max depth');
  }

  private readonly beginValue: Step = (c) => {
    if (isSpace(c)) return;
    switch (c) {
      case 0x7b: // {
        this.push('key', c);
        this.step = this.beginStringOrEmpty;
        return;
      case 0x5b: // [
        this.push('array', c);
        this.step = this.beginValueOrEmpty;
        return;
      case 0x22:
        this.step = this.inString;
        return;
      case 0x2d: // -
        this.step = this.neg;
        return;
      case 0x30:
        this.step = this.zero;
        return;
      case 0x74: // t
        this.step = this.literal('true', 1);
        return;
      case 0x66: // f
        this.step = this.literal('false', 1);
        return;
      case 0x6e: // n
        this.step = this.literal('null', 1);
        return;
    }
    if (c >= 0x31 && c <= 0x39) {
      this.step = this.one;
      return;
    }
    this.fail(c, 'looking for beginning of value');
  };

  private readonly beginStringOrEmpty: Step = (c) => {
    if (isSpace(c)) return;
    if (c === 0x7d) {
      this.stack[this.stack.length - 1] = 'value';
      this.endValue(c);
      return;
    }
    this.beginString(c);
  };

  private readonly beginString: Step = (c) => {
    if (isSpace(c)) return;
    if (c === 0x22) {
      this.step = this.inString;
      return;
    }
    this.fail(c, 'looking for beginning of object key string');
  };

  private readonly beginValueOrEmpty: Step = (c) => {
    if (isSpace(c)) return;
    if (c === 0x5d) {
      this.endValue(c);
      return;
    }
    this.beginValue(c);
  };

  private readonly endValue: Step = (c) => {
    const n = this.stack.length;
    if (n === 0) {
      this.step = this.endTopStep;
      this.endTop = true;
      this.endTopStep(c);
      return;
    }
    if (isSpace(c)) {
      this.step = this.endValue;
      return;
    }
    switch (this.stack[n - 1]) {
      case 'key':
        if (c === 0x3a) {
          this.stack[n - 1] = 'value';
          this.step = this.beginValue;
          return;
        }
        this.fail(c, 'after object key');
      case 'value':
        if (c === 0x2c) {
          this.stack[n - 1] = 'key';
          this.step = this.beginString;
          return;
        }
        if (c === 0x7d) {
          this.stack.pop();
          this.step = this.endValue;
          if (this.stack.length === 0) this.endTop = true;
          return;
        }
        this.fail(c, 'after object key:value pair');
      case 'array':
        if (c === 0x2c) {
          this.step = this.beginValue;
          return;
        }
        if (c === 0x5d) {
          this.stack.pop();
          this.step = this.endValue;
          if (this.stack.length === 0) this.endTop = true;
          return;
        }
        this.fail(c, 'after array element');
    }
  };

  private readonly endTopStep: Step = (c) => {
    if (!isSpace(c)) this.fail(c, 'after top-level value');
  };

  private readonly inString: Step = (c) => {
    if (c === 0x22) {
      this.step = this.endValue;
      if (this.stack.length === 0) this.endTop = true;
      return;
    }
    if (c === 0x5c) {
      this.step = this.inStringEsc;
      return;
    }
    if (c < 0x20) this.fail(c, 'in string literal');
  };

  private readonly inStringEsc: Step = (c) => {
    switch (c) {
      case 0x62: case 0x66: case 0x6e: case 0x72: case 0x74: case 0x5c: case 0x2f: case 0x22:
        this.step = this.inString;
        return;
      case 0x75:
        this.step = this.hexEscape(4);
        return;
    }
    this.fail(c, 'in string escape code');
  };

  private hexEscape(remaining: number): Step {
    return (c) => {
      if (!isHex(c)) this.fail(c, 'in \\u hexadecimal character escape');
      this.step = remaining === 1 ? this.inString : this.hexEscape(remaining - 1);
    };
  }

  private readonly neg: Step = (c) => {
    if (c === 0x30) {
      this.step = this.zero;
      return;
    }
    if (c >= 0x31 && c <= 0x39) {
      this.step = this.one;
      return;
    }
    this.fail(c, 'in numeric literal');
  };

  private readonly one: Step = (c) => {
    if (isDigit(c)) return;
    this.zero(c);
  };

  private readonly zero: Step = (c) => {
    if (c === 0x2e) {
      this.step = this.dot;
      return;
    }
    if (c === 0x65 || c === 0x45) {
      this.step = this.exponent;
      return;
    }
    this.numberEnd(c);
  };

  private readonly dot: Step = (c) => {
    if (isDigit(c)) {
      this.step = this.dotDigits;
      return;
    }
    this.fail(c, 'after decimal point in numeric literal');
  };

  private readonly dotDigits: Step = (c) => {
    if (isDigit(c)) return;
    if (c === 0x65 || c === 0x45) {
      this.step = this.exponent;
      return;
    }
    this.numberEnd(c);
  };

  private readonly exponent: Step = (c) => {
    if (c === 0x2b || c === 0x2d) {
      this.step = this.exponentSign;
      return;
    }
    this.exponentSign(c);
  };

  private readonly exponentSign: Step = (c) => {
    if (isDigit(c)) {
      this.step = this.exponentDigits;
      return;
    }
    this.fail(c, 'in exponent of numeric literal');
  };

  private readonly exponentDigits: Step = (c) => {
    if (isDigit(c)) return;
    this.numberEnd(c);
  };

  /** A number ends at the first byte that cannot continue it; that byte is then scanned as after a value. */
  private numberEnd(c: number): void {
    if (this.stack.length === 0) this.endTop = true;
    this.endValue(c);
  }

  private literal(word: string, index: number): Step {
    return (c) => {
      const expected = word.charCodeAt(index);
      if (c !== expected) this.fail(c, `in literal ${word} (expecting ${quoteChar(expected)})`);
      if (index === word.length - 1) {
        this.step = this.endValue;
        if (this.stack.length === 0) this.endTop = true;
      } else {
        this.step = this.literal(word, index + 1);
      }
    };
  }
}

/**
 * Parses JSON as Go's json.Unmarshal into interface{} would: syntax checked first with Go's messages,
 * duplicate keys keep the last value, invalid \u surrogates become U+FFFD.
 */
export function parseGoJson(text: string, options: GoJsonParseOptions = {}): JsonValue {
  checkGoJsonSyntax(text);
  return new Builder(text, options).build();
}

interface Frame {
  container: JsonObject | JsonValue[];
  /** Key under which the next value of an object goes. */
  key: string;
  /** How the parent refers to this container: a key, or "[i]" in an array. */
  label: string;
}

/** Builds values from text already known to be valid; iterative so that deep nesting cannot overflow. */
class Builder {
  private readonly text: string;
  private readonly options: GoJsonParseOptions;
  private readonly stack: Frame[] = [];
  private pos = 0;

  constructor(text: string, options: GoJsonParseOptions) {
    this.text = text;
    this.options = options;
  }

  build(): JsonValue {
    const stack = this.stack;
    let result: JsonValue = null;
    const place = (value: JsonValue): void => {
      const top = stack[stack.length - 1];
      if (!top) {
        result = value;
        return;
      }
      if (Array.isArray(top.container)) top.container.push(value);
      else setOwn(top.container, top.key, value);
    };
    for (;;) {
      this.skipSpace();
      const top = stack[stack.length - 1];
      const c = this.text.charCodeAt(this.pos);
      if (c === 0x7b || c === 0x5b) {
        this.pos++;
        const container: JsonObject | JsonValue[] = c === 0x7b ? {} : [];
        const label = !top ? '' : Array.isArray(top.container) ? `[${top.container.length}]` : top.key;
        place(container);
        const frame: Frame = { container, key: '', label };
        stack.push(frame);
        if (!this.openNext(frame)) {
          stack.pop();
          if (!this.afterValue()) return result;
        }
        continue;
      }
      place(this.scalar());
      if (!this.afterValue()) return result;
    }
  }

  /** Reads the key of the next object member (if any); returns false at the closing bracket. */
  private openNext(frame: Frame): boolean {
    this.skipSpace();
    const c = this.text.charCodeAt(this.pos);
    if (c === 0x7d || c === 0x5d) {
      this.pos++;
      return false;
    }
    if (!Array.isArray(frame.container)) this.readKey(frame);
    return true;
  }

  private readKey(frame: Frame): void {
    this.skipSpace();
    const key = this.string();
    this.skipSpace();
    this.pos++; // ':'
    if (this.options.onDuplicateKey && Object.prototype.hasOwnProperty.call(frame.container, key)) {
      this.options.onDuplicateKey(this.pathOf(key));
    }
    frame.key = key;
  }

  /** The dotted path of a key of the innermost object ("a.b[0].c"). */
  private pathOf(key: string): string {
    let path = '';
    for (const frame of this.stack.slice(1)) {
      path += frame.label.startsWith('[') || path === '' ? frame.label : `.${frame.label}`;
    }
    return path === '' ? key : `${path}.${key}`;
  }

  /** After a value: consumes ',' or closing brackets; returns false when the top-level value is complete. */
  private afterValue(): boolean {
    const stack = this.stack;
    for (;;) {
      const top = stack[stack.length - 1];
      if (!top) return false;
      this.skipSpace();
      const c = this.text.charCodeAt(this.pos++);
      if (c === 0x2c) {
        if (!Array.isArray(top.container)) this.readKey(top);
        return true;
      }
      stack.pop(); // '}' or ']'
    }
  }

  private skipSpace(): void {
    while (this.pos < this.text.length && isSpace(this.text.charCodeAt(this.pos))) this.pos++;
  }

  private scalar(): JsonValue {
    const c = this.text.charCodeAt(this.pos);
    if (c === 0x22) return this.string();
    if (c === 0x74) {
      this.pos += 4;
      return true;
    }
    if (c === 0x66) {
      this.pos += 5;
      return false;
    }
    if (c === 0x6e) {
      this.pos += 4;
      return null;
    }
    const start = this.pos;
    while (this.pos < this.text.length && isNumberChar(this.text.charCodeAt(this.pos))) this.pos++;
    return Number(this.text.slice(start, this.pos));
  }

  private string(): string {
    const t = this.text;
    this.pos++; // opening quote
    let out = '';
    let chunkStart = this.pos;
    for (;;) {
      const c = t.charCodeAt(this.pos);
      if (c === 0x22) {
        out += t.slice(chunkStart, this.pos);
        this.pos++;
        return out;
      }
      if (c !== 0x5c) {
        this.pos++;
        continue;
      }
      out += t.slice(chunkStart, this.pos);
      const e = t[this.pos + 1]!;
      this.pos += 2;
      switch (e) {
        case 'b': out += '\b'; break;
        case 'f': out += '\f'; break;
        case 'n': out += '\n'; break;
        case 'r': out += '\r'; break;
        case 't': out += '\t'; break;
        case 'u': out += this.unicodeEscape(); break;
        default: out += e;
      }
      chunkStart = this.pos;
    }
  }

  private unicodeEscape(): string {
    const t = this.text;
    const r = parseInt(t.slice(this.pos, this.pos + 4), 16);
    this.pos += 4;
    if (r < 0xd800 || r >= 0xe000) return String.fromCharCode(r);
    // A surrogate: valid only as a high half followed by an escaped low half.
    if (r < 0xdc00 && t[this.pos] === '\\' && t[this.pos + 1] === 'u') {
      const low = parseInt(t.slice(this.pos + 2, this.pos + 6), 16);
      if (low >= 0xdc00 && low < 0xe000) {
        this.pos += 6;
        return String.fromCharCode(r, low);
      }
    }
    return '\ufffd';
  }
}

/** Sets an own data property, even for keys like "__proto__". */
export function setOwn(obj: JsonObject, key: string, value: JsonValue): void {
  if (key === '__proto__') Object.defineProperty(obj, key, { value, writable: true, enumerable: true, configurable: true });
  else obj[key] = value;
}
