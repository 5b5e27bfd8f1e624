// Namespace deletion with custom resources held by a finalizer: Terminating with kube's conditions, then gone
// once the finalizer is removed.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from './helpers.ts';

type Condition = { type: string; status: string; reason: string; message: string };

describe('namespace deletion with custom resources', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer();
    await s.installCRDs({
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'gadgets.example.com' },
      spec: {
        group: 'example.com',
        scope: 'Namespaced',
        names: { plural: 'gadgets', kind: 'Gadget' },
        versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }],
      },
    });
  });
  after(async () => s.close());

  test('content with a finalizer keeps the namespace Terminating with kube\'s conditions until it is released', async () => {
    await s.kubectlOk(['create', 'namespace', 'doomed']);
    await s.kubectlOk(['create', '-f', '-'], { input: JSON.stringify({ apiVersion: 'example.com/v1', kind: 'Gadget', metadata: { name: 'held', namespace: 'doomed', finalizers: ['example.com/hold'] } }) });
    await s.kubectlOk(['create', '-f', '-'], { input: JSON.stringify({ apiVersion: 'example.com/v1', kind: 'Gadget', metadata: { name: 'free', namespace: 'doomed' } }) });
    await s.kubectlOk(['create', 'configmap', 'c', '-n', 'doomed']);
    await s.kubectlOk(['delete', 'namespace', 'doomed', '--wait=false']);
    let conditions: Condition[] = [];
    for (let i = 0; i < 200; i++) {
      const ns = JSON.parse(await s.kubectlOk(['get', 'namespace', 'doomed', '-o', 'json'])) as { status: { phase: string; conditions?: Condition[] } };
      assert.equal(ns.status.phase, 'Terminating');
      conditions = ns.status.conditions ?? [];
      if (conditions.some((c) => c.type === 'NamespaceFinalizersRemaining' && c.status === 'True')) break;
      await new Promise((r) => setTimeout(r, 25));
    }
    assert.deepEqual(
      conditions.map((c) => [c.type, c.status, c.reason, c.message]),
      [
        ['NamespaceDeletionDiscoveryFailure', 'False', 'ResourcesDiscovered', 'All resources successfully discovered'],
        ['NamespaceDeletionGroupVersionParsingFailure', 'False', 'ParsedGroupVersions', 'All legacy kube types successfully parsed'],
        ['NamespaceDeletionContentFailure', 'False', 'ContentDeleted', 'All content successfully deleted, may be waiting on finalization'],
        ['NamespaceContentRemaining', 'True', 'SomeResourcesRemain', 'Some resources are remaining: gadgets.example.com has 1 resource instances'],
        ['NamespaceFinalizersRemaining', 'True', 'SomeFinalizersRemain', 'Some content in the namespace has finalizers remaining: example.com/hold in 1 resource instances'],
      ],
    );
    assert.equal((await s.kubectl(['get', 'gadget', 'free', '-n', 'doomed'])).code, 1);
    assert.equal((await s.kubectl(['get', 'configmap', 'c', '-n', 'doomed'])).code, 1);
    await s.kubectlOk(['patch', 'gadget', 'held', '-n', 'doomed', '--type=merge', '-p', '{"metadata":{"finalizers":null}}']);
    for (let i = 0; i < 200; i++) {
      const r = await s.kubectl(['get', 'namespace', 'doomed']);
      if (r.code !== 0) {
        assert.match(r.stderr, /namespaces "doomed" not found/);
        return;
      }
      await new Promise((r) => setTimeout(r, 50));
    }
    assert.fail('the namespace was not removed');
  });
});
