// The test controls that move state, through both doors (the library handle and HTTP under /capstan/v1/), observed
// with a client-node informer and kubectl: snapshot / restore / reset (an informer relists after a 410), fork, and
// logical clusters under /clusters/<name>; on memory and sqlite storage.

import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import * as k8s from '@kubernetes/client-node';
import { startTestServer, type TestServer } from './helpers.ts';
import { call, cmPath, createCm, namespace, openWatch, rvOf, until, type Json } from './stream.ts';

/** A control call over HTTP as the admin (system:masters): status and parsed body. */
async function door(s: TestServer, method: string, path: string, body?: unknown): Promise<{ status: number; body: Json }> {
  const r = await s.adminRequest(`/capstan/v1${path}`, { method, body: body === undefined ? undefined : JSON.stringify(body), headers: { 'content-type': 'application/json' } });
  return { status: r.status, body: JSON.parse(r.body) as Json };
}

async function names(s: TestServer, ns: string): Promise<string[]> {
  const list = await call(s, 'GET', cmPath(ns));
  return (list.items as Json[]).map((o) => o.metadata.name as string).sort();
}

function configMapInformer(s: TestServer, ns: string) {
  const kc = new k8s.KubeConfig();
  kc.loadFromString(s.kubeconfig);
  const core = kc.makeApiClient(k8s.CoreV1Api);
  let lists = 0;
  const informer = k8s.makeInformer(kc, cmPath(ns), () => {
    lists++;
    return core.listNamespacedConfigMap({ namespace: ns });
  });
  const seen: string[] = [];
  informer.on('add', (o) => seen.push(`add ${o.metadata?.name}`));
  informer.on('delete', (o) => seen.push(`delete ${o.metadata?.name}`));
  return { informer, seen, lists: () => lists, names: () => informer.list(ns).map((o) => o.metadata?.name).sort() };
}

