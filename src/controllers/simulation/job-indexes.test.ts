import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../registry/types.ts';
import { creatableIndexes, indexFailureAnnotations, indexRemainingTime, isIndexFailed, newIndexFailureCounts, podsWithDelayedDeletion } from './job-indexes.ts';

const t = (hms: string) => Date.parse(`2026-01-01T${hms}Z`);
const pod = (name: string, index: number, phase: string, counts: { failures?: string; ignored?: string; exitCode?: number; at?: string } = {}): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: {
    name,
    namespace: 'ns',
    creationTimestamp: '2026-01-01T00:00:00Z',
    annotations: {
      'batch.kubernetes.io/job-completion-index': String(index),
      ...(counts.failures !== undefined ? { 'batch.kubernetes.io/job-index-failure-count': counts.failures } : {}),
      ...(counts.ignored !== undefined ? { 'batch.kubernetes.io/job-index-ignored-failure-count': counts.ignored } : {}),
    },
  },
  status: { phase, containerStatuses: [{ name: 'c', state: phase === 'Failed' ? { terminated: { exitCode: counts.exitCode ?? 1, finishedAt: `2026-01-01T${counts.at ?? '00:00:00'}Z` } } : { running: {} } }] },
});
const spec = (backoffLimitPerIndex: number, rules?: unknown[]) => ({ completionMode: 'Indexed', completions: 4, backoffLimitPerIndex, ...(rules ? { podFailurePolicy: { rules } } : {}) });
const onExit = (action: string, code: number) => ({ action, onExitCodes: { operator: 'In', values: [code] } });

test('isIndexFailed: a failed pod fails its index once the index had failed backoffLimitPerIndex times before it, or on a FailIndex rule', () => {
  assert.equal(isIndexFailed(spec(0), pod('a', 0, 'Failed')), true);
  assert.equal(isIndexFailed(spec(1), pod('a', 0, 'Failed', { failures: '0' })), false);
  assert.equal(isIndexFailed(spec(1), pod('a', 0, 'Failed', { failures: '1' })), true);
  assert.equal(isIndexFailed(spec(0), pod('a', 0, 'Running')), false);
  // A count that does not parse (or is out of range) is 0.
  assert.equal(isIndexFailed(spec(1), pod('a', 0, 'Failed', { failures: 'x' })), false);
  assert.equal(isIndexFailed(spec(1), pod('a', 0, 'Failed', { failures: '-3' })), false);
  const policy = spec(3, [onExit('FailIndex', 42), onExit('Ignore', 1)]);
  assert.equal(isIndexFailed(policy, pod('a', 0, 'Failed', { failures: '0', exitCode: 42 })), true);
  assert.equal(isIndexFailed(policy, pod('a', 0, 'Failed', { failures: '5', exitCode: 1 })), false);
  assert.equal(isIndexFailed(policy, pod('a', 0, 'Failed', { failures: '3', exitCode: 2 })), true);
});

test("newIndexFailureCounts: the replaced pod's failure added to the index's failures, or to its ignored failures on an Ignore rule", () => {
  assert.deepEqual(newIndexFailureCounts(spec(2), undefined), { failures: 0, ignored: 0 });
  assert.deepEqual(newIndexFailureCounts(spec(2), pod('a', 0, 'Failed', { failures: '1' })), { failures: 2, ignored: 0 });
  const policy = spec(2, [onExit('Ignore', 1)]);
  assert.deepEqual(newIndexFailureCounts(policy, pod('a', 0, 'Failed', { failures: '1', ignored: '2', exitCode: 1 })), { failures: 1, ignored: 3 });
  assert.deepEqual(newIndexFailureCounts(policy, pod('a', 0, 'Failed', { failures: '1', ignored: '2', exitCode: 7 })), { failures: 2, ignored: 2 });
  assert.deepEqual(indexFailureAnnotations(spec(2), undefined), { 'batch.kubernetes.io/job-index-failure-count': '0' });
  assert.deepEqual(indexFailureAnnotations(policy, pod('a', 0, 'Failed', { exitCode: 1 })), { 'batch.kubernetes.io/job-index-failure-count': '0', 'batch.kubernetes.io/job-index-ignored-failure-count': '1' });
});

test('podsWithDelayedDeletion: the last failed pod of each index not succeeded, failed or active', () => {
  const old = pod('old', 0, 'Failed', { failures: '0', at: '00:00:10' });
  const last = pod('last', 0, 'Failed', { failures: '1', at: '00:00:20' });
  const earlier = pod('earlier', 0, 'Failed', { failures: '1', at: '00:00:15' });
  const other = pod('other', 1, 'Failed', { failures: '0' });
  const retried = pod('retried', 2, 'Failed', { failures: '0' });
  const running = pod('running', 2, 'Running', { failures: '1' });
  const done = pod('done', 3, 'Failed', { failures: '0' });
  const names = (m: Map<number, KubeObject>) => [...m].map(([ix, p]) => [ix, p.metadata.name]);
  const all = [old, last, earlier, other, retried, running, done];
  assert.deepEqual(names(podsWithDelayedDeletion(spec(3), all, [running], new Set([3]), new Set())), [[0, 'last'], [1, 'other']]);
  assert.deepEqual(names(podsWithDelayedDeletion(spec(3), all, [running], new Set(), new Set([0, 3]))), [[1, 'other']]);
});

test("the backoff of an index: from its last failed pod's failure counts, ignored ones included, and when it finished", () => {
  const now = t('00:00:04');
  assert.equal(indexRemainingTime(undefined, now), 0);
  assert.equal(indexRemainingTime(pod('a', 0, 'Failed', { failures: '0' }), now), 6_000);
  assert.equal(indexRemainingTime(pod('a', 0, 'Failed', { failures: '1', ignored: '1' }), now), 36_000);
  const delayed = new Map([
    [0, pod('a', 0, 'Failed', { failures: '1' })],
    [1, pod('b', 1, 'Failed', { failures: '0' })],
  ]);
  assert.deepEqual(creatableIndexes([0, 1, 2], delayed, now), { now: [2], wait: 0 });
  assert.deepEqual(creatableIndexes([0, 1], delayed, now), { now: [], wait: 6_000 });
  assert.deepEqual(creatableIndexes([0, 1], delayed, t('00:00:10')), { now: [1], wait: 0 });
});
