import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fieldErrorString } from '../../../apis/errors.ts';
import { podFailurePolicyErrors } from './job-failure-policy.ts';

const template = { spec: { restartPolicy: 'Never', initContainers: [{ name: 'setup' }], containers: [{ name: 'main' }] } };
const errors = (rules: unknown[], extra: object = {}) =>
  podFailurePolicyErrors({ template, podFailurePolicy: { rules }, ...extra }, 'spec.podFailurePolicy').map(fieldErrorString);

test('pod failure policy: valid rules pass', () => {
  assert.deepEqual(
    errors([
      { action: 'FailJob', onExitCodes: { containerName: 'setup', operator: 'In', values: [1, 2, 42] } },
      { action: 'Ignore', onPodConditions: [{ type: 'DisruptionTarget', status: 'True' }] },
      { action: 'Count', onExitCodes: { operator: 'NotIn', values: [0] } },
      { action: 'FailIndex', onPodConditions: [{ type: 'example.com/custom', status: 'Unknown' }] },
    ], { backoffLimitPerIndex: 1 }),
    [],
  );
});

test('pod failure policy: actions, and FailIndex only with backoffLimitPerIndex', () => {
  const onPodConditions = [{ type: 'DisruptionTarget', status: 'True' }];
  assert.deepEqual(errors([{ action: '', onPodConditions }, { action: 'Retry', onPodConditions }, { action: 'FailIndex', onPodConditions }]), [
    'spec.podFailurePolicy.rules[0].action: Required value: valid values: ["Count" "FailIndex" "FailJob" "Ignore"]',
    'spec.podFailurePolicy.rules[1].action: Unsupported value: "Retry": supported values: "Count", "FailIndex", "FailJob", "Ignore"',
    'spec.podFailurePolicy.rules[2].action: Invalid value: "FailIndex": requires the backoffLimitPerIndex to be set',
  ]);
});

test('pod failure policy: exit code requirements', () => {
  assert.deepEqual(
    errors([
      { action: 'FailJob', onExitCodes: { containerName: 'sidecar', operator: 'Equals', values: [3, 1, 3] } },
      { action: 'FailJob', onExitCodes: { operator: 'In', values: [0, 5] } },
      { action: 'FailJob', onExitCodes: { values: [] } },
      { action: 'FailJob', onExitCodes: { operator: 'NotIn' } },
    ]),
    [
      'spec.podFailurePolicy.rules[0].onExitCodes.operator: Unsupported value: "Equals": supported values: "In", "NotIn"',
      'spec.podFailurePolicy.rules[0].onExitCodes.containerName: Invalid value: "sidecar": must be one of the container or initContainer names in the pod template',
      'spec.podFailurePolicy.rules[0].onExitCodes.values[2]: Duplicate value: 3',
      'spec.podFailurePolicy.rules[0].onExitCodes.values: Invalid value: []int32{3, 1, 3}: must be ordered',
      'spec.podFailurePolicy.rules[1].onExitCodes.values[0]: Invalid value: 0: must not be 0 for the In operator',
      'spec.podFailurePolicy.rules[2].onExitCodes.operator: Required value: valid values: ["In" "NotIn"]',
      'spec.podFailurePolicy.rules[2].onExitCodes.values: Invalid value: []int32{}: at least one value is required',
      'spec.podFailurePolicy.rules[3].onExitCodes.values: Invalid value: []int32(nil): at least one value is required',
    ],
  );
  const many = Array.from({ length: 256 }, (_, i) => i + 1);
  assert.deepEqual(errors([{ action: 'FailJob', onExitCodes: { operator: 'In', values: many } }]), ['spec.podFailurePolicy.rules[0].onExitCodes.values: Too many: 256: must have at most 255 items']);
});

test('pod failure policy: pod condition patterns', () => {
  assert.deepEqual(errors([{ action: 'Ignore', onPodConditions: [{ type: 'Bad Type', status: 'True' }, { type: 'Ready', status: '' }, { type: 'Ready', status: 'Maybe' }] }]), [
    "spec.podFailurePolicy.rules[0].onPodConditions[0].type: Invalid value: \"Bad Type\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
    'spec.podFailurePolicy.rules[0].onPodConditions[1].status: Required value: valid values: ["False" "True" "Unknown"]',
    'spec.podFailurePolicy.rules[0].onPodConditions[2].status: Unsupported value: "Maybe": supported values: "False", "True", "Unknown"',
  ]);
  const patterns = Array.from({ length: 21 }, () => ({ type: 'Ready', status: 'True' }));
  assert.deepEqual(errors([{ action: 'Ignore', onPodConditions: patterns }]), ['spec.podFailurePolicy.rules[0].onPodConditions: Too many: 21: must have at most 20 items']);
});

test('pod failure policy: exactly one of onExitCodes and onPodConditions, at most 20 rules', () => {
  assert.deepEqual(errors([{ action: 'Ignore' }, { action: 'Ignore', onExitCodes: { operator: 'In', values: [1] }, onPodConditions: [{ type: 'Ready', status: 'True' }] }]), [
    'spec.podFailurePolicy.rules[0]: Invalid value: specifying one of OnExitCodes and OnPodConditions is required',
    'spec.podFailurePolicy.rules[1]: Invalid value: specifying both OnExitCodes and OnPodConditions is not supported',
  ]);
  const rules = Array.from({ length: 21 }, () => ({ action: 'Ignore', onPodConditions: [{ type: 'Ready', status: 'True' }] }));
  assert.deepEqual(errors(rules), ['spec.podFailurePolicy.rules: Too many: 21: must have at most 20 items']);
});
