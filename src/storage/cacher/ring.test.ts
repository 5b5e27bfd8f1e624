import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRing } from './ring.ts';

test('since() finds the events after a revision; evict() drops by age and by count, never the newest', () => {
  const r = createRing<{ revision: number; time: number }>(100, 3);
  for (const [revision, time] of [[2, 0], [5, 10], [9, 20], [12, 150]]) r.push({ revision, time });
  assert.deepEqual(r.since(5).map((e) => e.revision), [9, 12]);
  assert.deepEqual(r.since(0).map((e) => e.revision), [2, 5, 9, 12]);
  assert.deepEqual(r.since(12), []);
  // At 160: everything before 60 is too old; the newest stays.
  assert.equal(r.evict(160), 3);
  assert.deepEqual(r.since(0).map((e) => e.revision), [12]);
  assert.equal(r.evict(10_000), 0, 'the newest event is kept however old');
  for (let i = 0; i < 5; i++) r.push({ revision: 20 + i, time: 10_000 });
  assert.equal(r.evict(10_000), 3, 'at most 3 events');
  assert.deepEqual(r.since(0).map((e) => e.revision), [22, 23, 24]);
  assert.equal(r.first()?.revision, 22);
  r.clear();
  assert.equal(r.length, 0);
});

test('a long-running ring compacts its storage and keeps answering', () => {
  const r = createRing<{ revision: number; time: number }>(1_000_000, 10);
  for (let i = 1; i <= 5000; i++) {
    r.push({ revision: i, time: i });
    r.evict(i);
  }
  assert.equal(r.length, 10);
  assert.deepEqual(r.since(4995).map((e) => e.revision), [4996, 4997, 4998, 4999, 5000]);
});
