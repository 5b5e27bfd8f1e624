import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { KubeObject } from '../../types.ts';
import { builtinTypeFacts } from '../index.ts';
import { createErrors, updateErrors } from '../test-context.ts';

const template = { spec: { restartPolicy: 'Never', containers: [{ name: 'main', image: 'busybox' }] } };
const gatedSpec = () => ({
  template: structuredClone(template),
  completionMode: 'Indexed',
  completions: 4,
  managedBy: 'example.com/queue',
  backoffLimitPerIndex: 1,
  maxFailedIndexes: 2,
  successPolicy: { rules: [{ succeededCount: 2 }] },
  podFailurePolicy: { rules: [{ action: 'FailIndex', onExitCodes: { operator: 'In', values: [3] } }, { action: 'Ignore', onPodConditions: [{ type: 'DisruptionTarget' }] }] },
});

function created(gates: Record<string, boolean>): { spec: Record<string, any>; errors: string[] } {
  const job: KubeObject = { metadata: { name: 'gated', namespace: 'default', uid: 'uid-1' }, spec: gatedSpec() };
  const errors = createErrors(builtinTypeFacts('batch', 'jobs', gates), job);
  return { spec: job.spec as Record<string, any>, errors };
}

test('job create: managedBy is dropped while JobManagedBy is off (its default), kept when on', () => {
  assert.equal(created({}).spec.managedBy, undefined);
  assert.deepEqual(created({}).errors, []);
  assert.equal(created({ JobManagedBy: true }).spec.managedBy, 'example.com/queue');
});

test('job create: the fields of the beta Job features turned off are dropped', () => {
  const on = created({}).spec;
  assert.equal(on.backoffLimitPerIndex, 1);
  assert.equal(on.podReplacementPolicy, 'Failed');
  assert.equal(on.manualSelector, false);
  const off = created({ JobBackoffLimitPerIndex: false, JobSuccessPolicy: false, JobPodReplacementPolicy: false });
  assert.deepEqual(off.errors, []);
  for (const field of ['backoffLimitPerIndex', 'maxFailedIndexes', 'successPolicy', 'podReplacementPolicy']) assert.equal(off.spec[field], undefined, field);
  assert.deepEqual(off.spec.podFailurePolicy.rules.map((r: { action: string }) => r.action), ['Ignore']);
});

test('job update: a disabled feature the stored Job used is kept, one it did not use is dropped without a new generation', () => {
  const gates = { JobSuccessPolicy: false, JobPodReplacementPolicy: false };
  const jobs = builtinTypeFacts('batch', 'jobs', gates);
  const old: KubeObject = { metadata: { name: 'gated', namespace: 'default', uid: 'uid-1' }, spec: { template: structuredClone(template), completionMode: 'Indexed', completions: 4 } };
  assert.deepEqual(createErrors(builtinTypeFacts('batch', 'jobs'), old), []);
  Object.assign(old.metadata, { resourceVersion: '3' });
  old.status = {};
  // The stored Job has podReplacementPolicy (written while the gate was on), not successPolicy.
  const upd = structuredClone(old);
  (upd.spec as Record<string, unknown>).successPolicy = { rules: [{ succeededCount: 2 }] };
  assert.deepEqual(updateErrors(jobs, upd, old), []);
  assert.equal((upd.spec as Record<string, unknown>).successPolicy, undefined);
  assert.equal((upd.spec as Record<string, unknown>).podReplacementPolicy, 'TerminatingOrFailed');
  assert.equal(upd.metadata.generation, 1);
});
