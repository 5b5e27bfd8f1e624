import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CsvError, parseCsv } from './csv.ts';

test('plain records, blank lines skipped, CRLF accepted, no trailing newline', () => {
  assert.deepEqual(parseCsv('a,b,c\n\nd,e\r\nf'), [['a', 'b', 'c'], ['d', 'e'], ['f']]);
});

test('quoted fields hold commas, doubled quotes and newlines; empty fields kept', () => {
  assert.deepEqual(parseCsv('t,"x, y","say ""hi""",\n"multi\nline",z\n'), [['t', 'x, y', 'say "hi"', ''], ['multi\nline', 'z']]);
});

test('leading spaces are kept (no trimming)', () => {
  assert.deepEqual(parseCsv(' a, b\n'), [[' a', ' b']]);
});

test('a bare quote in an unquoted field is an error with line and column', () => {
  assert.throws(() => parseCsv('ok,1\nab"c,2\n'), (e: unknown) => e instanceof CsvError && e.message === 'parse error on line 2, column 3: bare " in non-quoted-field');
});

test('text after a closing quote, or an unterminated quote, is an error', () => {
  assert.throws(() => parseCsv('"a"b,c\n'), { message: 'parse error on line 1, column 4: extraneous or missing " in quoted-field' });
  assert.throws(() => parseCsv('"abc\n'), /extraneous or missing " in quoted-field/);
});
