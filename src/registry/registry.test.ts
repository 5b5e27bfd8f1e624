import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createMemoryStorage } from '../storage/memory/memory-storage.ts';
import { createRegistry, loopbackContext } from './registry.ts';
import { definition, rejection } from './store-testing.ts';
import type { KubeObject } from './types.ts';

async function eventually<T>(probe: () => Promise<T | undefined>, ms = 3000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error('condition not reached');
    await new Promise((r) => setTimeout(r, 20));
  }
}

test('the registry serves the built-in definitions and creates the system namespaces', async () => {
  const registry = await createRegistry({ storage: createMemoryStorage(), runtimeConfig: '', featureGates: {}, namespaceResyncMs: 50 });
  try {
    assert.equal(registry.ready(), true);
    const cm = registry.lookup('', 'v1', 'configmaps');
    assert.ok(cm);
    assert.equal(cm.storagePrefix, '/registry/configmaps');
    assert.equal(cm.listKind, 'ConfigMapList');
    assert.ok(registry.lookup('apps', 'v1', 'deployments'));
    assert.equal(registry.lookup('batch', 'v1beta1', 'cronjobs'), undefined);
    const ns = registry.store(registry.lookup('', 'v1', 'namespaces')!);
    const names = (await ns.list(loopbackContext(), {})).items.map((i) => i.metadata.name);
    assert.deepEqual(names, ['default', 'kube-node-lease', 'kube-public', 'kube-system']);
    const made = await registry.store(cm).create(loopbackContext('default'), { metadata: { name: 'c' }, data: { a: 'b' } });
    assert.equal(made.metadata.namespace, 'default');
  } finally {
    await registry.close();
  }
});

test('definitions can be registered and unregistered at run time', async () => {
  const registry = await createRegistry({ storage: createMemoryStorage(), runtimeConfig: '', featureGates: {}, namespaceResyncMs: 50 });
  try {
    let changes = 0;
    const off = registry.onChange(() => changes++);
    const v1 = definition({ group: 'example.com', version: 'v1', resource: 'widgets', kind: 'Widget', custom: true });
    const v2 = { ...v1, version: 'v2' };
    registry.register([v1, v2]);
    assert.equal(changes, 1);
    assert.equal(registry.lookup('example.com', 'v2', 'widgets'), v2);
    await registry.store(v1).create(loopbackContext('default'), { metadata: { name: 'w' } });
    assert.equal((await registry.store(v2).get(loopbackContext('default'), 'w')).apiVersion, 'example.com/v2');
    registry.unregister([v2]);
    assert.equal(registry.lookup('example.com', 'v2', 'widgets'), undefined);
    assert.equal(changes, 2);
    off();
    registry.unregister([v1]);
    assert.equal(changes, 2);
  } finally {
    await registry.close();
  }
});

test('deleting a namespace removes its content, reports what remains, then removes the namespace', async () => {
  const registry = await createRegistry({ storage: createMemoryStorage(), runtimeConfig: '', featureGates: {}, namespaceResyncMs: 30 });
  try {
    const ns = registry.store(registry.lookup('', 'v1', 'namespaces')!);
    const cms = registry.store(registry.lookup('', 'v1', 'configmaps')!);
    const ctx = loopbackContext('team');
    await ns.create(loopbackContext(), { metadata: { name: 'team' } });
    await cms.create(ctx, { metadata: { name: 'plain' } });
    await cms.create(ctx, { metadata: { name: 'held', finalizers: ['example.com/hold'] } });
    const started = await ns.delete(loopbackContext(), 'team');
    assert.equal(started.deletedImmediately, false);
    assert.equal((started.object.status as { phase: string }).phase, 'Terminating');
    const refused = await rejection(cms.create(ctx, { metadata: { name: 'late' } }));
    assert.equal(refused.code, 403);

    const waiting = await eventually(async () => {
      const cur = await ns.get(loopbackContext(), 'team');
      const conds = ((cur.status as { conditions?: { type: string; status: string; reason: string; message: string }[] }).conditions ?? []);
      return conds.find((c) => c.type === 'NamespaceFinalizersRemaining' && c.status === 'True') ? conds : undefined;
    });
    assert.deepEqual(
      waiting.map((c) => [c.type, c.status, c.reason, c.message]),
      [
        ['NamespaceDeletionDiscoveryFailure', 'False', 'ResourcesDiscovered', 'All resources successfully discovered'],
        ['NamespaceDeletionGroupVersionParsingFailure', 'False', 'ParsedGroupVersions', 'All legacy kube types successfully parsed'],
        ['NamespaceDeletionContentFailure', 'False', 'ContentDeleted', 'All content successfully deleted, may be waiting on finalization'],
        ['NamespaceContentRemaining', 'True', 'SomeResourcesRemain', 'Some resources are remaining: configmaps. has 1 resource instances'],
        ['NamespaceFinalizersRemaining', 'True', 'SomeFinalizersRemain', 'Some content in the namespace has finalizers remaining: example.com/hold in 1 resource instances'],
      ],
    );
    assert.deepEqual((await cms.list(ctx, {})).items.map((i) => i.metadata.name), ['held']);
    await cms.update(ctx, 'held', (cur) => ({ ...(cur as KubeObject), metadata: { ...cur!.metadata, finalizers: [] } }));
    await eventually(async () => {
      try {
        await ns.get(loopbackContext(), 'team');
        return undefined;
      } catch (e) {
        return (e as { code?: number }).code === 404 ? true : undefined;
      }
    });
  } finally {
    await registry.close();
  }
});
