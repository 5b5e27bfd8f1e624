import { test } from 'node:test';
import assert from 'node:assert/strict';
import { humanDuration, shortHumanDuration } from './duration.ts';
import { translateTimestampSince } from './printing.ts';

const s = 1e9;
const m = 60 * s;
const h = 60 * m;
const d = 24 * h;

test('HumanDuration as kubectl shows ages', () => {
  const cases: [number, string][] = [
    [-2 * s, '<invalid>'],
    [-1.5 * s, '0s'],
    [0, '0s'],
    [119 * s, '119s'],
    [2 * m, '2m'],
    [2 * m + 5 * s, '2m5s'],
    [9 * m + 59 * s, '9m59s'],
    [10 * m + 30 * s, '10m'],
    [179 * m, '179m'],
    [3 * h, '3h'],
    [3 * h + 10 * m, '3h10m'],
    [8 * h + 59 * m, '8h'],
    [47 * h, '47h'],
    [2 * d, '2d'],
    [2 * d + 4 * h, '2d4h'],
    [8 * d, '8d'],
    [729 * d, '729d'],
    [730 * d, '2y'],
    [731 * d, '2y1d'],
    [8 * 365 * d, '8y'],
  ];
  for (const [ns, want] of cases) assert.equal(humanDuration(ns), want, `${ns}ns`);
});

test('ShortHumanDuration keeps one unit', () => {
  assert.equal(shortHumanDuration(59 * s), '59s');
  assert.equal(shortHumanDuration(90 * m), '1h');
  assert.equal(shortHumanDuration(36 * h), '1d');
  assert.equal(shortHumanDuration(400 * d), '1y');
});

test('age cells: time since, or <unknown>', () => {
  const now = new Date('2024-06-01T12:00:00Z');
  assert.equal(translateTimestampSince('2024-06-01T11:55:00Z', now), '5m');
  assert.equal(translateTimestampSince('2024-05-30T09:00:00Z', now), '2d3h');
  assert.equal(translateTimestampSince(undefined, now), '<unknown>');
});
