import { test } from 'node:test';
import assert from 'node:assert/strict';
import { formatIndexes } from './jobs.ts';

test('formatIndexes: sorted, runs of three or more as ranges, as kube writes completedIndexes', () => {
  assert.equal(formatIndexes([]), '');
  assert.equal(formatIndexes([3, 0, 1, 2, 5, 7, 8]), '0-3,5,7,8');
  assert.equal(formatIndexes([1, 1, 2]), '1,2');
});
