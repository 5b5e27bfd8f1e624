import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fieldErrorString } from '../../../apis/errors.ts';
import { jobSpecErrors } from './job-spec-validation.ts';

const template = (restartPolicy = 'Never') => ({ spec: { restartPolicy, dnsPolicy: 'ClusterFirst', terminationGracePeriodSeconds: 30, containers: [{ name: 'main', image: 'busybox', imagePullPolicy: 'Always', terminationMessagePolicy: 'File' }] } });
const errors = (spec: object) => jobSpecErrors({ template: template(), ...spec }, 'spec').map(fieldErrorString);

test('job spec: counts are not negative; maxFailedIndexes needs backoffLimitPerIndex', () => {
  assert.deepEqual(errors({ parallelism: -1, completions: -1, activeDeadlineSeconds: -1, backoffLimit: -1, ttlSecondsAfterFinished: -1, maxFailedIndexes: -1 }), [
    'spec.parallelism: Invalid value: -1: must be greater than or equal to 0',
    'spec.completions: Invalid value: -1: must be greater than or equal to 0',
    'spec.activeDeadlineSeconds: Invalid value: -1: must be greater than or equal to 0',
    'spec.backoffLimit: Invalid value: -1: must be greater than or equal to 0',
    'spec.ttlSecondsAfterFinished: Invalid value: -1: must be greater than or equal to 0',
    'spec.maxFailedIndexes: Invalid value: -1: must be greater than or equal to 0',
    'spec.backoffLimitPerIndex: Required value: when maxFailedIndexes is specified',
    'spec.maxFailedIndexes: Invalid value: -1: requires indexed completion mode',
  ]);
});

test('job spec: backoffLimitPerIndex, maxFailedIndexes and successPolicy need the Indexed mode', () => {
  assert.deepEqual(errors({ completionMode: 'NonIndexed', backoffLimitPerIndex: 1, maxFailedIndexes: 2, successPolicy: { rules: [{ succeededIndexes: '0-1', succeededCount: 1 }, { succeededCount: 2 }] } }), [
    'spec.backoffLimitPerIndex: Invalid value: 1: requires indexed completion mode',
    'spec.maxFailedIndexes: Invalid value: 2: requires indexed completion mode',
    'spec.successPolicy: Invalid value: batch.SuccessPolicy{Rules:[]batch.SuccessPolicyRule{batch.SuccessPolicyRule{SucceededIndexes:(*string)("0-1"), SucceededCount:(*int32)(1)}, batch.SuccessPolicyRule{SucceededIndexes:(*string)(nil), SucceededCount:(*int32)(2)}}}: requires indexed completion mode',
  ]);
  // An unknown mode is neither: only the mode is reported.
  assert.deepEqual(errors({ completionMode: 'Sometimes', backoffLimitPerIndex: 1 }), ['spec.completionMode: Unsupported value: "Sometimes": supported values: "NonIndexed", "Indexed"']);
});

test('job spec: the limits of Indexed Jobs', () => {
  assert.deepEqual(errors({ completionMode: 'Indexed', parallelism: 100001 }), [
    'spec.completions: Required value: when completion mode is Indexed',
    'spec.parallelism: Invalid value: 100001: must be less than or equal to 100000 when completion mode is Indexed',
  ]);
  assert.deepEqual(errors({ completionMode: 'Indexed', completions: 5, backoffLimitPerIndex: 1, maxFailedIndexes: 6 }), ['spec.maxFailedIndexes: Invalid value: 6: must be less than or equal to completions']);
  assert.deepEqual(errors({ completionMode: 'Indexed', completions: 200000, parallelism: 10001, backoffLimitPerIndex: 1 }), [
    'spec.maxFailedIndexes: Required value: must be specified when completions is above 100000',
    'spec.parallelism: Invalid value: 10001: must be less than or equal to 10000 when completions are above 100000 and used with backoff limit per index',
  ]);
  assert.deepEqual(errors({ completionMode: 'Indexed', completions: 200000, parallelism: 10, backoffLimitPerIndex: 1, maxFailedIndexes: 100001 }), [
    'spec.maxFailedIndexes: Invalid value: 100001: must be less than or equal to 100000',
    'spec.maxFailedIndexes: Invalid value: 100001: must be less than or equal to 10000 when completions are above 100000 and used with backoff limit per index',
  ]);
  // Without backoffLimitPerIndex, high completions are fine.
  assert.deepEqual(errors({ completionMode: 'Indexed', completions: 200000, parallelism: 100000 }), []);
});

test('job spec: managedBy is a domain-prefixed path of at most 63 characters', () => {
  assert.deepEqual(errors({ managedBy: 'kueue.x-k8s.io/manager' }), []);
  assert.deepEqual(errors({ managedBy: 'kueue' }), ['spec.managedBy: Invalid value: "kueue": must be a domain-prefixed path (such as "acme.io/foo")']);
  assert.deepEqual(errors({ managedBy: 'example.com/a b' }), [`spec.managedBy: Invalid value: "a b": Invalid path (regex used for validation is '[A-Za-z0-9/\\-._~%!$&'()*+,;=:]+')`]);
  assert.deepEqual(errors({ managedBy: `example.com/${'x'.repeat(60)}` }), ['spec.managedBy: Too long: may not be longer than 63']);
});

test('job spec: podReplacementPolicy Failed only with a podFailurePolicy, which also needs restartPolicy Never', () => {
  assert.deepEqual(errors({ podReplacementPolicy: 'Sometimes' }), ['spec.podReplacementPolicy: Unsupported value: "Sometimes": supported values: "Failed", "TerminatingOrFailed"']);
  const podFailurePolicy = { rules: [{ action: 'FailJob', onExitCodes: { operator: 'In', values: [42] } }] };
  assert.deepEqual(jobSpecErrors({ template: template('OnFailure'), podFailurePolicy, podReplacementPolicy: 'TerminatingOrFailed' }, 'spec').map(fieldErrorString), [
    'spec.podReplacementPolicy: Unsupported value: "TerminatingOrFailed": supported values: "Failed"',
    'spec.template.spec.restartPolicy: Invalid value: "OnFailure": only "Never" is supported when podFailurePolicy is specified',
  ]);
  assert.deepEqual(jobSpecErrors({ template: template('Always') }, 'spec').map(fieldErrorString), ['spec.template.spec.restartPolicy: Required value: valid values: "OnFailure", "Never"']);
});
