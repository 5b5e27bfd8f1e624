import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { KubeObject } from '../../types.ts';
import { builtinTypeFacts } from '../index.ts';
import { statusUpdateErrors } from '../test-context.ts';

const T0 = '2024-05-01T10:00:00Z';
const T1 = '2024-05-01T10:05:00Z';
const condition = (type: string, status = 'True') => ({ type, status, lastProbeTime: T1, lastTransitionTime: T1, reason: 'R', message: 'm' });

function job(spec: Record<string, unknown>, status: Record<string, unknown>): KubeObject {
  return { metadata: { name: 'work', namespace: 'default', uid: 'uid-1', resourceVersion: '7', generation: 1 }, spec: { completions: 3, parallelism: 3, completionMode: 'NonIndexed', ...spec }, status };
}

function statusErrors(spec: Record<string, unknown>, oldStatus: Record<string, unknown>, status: Record<string, unknown>, gates: Record<string, boolean> = {}): string[] {
  const old = job(spec, oldStatus);
  return statusUpdateErrors(builtinTypeFacts('batch', 'jobs', gates), job(spec, status), old).errors;
}

test('job status: counts not negative, uncounted pod UIDs non-empty and unique', () => {
  assert.deepEqual(
    statusErrors({}, {}, { active: -1, succeeded: -2, failed: -3, ready: -4, terminating: -5, uncountedTerminatedPods: { succeeded: ['a', ''], failed: ['a'] } }),
    [
      'status.active: Invalid value: -1: must be greater than or equal to 0',
      'status.succeeded: Invalid value: -2: must be greater than or equal to 0',
      'status.failed: Invalid value: -3: must be greater than or equal to 0',
      'status.ready: Invalid value: -4: must be greater than or equal to 0',
      'status.terminating: Invalid value: -5: must be greater than or equal to 0',
      'status.uncountedTerminatedPods.succeeded[1]: Invalid value: "": must not be empty',
      'status.uncountedTerminatedPods.failed[0]: Duplicate value: "a"',
    ],
  );
});

test('job status: what SuccessCriteriaMet may not come with, with the default gates', () => {
  // The controller sets SuccessCriteriaMet before Complete for every Job (JobPodReplacementPolicy is on).
  assert.deepEqual(statusErrors({}, {}, { conditions: [condition('SuccessCriteriaMet')] }), []);
  assert.deepEqual(statusErrors({}, {}, { conditions: [condition('SuccessCriteriaMet'), condition('Failed'), condition('FailureTarget')] }), [
    'status.conditions: Invalid value: cannot set SuccessCriteriaMet=True and Failed=true conditions',
    'status.conditions: Invalid value: cannot set SuccessCriteriaMet=True and FailureTarget=true conditions',
  ]);
  const indexed = { completionMode: 'Indexed', successPolicy: { rules: [{ succeededCount: 1 }] } };
  assert.deepEqual(statusErrors(indexed, {}, { conditions: [condition('Complete')], completionTime: T1, startTime: T0 }), [
    'status.conditions: Invalid value: cannot set Complete=True for Job with SuccessPolicy unless SuccessCriteriaMet=True',
  ]);
  assert.deepEqual(statusErrors({}, { conditions: [condition('SuccessCriteriaMet')] }, { conditions: [condition('SuccessCriteriaMet', 'False')] }), [
    'status.conditions: Invalid value: cannot disable the SuccessCriteriaMet=True condition',
  ]);
  assert.deepEqual(statusErrors({}, { conditions: [condition('Complete')] }, { conditions: [condition('Complete'), condition('SuccessCriteriaMet')] }), [
    'status.conditions: Invalid value: cannot set SuccessCriteriaMet=True for Job already has Complete=true conditions',
  ]);
  // The JobManagedBy transition rules are off: a finished Job may go back, counters may drop.
  assert.deepEqual(statusErrors({}, { conditions: [condition('Failed')], failed: 4 }, { failed: 1, active: 2 }), []);
});

test('job status: with JobPodReplacementPolicy off, SuccessCriteriaMet only for Indexed Jobs with a successPolicy', () => {
  const gates = { JobPodReplacementPolicy: false };
  assert.deepEqual(statusErrors({}, {}, { conditions: [condition('SuccessCriteriaMet')] }, gates), [
    'status.conditions: Invalid value: cannot set SuccessCriteriaMet to NonIndexed Job',
    'status.conditions: Invalid value: cannot set SuccessCriteriaMet=True for Job without SuccessPolicy',
  ]);
  // Kept where the stored status already had it.
  assert.deepEqual(statusErrors({}, { conditions: [condition('SuccessCriteriaMet')] }, { conditions: [condition('SuccessCriteriaMet')] }, gates), []);
});

