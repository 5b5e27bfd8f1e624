import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createMemoryStorage } from '../storage/memory/memory-storage.ts';
import { builtinDefinitions, createRegistry, loopbackContext } from './registry.ts';
import { definition } from './store-testing.ts';

test('the registry serves the built-in definitions', async () => {
  const registry = await createRegistry({ storage: createMemoryStorage(), runtimeConfig: '', featureGates: {} });
  try {
    const cm = registry.lookup('', 'v1', 'configmaps');
    assert.ok(cm);
    assert.equal(cm.storagePrefix, '/registry/configmaps');
    assert.equal(cm.listKind, 'ConfigMapList');
    assert.ok(registry.lookup('apps', 'v1', 'deployments'));
    assert.equal(registry.lookup('apps', 'v1', 'deployments')!.storagePrefix, '/registry/deployments', 'kube-apiserver etcd layout');
    assert.equal(registry.lookup('', 'v1', 'nodes')!.storagePrefix, '/registry/minions');
    assert.equal(registry.lookup('batch', 'v1beta1', 'cronjobs'), undefined);
    const ns = registry.store(registry.lookup('', 'v1', 'namespaces')!);
    assert.deepEqual((await ns.list(loopbackContext(), {})).items, []);
    await ns.create(loopbackContext(), { metadata: { name: 'default' } });
    const made = await registry.store(cm).create(loopbackContext('default'), { metadata: { name: 'c' }, data: { a: 'b' } });
    assert.equal(made.metadata.namespace, 'default');
  } finally {
    await registry.close();
  }
});

test('definitions can be registered and unregistered at run time', async () => {
  const registry = await createRegistry({ storage: createMemoryStorage(), runtimeConfig: '', featureGates: {} });
  try {
    let changes = 0;
    const off = registry.onChange(() => changes++);
    const v1 = definition({ group: 'example.com', version: 'v1', resource: 'widgets', kind: 'Widget', custom: true });
    const v2 = { ...v1, version: 'v2' };
    registry.register([v1, v2]);
    assert.equal(changes, 1);
    assert.equal(registry.lookup('example.com', 'v2', 'widgets'), v2);
    await registry.store(registry.lookup('', 'v1', 'namespaces')!).create(loopbackContext(), { metadata: { name: 'default' } });
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

test('built-in resources never share a storage prefix unless kube stores them together', () => {
  const owners = new Map<string, Set<string>>();
  for (const d of builtinDefinitions('api/all=true')) {
    const set = owners.get(d.storagePrefix) ?? new Set<string>();
    set.add(`${d.group}/${d.resource}`);
    owners.set(d.storagePrefix, set);
  }
  const shared = [...owners].filter(([, grs]) => grs.size > 1).map(([p, grs]) => `${p}: ${[...grs].sort().join(' ')}`);
  assert.deepEqual(shared, ['/registry/events: /events events.k8s.io/events']);
});