for (const backend of ['memory', 'sqlite'] as const) {
  describe(`snapshot, restore, reset (${backend})`, () => {
    let s: TestServer;
    before(async () => {
      s = await startTestServer({ storageBackend: backend });
    });
    after(async () => {
      await s?.close();
    });

    test('library: restore brings the store back, resourceVersions move forward, an informer relists', async () => {
      const ns = await namespace(s, 'snap-lib');
      const a = await createCm(s, ns, 'a');
      const id = await s.snapshot();
      const inf = configMapInformer(s, ns);
      await inf.informer.start();
      try {
        await createCm(s, ns, 'b');
        await until(() => inf.names().join() === 'a,b', 5000, 'the informer to see b');
        const listsBefore = inf.lists();
        const watch = await openWatch(s, `${cmPath(ns)}?watch=true&resourceVersion=${rvOf(a)}`);
        await s.restore(id);
        // A watcher is told its revision is gone, as after a compaction.
        const events = await watch.waitFor(2, 5000);
        assert.equal(events[0].type, 'ADDED');
        assert.equal(events[1].type, 'ERROR');
        assert.equal(events[1].object.code, 410);
        assert.equal(events[1].object.reason, 'Expired');
        assert.match(String(events[1].object.message), /^too old resource version: \d+ \(\d+\)$/);
        await watch.ended;
        assert.deepEqual(await names(s, ns), ['a']);
        await until(() => inf.names().join() === 'a', 10000, 'the informer to relist');
        assert.ok(inf.lists() > listsBefore, 'the informer listed again');
        assert.ok(inf.seen.includes('delete b'));
        const restored = await call(s, 'GET', cmPath(ns, 'a'));
        assert.ok(Number(rvOf(restored)) > Number(rvOf(a)), `restored rv ${rvOf(restored)} > ${rvOf(a)}`);
        assert.equal(restored.metadata.uid, a.metadata.uid);
        // The old resourceVersion is a conflict now; writes go on from the restored object.
        const stale = await s.adminRequest(cmPath(ns, 'a'), { method: 'PUT', body: JSON.stringify({ ...a, data: { k: 'stale' } }), headers: { 'content-type': 'application/json' } });
        assert.equal(stale.status, 409);
        await call(s, 'PUT', cmPath(ns, 'a'), { ...restored, data: { k: 'fresh' } });
        // A watch from the old version is refused with 410, one from the restored version works.
        const old = await openWatch(s, `${cmPath(ns)}?watch=true&resourceVersion=${rvOf(a)}`);
        const [gone] = await old.waitFor(1, 3000);
        assert.equal(gone.type, 'ERROR');
        assert.equal(gone.object.code, 410);
        old.close();
      } finally {
        inf.informer.stop();
      }
    });

    test('HTTP: snapshots, restore, reset; kubectl sees each state', async () => {
      const ns = await namespace(s, 'snap-http');
      await s.kubectlOk(['create', 'configmap', 'one', '-n', ns]);
      const taken = await door(s, 'POST', '/snapshots');
      assert.equal(taken.status, 201);
      assert.match(taken.body.id, /^snapshot-\d+$/);
      assert.ok(taken.body.objects > 4);
      await s.kubectlOk(['create', 'configmap', 'two', '-n', ns]);
      await s.kubectlOk(['delete', 'configmap', 'one', '-n', ns]);
      assert.equal((await s.kubectlOk(['get', 'cm', '-n', ns, '-o', 'name'])).trim(), 'configmap/two');
      const listed = await door(s, 'GET', '/snapshots');
      assert.ok((listed.body.items as Json[]).some((x) => x.id === taken.body.id));
      const restored = await door(s, 'POST', `/snapshots/${taken.body.id}/restore`);
      assert.deepEqual(restored, { status: 200, body: { restored: taken.body.id } });
      assert.equal((await s.kubectlOk(['get', 'cm', '-n', ns, '-o', 'name'])).trim(), 'configmap/one');
      // reset: the state start-up left (no user namespace), through either door.
      assert.deepEqual(await door(s, 'POST', '/reset'), { status: 200, body: { reset: true } });
      const ns1 = await s.kubectl(['get', 'ns', ns]);
      assert.equal(ns1.code, 1);
      assert.match(ns1.stderr, new RegExp(`namespaces "${ns}" not found`));
      assert.deepEqual((await s.kubectlOk(['get', 'ns', '-o', 'name'])).trim().split('\n').sort(), ['namespace/default', 'namespace/kube-node-lease', 'namespace/kube-public', 'namespace/kube-system']);
      await namespace(s, 'again');
      await s.reset();
      assert.equal((await s.kubectl(['get', 'ns', 'again'])).code, 1);
      // Bad input: a missing snapshot, a snapshot with a body, an unknown action; nothing changes.
      const before = await door(s, 'GET', '/snapshots');
      assert.deepEqual(await door(s, 'POST', '/snapshots/nope/restore'), {
        status: 404,
        body: { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'snapshot "nope" not found', reason: 'NotFound', code: 404 },
      });
      await assert.rejects(s.restore('nope'), /snapshot "nope" not found/);
      assert.equal((await door(s, 'POST', '/snapshots', { name: 'x' })).status, 400);
      assert.equal((await door(s, 'POST', `/snapshots/${taken.body.id}/rewind`)).status, 404);
      assert.equal((await door(s, 'PUT', '/snapshots')).status, 405);
      assert.deepEqual(await door(s, 'GET', '/snapshots'), before);
    });

    test('restore brings CRDs back and forgets CRDs made after the snapshot', async () => {
      await s.reset();
      const id = await s.snapshot();
      await s.installCRDs({
        apiVersion: 'apiextensions.k8s.io/v1',
        kind: 'CustomResourceDefinition',
        metadata: { name: 'widgets.example.com' },
        spec: { group: 'example.com', scope: 'Namespaced', names: { plural: 'widgets', singular: 'widget', kind: 'Widget' }, versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }] },
      });
      assert.equal((await s.adminRequest('/apis/example.com/v1/namespaces/default/widgets')).status, 200);
      await s.restore(id);
      assert.equal((await s.adminRequest('/apis/example.com/v1/namespaces/default/widgets')).status, 404);
    });
  });
}

