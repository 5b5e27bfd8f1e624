import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createMemoryStorage } from '../storage/memory/memory-storage.ts';
import { createRegistry, loopbackContext, type RegistryHandle } from './registry.ts';
import type { KubeObject, WatchEvent } from './types.ts';

async function withRegistry(run: (r: RegistryHandle, storage: ReturnType<typeof createMemoryStorage>) => Promise<void>): Promise<void> {
  const storage = createMemoryStorage();
  const registry = await createRegistry({ storage, runtimeConfig: '', featureGates: {} });
  try {
    await registry.store(registry.lookup('', 'v1', 'namespaces')!).create(loopbackContext(), { metadata: { name: 'default' } });
    await run(registry, storage);
  } finally {
    await registry.close();
  }
}

const newApiEvent = (name: string): KubeObject => ({
  apiVersion: 'events.k8s.io/v1',
  kind: 'Event',
  metadata: { name },
  eventTime: '2024-01-01T00:00:00.000000Z',
  reportingController: 'example.com/ctl',
  reportingInstance: 'ctl-1',
  action: 'Scaling',
  reason: 'ScaledUp',
  regarding: { kind: 'Deployment', namespace: 'default', name: 'web' },
  note: 'scaled to 3',
  type: 'Normal',
});

test('events written through events.k8s.io are stored as core v1 events and read through both APIs', async () => {
  await withRegistry(async (registry, storage) => {
    const core = registry.store(registry.lookup('', 'v1', 'events')!);
    const group = registry.store(registry.lookup('events.k8s.io', 'v1', 'events')!);
    const ctx = loopbackContext('default');
    const made = await group.create(ctx, newApiEvent('e1'));
    assert.equal(made.apiVersion, 'events.k8s.io/v1');
    assert.equal(made.note, 'scaled to 3');

    const { kv } = await storage.get('/registry/events/default/e1');
    assert.ok(kv);
    const stored = JSON.parse(kv.value) as KubeObject;
    assert.equal(stored.apiVersion, 'v1');
    assert.equal(stored.message, 'scaled to 3');
    assert.equal(stored.reportingComponent, 'example.com/ctl');

    const read = await core.get(ctx, 'e1');
    assert.equal(read.apiVersion, 'v1');
    assert.deepEqual(read.involvedObject, { kind: 'Deployment', namespace: 'default', name: 'web' });
    assert.equal(read.message, 'scaled to 3');
    assert.equal(read.metadata.resourceVersion, made.metadata.resourceVersion);

    const coreList = JSON.parse(JSON.stringify(await core.list(ctx, {}))) as { items: KubeObject[] };
    assert.deepEqual(coreList.items.map((e) => [e.metadata.name, e.message, (e.involvedObject as { name: string }).name]), [['e1', 'scaled to 3', 'web']]);

    // A core write is seen by the new API in its shape, with its field selectors.
    await core.create(ctx, { metadata: { name: 'e2' }, involvedObject: { kind: 'Pod', namespace: 'default', name: 'p' }, reason: 'Pulled', message: 'pulled', type: 'Normal' });
    const groupList = JSON.parse(JSON.stringify(await group.list(ctx, { fieldSelector: 'regarding.kind=Pod' }))) as { items: KubeObject[] };
    assert.deepEqual(groupList.items.map((e) => [e.metadata.name, e.note, (e.regarding as { name: string }).name]), [['e2', 'pulled', 'p']]);
    assert.equal(groupList.items[0].message, undefined);
    assert.deepEqual(groupList.items[0].deprecatedSource, {});
    const byController = await group.list(ctx, { fieldSelector: 'reportingController=example.com/ctl' });
    assert.deepEqual(byController.items.map((e) => e.metadata.name), ['e1']);

    // Updates through the new API keep the stored shape core (the reported fields are immutable there).
    const updated = await group.update(ctx, 'e1', (cur) => ({ ...cur!, metadata: { ...cur!.metadata, labels: { seen: 'twice' } } }));
    assert.deepEqual(updated.object.metadata.labels, { seen: 'twice' });
    assert.equal(updated.object.note, 'scaled to 3');
    assert.deepEqual((await core.get(ctx, 'e1')).metadata.labels, { seen: 'twice' });
    assert.equal((JSON.parse((await storage.get('/registry/events/default/e1')).kv!.value) as KubeObject).apiVersion, 'v1');
  });
});

