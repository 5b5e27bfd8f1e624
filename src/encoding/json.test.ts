import { test } from 'node:test';
import assert from 'node:assert/strict';
import { encodeJson, JsonSyntaxError, parseJson, scanJson } from './json.ts';

function syntaxError(text: string): string {
  try {
    scanJson(text);
  } catch (e) {
    assert.ok(e instanceof JsonSyntaxError);
    return e.message;
  }
  assert.fail(`no error for ${JSON.stringify(text)}`);
}

test('syntax errors are worded as Go encoding/json words them', () => {
  const cases: Array<[string, string]> = [
    ['', 'unexpected end of JSON input'],
    ['   ', 'unexpected end of JSON input'],
    ['{"a":', 'unexpected end of JSON input'],
    ['x', "invalid character 'x' looking for beginning of value"],
    ['{"a" 1}', "invalid character '1' after object key"],
    ['{"a":1 "b":2}', `invalid character '"' after object key:value pair`],
    ['[1 2]', "invalid character '2' after array element"],
    ['{,}', "invalid character ',' looking for beginning of object key string"],
    ['{"a":1,}', "invalid character '}' looking for beginning of object key string"],
    ['{"a":1}x', "invalid character 'x' after top-level value"],
    ['01', "invalid character '1' after top-level value"],
    ['-x', "invalid character 'x' in numeric literal"],
    ['1.e5', "invalid character 'e' after decimal point in numeric literal"],
    ['1e+x', "invalid character 'x' in exponent of numeric literal"],
    ['trux', "invalid character 'x' in literal true (expecting 'e')"],
    ['nul', 'unexpected end of JSON input'],
    ['"a\u0001"', "invalid character '\\x01' in string literal"],
    ['"\\q"', "invalid character 'q' in string escape code"],
    ['"\\u00zz"', "invalid character 'z' in \\u hexadecimal character escape"],
    ["'a'", "invalid character '\\'' looking for beginning of value"],
    ['\n{"a":\n', 'unexpected end of JSON input'],
  ];
  for (const [text, message] of cases) assert.equal(syntaxError(text), message, JSON.stringify(text));
});

test('a non-ASCII character is named by its first UTF-8 byte, as Go sees it', () => {
  assert.equal(syntaxError('é'), "invalid character 'Ã' looking for beginning of value");
});

test('duplicate keys are reported with their field paths in document order', () => {
  const r = scanJson('{"metadata":{"name":"a","name":"b"},"spec":{"containers":[{"name":"c"},{"image":"x","image":"y"}]},"kind":"A","kind":"B"}');
  assert.deepEqual(r.duplicates, ['metadata.name', 'spec.containers[1].image', 'kind']);
  assert.equal(r.topLevel, 'object');
});

test('keys are compared after unescaping', () => {
  assert.deepEqual(scanJson('{"a":1,"\\u0061":2}').duplicates, ['a']);
});

test('top-level arrays report element paths', () => {
  assert.deepEqual(scanJson('[{"op":"add","op":"remove"}]').duplicates, ['[0].op']);
  assert.equal(scanJson('[]').topLevel, 'array');
  assert.equal(scanJson(' null ').topLevel, 'null');
});

test('parseJson returns the value; the last duplicate wins as in Go', () => {
  const r = parseJson('{"a":1,"a":2}');
  assert.deepEqual(r.value, { a: 2 });
  assert.deepEqual(r.duplicates, ['a']);
});

test('encodeJson escapes like Go and ends compact output with a newline', () => {
  assert.equal(encodeJson({ a: '<b>&\u2028' }), '{"a":"\\u003cb\\u003e\\u0026\\u2028"}\n');
  assert.equal(encodeJson({ a: [1, {}], b: [] }, true), '{\n  "a": [\n    1,\n    {}\n  ],\n  "b": []\n}');
});

test('nesting past 10000 levels is a syntax error worded as Go words it', () => {
  assert.deepEqual(scanJson('['.repeat(10000) + ']'.repeat(10000)).duplicates, []);
  assert.throws(() => scanJson('{"a":' + '['.repeat(10000) + ']'.repeat(10000) + '}'), { message: "invalid character '[' exceeded max depth" });
  assert.throws(() => scanJson('['.repeat(9999) + '{"a":{}}' + ']'.repeat(9999)), { message: "invalid character '{' exceeded max depth" });
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
