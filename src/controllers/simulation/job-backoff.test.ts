import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../registry/types.ts';
import { backoffDelay, finishedTime, newBackoffRecord, remainingTime } from './job-backoff.ts';

const t = (hms: string) => Date.parse(`2026-01-01T${hms}Z`);
const terminated = (name: string, finishedAt?: string) => ({ name, state: { terminated: { exitCode: 1, ...(finishedAt ? { finishedAt: `2026-01-01T${finishedAt}Z` } : {}) } } });
const pod = (status: Record<string, unknown>, extra: { initContainers?: unknown[]; deletion?: string; grace?: number } = {}): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: {
    name: 'p',
    creationTimestamp: '2026-01-01T00:00:00Z',
    ...(extra.deletion ? { deletionTimestamp: `2026-01-01T${extra.deletion}Z`, deletionGracePeriodSeconds: extra.grace ?? 0 } : {}),
  },
  spec: { containers: [{ name: 'c' }], ...(extra.initContainers ? { initContainers: extra.initContainers } : {}) },
  status,
});
const finishedAt = (hms: string) => pod({ phase: 'Failed', containerStatuses: [terminated('c', hms)] });

test('backoffDelay: 10 s after one failure, doubling with each further one, at most 10 min', () => {
  assert.deepEqual([0, 1, 2, 3, 4, 6, 7, 8, 100].map(backoffDelay), [0, 10_000, 20_000, 40_000, 80_000, 320_000, 600_000, 600_000, 600_000]);
});

test('remainingTime: the backoff left since the last failure on the clock given; 0 once over or without failures', () => {
  assert.equal(remainingTime(1, t('00:00:00'), t('00:00:03')), 7_000);
  assert.equal(remainingTime(2, t('00:00:00'), t('00:00:03')), 17_000);
  assert.equal(remainingTime(1, t('00:00:00'), t('00:00:10')), 0);
  assert.equal(remainingTime(1, t('00:00:00'), t('00:00:11')), 0);
  assert.equal(remainingTime(0, t('00:00:00'), t('00:00:00')), 0);
  assert.equal(remainingTime(1, undefined, t('00:00:00')), 0);
});

test("finishedTime: the containers' last finishedAt, else Ready=False's transition, else deletion less grace, else creation", () => {
  assert.equal(finishedTime(pod({ containerStatuses: [terminated('a', '00:00:05'), terminated('b', '00:00:09')] })), t('00:00:09'));
  const ready = { conditions: [{ type: 'Ready', status: 'False', lastTransitionTime: '2026-01-01T00:00:07Z' }] };
  // One container not terminated (or without finishedAt): the Ready condition then.
  assert.equal(finishedTime(pod({ ...ready, containerStatuses: [terminated('a', '00:00:05'), { name: 'b', state: { running: {} } }] })), t('00:00:07'));
  assert.equal(finishedTime(pod({ ...ready, containerStatuses: [terminated('a')] })), t('00:00:07'));
  assert.equal(finishedTime(pod({ conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: '2026-01-01T00:00:07Z' }] }, { deletion: '00:01:00', grace: 30 })), t('00:00:30'));
  assert.equal(finishedTime(pod({ phase: 'Failed' })), t('00:00:00'));
  // A sidecar (an init container that restarts always) finishes after the regular containers; other init containers do not count.
  const sidecars = [{ name: 'setup' }, { name: 'proxy', restartPolicy: 'Always' }];
  assert.equal(finishedTime(pod({ containerStatuses: [terminated('c', '00:00:05')], initContainerStatuses: [terminated('setup', '00:00:01'), terminated('proxy', '00:00:06')] }, { initContainers: sidecars })), t('00:00:06'));
  assert.equal(finishedTime(pod({ ...ready, containerStatuses: [terminated('c', '00:00:05')], initContainerStatuses: [{ name: 'proxy', state: { running: {} } }] }, { initContainers: sidecars })), t('00:00:07'));
});

test('newBackoffRecord: failures add up with the last one kept; a success resets the count to the failures after it', () => {
  assert.deepEqual(newBackoffRecord(undefined, [], []), { failuresAfterLastSuccess: 0 });
  const one = newBackoffRecord(undefined, [], [finishedAt('00:00:05')]);
  assert.deepEqual(one, { failuresAfterLastSuccess: 1, lastFailureTime: t('00:00:05') });
  assert.equal(newBackoffRecord(one, [], []), one);
  assert.deepEqual(newBackoffRecord(one, [], [finishedAt('00:00:20'), finishedAt('00:00:10')]), { failuresAfterLastSuccess: 3, lastFailureTime: t('00:00:20') });
  const success = (hms: string) => ({ ...finishedAt(hms), status: { phase: 'Succeeded', containerStatuses: [terminated('c', hms)] } });
  assert.deepEqual(newBackoffRecord(one, [success('00:00:30')], []), { failuresAfterLastSuccess: 0 });
  assert.deepEqual(newBackoffRecord(one, [success('00:00:30'), success('00:00:15')], [finishedAt('00:00:10'), finishedAt('00:00:40'), finishedAt('00:00:35'), finishedAt('00:00:30')]), { failuresAfterLastSuccess: 2, lastFailureTime: t('00:00:40') });
});
