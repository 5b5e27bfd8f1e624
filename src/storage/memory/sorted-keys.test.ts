import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SortedKeys } from './sorted-keys.ts';

function collect(set: SortedKeys, start: string | undefined, limit = Infinity): string[] {
  const out: string[] = [];
  set.forEachFrom(start, (k) => {
    out.push(k);
    return out.length < limit;
  });
  return out;
}

function lowerBound(sorted: string[], key: string): number {
  let i = 0;
  while (i < sorted.length && sorted[i] < key) i++;
  return i;
}

// A deterministic pseudo-random sequence, so a failure reproduces.
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

test('add, delete, has, rank and ordered walks agree with a sorted array through growth and shrinkage', () => {
  const set = new SortedKeys();
  const model = new Set<string>();
  const rand = rng(42);
  const key = () => `/k/${Math.floor(rand() * 5000).toString().padStart(4, '0')}`;
  for (let round = 0; round < 3; round++) {
    for (let i = 0; i < 4000; i++) {
      const k = key();
      assert.equal(set.add(k), !model.has(k));
      model.add(k);
    }
    for (let i = 0; i < 3500; i++) {
      const k = key();
      assert.equal(set.delete(k), model.has(k));
      model.delete(k);
    }
    const sorted = [...model].sort();
    assert.equal(set.size, sorted.length);
    assert.deepEqual(collect(set, undefined), sorted);
    for (let i = 0; i < 200; i++) {
      const probe = key();
      assert.equal(set.has(probe), model.has(probe));
      const at = lowerBound(sorted, probe);
      assert.equal(set.rank(probe), at);
      assert.deepEqual(collect(set, probe, 7), sorted.slice(at, at + 7));
      // collect: a bounded range read, appended to what out holds
      const end = key();
      const upTo = lowerBound(sorted, end);
      const max = Math.floor(rand() * 300);
      const out = ['before'];
      const want = sorted.slice(at, Math.max(at, Math.min(upTo, at + max)));
      assert.equal(set.collect(probe, end, max, out), want.length);
      assert.deepEqual(out, ['before', ...want]);
      const open: string[] = [];
      set.collect(probe, undefined, Infinity, open);
      assert.deepEqual(open, sorted.slice(at));
    }
    assert.equal(set.rank(undefined), sorted.length);
  }
  for (const k of [...model]) assert.equal(set.delete(k), true);
  assert.equal(set.size, 0);
  assert.deepEqual(collect(set, undefined), []);
  assert.equal(set.add('/again'), true);
  assert.deepEqual(collect(set, ''), ['/again']);
});

test('ascending and descending insertion orders keep the tree consistent', () => {
  for (const order of ['asc', 'desc'] as const) {
    const set = new SortedKeys();
    const keys = Array.from({ length: 3000 }, (_, i) => `k${i.toString().padStart(5, '0')}`);
    const input = order === 'asc' ? keys : [...keys].reverse();
    for (const k of input) set.add(k);
    assert.deepEqual(collect(set, undefined), keys);
    assert.equal(set.rank('k01500'), 1500);
    assert.equal(set.add('k01500'), false);
    for (let i = 0; i < 3000; i += 2) set.delete(keys[i]);
    assert.deepEqual(collect(set, undefined), keys.filter((_, i) => i % 2 === 1));
    assert.equal(set.rank('k01500'), 750);
  }
});
