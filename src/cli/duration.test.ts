import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseGoDuration } from './duration.ts';

test('Go durations in milliseconds', () => {
  assert.equal(parseGoDuration('1m0s'), 60_000);
  assert.equal(parseGoDuration('1h2m3.5s'), 3_723_500);
  assert.equal(parseGoDuration('250ms'), 250);
  assert.equal(parseGoDuration('0'), 0);
  assert.equal(parseGoDuration('-2s'), -2000);
});

test('malformed durations fail with Go messages', () => {
  assert.throws(() => parseGoDuration('x'), { message: 'time: invalid duration "x"' });
  assert.throws(() => parseGoDuration('10'), { message: 'time: missing unit in duration "10"' });
  assert.throws(() => parseGoDuration('3d'), { message: 'time: unknown unit "d" in duration "3d"' });
  assert.throws(() => parseGoDuration(''), { message: 'time: invalid duration ""' });
});
