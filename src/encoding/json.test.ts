import { test } from 'node:test';
import assert from 'node:assert/strict';
import { encodeJson, parseJson } from './json.ts';
import { scanJson } from './json-syntax.ts';
import type { JsonValue } from './json-value.ts';

test('parseJson returns the value; the last duplicate wins as in Go', () => {
  const r = parseJson('{"a":1,"a":2}');
  assert.deepEqual(r.value, { a: 2 });
  assert.deepEqual(r.duplicates, ['a']);
});

test('encodeJson escapes like Go and ends compact output with a newline', () => {
  assert.equal(encodeJson({ a: '<b>&\u2028' }), '{"a":"\\u003cb\\u003e\\u0026\\u2028"}\n');
  assert.equal(encodeJson({ a: [1, {}], b: [] }, true), '{\n  "a": [\n    1,\n    {}\n  ],\n  "b": []\n}');
});

test('parseJson finds duplicates however the text hides them, and words errors and deep nesting as the scan does', () => {
  const cases = [
    '{"a":{"b":1,"c":2},"d":[{"e":1},{"e":2}]}',
    '{"a":":x","b":"\\":","a":1}',
    '{"a\\\\":"v","a\\\\" :2}',
    '{"x":"\\"", "x":"y"}',
    '{"a":"b\\":","c":{}}',
    '[{"op":"add","op":"remove"}]',
    '{"a":1,"\\u0061":2}',
    '{"a" \n : 1, "b":{"a":1}}',
    '"top:"',
    '12',
    'null',
  ];
  for (const text of cases) {
    const scan = scanJson(text);
    assert.deepEqual(parseJson(text), { value: JSON.parse(text), duplicates: scan.duplicates, topLevel: scan.topLevel }, text);
  }
  assert.throws(() => parseJson('{"a":1,}'), { message: "invalid character '}' looking for beginning of object key string" });
  assert.throws(() => parseJson('{"a":' + '['.repeat(10000) + ']'.repeat(10000) + '}'), { message: "invalid character '[' exceeded max depth" });
});

test('nesting up to 10000 levels decodes (the limit is past it)', () => {
  let v = parseJson('['.repeat(10000) + ']'.repeat(10000)).value;
  let depth = 0;
  while (Array.isArray(v)) {
    depth++;
    v = v[0] as typeof v;
  }
  assert.equal(depth, 10000);
});

test('valid documents decode like JSON.parse', () => {
  const texts = ['{}', '[]', ' {"a":[1,-2.5e3,true,false,null,"x\\"y\\\\z\\/\\b\\f\\n\\r\\t"]} ', '0', '-0.5', '"\\u00e9\\ud83d\\ude00"', '[[[]],{"":{}}]'];
  for (const text of texts) assert.deepEqual(parseJson(text).value, JSON.parse(text), text);
});

test('duplicate keys keep the last value and are reported with their path', () => {
  const r = parseJson('{"a":1,"a":2,"b":[{"c":1,"c":2}],"d":{"e":{"f":0,"f":1}}}');
  assert.deepEqual(r.value, { a: 2, b: [{ c: 2 }], d: { e: { f: 1 } } });
  assert.deepEqual(r.duplicates, ['a', 'b[0].c', 'd.e.f']);
});

test('invalid surrogate escapes become U+FFFD, as in Go', () => {
  assert.equal(parseJson('"\\ud800"').value, '\ufffd');
  assert.equal(parseJson('"\\udc00x"').value, '\ufffdx');
  assert.equal(parseJson('"\\ud800\\u0041"').value, '\ufffdA');
});

test('keys with lone surrogates become U+FFFD in place, merging as Go\'s map does', () => {
  const r = parseJson('{"\\ud800":1,"a":[{"b\\udc00":"\\udbff"}],"\\udbff":3}');
  assert.deepEqual(Object.entries(r.value as object), [['\ufffd', 3], ['a', [{ 'b\ufffd': '\ufffd' }]]]);
  assert.deepEqual(r.duplicates, ['\ufffd']);
  assert.equal(parseJson('["\\\\ud800"]').value?.toString(), '\\ud800');
});

test('"__proto__" keys become own members, never prototypes', () => {
  for (const text of ['{"__proto__":{"polluted":1}}', '{"__proto__":{"polluted":1},"x":"\\ud800"}']) {
    const v = parseJson(text).value as Record<string, unknown>;
    assert.equal(Object.keys(v)[0], '__proto__', text);
    assert.equal(Object.getPrototypeOf(v), Object.prototype);
    assert.equal(({} as Record<string, unknown>)['polluted'], undefined);
  }
  assert.deepEqual(Object.keys(parseJson('{"__proto__":{"polluted":1}}').value as object), ['__proto__']);
});

test('deep nesting within the limit decodes without exhausting the stack', () => {
  const depth = 10000;
  const v: JsonValue = parseJson('['.repeat(depth) + ']'.repeat(depth)).value;
  let level = 0;
  for (let cur: unknown = v; Array.isArray(cur) && cur.length > 0; cur = cur[0]) level++;
  assert.equal(level, depth - 1);
  const withSurrogate = parseJson('['.repeat(depth - 1) + '"\\ud800"' + ']'.repeat(depth - 1)).value;
  let inner: unknown = withSurrogate;
  while (Array.isArray(inner)) inner = inner[0];
  assert.equal(inner, '\ufffd');
});
