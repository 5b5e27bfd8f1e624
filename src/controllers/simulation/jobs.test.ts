import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../registry/types.ts';
import { formatIndexes, parseIndexes } from './job-indexes.ts';
import { failJobMessage, failureCounts, isPodFailed, matchPodFailurePolicy } from './job-pod-failure-policy.ts';
import { countUncounted, podsForRemoval } from './jobs.ts';

test('formatIndexes: sorted, runs of three or more as ranges, as kube writes completedIndexes', () => {
  assert.equal(formatIndexes([]), '');
  assert.equal(formatIndexes([3, 0, 1, 2, 5, 7, 8]), '0-3,5,7,8');
  assert.equal(formatIndexes([1, 1, 2]), '1,2');
});

test('parseIndexes: the indexes below completions that completedIndexes names, malformed parts skipped', () => {
  assert.deepEqual(parseIndexes('0-2,4,7-9', 9), [0, 1, 2, 4, 7, 8]);
  assert.deepEqual(parseIndexes('1,x,3-,5', 6), [1, 5]);
  assert.deepEqual(parseIndexes('', 3), []);
  assert.deepEqual(parseIndexes(undefined, 3), []);
});

test('countUncounted: uncounted UIDs whose pods lost the finalizer (or are gone) move into the counters', () => {
  const status: Record<string, unknown> = { succeeded: 1, uncountedTerminatedPods: { succeeded: ['a', 'b'], failed: ['c'] } };
  assert.equal(countUncounted(status, new Set(['b'])), true);
  assert.deepEqual(status, { succeeded: 2, failed: 1, uncountedTerminatedPods: { succeeded: ['b'] } });
  assert.equal(countUncounted(status, new Set(['b'])), false);
  assert.equal(countUncounted(status, new Set()), true);
  assert.deepEqual(status, { succeeded: 3, failed: 1, uncountedTerminatedPods: {} });
});

const pod = (name: string, phase: string, extra: { deleting?: boolean; index?: number; node?: string; created?: string } = {}): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: {
    name,
    creationTimestamp: extra.created ?? '2026-01-01T00:00:00Z',
    ...(extra.deleting ? { deletionTimestamp: '2026-01-01T00:01:00Z' } : {}),
    ...(extra.index !== undefined ? { annotations: { 'batch.kubernetes.io/job-completion-index': String(extra.index) } } : {}),
  },
  spec: extra.node ? { nodeName: extra.node } : {},
  status: { phase },
});

test('isPodFailed: phase Failed, or deleted before it succeeded unless only failed pods are replaced', () => {
  const spec = { podReplacementPolicy: 'TerminatingOrFailed' };
  assert.equal(isPodFailed(pod('a', 'Failed'), spec), true);
  assert.equal(isPodFailed(pod('a', 'Running'), spec), false);
  assert.equal(isPodFailed(pod('a', 'Running', { deleting: true }), spec), true);
  assert.equal(isPodFailed(pod('a', 'Pending', { deleting: true }), spec), true);
  assert.equal(isPodFailed(pod('a', 'Succeeded', { deleting: true }), spec), false);
  assert.equal(isPodFailed(pod('a', 'Running', { deleting: true }), { podReplacementPolicy: 'Failed' }), false);
  assert.equal(isPodFailed(pod('a', 'Running', { deleting: true }), { podFailurePolicy: { rules: [] } }), false);
  assert.equal(isPodFailed(pod('a', 'Failed'), { podReplacementPolicy: 'Failed' }), true);
});

test("podsForRemoval: an Indexed Job's duplicates and out-of-range pods, then unscheduled, pending, not ready and newest first", () => {
  const names = (pods: KubeObject[]) => pods.map((p) => p.metadata.name);
  const running = pod('running', 'Running', { node: 'n1', created: '2026-01-01T00:00:05Z' });
  const older = pod('older', 'Running', { node: 'n1', created: '2026-01-01T00:00:01Z' });
  const pending = pod('pending', 'Pending', { node: 'n1' });
  const unscheduled = pod('unscheduled', 'Pending');
  assert.deepEqual(names(podsForRemoval([older, running, pending, unscheduled], false, 0, 3)), ['unscheduled', 'pending', 'running']);
  assert.deepEqual(names(podsForRemoval([older, running], false, 0, 0)), []);
  const i0a = pod('i0a', 'Running', { index: 0, node: 'n1' });
  const i0b = pod('i0b', 'Pending', { index: 0 });
  const i1 = pod('i1', 'Running', { index: 1, node: 'n1', created: '2026-01-01T00:00:09Z' });
  const i5 = pod('i5', 'Running', { index: 5, node: 'n1' });
  const none = pod('none', 'Running', { node: 'n1' });
  assert.deepEqual(names(podsForRemoval([i0a, i0b, i1, i5, none], true, 3, 0)), ['i5', 'none', 'i0b']);
  assert.deepEqual(names(podsForRemoval([i0a, i0b, i1, i5, none], true, 3, 4)), ['i5', 'none', 'i0b', 'i1']);
});

const terminated = (name: string, exitCode: number) => ({ name, state: { terminated: { exitCode } } });
const failedPod = (name: string, status: Record<string, unknown>): KubeObject => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'ns' }, status: { phase: 'Failed', ...status } });
const onExitCodes = (action: string, operator: string, values: number[], containerName?: string) => ({ action, onExitCodes: { ...(containerName ? { containerName } : {}), operator, values } });

