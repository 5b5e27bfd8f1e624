import { test } from 'node:test';
import assert from 'node:assert/strict';
import { base64ErrorOffset, goTimeParseError, RFC3339_MICRO } from './go-decode.ts';

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
