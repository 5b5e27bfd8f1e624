import { test } from 'node:test';
import assert from 'node:assert/strict';
import { clockNow } from '../apis/clock.ts';
import { loopbackContext } from '../registry/registry.ts';
import type { KubeObject } from '../registry/types.ts';
import { expiresAt } from './ttl-after-finished.ts';
import { startWithControlPlane } from './testing.ts';

const job = (name: string, ttl: number | undefined): KubeObject => ({
  metadata: { name },
  spec: { ...(ttl === undefined ? {} : { ttlSecondsAfterFinished: ttl }), template: { spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox' }] } } },
});
const finishedAt = (t: number) => ({ conditions: [{ type: 'Complete', status: 'True', lastProbeTime: new Date(t).toISOString(), lastTransitionTime: new Date(t).toISOString() }], startTime: new Date(t - 1000).toISOString(), completionTime: new Date(t).toISOString(), succeeded: 1 });

test('expiresAt: the finish condition\'s time plus the TTL; none without a TTL or before the Job finished', () => {
  const t = Date.parse('2026-01-01T00:00:00Z');
  assert.equal(expiresAt({ ...job('a', 30), status: finishedAt(t) }), t + 30_000);
  assert.equal(expiresAt({ ...job('a', undefined), status: finishedAt(t) }), undefined);
  assert.equal(expiresAt({ ...job('a', 30), status: {} }), undefined);
  assert.equal(expiresAt({ ...job('a', 30), status: { conditions: [{ type: 'Failed', status: 'True', lastTransitionTime: '2026-01-01T00:00:00Z' }] } }), t + 30_000);
});

test('a finished Job with ttlSecondsAfterFinished is deleted once its time has come; others stay', async () => {
  const registry = await startWithControlPlane({ bootstrap: false });
  try {
    const jobs = registry.store(registry.lookup('batch', 'v1', 'jobs')!);
    const ctx = loopbackContext('default');
    const finish = async (name: string, at: number) => {
      await jobs.update(ctx, name, (cur) => ({ ...cur!, status: finishedAt(at) }), { subresource: 'status' });
    };
    for (const [name, ttl] of [['old', 5], ['soon', 1], ['kept', undefined], ['running', 0]] as const) await jobs.create(ctx, job(name, ttl));
    await finish('old', clockNow() - 10_000);
    await finish('soon', clockNow());
    await finish('kept', clockNow() - 10_000);
    const names = async () => (await jobs.list(ctx, {})).items.filter((j) => !j.metadata.deletionTimestamp).map((j) => j.metadata.name).sort();
    const deadline = Date.now() + 3000;
    while ((await names()).includes('old') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    assert.deepEqual(await names(), ['kept', 'running', 'soon']);
    while ((await names()).includes('soon') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    assert.deepEqual(await names(), ['kept', 'running']);
  } finally {
    await registry.close();
  }
});
