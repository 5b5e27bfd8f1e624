import { test } from 'node:test';
import assert from 'node:assert/strict';
import { andThen, firstAnswer } from './maybe-async.ts';

test('synchronous members give a synchronous answer', () => {
  const asked: number[] = [];
  const answer = firstAnswer([1, 2, 3], (m) => (asked.push(m), m), (r) => (r === 2 ? `got ${r}` : undefined), () => 'none');
  assert.equal(answer, 'got 2');
  assert.deepEqual(asked, [1, 2]);
  assert.equal(firstAnswer([1], (m) => m, () => undefined, () => 'none'), 'none');
  assert.equal(andThen(2, (v) => v * 2), 4);
});

test('from a member that waits, the rest are asked after it answered, in order', async () => {
  const asked: string[] = [];
  const later = (v: number) => new Promise<number>((r) => setTimeout(() => r(v), 5));
  const answer = firstAnswer([1, 2, 3, 4], (m) => (asked.push(`ask ${m}`), m % 2 === 0 ? later(m) : m), (r) => (asked.push(`answer ${r}`), r === 4 ? 'four' : undefined), () => 'none');
  assert.ok(answer instanceof Promise);
  assert.deepEqual(asked, ['ask 1', 'answer 1', 'ask 2']);
  assert.equal(await answer, 'four');
  assert.deepEqual(asked, ['ask 1', 'answer 1', 'ask 2', 'answer 2', 'ask 3', 'answer 3', 'ask 4', 'answer 4']);
  assert.equal(await andThen(later(3), (v) => v + 1), 4);
});