test('watches convert each event to the watcher\'s version', async () => {
  await withRegistry(async (registry) => {
    const core = registry.store(registry.lookup('', 'v1', 'events')!);
    const group = registry.store(registry.lookup('events.k8s.io', 'v1', 'events')!);
    const ctx = loopbackContext('default');
    const start = await core.list(ctx, {});
    const stream = await core.watch(ctx, { resourceVersion: start.metadata.resourceVersion });
    const got: WatchEvent[] = [];
    const seen = new Promise<void>((resolve) => {
      stream.start((ev) => {
        got.push(ev);
        if (got.length === 1) resolve();
      }, () => resolve());
    });
    await group.create(ctx, newApiEvent('w1'));
    await seen;
    stream.stop();
    const obj = got[0].object as KubeObject;
    assert.equal(got[0].type, 'ADDED');
    assert.equal(obj.apiVersion, 'v1');
    assert.equal(obj.message, 'scaled to 3');
    assert.equal(obj.note, undefined);
  });
});

test('HPAs are stored as autoscaling/v2 and read through autoscaling/v1', async () => {
  await withRegistry(async (registry, storage) => {
    const v1 = registry.store(registry.lookup('autoscaling', 'v1', 'horizontalpodautoscalers')!);
    const v2 = registry.store(registry.lookup('autoscaling', 'v2', 'horizontalpodautoscalers')!);
    const ctx = loopbackContext('default');
    await v1.create(ctx, { metadata: { name: 'web' }, spec: { scaleTargetRef: { kind: 'Deployment', name: 'web', apiVersion: 'apps/v1' }, minReplicas: 1, maxReplicas: 5, targetCPUUtilizationPercentage: 60 } });
    const { kv } = await storage.get('/registry/horizontalpodautoscalers/default/web');
    assert.equal((JSON.parse(kv!.value) as KubeObject).apiVersion, 'autoscaling/v2');

    const asV2 = await v2.get(ctx, 'web');
    assert.deepEqual((asV2.spec as { metrics: unknown }).metrics, [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 60 } } }]);

    // A v2-only field survives an update through v1 (it rides in the behavior annotation).
    const behavior = { scaleDown: { stabilizationWindowSeconds: 300 } };
    await v2.update(ctx, 'web', (cur) => ({ ...cur!, spec: { ...(cur!.spec as object), behavior } }));
    const throughV1 = await v1.get(ctx, 'web');
    assert.equal((throughV1.spec as { targetCPUUtilizationPercentage: number }).targetCPUUtilizationPercentage, 60);
    assert.ok(throughV1.metadata.annotations?.['autoscaling.alpha.kubernetes.io/behavior']);
    await v1.update(ctx, 'web', (cur) => ({ ...cur!, spec: { ...(cur!.spec as object), maxReplicas: 7, targetCPUUtilizationPercentage: 75 } }));
    const after = await v2.get(ctx, 'web');
    assert.equal((after.spec as { maxReplicas: number }).maxReplicas, 7);
    // The behavior written through v2 came back with kube's v2 defaults filled in (SetDefaults_HorizontalPodAutoscalerBehavior).
    assert.deepEqual((after.spec as { behavior: unknown }).behavior, {
      scaleUp: { stabilizationWindowSeconds: 0, selectPolicy: 'Max', policies: [{ type: 'Pods', value: 4, periodSeconds: 15 }, { type: 'Percent', value: 100, periodSeconds: 15 }] },
      scaleDown: { stabilizationWindowSeconds: 300, selectPolicy: 'Max', policies: [{ type: 'Percent', value: 100, periodSeconds: 15 }] },
    });
    assert.equal(after.metadata.annotations, undefined);
    const list = await v1.list(ctx, {});
    assert.deepEqual(list.items.map((h) => (h.spec as { targetCPUUtilizationPercentage: number }).targetCPUUtilizationPercentage), [75]);
  });
});
