import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fieldErrorString, HandlerPanic } from '../../../apis/errors.ts';
import { indexesFormat, overlappingIndex } from './job-index-intervals.ts';
import { successPolicyErrors } from './job-success-policy.ts';

const errors = (rules: unknown[] | undefined, completions: number | null = 10) =>
  successPolicyErrors({ completionMode: 'Indexed', completions: completions ?? undefined, successPolicy: rules === undefined ? {} : { rules } }, 'spec.successPolicy').map(fieldErrorString);

test('index interval lists: totals and the errors kube words', () => {
  assert.deepEqual(indexesFormat('', 10), { total: 0 });
  assert.deepEqual(indexesFormat('0,2-4,7-9', 10), { total: 7 });
  assert.deepEqual(indexesFormat('+3', 10), { total: 1 });
  assert.deepEqual(indexesFormat('1-2-3', 10), { error: `the fragment "1-2-3" violates the requirement that an index interval can have at most two parts separated by '-'` });
  assert.deepEqual(indexesFormat('a', 10), { error: 'cannot convert string to integer for index: "a"' });
  assert.deepEqual(indexesFormat('1,,2', 10), { error: 'cannot convert string to integer for index: ""' });
  assert.deepEqual(indexesFormat('-1', 10), { error: 'cannot convert string to integer for index: ""' });
  assert.deepEqual(indexesFormat('3-10', 10), { error: 'too large index: "10"' });
  assert.deepEqual(indexesFormat('4-4', 10), { error: 'non-increasing order, previous: 4, current: 4' });
  assert.deepEqual(indexesFormat('5,2', 10), { error: 'non-increasing order, previous: 5, current: 2' });
  assert.deepEqual(indexesFormat('1-3,3', 10), { error: 'non-increasing order, previous: 3, current: 3' });
});

test('index interval lists: the first index both completed and failed', () => {
  assert.equal(overlappingIndex('0-2,5', '3-4,6', 10), undefined);
  assert.equal(overlappingIndex('0-2,5-7', '3,6-8', 10), 6);
  assert.equal(overlappingIndex('x,4', '4', 10), 4);
  assert.equal(overlappingIndex('', '4', 10), undefined);
});

test('success policy: valid rules pass', () => {
  assert.deepEqual(errors([{ succeededIndexes: '0-2,5', succeededCount: 3 }, { succeededCount: 10 }, { succeededIndexes: '9' }]), []);
});

test('success policy: rules present, at most 20, each naming indexes or a count', () => {
  assert.deepEqual(errors(undefined), ['spec.successPolicy.rules: Required value: at least one rules must be specified when the successPolicy is specified']);
  assert.deepEqual(errors(Array.from({ length: 21 }, () => ({ succeededCount: 1 }))), ['spec.successPolicy.rules: Too many: 21: must have at most 20 items']);
  assert.deepEqual(errors([{}]), ['spec.successPolicy.rules[0]: Required value: at least one of succeededCount or succeededIndexes must be specified']);
});

test('success policy: indexes below completions and counts within completions and the named indexes', () => {
  assert.deepEqual(errors([{ succeededIndexes: '2-12', succeededCount: 2 }, { succeededIndexes: '1-2', succeededCount: 3 }, { succeededCount: -1 }, { succeededCount: 11 }]), [
    'spec.successPolicy.rules[0].succeededIndexes: Invalid value: "2-12": error parsing succeededIndexes: too large index: "12"',
    'spec.successPolicy.rules[0].succeededCount: Invalid value: 2: must be less than or equal to 0 (the number of indexes in the specified succeededIndexes field)',
    'spec.successPolicy.rules[1].succeededCount: Invalid value: 3: must be less than or equal to 2 (the number of indexes in the specified succeededIndexes field)',
    'spec.successPolicy.rules[2].succeededCount: Invalid value: -1: must be greater than or equal to 0',
    'spec.successPolicy.rules[3].succeededCount: Invalid value: 11: must be less than or equal to 10 (the number of specified completions)',
  ]);
  assert.deepEqual(errors([{ succeededIndexes: '1,'.repeat(40000) }], 100000)[0], 'spec.successPolicy.rules[0].succeededIndexes: Too long: may not be more than 65536 bytes');
});

test('success policy: kube-apiserver panics on an Indexed Job without completions', () => {
  assert.throws(() => errors([{ succeededCount: 1 }], null), HandlerPanic);
  assert.deepEqual(errors([{}], null), ['spec.successPolicy.rules[0]: Required value: at least one of succeededCount or succeededIndexes must be specified']);
});
