import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loopbackContext } from '../registry/registry.ts';
import { rejection } from '../registry/store-testing.ts';
import type { KubeObject } from '../registry/types.ts';
import { startWithControlPlane } from './testing.ts';

async function eventually<T>(probe: () => Promise<T | undefined>, ms = 3000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error('condition not reached');
    await new Promise((r) => setTimeout(r, 20));
  }
}

test('the system namespaces exist after start', async () => {
  const registry = await startWithControlPlane({ bootstrap: false });
  try {
    const ns = registry.store(registry.lookup('', 'v1', 'namespaces')!);
    const names = (await ns.list(loopbackContext(), {})).items.map((i) => i.metadata.name);
    assert.deepEqual(names, ['default', 'kube-node-lease', 'kube-public', 'kube-system']);
  } finally {
    await registry.close();
  }
});

test('deleting a namespace removes its content, reports what remains, then removes the namespace', async () => {
  const registry = await startWithControlPlane({ namespaceResyncMs: 30 });
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
