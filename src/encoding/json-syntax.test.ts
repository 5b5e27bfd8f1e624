import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseJson } from './json.ts';
import { JsonSyntaxError, scanJson } from './json-syntax.ts';

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
    ['nul', "invalid character ' ' in literal null (expecting 'l')"],
    ['"abc', 'unexpected end of JSON input'],
    ['"a\u0001"', "invalid character '\\x01' in string literal"],
    ['"\\q"', "invalid character 'q' in string escape code"],
    ['"\\u00zz"', "invalid character 'z' in \\u hexadecimal character escape"],
    ["'a'", "invalid character '\\'' looking for beginning of value"],
    ['\n{"a":\n', 'unexpected end of JSON input'],
  ];
  for (const [text, message] of cases) assert.equal(syntaxError(text), message, JSON.stringify(text));
});

test('bodies and patches get the same encoding/json messages', () => {
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
    ['['.repeat(10001), "invalid character '[' exceeded max depth"],
  ];
  for (const [text, message] of cases) {
    assert.equal(syntaxError(text), message, JSON.stringify(text));
    assert.throws(() => parseJson(text), (e: unknown) => e instanceof JsonSyntaxError && e.message === message, JSON.stringify(text));
  }
});

// Go's scanner.eof feeds one space at the end: a token cut short fails on it, not as an unexpected end.
test('every token cut short names the space Go feeds at the end of input', () => {
  const cases: [string, string][] = [
    ['nul', "invalid character ' ' in literal null (expecting 'l')"],
    ['[fals', "invalid character ' ' in literal false (expecting 'e')"],
    ['"\\', "invalid character ' ' in string escape code"],
    ['"\\u00', "invalid character ' ' in \\u hexadecimal character escape"],
    ['{"a":-', "invalid character ' ' in numeric literal"],
    ['[1.', "invalid character ' ' after decimal point in numeric literal"],
    ['1e-', "invalid character ' ' in exponent of numeric literal"],
  ];
  for (const [text, message] of cases) {
    assert.equal(syntaxError(text), message, JSON.stringify(text));
    assert.throws(() => parseJson(text), (e: unknown) => e instanceof JsonSyntaxError && e.message === message, JSON.stringify(text));
  }
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

test('keys that differ only in lone surrogates repeat, as Go decodes both as U+FFFD', () => {
  assert.deepEqual(scanJson('{"\\ud800":1,"a":2,"\\udbff":3}').duplicates, ['\ufffd']);
  assert.deepEqual(scanJson('{"\\ud83d\\ude00":1,"\\ud83d":2}').duplicates, []);
});

test('top-level arrays report element paths', () => {
  assert.deepEqual(scanJson('[{"op":"add","op":"remove"}]').duplicates, ['[0].op']);
  assert.equal(scanJson('[]').topLevel, 'array');
  assert.equal(scanJson(' null ').topLevel, 'null');
});

test('nesting past 10000 levels is a syntax error worded as Go words it', () => {
  assert.deepEqual(scanJson('['.repeat(10000) + ']'.repeat(10000)).duplicates, []);
  assert.throws(() => scanJson('{"a":' + '['.repeat(10000) + ']'.repeat(10000) + '}'), { message: "invalid character '[' exceeded max depth" });
  assert.throws(() => scanJson('['.repeat(9999) + '{"a":{}}' + ']'.repeat(9999)), { message: "invalid character '{' exceeded max depth" });
});