describe('fork', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer();
  });
  after(async () => {
    await s?.close();
  });

  test('library and HTTP: a second server with the snapshot objects, independent of the first', async () => {
    const ns = await namespace(s, 'forked');
    await createCm(s, ns, 'shared');
    const id = await s.snapshot();
    await createCm(s, ns, 'later');
    const fork = await s.fork(id);
    try {
      assert.notEqual(fork.url, s.url);
      const kubeconfig = join(s.dataDir, 'fork.kubeconfig');
      await writeFile(kubeconfig, fork.kubeconfig, { mode: 0o600 });
      assert.equal((await s.kubectlOk(['get', 'cm', '-n', ns, '-o', 'name'], { kubeconfig })).trim(), 'configmap/shared');
      await s.kubectlOk(['create', 'configmap', 'only-in-fork', '-n', ns], { kubeconfig });
      assert.deepEqual(await names(s, ns), ['later', 'shared']);
    } finally {
      await fork.close();
    }
    const viaHttp = await door(s, 'POST', '/forks', {});
    assert.equal(viaHttp.status, 201);
    assert.match(viaHttp.body.url, /^https:\/\/127\.0\.0\.1:\d+$/);
    const kubeconfig = join(s.dataDir, 'fork2.kubeconfig');
    await writeFile(kubeconfig, viaHttp.body.kubeconfig, { mode: 0o600 });
    assert.equal((await s.kubectlOk(['get', 'cm', '-n', ns, '-o', 'name'], { kubeconfig })).trim().split('\n').sort().join(), 'configmap/later,configmap/shared');
    assert.deepEqual(await door(s, 'DELETE', `/forks/${viaHttp.body.id}`), { status: 200, body: { deleted: viaHttp.body.id } });
    assert.equal((await door(s, 'DELETE', `/forks/${viaHttp.body.id}`)).status, 404);
    assert.equal((await door(s, 'POST', '/forks', { snapshot: 'missing' })).status, 404);
    assert.equal((await door(s, 'POST', '/forks', { snapshot: 7 })).status, 400);
  });
});

describe('logical clusters', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer();
  });
  after(async () => {
    await s?.close();
  });

  test('library and HTTP: isolated objects, resourceVersions and CRDs under /clusters/<name>', async () => {
    const a = await s.createCluster('team-a');
    assert.equal(a.url, `${s.url}/clusters/team-a`);
    const created = await door(s, 'POST', '/clusters', { name: 'team-b' });
    assert.equal(created.status, 201);
    assert.equal(created.body.url, `${s.url}/clusters/team-b`);
    const kcA = join(s.dataDir, 'a.kubeconfig');
    const kcB = join(s.dataDir, 'b.kubeconfig');
    await writeFile(kcA, a.kubeconfig, { mode: 0o600 });
    await writeFile(kcB, created.body.kubeconfig, { mode: 0o600 });
    assert.equal((await s.kubectlOk(['get', 'ns', '-o', 'name'], { kubeconfig: kcA })).trim().split('\n').length, 4);
    await s.kubectlOk(['create', 'configmap', 'only-a'], { kubeconfig: kcA });
    assert.equal((await s.kubectlOk(['get', 'cm', '-o', 'name'], { kubeconfig: kcA })).trim(), 'configmap/only-a');
    assert.equal((await s.kubectl(['get', 'cm', 'only-a'], { kubeconfig: kcB })).code, 1);
    assert.equal((await s.kubectl(['get', 'cm', 'only-a'])).code, 1);
    // Own resourceVersions: the two clusters count separately.
    const rvA = (await s.kubectlOk(['get', 'cm', 'only-a', '-o', 'jsonpath={.metadata.resourceVersion}'], { kubeconfig: kcA })).trim();
    await s.kubectlOk(['create', 'configmap', 'only-b'], { kubeconfig: kcB });
    const rvB = (await s.kubectlOk(['get', 'cm', 'only-b', '-o', 'jsonpath={.metadata.resourceVersion}'], { kubeconfig: kcB })).trim();
    assert.equal(rvA, rvB);
    // Own CRDs: one cluster serves a kind the others do not know.
    const crd = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: gadgets.example.com}
spec:
  group: example.com
  scope: Namespaced
  names: {plural: gadgets, singular: gadget, kind: Gadget}
  versions: [{name: v1, served: true, storage: true, schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}}]
