import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { KubeObject } from '../../types.ts';
import { builtinTypeFacts } from '../index.ts';
import { createErrors, updateErrors } from '../test-context.ts';

const jobs = builtinTypeFacts('batch', 'jobs');

function storedJob(spec: Record<string, unknown>, status: Record<string, unknown> = {}): KubeObject {
  const job: KubeObject = { metadata: { name: 'work', namespace: 'default', uid: 'uid-1' }, spec: { template: { spec: { restartPolicy: 'Never', containers: [{ name: 'main', image: 'busybox' }] } }, ...spec } };
  assert.deepEqual(createErrors(jobs, job), []);
  job.metadata.resourceVersion = '5';
  job.status = status;
  return job;
}

function update(old: KubeObject, change: (spec: Record<string, any>) => void): string[] {
  const obj = structuredClone(old);
  change(obj.spec as Record<string, any>);
  return updateErrors(jobs, obj, old);
}

test('job update: an Indexed Job changes completions only together with parallelism', () => {
  const old = storedJob({ completionMode: 'Indexed', completions: 4, parallelism: 4 });
  assert.deepEqual(update(old, (s) => Object.assign(s, { completions: 6, parallelism: 6 })), []);
  assert.deepEqual(update(old, (s) => Object.assign(s, { completions: 6 })), ['spec.completions: Invalid value: 6: can only be modified in tandem with spec.parallelism']);
  // maxFailedIndexes stays mutable.
  const perIndex = storedJob({ completionMode: 'Indexed', completions: 4, parallelism: 2, backoffLimitPerIndex: 1, maxFailedIndexes: 1 });
  assert.deepEqual(update(perIndex, (s) => Object.assign(s, { maxFailedIndexes: 3 })), []);
  const plain = storedJob({ completions: 4, parallelism: 4 });
  assert.deepEqual(update(plain, (s) => Object.assign(s, { completions: 6, parallelism: 6 })), ['spec.completions: Invalid value: 6: field is immutable']);
});

test('job update: the policies, completion mode, backoffLimitPerIndex and managedBy are fixed', () => {
  const old = storedJob({
    completionMode: 'Indexed',
    completions: 3,
    backoffLimitPerIndex: 1,
    podFailurePolicy: { rules: [{ action: 'FailIndex', onExitCodes: { operator: 'In', values: [42] } }] },
    successPolicy: { rules: [{ succeededCount: 2 }] },
  });
  assert.deepEqual(
    update(old, (s) => {
      s.backoffLimitPerIndex = 2;
      s.podFailurePolicy.rules[0].onExitCodes.values = [43];
      s.successPolicy.rules[0].succeededIndexes = '0-1';
    }),
    [
      'spec.podFailurePolicy: Invalid value: batch.PodFailurePolicy{Rules:[]batch.PodFailurePolicyRule{batch.PodFailurePolicyRule{Action:"FailIndex", OnExitCodes:(*batch.PodFailurePolicyOnExitCodesRequirement)(batch.PodFailurePolicyOnExitCodesRequirement{ContainerName:(*string)(nil), Operator:"In", Values:[]int32{43}}), OnPodConditions:[]batch.PodFailurePolicyOnPodConditionsPattern(nil)}}}: field is immutable',
      'spec.backoffLimitPerIndex: Invalid value: 2: field is immutable',
      'spec.successPolicy: Invalid value: batch.SuccessPolicy{Rules:[]batch.SuccessPolicyRule{batch.SuccessPolicyRule{SucceededIndexes:(*string)("0-1"), SucceededCount:(*int32)(2)}}}: field is immutable',
    ],
  );
  assert.deepEqual(update(old, (s) => delete s.successPolicy), ['spec.successPolicy: Invalid value: "null": field is immutable']);
  // With JobManagedBy off, an update may not add managedBy (kube drops it on create only).
  assert.deepEqual(update(old, (s) => (s.managedBy = 'example.com/mine')), ['spec.managedBy: Invalid value: "example.com/mine": field is immutable']);
});

