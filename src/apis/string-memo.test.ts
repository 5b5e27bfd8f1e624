import { test } from 'node:test';
import assert from 'node:assert/strict';
import { memoizeString } from './string-memo.ts';

test('each string is computed once until the memo fills, then it starts over', () => {
  const calls: string[] = [];
  const upper = memoizeString((s) => (calls.push(s), s === 'none' ? undefined : s.toUpperCase()), 2);
  assert.equal(upper('a'), 'A');
  assert.equal(upper('a'), 'A');
  assert.equal(upper('none'), undefined);
  assert.equal(upper('none'), undefined);
  assert.deepEqual(calls, ['a', 'none']);
  assert.equal(upper('b'), 'B');
  assert.equal(upper('a'), 'A');
  assert.deepEqual(calls, ['a', 'none', 'b', 'a']);
});