`;
    await s.kubectlOk(['apply', '-f', '-'], { kubeconfig: kcA, input: crd });
    await s.kubectlOk(['wait', '--for=condition=Established', 'crd/gadgets.example.com'], { kubeconfig: kcA });
    const list = await s.adminRequest('/clusters/team-a/apis/example.com/v1/namespaces/default/gadgets');
    assert.equal(list.status, 200);
    assert.equal((await s.adminRequest('/clusters/team-b/apis/example.com/v1/namespaces/default/gadgets')).status, 404);
    assert.equal((await s.adminRequest('/apis/example.com/v1/namespaces/default/gadgets')).status, 404);
    // A watch inside a cluster sees that cluster's changes only.
    const w = await openWatch(s, '/clusters/team-b/api/v1/namespaces/default/configmaps?watch=true&resourceVersion=0');
    await w.waitFor(1, 3000);
    await s.kubectlOk(['create', 'configmap', 'another-a'], { kubeconfig: kcA });
    await s.kubectlOk(['create', 'configmap', 'another-b'], { kubeconfig: kcB });
    const events = await w.waitFor(2, 3000);
    assert.deepEqual(events.map((e) => e.object.metadata?.name), ['only-b', 'another-b']);
    w.close();
    assert.deepEqual(
      (await door(s, 'GET', '/clusters')).body.items.map((c: Json) => c.name),
      ['team-a', 'team-b'],
    );
    assert.deepEqual(s.requests({ cluster: 'team-a', verb: 'create', resource: 'configmaps' }).map((r) => r.name || r.code), [201, 201]);
    // Bad input: invalid and duplicate names, unknown clusters; nothing else changes.
    assert.equal((await door(s, 'POST', '/clusters', { name: 'Team_C' })).status, 400);
    assert.equal((await door(s, 'POST', '/clusters', {})).status, 400);
    assert.equal((await door(s, 'POST', '/clusters', { name: 'team-a' })).status, 409);
    await assert.rejects(s.createCluster('x'.repeat(64)), /is invalid/);
    const unknown = await s.adminRequest('/clusters/nobody/api/v1/namespaces');
    assert.equal(unknown.status, 404);
    assert.equal(JSON.parse(unknown.body).reason, 'NotFound');
    assert.deepEqual(await door(s, 'DELETE', '/clusters/team-b'), { status: 200, body: { deleted: 'team-b' } });
    assert.equal((await s.adminRequest('/clusters/team-b/api/v1/namespaces')).status, 404);
    assert.equal((await door(s, 'DELETE', '/clusters/team-b')).status, 404);
    assert.equal(await s.deleteCluster('team-a'), true);
    assert.deepEqual(s.controls?.clusters(), []);
  });

  test('a huge number of clusters is refused with 429 past the limit, the existing ones stay', async () => {
    const made: string[] = [];
    // The limit is 1000 per server; fill it quickly in-process (each empty cluster is cheap).
    for (let i = 0; i < 1000; i++) made.push((await s.createCluster(`c${i}`)).name);
    const refused = await door(s, 'POST', '/clusters', { name: 'one-more' });
    assert.equal(refused.status, 429);
    assert.equal(refused.body.reason, 'TooManyRequests');
    assert.match(refused.body.message, /^at most 1000 logical clusters per server/);
    assert.equal(s.controls?.clusters().length, 1000);
    for (const name of made) await s.deleteCluster(name);
    assert.equal(s.controls?.clusters().length, 0);
  });
});