test('job update: spec errors are reported by ValidateJob and again by ValidateJobUpdate', () => {
  const old = storedJob({});
  assert.deepEqual(update(old, (s) => (s.activeDeadlineSeconds = -5)), [
    'spec.activeDeadlineSeconds: Invalid value: -5: must be greater than or equal to 0',
    'spec.activeDeadlineSeconds: Invalid value: -5: must be greater than or equal to 0',
  ]);
});

test('job update: a suspended Job that never started may change its scheduling directives, not the rest of its template', () => {
  const old = storedJob({ suspend: true });
  const scheduling = (s: Record<string, any>) => {
    s.template.spec.nodeSelector = { disk: 'ssd' };
    s.template.spec.tolerations = [{ key: 'gpu', operator: 'Exists' }];
    s.template.spec.affinity = { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'zone', operator: 'In', values: ['a'] }] }] } } };
    s.template.metadata.annotations = { note: 'x' };
  };
  assert.deepEqual(update(old, scheduling), []);
  const immutable = (errs: string[]) => errs.map((e) => e.replace(/Invalid value: .*: field is immutable$/, 'Invalid value: …: field is immutable'));
  assert.deepEqual(immutable(update(old, (s) => (s.template.spec.affinity = { podAffinity: {} }))), ['spec.template: Invalid value: …: field is immutable']);
  assert.deepEqual(immutable(update(old, (s) => (s.template.spec.containers[0].image = 'busybox:2'))), ['spec.template: Invalid value: …: field is immutable']);
  // Once started (or not suspended), the template is fixed.
  assert.deepEqual(immutable(update(storedJob({ suspend: true }, { startTime: '2024-01-01T00:00:00Z' }), scheduling)), ['spec.template: Invalid value: …: field is immutable']);
  assert.deepEqual(immutable(update(storedJob({}), scheduling)), ['spec.template: Invalid value: …: field is immutable']);
});

test('job update: the generated labels and selector as kube checks them', () => {
  const old = storedJob({});
  assert.deepEqual(
    update(old, (s) => {
      s.template.metadata.labels['job-name'] = 'other';
      s.selector = { matchLabels: { 'batch.kubernetes.io/controller-uid': 'uid-2' } };
    }).filter((e) => !e.startsWith('spec.template: ')),
    [
      `spec.template.metadata.labels[job-name]: Invalid value: map[string]string{"batch.kubernetes.io/controller-uid":"uid-1", "batch.kubernetes.io/job-name":"work", "controller-uid":"uid-1", "job-name":"other"}: must be 'work'`,
      'spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string{"batch.kubernetes.io/controller-uid":"uid-2"}, MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: `selector` not auto-generated',
      'spec.template.metadata.labels: Invalid value: map[string]string{"batch.kubernetes.io/controller-uid":"uid-1", "batch.kubernetes.io/job-name":"work", "controller-uid":"uid-1", "job-name":"other"}: `selector` does not match template `labels`',
      'spec.template.metadata.labels: Invalid value: map[string]string{"batch.kubernetes.io/controller-uid":"uid-1", "batch.kubernetes.io/job-name":"work", "controller-uid":"uid-1", "job-name":"other"}: `selector` does not match template `labels`',
      'spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string{"batch.kubernetes.io/controller-uid":"uid-2"}, MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: field is immutable',
    ],
  );
  // A Job stored before the batch.kubernetes.io labels existed is not required to have them.
  const legacy = storedJob({});
  const labels = (legacy.spec as any).template.metadata.labels;
  delete labels['batch.kubernetes.io/job-name'];
  delete labels['batch.kubernetes.io/controller-uid'];
  (legacy.spec as any).selector = { matchLabels: { 'controller-uid': 'uid-1' } };
  assert.deepEqual(update(legacy, (s) => (s.parallelism = 2)), []);
});

test('job create: a manual selector that is missing matches no labels', () => {
  const job: KubeObject = { metadata: { name: 'manual', namespace: 'default', uid: 'uid-9' }, spec: { manualSelector: true, template: { metadata: { labels: { app: 'x' } }, spec: { restartPolicy: 'Never', containers: [{ name: 'main', image: 'busybox' }] } } } };
  assert.deepEqual(createErrors(jobs, job), ['spec.selector: Required value', 'spec.template.metadata.labels: Invalid value: map[string]string{"app":"x"}: `selector` does not match template `labels`']);
});
