import { test } from 'node:test';
import assert from 'node:assert/strict';
import { GoJsonSyntaxError, parseGoJson } from './go-json.ts';

test('syntax errors carry encoding/json messages', () => {
  const cases: [string, string][] = [
    ['', 'unexpected end of JSON input'],
    ['  ', 'unexpected end of JSON input'],
    ['{', 'unexpected end of JSON input'],
    ['{"a":1', 'unexpected end of JSON input'],
    ['"abc', 'unexpected end of JSON input'],
    ['x', "invalid character 'x' looking for beginning of value"],
    ['{"a" 1}', "invalid character '1' after object key"],
    ['{"a":1 "b":2}', 'invalid character \'"\' after object key:value pair'],
    ['[1 2]', "invalid character '2' after array element"],
    ['[1,]', "invalid character ']' looking for beginning of value"],
    ['{} x', "invalid character 'x' after top-level value"],
    ['{a:1}', "invalid character 'a' looking for beginning of object key string"],
    ['{"a":1,}', "invalid character '}' looking for beginning of object key string"],
    ['tru', "invalid character ' ' in literal true (expecting 'e')"],
    ['trUe', "invalid character 'U' in literal true (expecting 'u')"],
    ['nulx', "invalid character 'x' in literal null (expecting 'l')"],
    ['"a\u0001"', "invalid character '\\x01' in string literal"],
    ['"a\nb"', "invalid character '\\n' in string literal"],
    ['"\\q"', "invalid character 'q' in string escape code"],
    ['"\\u12x4"', "invalid character 'x' in \\u hexadecimal character escape"],
    ['-', "invalid character ' ' in numeric literal"],
    ['-a', "invalid character 'a' in numeric literal"],
    ['01', "invalid character '1' after top-level value"],
    ['1.', "invalid character ' ' after decimal point in numeric literal"],
    ['1.e5', "invalid character 'e' after decimal point in numeric literal"],
    ['1e', "invalid character ' ' in exponent of numeric literal"],
    ['[1e+]', "invalid character ']' in exponent of numeric literal"],
    ["'a'", "invalid character '\\'' looking for beginning of value"],
    ['\ufeff{}', "invalid character 'ï' looking for beginning of value"],
    ['[é]', "invalid character 'Ã' looking for beginning of value"],
    ['{"a":1}}', "invalid character '}' after top-level value"],
    ['[' .repeat(10001), "invalid character '[' exceeded max depth"],
  ];
  for (const [text, message] of cases) {
    assert.throws(() => parseGoJson(text), (e: unknown) => e instanceof GoJsonSyntaxError && e.message === message, JSON.stringify(text));
  }
});

test('nesting up to 10000 levels decodes (the limit is past it)', () => {
  let v = parseGoJson('['.repeat(10000) + ']'.repeat(10000));
  let depth = 0;
  while (Array.isArray(v)) {
    depth++;
    v = v[0] as typeof v;
  }
  assert.equal(depth, 10000);
});

test('valid documents decode like JSON.parse', () => {
  const texts = ['{}', '[]', ' {"a":[1,-2.5e3,true,false,null,"x\\"y\\\\z\\/\\b\\f\\n\\r\\t"]} ', '0', '-0.5', '"\\u00e9\\ud83d\\ude00"', '[[[]],{"":{}}]'];
  for (const text of texts) assert.deepEqual(parseGoJson(text), JSON.parse(text), text);
});

test('duplicate keys keep the last value and are reported with their path', () => {
  const dups: string[] = [];
  const v = parseGoJson('{"a":1,"a":2,"b":[{"c":1,"c":2}],"d":{"e":{"f":0,"f":1}}}', { onDuplicateKey: (p) => dups.push(p) });
  assert.deepEqual(v, { a: 2, b: [{ c: 2 }], d: { e: { f: 1 } } });
  assert.deepEqual(dups, ['a', 'b[0].c', 'd.e.f']);
});

test('invalid surrogate escapes become U+FFFD, as in Go', () => {
  assert.equal(parseGoJson('"\\ud800"'), '\ufffd');
  assert.equal(parseGoJson('"\\udc00x"'), '\ufffdx');
  assert.equal(parseGoJson('"\\ud800\\u0041"'), '\ufffdA');
});

test('"__proto__" keys become own members, never prototypes', () => {
  const v = parseGoJson('{"__proto__":{"polluted":1}}') as Record<string, unknown>;
  assert.deepEqual(Object.keys(v), ['__proto__']);
  assert.equal(Object.getPrototypeOf(v), Object.prototype);
  assert.equal(({} as Record<string, unknown>)['polluted'], undefined);
});

test('deep nesting within the limit decodes without exhausting the stack', () => {
  const depth = 10000;
  const v = parseGoJson('['.repeat(depth) + ']'.repeat(depth));
  let level = 0;
  for (let cur: unknown = v; Array.isArray(cur) && cur.length > 0; cur = cur[0]) level++;
  assert.equal(level, depth - 1);
});
