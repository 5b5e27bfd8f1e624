// The string formats of CRD schemas (apiextensions-apiserver validation/formats.go; checks as kube-openapi's
// strfmt.Default registry makes them), Go's value printing, and RE2 patterns run as JavaScript.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FORMAT_CHECKS, supportedFormat } from './formats.ts';
import { goFloat } from './go-values.ts';
import { compileGoRegexp } from './go-regexp.ts';

const valid: Record<string, string[]> = {
  datetime: ['2024-01-02T03:04:05Z', '2024-01-02t03:04:05.123456+01:00', '2024-02-29T23:59:59-08:00'],
  date: ['2024-02-29', '1999-12-31'],
  duration: ['1h', '1.5h', '300ms', '-2m3s', '0', '3 days', '2 weeks', '10 sec'],
  uuid: ['123e4567-e89b-12d3-a456-426614174000', '123E4567E89B12D3A456426614174000'],
  uuid3: ['a3bb189e-8bf9-3888-9912-ace4e6543002'],
  uuid4: ['f47ac10b-58cc-4372-a567-0e02b2c3d479'],
  uuid5: ['886313e1-3b8a-5372-9b90-0c9aee199e5d'],
  byte: ['aGVsbG8=', '', 'YWJj'],
  ipv4: ['10.0.0.1'],
  ipv6: ['::1', '2001:db8::68'],
  cidr: ['10.0.0.0/8', '2001:db8::/32'],
  mac: ['00:00:5e:00:53:01', '00-00-5E-00-53-01', '0000.5e00.5301'],
  hostname: ['example.com', 'localhost', 'a-b.c-d.example'],
  email: ['a@example.com'],
  uri: ['https://example.com/x?y=1', '/absolute/path', 'mailto:a@b.c'],
  isbn10: ['0-306-40615-2'],
  isbn13: ['978-0-306-40615-7'],
  creditcard: ['4111 1111 1111 1111'],
  ssn: ['123-45-6789', '123 45 6789'],
  hexcolor: ['#fff', 'A0B1C2'],
  rgbcolor: ['rgb(255, 0, 10)'],
  bsonobjectid: ['507f1f77bcf86cd799439011'],
  password: ['anything'],
};

const invalid: Record<string, string[]> = {
  datetime: ['2024-01-02', '2024-01-02T24:00:00Z', '2024-01-02T03:04:05', '2024-13-02T03:04:05Z'],
  date: ['2023-02-29', '2024-1-2', '24-01-02'],
  duration: ['', 'forever', '1x'],
  uuid: ['123e4567-e89b-12d3-a456', 'zzze4567-e89b-12d3-a456-426614174000'],
  uuid4: ['a3bb189e-8bf9-3888-9912-ace4e6543002'],
  byte: ['abc', 'a===', '$$$$'],
  ipv4: ['256.0.0.1', '::1', '10.0.0'],
  ipv6: ['10.0.0.1', ':::'],
  cidr: ['10.0.0.0', '10.0.0.0/33', '::/129'],
  mac: ['00:00:5e:00:53', '00:00:5e:00:53:zz'],
  hostname: ['-bad.example.com', 'a_b.example.com', `${'a'.repeat(64)}.com`],
  email: ['nobody', 'a@', '@b'],
  uri: ['relative/path', 'http://a b'],
  isbn10: ['0-306-40615-3'],
  isbn13: ['978-0-306-40615-8'],
  creditcard: ['4111 1111 1111 1112'],
  ssn: ['123456-789'],
  hexcolor: ['#ffff'],
  rgbcolor: ['rgb(256, 0, 0)'],
  bsonobjectid: ['507f1f77bcf86cd79943901'],
};

for (const [format, values] of Object.entries(valid)) {
  test(`format ${format} accepts ${values.join(', ')}`, () => {
    const check = FORMAT_CHECKS.get(format);
    assert.ok(check);
    for (const v of values) assert.equal(check(v), true, v);
  });
}

for (const [format, values] of Object.entries(invalid)) {
  test(`format ${format} rejects ${values.join(', ')}`, () => {
    const check = FORMAT_CHECKS.get(format);
    assert.ok(check);
    for (const v of values) assert.equal(check(v), false, v);
  });
}

test('formats kube strips before validating', () => {
  assert.equal(supportedFormat('string', 'date-time'), 'date-time');
  assert.equal(supportedFormat('string', 'int32'), '');
  assert.equal(supportedFormat('integer', 'int32'), 'int32');
  assert.equal(supportedFormat('integer', 'date'), '');
  assert.equal(supportedFormat('number', 'double'), 'double');
  assert.equal(supportedFormat('boolean', 'byte'), '');
  assert.equal(supportedFormat('string', 'quantity'), '');
});

test("Go's %v of float64", () => {
  assert.deepEqual([0.5, 1.5e-5, 1e21, 123456789.25, -2.5e-7, 1e20].map(goFloat), ['0.5', '1.5e-05', '1e+21', '123456789.25', '-2.5e-07', '100000000000000000000']);
});

test('RE2 patterns: inline flags, named groups, \\z; Go errors for bad patterns', () => {
  const ci = compileGoRegexp('(?i)^abc$');
  assert.equal(ci.re?.test('ABC'), true);
  assert.equal(compileGoRegexp('^(?P<x>a+)\\z').re?.test('aaa'), true);
  assert.equal(compileGoRegexp('^[[:alpha:]]+$').re?.test('abC'), true);
  assert.equal(compileGoRegexp('(abc').error, 'error parsing regexp: missing closing ): `(abc`');
  assert.equal(compileGoRegexp('abc)').error, 'error parsing regexp: unexpected ): `abc)`');
  assert.equal(compileGoRegexp('[a-z').error, 'error parsing regexp: missing closing ]: `[a-z`');
  assert.equal(compileGoRegexp('*a').error, 'error parsing regexp: missing argument to repetition operator: `*`');
});

test('RE2 patterns: Unicode classes, negated POSIX classes; lookarounds and backreferences are not RE2', () => {
  assert.equal(compileGoRegexp('^\\pL+$').re?.test('héllo'), true);
  assert.equal(compileGoRegexp('^[[:^digit:]]+$').re?.test('abc'), true);
  assert.equal(compileGoRegexp('a(?=b)').error, 'error parsing regexp: invalid or unsupported Perl syntax: `(?=`');
  assert.equal(compileGoRegexp('(a)\\1').error, 'error parsing regexp: invalid escape sequence: `\\1`');
});