test('job status: the transition rules JobManagedBy adds', () => {
  const gates = { JobManagedBy: true };
  assert.deepEqual(
    statusErrors({}, { conditions: [condition('FailureTarget')], failed: 2, succeeded: 1, startTime: T0 }, { conditions: [condition('Complete'), condition('Failed')], failed: 1, active: 1, ready: 2, terminating: 1, completionTime: '2024-05-01T09:00:00Z', uncountedTerminatedPods: { failed: ['p1'] } }, gates),
    [
      'status.conditions: Invalid value: cannot set Complete=True and Failed=true conditions',
      'status.conditions: Invalid value: cannot set Failed=True condition without the FailureTarget=true condition',
      'status.conditions: Invalid value: cannot set Complete=True condition without the SuccessCriteriaMet=true condition',
      'status.active: Invalid value: 1: active>0 is invalid for finished job',
      'status.startTime: Required value: startTime is required for finished job',
      'status.uncountedTerminatedPods: Invalid value: batch.UncountedTerminatedPods{Succeeded:[]types.UID(nil), Failed:[]types.UID{"p1"}}: uncountedTerminatedPods needs to be empty for finished job',
      'status.terminating: Invalid value: 1: terminating>0 is invalid for finished job',
      'status.ready: Invalid value: 2: cannot set more ready pods than active',
      'status.conditions: Invalid value: cannot disable the terminal FailureTarget=True condition',
      'status.failed: Invalid value: 1: cannot decrease the failed counter',
      'status.succeeded: Invalid value: 0: cannot decrease the succeeded counter',
      'status.startTime: Required value: startTime cannot be removed for unsuspended job',
    ],
  );
  const indexed = { completionMode: 'Indexed', backoffLimitPerIndex: 1 };
  assert.deepEqual(statusErrors(indexed, {}, { completedIndexes: '0-1', failedIndexes: '1,5' }, gates), [
    'status.failedIndexes: Invalid value: "1,5": error parsing failedIndexes: too large index: "5"',
    'status.failedIndexes: Invalid value: "1,5": failedIndexes and completedIndexes overlap at index: 1',
  ]);
  assert.deepEqual(statusErrors({}, {}, { completedIndexes: '0', failedIndexes: '' }, gates), [
    'status.completedIndexes: Invalid value: "0": cannot set non-empty completedIndexes when non-indexed completion mode',
    'status.failedIndexes: Invalid value: "": cannot set non-null failedIndexes when backoffLimitPerIndex is null',
  ]);
  assert.deepEqual(statusErrors({}, { completionTime: T1, conditions: [condition('Complete')] }, { completionTime: '2024-05-01T10:06:00Z', conditions: [condition('Complete')] }, gates), [
    'status.completionTime: Invalid value: 2024-05-01 10:06:00 +0000 UTC: completionTime cannot be mutated',
  ]);
  assert.deepEqual(statusErrors({}, { startTime: T1 }, { startTime: T1, completionTime: T0, succeeded: 3, conditions: [condition('SuccessCriteriaMet'), condition('Complete')] }, gates), [
    'status.completionTime: Invalid value: 2024-05-01 10:00:00 +0000 UTC: completionTime cannot be set before startTime',
  ]);
  assert.deepEqual(statusErrors({}, {}, { completionTime: T1 }, gates), ['status.completionTime: Invalid value: 2024-05-01 10:05:00 +0000 UTC: cannot set completionTime when there is no Complete=True condition']);
});

test('job status: the writes of a Job controller pass with JobManagedBy on', () => {
  const gates = { JobManagedBy: true };
  const running = { startTime: T0, active: 1, ready: 1, terminating: 0, uncountedTerminatedPods: {} };
  const met = { ...running, active: 0, ready: 0, succeeded: 3, conditions: [condition('SuccessCriteriaMet')], uncountedTerminatedPods: { succeeded: ['p1'] } };
  const complete = { ...met, uncountedTerminatedPods: {}, completionTime: T1, conditions: [condition('SuccessCriteriaMet'), condition('Complete')] };
  assert.deepEqual(statusErrors({}, {}, running, gates), []);
  assert.deepEqual(statusErrors({}, running, met, gates), []);
  assert.deepEqual(statusErrors({}, met, complete, gates), []);
});
