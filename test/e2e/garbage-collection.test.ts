// The garbage collector through kubectl: dependents of a deleted owner go (background), a foreground delete
// waits for its blocking dependents, an orphaning delete leaves dependents without the reference, dangling
// references are removed or their objects collected, and custom resources take part like any object.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from './helpers.ts';

describe('garbage collection', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer();
  });
  after(async () => s.close());

  const uidOf = async (kind: string, name: string) => (await s.kubectlOk(['get', kind, name, '-o', 'jsonpath={.metadata.uid}'])).trim();
  const ownedConfigMap = (name: string, owners: { kind: string; apiVersion: string; name: string; uid: string; blockOwnerDeletion?: boolean; controller?: boolean }[]) =>
    JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, ownerReferences: owners }, data: { a: '1' } });
  const gone = async (kind: string, name: string) => {
    for (let i = 0; i < 200; i++) {
      if ((await s.kubectl(['get', kind, name, '--ignore-not-found', '-o', 'name'])).stdout === '') return true;
      await new Promise((r) => setTimeout(r, 25));
    }
    return false;
  };

  test('background (kubectl default): the owner goes at once, then its dependents', async () => {
    await s.kubectlOk(['create', 'configmap', 'owner-bg']);
    const uid = await uidOf('cm', 'owner-bg');
    await s.kubectlOk(['create', '-f', '-'], { input: ownedConfigMap('dep-bg', [{ kind: 'ConfigMap', apiVersion: 'v1', name: 'owner-bg', uid }]) });
    await s.kubectlOk(['delete', 'cm', 'owner-bg']);
    assert.ok(await gone('cm', 'dep-bg'));
  });

  test('foreground: the owner waits, marked for deletion, until its blocking dependents are gone', async () => {
    await s.kubectlOk(['create', 'configmap', 'owner-fg']);
    const uid = await uidOf('cm', 'owner-fg');
    // The dependent holds a finalizer, so the owner visibly waits for it.
    await s.kubectlOk(['create', '-f', '-'], {
      input: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'dep-fg', finalizers: ['example.com/hold'], ownerReferences: [{ kind: 'ConfigMap', apiVersion: 'v1', name: 'owner-fg', uid, blockOwnerDeletion: true }] } }),
    });
    await s.kubectlOk(['delete', 'cm', 'owner-fg', '--cascade=foreground', '--wait=false']);
    for (let i = 0; i < 200; i++) {
      const dep = JSON.parse(await s.kubectlOk(['get', 'cm', 'dep-fg', '-o', 'json']));
      if (dep.metadata.deletionTimestamp) break;
      await new Promise((r) => setTimeout(r, 25));
    }
    const owner = JSON.parse(await s.kubectlOk(['get', 'cm', 'owner-fg', '-o', 'json']));
    assert.ok(owner.metadata.deletionTimestamp);
    assert.deepEqual(owner.metadata.finalizers, ['foregroundDeletion']);
    await s.kubectlOk(['patch', 'cm', 'dep-fg', '--type=merge', '-p', '{"metadata":{"finalizers":null}}']);
    assert.ok(await gone('cm', 'dep-fg'));
    assert.ok(await gone('cm', 'owner-fg'));
  });

  test('orphan: the owner goes, the dependent stays without the reference', async () => {
    await s.kubectlOk(['create', 'configmap', 'owner-or']);
    const uid = await uidOf('cm', 'owner-or');
    await s.kubectlOk(['create', '-f', '-'], { input: ownedConfigMap('dep-or', [{ kind: 'ConfigMap', apiVersion: 'v1', name: 'owner-or', uid }]) });
    await s.kubectlOk(['delete', 'cm', 'owner-or', '--cascade=orphan']);
    assert.ok(await gone('cm', 'owner-or'));
    const dep = JSON.parse(await s.kubectlOk(['get', 'cm', 'dep-or', '-o', 'json']));
    assert.equal(dep.metadata.ownerReferences, undefined);
  });

  test('a dangling reference next to a live owner is removed; an object whose only owner never existed is collected', async () => {
    await s.kubectlOk(['create', 'configmap', 'live']);
    const uid = await uidOf('cm', 'live');
    await s.kubectlOk(['create', '-f', '-'], {
      input: ownedConfigMap('two-owners', [
        { kind: 'ConfigMap', apiVersion: 'v1', name: 'live', uid },
        { kind: 'ConfigMap', apiVersion: 'v1', name: 'ghost', uid: '00000000-0000-0000-0000-000000000001' },
      ]),
    });
    await s.kubectlOk(['create', '-f', '-'], { input: ownedConfigMap('orphaned', [{ kind: 'ConfigMap', apiVersion: 'v1', name: 'ghost', uid: '00000000-0000-0000-0000-000000000001' }]) });
    assert.ok(await gone('cm', 'orphaned'));
    for (let i = 0; i < 200; i++) {
      const dep = JSON.parse(await s.kubectlOk(['get', 'cm', 'two-owners', '-o', 'json']));
      if (dep.metadata.ownerReferences.length === 1) {
        assert.deepEqual(dep.metadata.ownerReferences.map((o: { name: string }) => o.name), ['live']);
        return;
      }
      await new Promise((r) => setTimeout(r, 25));
    }
    assert.fail('the dangling reference was not removed');
  });

  test('a null owner reference decodes as an empty one, as Go decodes it: deduplicated with kube\'s warning, then refused with its field errors', async () => {
    const r = await s.adminRequest('/api/v1/namespaces/default/configmaps', {
      method: 'POST',
      body: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'null-owner', ownerReferences: [{}, null] } }),
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(r.status, 422);
    assert.equal(
      r.headers.warning,
      '299 - ".metadata.ownerReferences contains duplicate entries; API server dedups owner references in 1.20+, and may reject such requests as early as 1.24; please fix your requests; duplicate UID(s) observed: "',
    );
    assert.equal(
      (JSON.parse(r.body) as { message: string }).message,
      'ConfigMap "null-owner" is invalid: [metadata.ownerReferences.apiVersion: Invalid value: "": version must not be empty, metadata.ownerReferences.kind: Invalid value: "": must not be empty, metadata.ownerReferences.name: Invalid value: "": must not be empty, metadata.ownerReferences.uid: Invalid value: "": must not be empty]',
    );
  });

  test('custom resources and cluster-scoped owners take part', async () => {
    await s.installCRDs({
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'widgets.example.com' },
      spec: {
        group: 'example.com',
        scope: 'Namespaced',
        names: { plural: 'widgets', kind: 'Widget' },
        versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }],
      },
    });
    await s.kubectlOk(['create', 'priorityclass', 'owner-pc', '--value=10']);
    const pcUid = await uidOf('priorityclass', 'owner-pc');
    await s.kubectlOk(['create', '-f', '-'], {
      input: JSON.stringify({ apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w', ownerReferences: [{ kind: 'PriorityClass', apiVersion: 'scheduling.k8s.io/v1', name: 'owner-pc', uid: pcUid }] } }),
    });
    const wUid = await uidOf('widget', 'w');
    await s.kubectlOk(['create', '-f', '-'], { input: ownedConfigMap('of-widget', [{ kind: 'Widget', apiVersion: 'example.com/v1', name: 'w', uid: wUid }]) });
    await s.kubectlOk(['delete', 'priorityclass', 'owner-pc']);
    assert.ok(await gone('widget', 'w'));
    assert.ok(await gone('cm', 'of-widget'));
  });

  test("a reference to an owner in another namespace is dangling: the dependent is collected, with kube's OwnerRefInvalidNamespace warning; a cluster-scoped dependent of a namespaced owner stays, warned", async () => {
    await s.kubectlOk(['create', 'namespace', 'gc-a']);
    await s.kubectlOk(['create', 'namespace', 'gc-b']);
    await s.kubectlOk(['-n', 'gc-a', 'create', 'configmap', 'owner']);
    const uid = (await s.kubectlOk(['-n', 'gc-a', 'get', 'cm', 'owner', '-o', 'jsonpath={.metadata.uid}'])).trim();
    const owners = [{ kind: 'ConfigMap', apiVersion: 'v1', name: 'owner', uid }];
    await s.kubectlOk(['-n', 'gc-b', 'create', '-f', '-'], { input: ownedConfigMap('elsewhere', owners) });
    await s.kubectlOk(['-n', 'gc-a', 'create', '-f', '-'], { input: ownedConfigMap('beside', owners) });
    await s.kubectlOk(['create', '-f', '-'], { input: JSON.stringify({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'gc-cluster-dependent', ownerReferences: owners } }) });
    assert.ok(await gone('cm', 'elsewhere'));
    const warnings = async () => JSON.parse(await s.kubectlOk(['get', 'events', '-A', '--field-selector', 'reason=OwnerRefInvalidNamespace', '-o', 'json'])).items as { type: string; message: string; involvedObject: { kind: string; name: string; namespace?: string }; source: { component: string } }[];
    for (let i = 0; i < 200 && (await warnings()).length < 2; i++) await new Promise((r) => setTimeout(r, 25));
    const byObject = new Map((await warnings()).map((e) => [`${e.involvedObject.kind}/${e.involvedObject.namespace ?? ''}/${e.involvedObject.name}`, e]));
    const elsewhere = byObject.get('ConfigMap/gc-b/elsewhere');
    assert.equal(elsewhere?.message, `ownerRef [v1/ConfigMap, namespace: gc-b, name: owner, uid: ${uid}] does not exist in namespace "gc-b"`);
    assert.equal(elsewhere?.type, 'Warning');
    assert.equal(elsewhere?.source.component, 'garbage-collector-controller');
    assert.equal(byObject.get('ClusterRole//gc-cluster-dependent')?.message, `ownerRef [v1/ConfigMap, namespace: , name: owner, uid: ${uid}] does not exist in namespace ""`);
    // The dependent in the owner's namespace and the cluster-scoped one stay.
    assert.equal(await s.kubectlOk(['-n', 'gc-a', 'get', 'cm', 'beside', '-o', 'name']), 'configmap/beside\n');
    assert.equal(await s.kubectlOk(['get', 'clusterrole', 'gc-cluster-dependent', '-o', 'name']), 'clusterrole.rbac.authorization.k8s.io/gc-cluster-dependent\n');
  });
});
