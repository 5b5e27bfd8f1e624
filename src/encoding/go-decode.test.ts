import { test } from 'node:test';
import assert from 'node:assert/strict';
import { base64ErrorOffset, goTimeJson, goTimeParseError, RFC3339_MICRO } from './go-decode.ts';

test('base64: offsets as encoding/base64 reports them', () => {
  assert.equal(base64ErrorOffset('aGVsbG8='), -1);
  assert.equal(base64ErrorOffset('aGVsbG8gd29ybGQ='), -1);
  assert.equal(base64ErrorOffset(''), -1);
  assert.equal(base64ErrorOffset('ab!d'), 2);
  assert.equal(base64ErrorOffset('abc'), 0);
  assert.equal(base64ErrorOffset('abcde'), 4);
  assert.equal(base64ErrorOffset('a==='), 1);
  assert.equal(base64ErrorOffset('ab='), 3);
  assert.equal(base64ErrorOffset('aGk=x'), 4);
  assert.equal(base64ErrorOffset('aG\nk='), -1);
});

test('RFC 3339 times: Go time.Parse messages', () => {
  assert.equal(goTimeParseError('2024-05-01T10:20:30Z'), undefined);
  assert.equal(goTimeParseError('2024-05-01T10:20:30.123+02:00'), undefined);
  assert.equal(goTimeParseError('2024-05-01'), 'parsing time "2024-05-01" as "2006-01-02T15:04:05Z07:00": cannot parse "" as "T"');
  assert.equal(goTimeParseError('2024-13-01T00:00:00Z'), 'parsing time "2024-13-01T00:00:00Z": month out of range');
  assert.equal(goTimeParseError('2023-02-29T00:00:00Z'), 'parsing time "2023-02-29T00:00:00Z": day out of range');
  assert.equal(goTimeParseError('2024-05-01T10:20:30Zjunk'), 'parsing time "2024-05-01T10:20:30Zjunk": extra text: "junk"');
  assert.equal(goTimeParseError('2024-05-01T10:20:30'), 'parsing time "2024-05-01T10:20:30" as "2006-01-02T15:04:05Z07:00": cannot parse "" as "Z07:00"');
  assert.equal(goTimeParseError('2024-05-01T10:20:30.123456Z', RFC3339_MICRO), undefined);
  assert.equal(
    goTimeParseError('2024-05-01T10:20:30Z', RFC3339_MICRO),
    'parsing time "2024-05-01T10:20:30Z" as "2006-01-02T15:04:05.000000Z07:00": cannot parse "Z" as ".000000"',
  );
});

test('times as metav1.Time and MicroTime encode them again', () => {
  assert.equal(goTimeJson('2024-05-01T10:20:30Z'), '2024-05-01T10:20:30Z');
  assert.equal(goTimeJson('2024-05-01T10:20:30.999+02:00'), '2024-05-01T08:20:30Z');
  assert.equal(goTimeJson('2024-12-31T23:30:00-01:00'), '2025-01-01T00:30:00Z');
  assert.equal(goTimeJson('0099-03-01T00:00:00+01:00'), '0099-02-28T23:00:00Z');
  assert.equal(goTimeJson('0001-01-01T00:00:00Z'), null);
  assert.equal(goTimeJson('2024-05-01T10:20:30,123456Z', RFC3339_MICRO), '2024-05-01T10:20:30.123456Z');
  assert.equal(goTimeJson('2024-05-01T10:20:30.000100+00:30', RFC3339_MICRO), '2024-05-01T09:50:30.000100Z');
  assert.equal(goTimeJson('not a time'), 'not a time');
});
