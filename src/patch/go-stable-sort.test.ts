import { test } from 'node:test';
import assert from 'node:assert/strict';
import { goSliceStable } from './go-stable-sort.ts';

/** A small deterministic generator, so that failures reproduce. */
function lcg(seed: number): () => number {
  let s = seed;
  return () => (s = (s * 1103515245 + 12345) % 2147483648) / 2147483648;
}

test('sorts stably for any length, across the insertion-sort blocks and the merges', () => {
  const rand = lcg(7);
  for (let n = 0; n <= 130; n++) {
    const items = Array.from({ length: n }, (_, i) => ({ key: Math.floor(rand() * 8), seq: i }));
    const expected = [...items].sort((a, b) => a.key - b.key); // Array.prototype.sort is stable
    goSliceStable(items, (a, b) => a.key < b.key);
    assert.deepEqual(items, expected, `n=${n}`);
  }
});

test('a comparator that always answers true leaves short lists reversed by insertion sort, as Go does', () => {
  const items = [1, 2, 3, 4];
  goSliceStable(items, () => true);
  assert.deepEqual(items, [4, 3, 2, 1]);
});
