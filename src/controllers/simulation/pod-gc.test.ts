import { test } from 'node:test';
import assert from 'node:assert/strict';
import { clock, clockDate } from '../../apis/clock.ts';
import { isStatusError } from '../../apis/errors.ts';
import { rfc3339 } from '../../registry/store-codec.ts';
import type { KubeObject } from '../../registry/types.ts';
import { createInformers, type Informers } from '../informers.ts';
import { startWithControlPlane } from '../testing.ts';
import { OUT_OF_SERVICE_TAINT, startPodGarbageCollector, type PodGarbageCollector } from './pod-gc.ts';
import { asObj, ctxFor, NODES, PODS } from './shared.ts';

const NS = 'default';
const HOLD = 'example.com/hold';
const phaseOf = (pod: KubeObject): unknown => asObj(pod.status).phase;

interface Fixture {
  informers: Informers;
  gc: PodGarbageCollector;
  /** The pod events the informers saw (their own writes included), in order. */
  seen: { type: string; name: string; phase: unknown; conditions: unknown }[];
}

/** A control plane on a frozen clock, informers and a PodGC whose timer never fires during the test. */
async function withPodGc(options: { terminatedPodThreshold?: number }, body: (f: Fixture) => Promise<void>): Promise<void> {
  clock.freeze();
  const registry = await startWithControlPlane({ bootstrap: false });
  const informers = createInformers(registry);
  const seen: Fixture['seen'] = [];
  informers.of(PODS).onEvent((ev) => seen.push({ type: ev.type, name: ev.object.metadata.name ?? '', phase: asObj(ev.object.status).phase, conditions: asObj(ev.object.status).conditions }));
  await Promise.all([informers.of(PODS).synced, informers.of(NODES).synced]);
  const gc = startPodGarbageCollector(informers, { ...options, periodMs: 3_600_000 });
  try {
    await body({ informers, gc, seen });
  } finally {
    await gc.stop();
    await informers.stop();
    await registry.close();
    clock.reset();
  }
}

async function createNode(informers: Informers, name: string, ready: boolean, taints: object[] = []): Promise<void> {
  const nodes = informers.of(NODES);
  await nodes.create('', { apiVersion: 'v1', kind: 'Node', metadata: { name }, spec: { taints } });
  const at = rfc3339(clockDate());
  await nodes.update('', name, (cur) => ({ ...cur!, status: { conditions: [{ type: 'Ready', status: ready ? 'True' : 'False', lastHeartbeatTime: at, lastTransitionTime: at, reason: 'Test', message: 'test' }] } }), { subresource: 'status' });
}

async function createPod(informers: Informers, name: string, options: { node?: string; phase?: string; reason?: string; finalizers?: string[] } = {}): Promise<KubeObject> {
  const pods = informers.of(PODS);
  await pods.create(NS, {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: NS, ...(options.finalizers ? { finalizers: options.finalizers } : {}) },
    spec: { containers: [{ name: 'c', image: 'busybox' }], ...(options.node ? { nodeName: options.node } : {}) },
  });
  if (!options.phase) return pods.get(NS, name)!;
  return pods.update(NS, name, (cur) => ({ ...cur!, status: { ...asObj(cur!.status), phase: options.phase, ...(options.reason ? { reason: options.reason } : {}) } }), { subresource: 'status' });
}

/** The pod as the API has it now (undefined once deleted). */
async function apiPod(informers: Informers, name: string): Promise<KubeObject | undefined> {
  try {
    return await informers.of(PODS).store()!.get(ctxFor(NS), name);
  } catch (e) {
    if (isStatusError(e) && e.code === 404) return undefined;
    throw e;
  }
}

async function apiPodNames(informers: Informers): Promise<string[]> {
  const list = await informers.of(PODS).store()!.list(ctxFor(NS), {});
  return list.items.map((p) => p.metadata.name ?? '').sort();
}

test('orphaned pods go once their node has been missing for 40 s, marked Failed with DisruptionTarget first', async () => {
  await withPodGc({}, async ({ informers, gc, seen }) => {
    await createNode(informers, 'present', true);
    await createNode(informers, 'doomed', true);
    await createPod(informers, 'on-present', { node: 'present', phase: 'Running' });
    await createPod(informers, 'on-ghost', { node: 'ghost', phase: 'Running' });
    await createPod(informers, 'on-doomed', { node: 'doomed', phase: 'Running' });
    await createPod(informers, 'on-late', { node: 'late', phase: 'Running' });
    await createPod(informers, 'finished-on-ghost', { node: 'ghost', phase: 'Succeeded' });
    await informers.of(NODES).delete('', 'doomed');

    await gc.sweep();
    assert.deepEqual(await apiPodNames(informers), ['finished-on-ghost', 'on-doomed', 'on-ghost', 'on-late', 'on-present']);
    clock.advance(20_000);
    // A node that shows up during its quarantine saves its pods.
    await createNode(informers, 'late', true);
    clock.advance(19_000);
    await gc.sweep();
    assert.deepEqual(await apiPodNames(informers), ['finished-on-ghost', 'on-doomed', 'on-ghost', 'on-late', 'on-present']);
    assert.equal(phaseOf((await apiPod(informers, 'on-ghost'))!), 'Running');

    clock.advance(2_000);
    const deletedAt = rfc3339(clockDate());
    await gc.sweep();
    assert.deepEqual(await apiPodNames(informers), ['on-late', 'on-present']);
    assert.equal(phaseOf((await apiPod(informers, 'on-present'))!), 'Running');

    const disruption = { type: 'DisruptionTarget', status: 'True', lastProbeTime: null, lastTransitionTime: deletedAt, reason: 'DeletionByPodGC', message: 'PodGC: node no longer exists' };
    for (const name of ['on-ghost', 'on-doomed']) {
      const events = seen.filter((e) => e.name === name).slice(-2);
      assert.equal(events[0]!.type, 'MODIFIED');
      assert.equal(events[0]!.phase, 'Failed');
      assert.deepEqual(events[0]!.conditions, [disruption]);
      assert.equal(events[1]!.type, 'DELETED');
    }
    // A pod that had finished is deleted as it is: no status write, no DisruptionTarget.
    const finished = seen.filter((e) => e.name === 'finished-on-ghost').slice(-2);
    assert.deepEqual(finished.map((e) => [e.type, e.phase, e.conditions]), [
      ['MODIFIED', 'Succeeded', undefined],
      ['DELETED', 'Succeeded', undefined],
    ]);
  });
});

