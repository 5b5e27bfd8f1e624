import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../registry/types.ts';
import { countUncounted, formatIndexes, isPodFailed, parseIndexes, podsForRemoval } from './jobs.ts';

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
