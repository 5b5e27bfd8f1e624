import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compactionIntervalMs, createCompactionPlan, startCompactor } from './compactor.ts';
import { createMemoryStorage } from './memory/memory-storage.ts';

test('the plan compacts to the newest revision observed at least one window ago', () => {
  const plan = createCompactionPlan(10_000);
  assert.equal(plan.target(0), undefined);
  plan.observe(0, 5);
  assert.equal(plan.target(9_999), undefined, 'nothing is older than the window yet');
  plan.observe(4_000, 9);
  plan.observe(6_000, 9); // unchanged: the older sample stands
  plan.observe(8_000, 20);
  assert.equal(plan.target(10_000), 5);
  assert.equal(plan.target(14_000), 9);
  assert.equal(plan.target(17_999), 9, 'revision 20 was not yet current 10 s before');
  assert.equal(plan.target(18_000), 20);
  assert.equal(plan.target(60_000), 20);
});

test('startCompactor compacts on its interval, keeping the window, and stops', async () => {
  const s = createMemoryStorage();
  let clock = 1_000_000;
  const errors: unknown[] = [];
  await s.create('/a', '1');
  await s.create('/b', '1');
  const stop = startCompactor(s, { windowSeconds: 60, intervalMs: 5, now: () => clock, onError: (e) => errors.push(e) });
  const waitTicks = () => new Promise((resolve) => setTimeout(resolve, 30));
  await waitTicks(); // revision 2 observed at t0
  await s.create('/c', '1'); // revision 3
  clock += 30_000;
  await waitTicks(); // revision 3 observed at t0 + 30 s
  assert.equal(s.compactedRevision(), 0, 'nothing older than the window');
  clock += 30_000;
  await waitTicks();
  assert.equal(s.compactedRevision(), 2);
  clock += 30_000;
  await waitTicks();
  assert.equal(s.compactedRevision(), 3);
  stop();
  await s.create('/d', '1');
  clock += 600_000;
  await waitTicks();
  assert.equal(s.compactedRevision(), 3, 'a stopped compactor does nothing');
  assert.deepEqual(errors, []);
  await s.close();
});

test('compaction interval follows the window within bounds', () => {
  assert.equal(compactionIntervalMs(300), 30_000);
  assert.equal(compactionIntervalMs(3600), 60_000);
  assert.equal(compactionIntervalMs(0.1), 100);
});

test('on the controllable clock, moving time past the window compacts at once (no interval tick needed)', async () => {
  const { clock } = await import('../apis/clock.ts');
  const s = createMemoryStorage();
  await s.create('/a', '1');
  await s.create('/b', '1');
  clock.freeze();
  const stop = startCompactor(s, { windowSeconds: 300, intervalMs: 3_600_000 });
  try {
    await new Promise((resolve) => setTimeout(resolve, 10)); // the first tick observes revision 2
    await s.create('/c', '1');
    assert.equal(s.compactedRevision(), 0);
    clock.advance(301_000);
    await new Promise((resolve) => setTimeout(resolve, 10));
    assert.equal(s.compactedRevision(), 3, 'every revision written before the clock moved is older than the window now');
  } finally {
    stop();
    clock.reset();
    await s.close();
  }
});