test('matchPodFailurePolicy: exit codes In / NotIn, over every container or the one named, with kube\'s FailJob message', () => {
  const p = failedPod('x-abcde', { containerStatuses: [terminated('side', 1), terminated('main', 42)] });
  assert.deepEqual(matchPodFailurePolicy({ rules: [onExitCodes('FailJob', 'In', [42])] }, p), { action: 'FailJob', message: 'Container main for pod ns/x-abcde failed with exit code 42 matching FailJob rule at index 0' });
  assert.deepEqual(matchPodFailurePolicy({ rules: [onExitCodes('FailJob', 'NotIn', [42])] }, p), { action: 'FailJob', message: 'Container side for pod ns/x-abcde failed with exit code 1 matching FailJob rule at index 0' });
  assert.deepEqual(matchPodFailurePolicy({ rules: [onExitCodes('FailJob', 'NotIn', [1], 'main')] }, p), { action: 'FailJob', message: 'Container main for pod ns/x-abcde failed with exit code 42 matching FailJob rule at index 0' });
  assert.equal(matchPodFailurePolicy({ rules: [onExitCodes('FailJob', 'In', [42], 'side')] }, p), undefined);
  assert.deepEqual(matchPodFailurePolicy({ rules: [onExitCodes('Ignore', 'In', [1, 42])] }, p), { action: 'Ignore' });
  assert.deepEqual(matchPodFailurePolicy({ rules: [onExitCodes('Count', 'In', [42])] }, p), { action: 'Count' });
  assert.deepEqual(matchPodFailurePolicy({ rules: [onExitCodes('FailIndex', 'In', [42])] }, p), { action: 'FailIndex' });
});

test('matchPodFailurePolicy: init containers after the regular ones; exit code 0 and running containers never match', () => {
  const init = failedPod('p', { initContainerStatuses: [terminated('setup', 3)], containerStatuses: [{ name: 'main', state: { waiting: { reason: 'PodInitializing' } } }] });
  assert.deepEqual(matchPodFailurePolicy({ rules: [onExitCodes('FailJob', 'In', [3])] }, init), { action: 'FailJob', message: 'Container setup for pod ns/p failed with exit code 3 matching FailJob rule at index 0' });
  const both = failedPod('p', { initContainerStatuses: [terminated('setup', 3)], containerStatuses: [terminated('main', 5)] });
  assert.deepEqual(matchPodFailurePolicy({ rules: [onExitCodes('FailJob', 'NotIn', [])] }, both), { action: 'FailJob', message: 'Container main for pod ns/p failed with exit code 5 matching FailJob rule at index 0' });
  const zero = failedPod('p', { containerStatuses: [terminated('main', 0), { name: 'other', state: { running: {} } }] });
  assert.equal(matchPodFailurePolicy({ rules: [onExitCodes('FailJob', 'NotIn', [1])] }, zero), undefined);
  assert.equal(matchPodFailurePolicy({ rules: [onExitCodes('FailJob', 'In', [0])] }, zero), undefined);
});

test('matchPodFailurePolicy: pod conditions by type and status; the first rule that matches wins; no match, no policy', () => {
  const p = failedPod('p', { conditions: [{ type: 'Ready', status: 'False' }, { type: 'DisruptionTarget', status: 'True' }], containerStatuses: [terminated('main', 137)] });
  const disruption = { action: 'Ignore', onPodConditions: [{ type: 'DisruptionTarget', status: 'True' }] };
  assert.deepEqual(matchPodFailurePolicy({ rules: [disruption] }, p), { action: 'Ignore' });
  assert.deepEqual(matchPodFailurePolicy({ rules: [{ ...disruption, action: 'FailJob' }] }, p), { action: 'FailJob', message: 'Pod ns/p has condition DisruptionTarget matching FailJob rule at index 0' });
  assert.equal(matchPodFailurePolicy({ rules: [{ action: 'FailJob', onPodConditions: [{ type: 'DisruptionTarget', status: 'False' }] }] }, p), undefined);
  assert.deepEqual(matchPodFailurePolicy({ rules: [onExitCodes('Count', 'In', [1]), disruption, onExitCodes('FailJob', 'In', [137])] }, p), { action: 'Ignore' });
  assert.deepEqual(matchPodFailurePolicy({ rules: [onExitCodes('Count', 'In', [1]), onExitCodes('FailJob', 'In', [137]), disruption] }, p), {
    action: 'FailJob',
    message: 'Container main for pod ns/p failed with exit code 137 matching FailJob rule at index 1',
  });
  assert.equal(matchPodFailurePolicy({ rules: [onExitCodes('FailJob', 'In', [1])] }, p), undefined);
  assert.equal(matchPodFailurePolicy({ rules: [] }, p), undefined);
  assert.equal(matchPodFailurePolicy(undefined, p), undefined);
});

test('failureCounts and failJobMessage: an Ignore match does not count; FailJob only for pods in phase Failed', () => {
  const policy = { podFailurePolicy: { rules: [onExitCodes('Ignore', 'In', [1]), onExitCodes('FailJob', 'In', [42])] } };
  const ignored = failedPod('a', { containerStatuses: [terminated('main', 1)] });
  const fatal = failedPod('b', { containerStatuses: [terminated('main', 42)] });
  const other = failedPod('c', { containerStatuses: [terminated('main', 2)] });
  assert.deepEqual([ignored, fatal, other].map((p) => failureCounts(p, policy)), [false, true, true]);
  assert.equal(failureCounts(ignored, {}), true);
  assert.equal(failJobMessage([ignored, other, fatal], policy), 'Container main for pod ns/b failed with exit code 42 matching FailJob rule at index 1');
  assert.equal(failJobMessage([ignored, other], policy), undefined);
  const terminating: KubeObject = { ...fatal, metadata: { ...fatal.metadata, deletionTimestamp: '2026-01-01T00:01:00Z' }, status: { ...(fatal.status as object), phase: 'Running' } };
  assert.equal(failJobMessage([terminating], policy), undefined);
  assert.equal(failJobMessage([fatal], {}), undefined);
});
