import { test } from 'node:test';
import assert from 'node:assert/strict';
import { matchSuccessPolicy } from './job-success-policy.ts';

test("matchSuccessPolicy: the first rule whose succeededIndexes all succeeded, with kube's message", () => {
  const policy = { rules: [{ succeededIndexes: '0-2' }, { succeededIndexes: '1,3' }] };
  assert.equal(matchSuccessPolicy(policy, 5, new Set([0, 1, 2])), 'Matched rules at index 0');
  assert.equal(matchSuccessPolicy(policy, 5, new Set([0, 1, 3])), 'Matched rules at index 1');
  assert.equal(matchSuccessPolicy(policy, 5, new Set([0, 1, 4])), undefined);
  // Indexes past completions are left out of the rule; a rule naming none of the others is skipped.
  assert.equal(matchSuccessPolicy({ rules: [{ succeededIndexes: '1,7-9' }] }, 5, new Set([1])), 'Matched rules at index 0');
  assert.equal(matchSuccessPolicy({ rules: [{ succeededIndexes: '7-9' }, { succeededCount: 1 }] }, 5, new Set([1])), 'Matched rules at index 1');
});

test('matchSuccessPolicy: succeededCount of the indexes a rule names, or of any indexes without them; nothing before an index succeeded', () => {
  const policy = { rules: [{ succeededIndexes: '0-3', succeededCount: 2 }] };
  assert.equal(matchSuccessPolicy(policy, 10, new Set([1, 5, 6])), undefined);
  assert.equal(matchSuccessPolicy(policy, 10, new Set([1, 3])), 'Matched rules at index 0');
  assert.equal(matchSuccessPolicy({ rules: [{ succeededCount: 3 }] }, 10, new Set([4, 7])), undefined);
  assert.equal(matchSuccessPolicy({ rules: [{ succeededCount: 3 }] }, 10, new Set([4, 7, 9])), 'Matched rules at index 0');
  assert.equal(matchSuccessPolicy({ rules: [{ succeededCount: 0 }] }, 10, new Set()), undefined);
  assert.equal(matchSuccessPolicy(undefined, 10, new Set([0])), undefined);
  assert.equal(matchSuccessPolicy({ rules: [] }, 10, new Set([0])), undefined);
});