test('an unscheduled terminating pod is marked Failed and force-deleted; its finalizers still hold it', async () => {
  await withPodGc({}, async ({ informers, gc }) => {
    await createPod(informers, 'held', { finalizers: [HOLD] });
    await createPod(informers, 'waiting');
    await informers.of(PODS).delete(NS, 'held');
    await gc.sweep();

    const held = (await apiPod(informers, 'held'))!;
    assert.ok(held.metadata.deletionTimestamp);
    assert.equal(held.metadata.deletionGracePeriodSeconds, 0);
    assert.deepEqual(held.metadata.finalizers, [HOLD]);
    assert.equal(phaseOf(held), 'Failed');
    assert.equal(asObj(held.status).conditions, undefined);
    assert.equal(phaseOf((await apiPod(informers, 'waiting'))!), 'Pending');

    // Later passes find it Failed already: the delete they repeat changes nothing.
    await gc.sweep();
    assert.equal((await apiPod(informers, 'held'))!.metadata.resourceVersion, held.metadata.resourceVersion);

    await informers.of(PODS).update(NS, 'held', (cur) => ({ ...cur!, metadata: { ...cur!.metadata, finalizers: [] } }));
    assert.deepEqual(await apiPodNames(informers), ['waiting']);
  });
});

test('past the threshold, evicted then oldest terminated pods go; the newest stay; running pods do not count', async () => {
  await withPodGc({ terminatedPodThreshold: 3 }, async ({ informers, gc }) => {
    await createPod(informers, 'running', { phase: 'Running' });
    for (const [name, phase] of [['t1', 'Succeeded'], ['t2', 'Failed'], ['t3', 'Succeeded']] as const) {
      clock.advance(2_000);
      await createPod(informers, name, { phase });
    }
    // At the threshold: nothing to do.
    await gc.sweep();
    assert.deepEqual(await apiPodNames(informers), ['running', 't1', 't2', 't3']);

    clock.advance(2_000);
    await createPod(informers, 'evicted', { phase: 'Failed', reason: 'Evicted' });
    clock.advance(2_000);
    await createPod(informers, 't4', { phase: 'Succeeded' });
    // Two over: the evicted pod (the newest but one) and the oldest.
    await gc.sweep();
    assert.deepEqual(await apiPodNames(informers), ['running', 't2', 't3', 't4']);
  });
});

test('terminating pods on a not-ready node with the out-of-service taint are force-deleted; others stay', async () => {
  await withPodGc({}, async ({ informers, gc, seen }) => {
    const taint = { key: OUT_OF_SERVICE_TAINT, value: 'nodeshutdown', effect: 'NoExecute' };
    await createNode(informers, 'shut-down', false, [taint]);
    await createNode(informers, 'not-ready', false);
    await createNode(informers, 'ready-tainted', true, [taint]);
    for (const [name, node] of [['gone', 'shut-down'], ['alive', 'shut-down'], ['untainted', 'not-ready'], ['ready', 'ready-tainted']]) {
      await createPod(informers, name!, { node, phase: 'Running' });
    }
    for (const name of ['gone', 'untainted', 'ready']) await informers.of(PODS).delete(NS, name);

    await gc.sweep();
    assert.deepEqual(await apiPodNames(informers), ['alive', 'ready', 'untainted']);
    const gone = seen.filter((e) => e.name === 'gone').slice(-2);
    assert.deepEqual(gone.map((e) => [e.type, e.phase]), [
      ['MODIFIED', 'Failed'],
      ['DELETED', 'Failed'],
    ]);
    assert.equal(gone[0]!.conditions, undefined);
    for (const name of ['untainted', 'ready']) {
      const pod = (await apiPod(informers, name))!;
      assert.equal(phaseOf(pod), 'Running');
      assert.equal(pod.metadata.deletionGracePeriodSeconds, 30);
    }
  });
});

test('a move of the server clock runs a pass by itself', async () => {
  await withPodGc({}, async ({ informers, gc }) => {
    await createPod(informers, 'on-ghost', { node: 'ghost', phase: 'Running' });
    await gc.sweep();
    clock.advance(41_000);
    const deadline = Date.now() + 3000;
    while ((await apiPodNames(informers)).length > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    assert.deepEqual(await apiPodNames(informers), []);
  });
});
