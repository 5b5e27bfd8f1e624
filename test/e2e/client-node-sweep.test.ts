// How controller and operator authors use @kubernetes/client-node against Capstan, beyond client-node.test.ts:
// informers (ListWatch) on namespaced, cluster-scoped and custom resources, their restart after a 410 Gone, raw
// Watch (too old resourceVersion, sendInitialEvents under 1.31's gates), KubernetesObjectApi (generic CRUD by
// apiVersion/kind, custom resources, server-side apply with fieldManager/force), the patch content types through
// the typed APIs, status and scale subresources (built-in and custom), deleteCollection, propagation policies and
// dryRun, list paging, ApiException bodies (kube Statuses), Leases with V1MicroTime, core and events.k8s.io
// Events, TokenRequest/TokenReview/SelfSubjectAccessReview/SelfSubjectReview, the Log API and the Metrics API.

import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import * as k8s from '@kubernetes/client-node';
import { startTestServer, until } from './helpers.ts';
import type { TestServer } from './helpers.ts';

interface Status {
  kind: string;
  apiVersion: string;
  metadata: Record<string, unknown>;
  status: string;
  message?: string;
  reason?: string;
  details?: Record<string, unknown>;
  code: number;
}

/** The code and the kube Status body of a failed client-node call (fails the test if it succeeded). */
async function failure(p: Promise<unknown>): Promise<{ code: number; status: Status }> {
  try {
    await p;
  } catch (e) {
    const err = e as { code?: number; body?: unknown };
    assert.equal(typeof err.body, 'string', `not an ApiException with a body: ${String(e)}`);
    return { code: err.code ?? -1, status: JSON.parse(err.body as string) as Status };
  }
  assert.fail('the call succeeded');
}

/** A deserialized client-node object (class instances) as plain JSON, for deepEqual. */
function plain(v: unknown): unknown {
  return JSON.parse(JSON.stringify(v)) as unknown;
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

const WIDGET_CRD = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'widgets.sweep.example.com' },
  spec: {
    group: 'sweep.example.com',
    scope: 'Namespaced',
    names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        subresources: { status: {}, scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas', labelSelectorPath: '.status.selector' } },
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: {
              spec: { type: 'object', properties: { replicas: { type: 'integer' }, color: { type: 'string' }, sizes: { type: 'array', items: { type: 'string' } } } },
              status: { type: 'object', properties: { replicas: { type: 'integer' }, selector: { type: 'string' }, phase: { type: 'string' } } },
            },
          },
        },
      },
    ],
  },
};

describe('client-node sweep', () => {
  let s: TestServer;
  let kc: k8s.KubeConfig;
  let core: k8s.CoreV1Api;
  let apps: k8s.AppsV1Api;
  let custom: k8s.CustomObjectsApi;
  let objects: k8s.KubernetesObjectApi;

  async function namespace(name: string): Promise<string> {
    await core.createNamespace({ body: { metadata: { name } } });
    return name;
  }

  before(async () => {
    // A history window of 2 s lets a test outlive its watchers' resourceVersions.
    s = await startTestServer({ historyWindowSeconds: 2, simulateWorkloads: { nodes: 1, podStartupMs: 20, podTerminationMs: 20 } });
    kc = new k8s.KubeConfig();
    kc.loadFromString(s.kubeconfig);
    core = kc.makeApiClient(k8s.CoreV1Api);
    apps = kc.makeApiClient(k8s.AppsV1Api);
    custom = kc.makeApiClient(k8s.CustomObjectsApi);
    objects = k8s.KubernetesObjectApi.makeApiClient(kc);
    await s.installCRDs(WIDGET_CRD);
  });
  after(async () => {
    await s?.close();
  });

  /** An informer recording its events as "verb name rv". */
  function recordingInformer<T extends k8s.KubernetesObject>(path: string, list: () => Promise<k8s.KubernetesListObject<T>>, labelSelector?: string) {
    let lists = 0;
    const events: string[] = [];
    // What makeInformer builds, typed as the ListWatch it is.
    const informer = new k8s.ListWatch<T>(path, new k8s.Watch(kc), () => {
      lists++;
      return list();
    }, false, labelSelector);
    informer.on('add', (o) => events.push(`add ${o.metadata?.name} ${o.metadata?.resourceVersion}`));
    informer.on('update', (o) => events.push(`update ${o.metadata?.name} ${o.metadata?.resourceVersion}`));
    informer.on('delete', (o) => events.push(`delete ${o.metadata?.name}`));
    return { informer, events, lists: () => lists };
  }

  test('informer on namespaced ConfigMaps with a label selector: the list, then add/update/delete; the cache follows', async () => {
    const ns = await namespace('inf-cm');
    const pre = await core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'pre', labels: { app: 'x' } } } });
    await core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'other', labels: { app: 'y' } } } });
    const r = recordingInformer<k8s.V1ConfigMap>(`/api/v1/namespaces/${ns}/configmaps`, () => core.listNamespacedConfigMap({ namespace: ns, labelSelector: 'app=x' }), 'app=x');
    await r.informer.start();
    try {
      assert.deepEqual(r.events, [`add pre ${pre.metadata?.resourceVersion}`]);
      const a = await core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'a', labels: { app: 'x' } }, data: { k: '1' } } });
      await core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'b', labels: { app: 'y' } } } });
      const a2 = await core.patchNamespacedConfigMap(
        { namespace: ns, name: 'a', body: { data: { k: '2' } } },
        k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
      );
      // Relabelled out of the selector: a watcher with a label selector sees it as DELETED.
      await core.patchNamespacedConfigMap({ namespace: ns, name: 'pre', body: { metadata: { labels: { app: 'z' } } } }, k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch));
      await core.deleteNamespacedConfigMap({ namespace: ns, name: 'a' });
      await until('informer events', async () => (r.events.length >= 5 ? true : undefined));
      assert.deepEqual(r.events, [
        `add pre ${pre.metadata?.resourceVersion}`,
        `add a ${a.metadata?.resourceVersion}`,
        `update a ${a2.metadata?.resourceVersion}`,
        'delete pre',
        'delete a',
      ]);
      assert.deepEqual(r.informer.list(ns), []);
      const c = await core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'c', labels: { app: 'x' } } } });
      await until('the cache', async () => r.informer.get('c', ns));
      assert.equal(r.informer.get('c', ns)?.metadata?.resourceVersion, c.metadata?.resourceVersion);
      assert.equal(r.informer.latestResourceVersion(), c.metadata?.resourceVersion);
      assert.equal(r.lists(), 1);
    } finally {
      await r.informer.stop();
    }
  });

  test('informer on a cluster-scoped resource (ClusterRoles by label)', async () => {
    const rbac = kc.makeApiClient(k8s.RbacAuthorizationV1Api);
    const r = recordingInformer<k8s.V1ClusterRole>('/apis/rbac.authorization.k8s.io/v1/clusterroles', () => rbac.listClusterRole({ labelSelector: 'sweep=yes' }), 'sweep=yes');
    await r.informer.start();
    try {
      assert.deepEqual(r.events, []);
      const cr = await rbac.createClusterRole({ body: { metadata: { name: 'sweep-reader', labels: { sweep: 'yes' } }, rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get'] }] } });
      cr.rules![0].verbs = ['get', 'list'];
      const cr2 = await rbac.replaceClusterRole({ name: 'sweep-reader', body: cr });
      await rbac.deleteClusterRole({ name: 'sweep-reader' });
      await until('informer events', async () => (r.events.length >= 3 ? true : undefined));
      assert.deepEqual(r.events, [`add sweep-reader ${cr.metadata?.resourceVersion}`, `update sweep-reader ${cr2.metadata?.resourceVersion}`, 'delete sweep-reader']);
      assert.equal(cr.metadata?.namespace, undefined);
    } finally {
      await r.informer.stop();
    }
  });

  test('informer on a custom resource: spec, status (merge patch) and scale changes arrive as updates', async () => {
    const ns = await namespace('inf-cr');
    const path = `/apis/sweep.example.com/v1/namespaces/${ns}/widgets`;
    const r = recordingInformer<k8s.KubernetesObject>(path, () =>
      custom.listNamespacedCustomObject({ group: 'sweep.example.com', version: 'v1', namespace: ns, plural: 'widgets' }) as Promise<k8s.KubernetesListObject<k8s.KubernetesObject>>,
    );
    await r.informer.start();
    try {
      const w = (await custom.createNamespacedCustomObject({
        group: 'sweep.example.com',
        version: 'v1',
        namespace: ns,
        plural: 'widgets',
        body: { apiVersion: 'sweep.example.com/v1', kind: 'Widget', metadata: { name: 'w1' }, spec: { replicas: 1, color: 'red' } },
      })) as k8s.KubernetesObject & { spec: { replicas: number } };
      assert.equal(w.metadata?.generation, 1);
      const st = (await custom.patchNamespacedCustomObjectStatus(
        { group: 'sweep.example.com', version: 'v1', namespace: ns, plural: 'widgets', name: 'w1', body: { status: { replicas: 1, selector: 'app=w1', phase: 'Ready' }, spec: { color: 'ignored' } } },
        k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
      )) as k8s.KubernetesObject & { spec: { color: string }; status: { phase: string } };
      // The status subresource ignores spec changes and does not bump the generation.
      assert.deepEqual([st.spec.color, st.status.phase, st.metadata?.generation], ['red', 'Ready', 1]);
      const scale = await custom.getNamespacedCustomObjectScale({ group: 'sweep.example.com', version: 'v1', namespace: ns, plural: 'widgets', name: 'w1' });
      assert.deepEqual(scale, {
        kind: 'Scale',
        apiVersion: 'autoscaling/v1',
        metadata: { name: 'w1', namespace: ns, uid: w.metadata?.uid, resourceVersion: st.metadata?.resourceVersion, creationTimestamp: w.metadata?.creationTimestamp },
        spec: { replicas: 1 },
        status: { replicas: 1, selector: 'app=w1' },
      });
      const scaled = (await custom.patchNamespacedCustomObjectScale(
        { group: 'sweep.example.com', version: 'v1', namespace: ns, plural: 'widgets', name: 'w1', body: { spec: { replicas: 4 } } },
        k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
      )) as { spec: { replicas: number }; metadata: { resourceVersion: string } };
      assert.equal(scaled.spec.replicas, 4);
      const now = (await custom.getNamespacedCustomObject({ group: 'sweep.example.com', version: 'v1', namespace: ns, plural: 'widgets', name: 'w1' })) as k8s.KubernetesObject & { spec: { replicas: number } };
      assert.deepEqual([now.spec.replicas, now.metadata?.generation, now.metadata?.resourceVersion], [4, 2, scaled.metadata.resourceVersion]);
      await custom.deleteNamespacedCustomObject({ group: 'sweep.example.com', version: 'v1', namespace: ns, plural: 'widgets', name: 'w1' });
      await until('informer events', async () => (r.events.length >= 4 ? true : undefined));
      assert.deepEqual(r.events, [
        `add w1 ${w.metadata?.resourceVersion}`,
        `update w1 ${st.metadata?.resourceVersion}`,
        `update w1 ${scaled.metadata.resourceVersion}`,
        'delete w1',
      ]);
    } finally {
      await r.informer.stop();
    }
  });

  test('an informer restarted after its resourceVersion left the history window gets 410, lists again and reconciles', async () => {
    const ns = await namespace('inf-gone');
    const keep = await core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'keep' } } });
    const drop = await core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'drop' } } });
    const r = recordingInformer<k8s.V1ConfigMap>(`/api/v1/namespaces/${ns}/configmaps`, () => core.listNamespacedConfigMap({ namespace: ns }));
    // client-node reports its own abort at stop() as an error; anything else would be the server's.
    const errors: unknown[] = [];
    r.informer.on('error', (e) => {
      if ((e as Error | undefined)?.name !== 'AbortError') errors.push(e);
    });
    await r.informer.start();
    await r.informer.stop();
    const staleRv = r.informer.latestResourceVersion();
    await core.deleteNamespacedConfigMap({ namespace: ns, name: 'drop' });
    const added = await core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'added' } } });
    // Past the history window, then a write: the watch cache drops the events older than the window as a new one
    // comes in (and storage has compacted them).
    await sleep(2600);
    const tick = await core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'tick' } } });
    const tickRv = Number(tick.metadata?.resourceVersion);
    await until('the watch cache to have the write', async () =>
      Number((await core.listNamespacedConfigMap({ namespace: ns, resourceVersion: '0' })).metadata?.resourceVersion) >= tickRv ? true : undefined,
    );

    // What the informer's watch gets: one ERROR event with the 410 Expired Status, then the stream ends.
    const seen: { type: string; object: unknown }[] = [];
    const doneWith = await new Promise<unknown>((resolve) => {
      void new k8s.Watch(kc).watch(`/api/v1/namespaces/${ns}/configmaps`, { resourceVersion: staleRv }, (type, object) => seen.push({ type, object }), resolve);
    });
    assert.equal(doneWith, null);
    assert.equal(seen.length, 1);
    assert.equal(seen[0].type, 'ERROR');
    // The oldest version the cache still serves is the one just before its oldest event, the tick.
    assert.deepEqual(seen[0].object, {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: `too old resource version: ${staleRv} (${tickRv - 1})`,
      reason: 'Expired',
      code: 410,
    });

    await r.informer.start();
    try {
      await until('the relist', async () => (r.lists() === 2 && r.informer.list(ns).length === 3 ? true : undefined));
      // The lists come sorted by name.
      assert.deepEqual(r.events, [
        `add drop ${drop.metadata?.resourceVersion}`,
        `add keep ${keep.metadata?.resourceVersion}`,
        'delete drop',
        `add added ${added.metadata?.resourceVersion}`,
        `add tick ${tick.metadata?.resourceVersion}`,
      ]);
      assert.deepEqual(r.informer.list(ns).map((o) => o.metadata?.name).sort(), ['added', 'keep', 'tick']);
      assert.deepEqual(errors, []);
    } finally {
      await r.informer.stop();
    }
  });

  test('Watch: sendInitialEvents is refused while the WatchList gate is off (1.31 default): done with a 422', async () => {
    const err = await new Promise<{ statusCode?: number }>((resolve) => {
      void new k8s.Watch(kc).watch('/api/v1/namespaces/default/configmaps', { sendInitialEvents: true, resourceVersionMatch: 'NotOlderThan', allowWatchBookmarks: true }, () => {}, resolve);
    });
    assert.equal(err.statusCode, 422);
  });

  test('KubernetesObjectApi: create, read, list, replace, patch (merge, strategic, apply) and delete by apiVersion/kind', async () => {
    const ns = await namespace('generic');
    const created = await objects.create<k8s.V1ConfigMap>({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'g', namespace: ns, labels: { tier: 'a' } }, data: { one: '1' } });
    assert.deepEqual([created.kind, created.apiVersion, created.metadata?.namespace], ['ConfigMap', 'v1', ns]);
    const dup = await failure(objects.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'g', namespace: ns } }));
    assert.deepEqual(dup, {
      code: 409,
      status: { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'configmaps "g" already exists', reason: 'AlreadyExists', details: { name: 'g', kind: 'configmaps' }, code: 409 },
    });
    const read = await objects.read<k8s.V1ConfigMap>({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'g', namespace: ns } });
    assert.deepEqual(read.data, { one: '1' });
    const listed = await objects.list('v1', 'ConfigMap', ns, undefined, undefined, undefined, undefined, 'tier=a');
    assert.deepEqual([listed.kind, listed.items.map((i) => i.metadata?.name)], ['ConfigMapList', ['g']]);

    read.data = { one: 'uno' };
    const replaced = await objects.replace(read);
    assert.deepEqual(replaced.data, { one: 'uno' });
    const stale = await failure(objects.replace(read));
    assert.deepEqual(stale, {
      code: 409,
      status: {
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        message: 'Operation cannot be fulfilled on configmaps "g": the object has been modified; please apply your changes to the latest version and try again',
        reason: 'Conflict',
        details: { name: 'g', kind: 'configmaps' },
        code: 409,
      },
    });

    const merged = await objects.patch<k8s.V1ConfigMap>({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'g', namespace: ns }, data: { two: '2' } }, undefined, undefined, undefined, undefined, k8s.PatchStrategy.MergePatch);
    assert.deepEqual(merged.data, { one: 'uno', two: '2' });
    // The default strategy is a strategic merge patch.
    const smp = await objects.patch<k8s.V1ConfigMap>({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'g', namespace: ns }, data: { three: '3' } });
    assert.deepEqual(smp.data, { one: 'uno', two: '2', three: '3' });

    // Server-side apply of a field another manager owns: a conflict naming it, unless forced.
    const spec = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'g', namespace: ns }, data: { one: 'eins' } };
    const conflict = await failure(objects.patch(spec, undefined, undefined, 'sweeper', undefined, k8s.PatchStrategy.ServerSideApply));
    assert.deepEqual(conflict, {
      code: 409,
      status: {
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        message: 'Apply failed with 1 conflict: conflict with "kubernetes-client-javascript" using v1: .data.one',
        reason: 'Conflict',
        details: { causes: [{ reason: 'FieldManagerConflict', message: 'conflict with "kubernetes-client-javascript" using v1', field: '.data.one' }] },
        code: 409,
      },
    });
    const applied = await objects.patch<k8s.V1ConfigMap>(spec, undefined, undefined, 'sweeper', true, k8s.PatchStrategy.ServerSideApply);
    assert.deepEqual(applied.data, { one: 'eins', two: '2', three: '3' });
    assert.deepEqual(
      applied.metadata?.managedFields?.map((m) => [m.manager, m.operation, m.fieldsV1]),
      [
        ['sweeper', 'Apply', { 'f:data': { 'f:one': {} } }],
        ['kubernetes-client-javascript', 'Update', { 'f:data': { '.': {}, 'f:three': {}, 'f:two': {} }, 'f:metadata': { 'f:labels': { '.': {}, 'f:tier': {} } } }],
      ],
    );
    // Apply without a field manager is refused.
    const noManager = await failure(objects.patch(spec, undefined, undefined, undefined, undefined, k8s.PatchStrategy.ServerSideApply));
    assert.deepEqual(noManager.status.message, 'PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch');
    assert.equal(noManager.code, 422);

    // Deletion: dryRun=All answers as a delete would and keeps the object.
    const dry = await objects.delete({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'g', namespace: ns } }, undefined, 'All');
    assert.deepEqual(plain(dry), { apiVersion: 'v1', kind: 'Status', metadata: {}, status: 'Success', details: { name: 'g', kind: 'configmaps', uid: created.metadata?.uid } });
    await objects.read({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'g', namespace: ns } });
    await objects.delete({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'g', namespace: ns } });
    const gone = await failure(objects.read({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'g', namespace: ns } }));
    assert.deepEqual(gone.status, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'configmaps "g" not found', reason: 'NotFound', details: { name: 'g', kind: 'configmaps' }, code: 404 });
  });

  test('KubernetesObjectApi on custom resources: apply creates, apply by a second manager conflicts, a strategic merge patch is 415', async () => {
    const ns = await namespace('generic-cr');
    const w: k8s.KubernetesObject & { spec: Record<string, unknown> } = { apiVersion: 'sweep.example.com/v1', kind: 'Widget', metadata: { name: 'w', namespace: ns }, spec: { replicas: 2, color: 'blue' } };
    const applied = await objects.patch<typeof w & k8s.KubernetesObject>(w, undefined, undefined, 'op-a', undefined, k8s.PatchStrategy.ServerSideApply);
    assert.deepEqual([applied.spec, applied.metadata?.generation, applied.metadata?.managedFields?.map((m) => [m.manager, m.operation])], [{ replicas: 2, color: 'blue' }, 1, [['op-a', 'Apply']]]);
    const conflict = await failure(objects.patch({ ...w, spec: { color: 'green' } }, undefined, undefined, 'op-b', undefined, k8s.PatchStrategy.ServerSideApply));
    assert.deepEqual([conflict.code, conflict.status.message], [409, 'Apply failed with 1 conflict: conflict with "op-a": .spec.color']);
    const forced = await objects.patch<typeof w & k8s.KubernetesObject>({ ...w, spec: { color: 'green' } }, undefined, undefined, 'op-b', true, k8s.PatchStrategy.ServerSideApply);
    assert.deepEqual(forced.spec, { replicas: 2, color: 'green' });
    // op-a applies again without color: op-b owns it now, so it stays.
    const again = await objects.patch<typeof w & k8s.KubernetesObject>({ ...w, spec: { replicas: 3 } }, undefined, undefined, 'op-a', undefined, k8s.PatchStrategy.ServerSideApply);
    assert.deepEqual(again.spec, { replicas: 3, color: 'green' });

    const smp = await failure(objects.patch({ ...w, spec: { replicas: 5 } }));
    assert.deepEqual(smp, {
      code: 415,
      status: {
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        message: 'the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml',
        reason: 'UnsupportedMediaType',
        code: 415,
      },
    });
    const listed = await objects.list('sweep.example.com/v1', 'Widget', ns);
    assert.deepEqual([listed.apiVersion, listed.kind, listed.items.map((i) => i.metadata?.name)], ['sweep.example.com/v1', 'WidgetList', ['w']]);
    const del = await objects.delete({ apiVersion: 'sweep.example.com/v1', kind: 'Widget', metadata: { name: 'w', namespace: ns } });
    assert.deepEqual(plain(del), { apiVersion: 'v1', kind: 'Status', metadata: {}, status: 'Success', details: { name: 'w', group: 'sweep.example.com', kind: 'widgets', uid: applied.metadata?.uid } });
  });

  test('custom resources: a Watch with a field selector, list across namespaces, deleteCollection by label', async () => {
    const nsA = await namespace('cr-coll-a');
    const nsB = await namespace('cr-coll-b');
    const make = (ns: string, name: string, tier: string) =>
      custom.createNamespacedCustomObject({
        group: 'sweep.example.com',
        version: 'v1',
        namespace: ns,
        plural: 'widgets',
        body: { apiVersion: 'sweep.example.com/v1', kind: 'Widget', metadata: { name, labels: { tier } }, spec: { color: 'red' } },
      }) as Promise<k8s.KubernetesObject>;
    const start = await objects.list('sweep.example.com/v1', 'Widget', nsA);
    const seen: string[] = [];
    const ctl = await new k8s.Watch(kc).watch(
      `/apis/sweep.example.com/v1/namespaces/${nsA}/widgets`,
      { resourceVersion: start.metadata?.resourceVersion, fieldSelector: 'metadata.name=w2' },
      (type, obj: k8s.KubernetesObject) => seen.push(`${type} ${obj.metadata?.name}`),
      () => {},
    );
    try {
      await make(nsA, 'w1', 'front');
      const w2 = await make(nsA, 'w2', 'front');
      await make(nsA, 'w3', 'back');
      await make(nsB, 'w1', 'front');
      const everywhere = await objects.list('sweep.example.com/v1', 'Widget');
      assert.deepEqual(everywhere.items.map((i) => `${i.metadata?.namespace}/${i.metadata?.name}`), [`${nsA}/w1`, `${nsA}/w2`, `${nsA}/w3`, `${nsB}/w1`]);
      const removed = (await custom.deleteCollectionNamespacedCustomObject({ group: 'sweep.example.com', version: 'v1', namespace: nsA, plural: 'widgets', labelSelector: 'tier=front' })) as k8s.KubernetesListObject<k8s.KubernetesObject>;
      // kube answers with the list of what it deleted.
      assert.deepEqual([removed.kind, removed.apiVersion, removed.items.map((i) => i.metadata?.name)], ['WidgetList', 'sweep.example.com/v1', ['w1', 'w2']]);
      const left = (await custom.listClusterCustomObject({ group: 'sweep.example.com', version: 'v1', plural: 'widgets' })) as k8s.KubernetesListObject<k8s.KubernetesObject>;
      assert.deepEqual(left.items.map((i) => `${i.metadata?.namespace}/${i.metadata?.name}`), [`${nsA}/w3`, `${nsB}/w1`]);
      await until('the watch events', async () => (seen.length >= 2 ? true : undefined));
      assert.deepEqual(seen, ['ADDED w2', 'DELETED w2']);
      assert.equal(w2.metadata?.name, 'w2');
    } finally {
      ctl.abort();
    }
  });

  test('typed patches: JSON patch (the generated default), merge patch and strategic merge patch; a failed JSON patch test is 422', async () => {
    const ns = await namespace('patches');
    await core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'p' }, data: { a: '1' } } });
    const jp = await core.patchNamespacedConfigMap({ namespace: ns, name: 'p', body: [{ op: 'add', path: '/data/b', value: '2' }, { op: 'remove', path: '/data/a' }] });
    assert.deepEqual(jp.data, { b: '2' });
    const failed = await failure(core.patchNamespacedConfigMap({ namespace: ns, name: 'p', body: [{ op: 'test', path: '/data/b', value: 'other' }] }));
    assert.deepEqual(failed, {
      code: 422,
      status: { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'the server rejected our request due to an error in our request', reason: 'Invalid', details: {}, code: 422 },
    });
    const mp = await core.patchNamespacedConfigMap({ namespace: ns, name: 'p', body: { data: { b: null, c: '3' } } }, k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch));
    assert.deepEqual(mp.data, { c: '3' });

    // Strategic merge: containers merge by name; a merge patch replaces the list.
    await apps.createNamespacedDeployment({
      namespace: ns,
      body: {
        metadata: { name: 'd' },
        spec: {
          selector: { matchLabels: { app: 'd' } },
          template: { metadata: { labels: { app: 'd' } }, spec: { containers: [{ name: 'main', image: 'nginx:1' }, { name: 'side', image: 'envoy:1' }] } },
        },
      },
    });
    const sp = await apps.patchNamespacedDeployment(
      { namespace: ns, name: 'd', body: { spec: { template: { spec: { containers: [{ name: 'side', image: 'envoy:2' }] } } } } },
      k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.StrategicMergePatch),
    );
    assert.deepEqual(sp.spec?.template.spec?.containers.map((c) => `${c.name}=${c.image}`), ['main=nginx:1', 'side=envoy:2']);
    assert.equal(sp.metadata?.generation, 2);
    const mpd = await apps.patchNamespacedDeployment(
      { namespace: ns, name: 'd', body: { spec: { template: { spec: { containers: [{ name: 'only', image: 'busybox' }] } } } } },
      k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
    );
    assert.deepEqual(mpd.spec?.template.spec?.containers.map((c) => `${c.name}=${c.image}=${c.imagePullPolicy}`), ['only=busybox=Always']);
    // A JSON patch on a missing object is 404.
    const missing = await failure(core.patchNamespacedConfigMap({ namespace: ns, name: 'nope', body: [{ op: 'add', path: '/data', value: {} }] }));
    assert.deepEqual(missing.status, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'configmaps "nope" not found', reason: 'NotFound', details: { name: 'nope', kind: 'configmaps' }, code: 404 });
  });

  test('Deployment status and scale subresources through the typed API: patch and apply change only their part', async () => {
    const ns = await namespace('subres');
    const d = await apps.createNamespacedDeployment({
      namespace: ns,
      body: { metadata: { name: 'web' }, spec: { replicas: 0, selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } } },
    });
    // autoscaling/v1 ScaleSpec.replicas is omitempty (ScaleStatus.replicas is not): zero replicas is an empty spec.
    const scale = await apps.patchNamespacedDeploymentScale({ namespace: ns, name: 'web', body: { spec: { replicas: 0 } } }, k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch));
    assert.deepEqual([scale.kind, scale.apiVersion, plain(scale.spec), plain(scale.status)], ['Scale', 'autoscaling/v1', {}, { replicas: 0, selector: 'app=web' }]);
    const jsonScale = await apps.patchNamespacedDeploymentScale({ namespace: ns, name: 'web', body: [{ op: 'add', path: '/spec/replicas', value: 0 }] });
    assert.deepEqual(plain(jsonScale.spec), {});
    assert.equal((await apps.readNamespacedDeployment({ namespace: ns, name: 'web' })).spec?.replicas, 0);

    const st = await apps.patchNamespacedDeploymentStatus(
      { namespace: ns, name: 'web', body: { spec: { replicas: 7 }, status: { observedGeneration: 42, collisionCount: 1 } } },
      k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
    );
    assert.deepEqual([st.spec?.replicas, st.status?.collisionCount, st.metadata?.generation], [0, 1, d.metadata?.generation]);
    const applied = await apps.patchNamespacedDeploymentStatus(
      { namespace: ns, name: 'web', fieldManager: 'status-writer', force: true, body: { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web' }, status: { collisionCount: 2 } } },
      k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.ServerSideApply),
    );
    assert.equal(applied.status?.collisionCount, 2);
    assert.deepEqual(
      applied.metadata?.managedFields?.filter((m) => m.manager === 'status-writer').map((m) => [m.operation, m.subresource, m.fieldsV1]),
      [['Apply', 'status', { 'f:status': { 'f:collisionCount': {} } }]],
    );
    // A status patch on a missing object is 404 with the resource's name.
    const missing = await failure(apps.patchNamespacedDeploymentStatus({ namespace: ns, name: 'nope', body: { status: {} } }, k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch)));
    assert.deepEqual(missing.status, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'deployments.apps "nope" not found', reason: 'NotFound', details: { name: 'nope', group: 'apps', kind: 'deployments' }, code: 404 });
  });

  test('deleteCollection with a labelSelector (and dryRun=All), foreground, background and orphan propagation', async () => {
    const ns = await namespace('deletes');
    for (const n of ['x1', 'x2', 'y1']) await core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: n, labels: { grp: n[0] } } } });
    await core.deleteCollectionNamespacedConfigMap({ namespace: ns, labelSelector: 'grp=x', dryRun: 'All' });
    assert.deepEqual((await core.listNamespacedConfigMap({ namespace: ns })).items.map((c) => c.metadata?.name), ['x1', 'x2', 'y1']);
    await core.deleteCollectionNamespacedConfigMap({ namespace: ns, labelSelector: 'grp=x' });
    assert.deepEqual((await core.listNamespacedConfigMap({ namespace: ns })).items.map((c) => c.metadata?.name), ['y1']);

    const deployment = (name: string): k8s.V1Deployment => ({
      metadata: { name },
      spec: { replicas: 1, selector: { matchLabels: { app: name } }, template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } },
    });
    const replicaSets = async (app: string) => (await apps.listNamespacedReplicaSet({ namespace: ns, labelSelector: `app=${app}` })).items;
    const podsOf = async (app: string) => (await core.listNamespacedPod({ namespace: ns, labelSelector: `app=${app}` })).items;
    for (const name of ['fg', 'bg', 'or']) {
      await apps.createNamespacedDeployment({ namespace: ns, body: deployment(name) });
      await until(`${name}'s pod`, async () => ((await podsOf(name)).length === 1 ? true : undefined));
    }

    // Foreground: the raw answer is the Deployment, kept with the foregroundDeletion finalizer until its dependents are gone.
    const fg = await s.adminRequest(`/apis/apps/v1/namespaces/${ns}/deployments/fg?propagationPolicy=Foreground`, { method: 'DELETE' });
    const fgBody = JSON.parse(fg.body) as k8s.V1Deployment;
    assert.deepEqual([fg.status, fgBody.kind, fgBody.metadata?.finalizers, typeof fgBody.metadata?.deletionTimestamp, fgBody.metadata?.deletionGracePeriodSeconds], [200, 'Deployment', ['foregroundDeletion'], 'string', 0]);
    await until('the foreground deletion', async () => ((await apps.listNamespacedDeployment({ namespace: ns, fieldSelector: 'metadata.name=fg' })).items.length === 0 ? true : undefined));
    assert.deepEqual([(await replicaSets('fg')).length, (await podsOf('fg')).filter((p) => !p.metadata?.deletionTimestamp).length], [0, 0]);

    // Background: the Deployment goes at once (a Status), its ReplicaSet after it.
    const bg = await apps.deleteNamespacedDeployment({ namespace: ns, name: 'bg', propagationPolicy: 'Background' });
    assert.deepEqual([bg.kind, bg.status, bg.details?.name, bg.details?.group, bg.details?.kind], ['Status', 'Success', 'bg', 'apps', 'deployments']);
    await until("bg's ReplicaSet to go", async () => ((await replicaSets('bg')).length === 0 ? true : undefined));

    // Orphan: the ReplicaSet stays, without its owner reference.
    const rsName = (await replicaSets('or'))[0].metadata?.name;
    await apps.deleteNamespacedDeployment({ namespace: ns, name: 'or', propagationPolicy: 'Orphan' });
    await until('the orphaning', async () => ((await apps.listNamespacedDeployment({ namespace: ns, fieldSelector: 'metadata.name=or' })).items.length === 0 ? true : undefined));
    const orphaned = await replicaSets('or');
    assert.deepEqual(orphaned.map((r) => [r.metadata?.name, r.metadata?.ownerReferences]), [[rsName, undefined]]);

    // orphanDependents=false asks for no finalizer (kube's shouldDeleteDependents is false whenever it is set): the
    // ReplicaSet goes at once, 200 with a Status, and its pod after it.
    const now = await s.adminRequest(`/apis/apps/v1/namespaces/${ns}/replicasets/${rsName}?orphanDependents=false`, { method: 'DELETE' });
    assert.deepEqual([now.status, (JSON.parse(now.body) as Status).kind], [200, 'Status']);
    await until("the orphaned ReplicaSet's pod to go", async () => ((await podsOf('or')).length === 0 ? true : undefined));
    // The 202 is for an object that lingers (here on a finalizer) when orphanDependents=false was asked for.
    await core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'held', finalizers: ['example.com/hold'] } } });
    const accepted = await s.adminRequest(`/api/v1/namespaces/${ns}/configmaps/held?orphanDependents=false`, { method: 'DELETE' });
    const held = JSON.parse(accepted.body) as k8s.V1ConfigMap;
    assert.deepEqual([accepted.status, held.kind, held.metadata?.finalizers, held.metadata?.deletionGracePeriodSeconds], [202, 'ConfigMap', ['example.com/hold'], 0]);
    const again = await s.adminRequest(`/api/v1/namespaces/${ns}/configmaps/held`, { method: 'DELETE' });
    assert.equal(again.status, 200);
    await core.patchNamespacedConfigMap({ namespace: ns, name: 'held', body: [{ op: 'remove', path: '/metadata/finalizers' }] });
    const missing = await failure(core.readNamespacedConfigMap({ namespace: ns, name: 'held' }));
    assert.equal(missing.code, 404);
  });

  test('list paging with limit and _continue; an expired continue token is a 410 ApiException', async () => {
    const ns = await namespace('paging');
    for (let i = 0; i < 5; i++) await core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: `cm-${i}` } } });
    const names: string[] = [];
    const remaining: (number | undefined)[] = [];
    let token: string | undefined;
    let pages = 0;
    let first: k8s.V1ConfigMapList | undefined;
    do {
      const page = await core.listNamespacedConfigMap({ namespace: ns, limit: 2, _continue: token });
      first ??= page;
      pages++;
      names.push(...page.items.map((c) => c.metadata?.name ?? ''));
      remaining.push(page.metadata?.remainingItemCount);
      token = page.metadata?._continue;
    } while (token);
    assert.deepEqual([pages, names, remaining], [3, ['cm-0', 'cm-1', 'cm-2', 'cm-3', 'cm-4'], [3, 1, undefined]]);
    // With a label selector the count is not known, so it is left out.
    const selected = await core.listNamespacedConfigMap({ namespace: ns, labelSelector: '!nothing', limit: 2 });
    assert.deepEqual([selected.items.length, selected.metadata?.remainingItemCount, typeof selected.metadata?._continue], [2, undefined, 'string']);

    // A write after the token's snapshot, then past the history window: the snapshot is compacted away.
    await core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'tick' } } });
    await sleep(2600);
    const expired = await failure(core.listNamespacedConfigMap({ namespace: ns, limit: 2, _continue: first?.metadata?._continue }));
    assert.equal(expired.code, 410);
    assert.deepEqual({ ...expired.status, metadata: {} }, {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue value from the response body.',
      reason: 'Expired',
      code: 410,
    });
    assert.equal(typeof expired.status.metadata.continue, 'string');
  });

  test('Leases for leader election: V1MicroTime times, a holder change, a stale renewal is 409; a plain Date is refused as kube refuses it', async () => {
    const ns = await namespace('leases');
    const coord = kc.makeApiClient(k8s.CoordinationV1Api);
    const acquired = new k8s.V1MicroTime('2024-05-01T10:00:00.123Z');
    const lease = await coord.createNamespacedLease({ namespace: ns, body: { metadata: { name: 'leader' }, spec: { holderIdentity: 'a', leaseDurationSeconds: 15, acquireTime: acquired, renewTime: acquired, leaseTransitions: 0 } } });
    assert.equal(lease.spec?.holderIdentity, 'a');
    const raw = JSON.parse((await s.adminRequest(`/apis/coordination.k8s.io/v1/namespaces/${ns}/leases/leader`)).body) as { spec: Record<string, unknown> };
    assert.deepEqual(raw.spec, { holderIdentity: 'a', leaseDurationSeconds: 15, acquireTime: '2024-05-01T10:00:00.123000Z', renewTime: '2024-05-01T10:00:00.123000Z', leaseTransitions: 0 });

    const taken = { ...lease, spec: { ...lease.spec, holderIdentity: 'b', leaseTransitions: 1, renewTime: new k8s.V1MicroTime('2024-05-01T10:00:20.000Z') } };
    const replaced = await coord.replaceNamespacedLease({ namespace: ns, name: 'leader', body: taken });
    assert.deepEqual([replaced.spec?.holderIdentity, replaced.spec?.leaseTransitions], ['b', 1]);
    // The old holder renews from its stale copy.
    const stale = await failure(coord.replaceNamespacedLease({ namespace: ns, name: 'leader', body: { ...lease, spec: { ...lease.spec, renewTime: new k8s.V1MicroTime('2024-05-01T10:00:21.000Z') } } }));
    assert.deepEqual(stale, {
      code: 409,
      status: {
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        message: 'Operation cannot be fulfilled on leases.coordination.k8s.io "leader": the object has been modified; please apply your changes to the latest version and try again',
        reason: 'Conflict',
        details: { name: 'leader', group: 'coordination.k8s.io', kind: 'leases' },
        code: 409,
      },
    });
    // A plain Date is sent with milliseconds; MicroTime wants exactly six digits.
    const plain = await failure(coord.createNamespacedLease({ namespace: ns, body: { metadata: { name: 'plain' }, spec: { renewTime: new Date('2024-05-01T10:00:00.5Z') } } }));
    assert.deepEqual(plain, {
      code: 400,
      status: {
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        message: 'Lease in version "v1" cannot be handled as a Lease: parsing time "2024-05-01T10:00:00.500Z" as "2006-01-02T15:04:05.000000Z07:00": cannot parse ".500Z" as ".000000"',
        reason: 'BadRequest',
        code: 400,
      },
    });
  });

  test('Events: events.k8s.io/v1 created with V1MicroTime is a core v1 Event too; field selectors of each version; validation', async () => {
    const ns = await namespace('events');
    const eventsApi = kc.makeApiClient(k8s.EventsV1Api);
    const created = await eventsApi.createNamespacedEvent({
      namespace: ns,
      body: {
        metadata: { name: 'web.1' },
        eventTime: new k8s.V1MicroTime('2024-05-01T10:00:00.250Z'),
        reportingController: 'example.com/sweeper',
        reportingInstance: 'sweeper-1',
        action: 'Reconcile',
        reason: 'Synced',
        note: 'all good',
        type: 'Normal',
        regarding: { kind: 'Deployment', namespace: ns, name: 'web', apiVersion: 'apps/v1' },
      },
    });
    assert.equal(created.reportingController, 'example.com/sweeper');
    const asCore = await core.readNamespacedEvent({ namespace: ns, name: 'web.1' });
    assert.deepEqual(
      plain([asCore.involvedObject, asCore.reason, asCore.message, asCore.reportingComponent, asCore.reportingInstance, asCore.action, asCore.type, asCore.source, asCore.count]),
      [{ kind: 'Deployment', namespace: ns, name: 'web', apiVersion: 'apps/v1' }, 'Synced', 'all good', 'example.com/sweeper', 'sweeper-1', 'Reconcile', 'Normal', {}, null],
    );
    await core.createNamespacedEvent({
      namespace: ns,
      body: {
        metadata: { name: 'pod.1' },
        involvedObject: { kind: 'Pod', namespace: ns, name: 'p' },
        reason: 'BackOff',
        message: 'back-off',
        type: 'Warning',
        count: 3,
        firstTimestamp: new Date('2024-05-01T10:00:00Z'),
        lastTimestamp: new Date('2024-05-01T10:05:00Z'),
        source: { component: 'kubelet', host: 'n1' },
      },
    });
    const asEvents = await eventsApi.readNamespacedEvent({ namespace: ns, name: 'pod.1' });
    assert.deepEqual(
      plain([asEvents.regarding, asEvents.note, asEvents.deprecatedCount, asEvents.deprecatedSource, asEvents.deprecatedFirstTimestamp?.toISOString()]),
      [{ kind: 'Pod', namespace: ns, name: 'p' }, 'back-off', 3, { component: 'kubelet', host: 'n1' }, '2024-05-01T10:00:00.000Z'],
    );
    const byRegarding = await eventsApi.listNamespacedEvent({ namespace: ns, fieldSelector: 'regarding.kind=Pod,type=Warning' });
    assert.deepEqual(byRegarding.items.map((e) => e.metadata?.name), ['pod.1']);
    const byController = await eventsApi.listNamespacedEvent({ namespace: ns, fieldSelector: 'reportingController=example.com/sweeper' });
    assert.deepEqual(byController.items.map((e) => e.metadata?.name), ['web.1']);
    const byInvolved = await core.listNamespacedEvent({ namespace: ns, fieldSelector: 'involvedObject.name=web,reportingComponent=example.com/sweeper' });
    assert.deepEqual(byInvolved.items.map((e) => e.metadata?.name), ['web.1']);
    const badLabel = await failure(eventsApi.listNamespacedEvent({ namespace: ns, fieldSelector: 'involvedObject.name=web' }));
    assert.deepEqual(badLabel.status, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'field label not supported: involvedObject.name', reason: 'BadRequest', code: 400 });

    const invalid = await failure(eventsApi.createNamespacedEvent({ namespace: ns, body: { metadata: { name: 'bad' }, eventTime: new k8s.V1MicroTime('2024-05-01T10:00:00Z'), reportingController: 'ok', reportingInstance: 'i', action: 'A', reason: 'R', type: 'Loud', regarding: { kind: 'Pod', namespace: ns, name: 'p' }, deprecatedCount: 2 } }));
    assert.deepEqual([invalid.code, invalid.status.reason, invalid.status.message], [
      422,
      'Invalid',
      'Event.events.k8s.io "bad" is invalid: [type: Invalid value: "": has invalid value: Loud, count: Invalid value: "": needs to be unset]',
    ]);
  });

  test('TokenRequest, TokenReview, SelfSubjectAccessReview and SelfSubjectReview', async () => {
    const ns = await namespace('authn');
    const authn = kc.makeApiClient(k8s.AuthenticationV1Api);
    const authz = kc.makeApiClient(k8s.AuthorizationV1Api);
    const sa = await core.createNamespacedServiceAccount({ namespace: ns, body: { metadata: { name: 'bot' } } });
    const tr = await core.createNamespacedServiceAccountToken({ namespace: ns, name: 'bot', body: { spec: { audiences: ['sweep-aud'], expirationSeconds: 3600 } } });
    assert.deepEqual([tr.kind, tr.apiVersion, tr.spec?.audiences, tr.spec?.expirationSeconds], ['TokenRequest', 'authentication.k8s.io/v1', ['sweep-aud'], 3600]);
    const token = tr.status?.token ?? '';
    const review = await authn.createTokenReview({ body: { spec: { token, audiences: ['sweep-aud'] } } });
    assert.deepEqual(
      [review.status?.authenticated, review.status?.audiences, review.status?.user?.username, review.status?.user?.uid, review.status?.user?.groups],
      [true, ['sweep-aud'], `system:serviceaccount:${ns}:bot`, sa.metadata?.uid, ['system:serviceaccounts', `system:serviceaccounts:${ns}`, 'system:authenticated']],
    );
    // The token is not for the API server's own audience.
    const wrongAudience = await authn.createTokenReview({ body: { spec: { token } } });
    assert.deepEqual([wrongAudience.status?.authenticated, wrongAudience.status?.error], [undefined, 'token audiences ["sweep-aud"] is invalid for the target audiences ["https://kubernetes.default.svc.cluster.local"]']);
    const missingSa = await failure(core.createNamespacedServiceAccountToken({ namespace: ns, name: 'ghost', body: { spec: { audiences: [] } } }));
    assert.deepEqual(missingSa.status, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'serviceaccounts "ghost" not found', reason: 'NotFound', details: { name: 'ghost', kind: 'serviceaccounts' }, code: 404 });

    const ssar = await authz.createSelfSubjectAccessReview({ body: { spec: { resourceAttributes: { verb: 'delete', resource: 'pods', namespace: ns } } } });
    assert.deepEqual(plain(ssar.status), { allowed: true });
    const ssr = await authn.createSelfSubjectReview({ body: {} });
    assert.deepEqual(plain(ssr.status?.userInfo), { username: 'capstan-admin', groups: ['system:masters', 'system:authenticated'] });

    // As the service account itself (AlwaysAllow: allowed; its identity as the token says).
    const saConfig = new k8s.KubeConfig();
    saConfig.loadFromString(s.kubeconfig);
    const mine = await core.createNamespacedServiceAccountToken({ namespace: ns, name: 'bot', body: { spec: {} } });
    saConfig.users[0] = { name: saConfig.users[0].name, token: mine.status?.token };
    const me = await saConfig.makeApiClient(k8s.AuthenticationV1Api).createSelfSubjectReview({ body: {} });
    assert.deepEqual([me.status?.userInfo?.username, me.status?.userInfo?.uid], [`system:serviceaccount:${ns}:bot`, sa.metadata?.uid]);
  });

  test('the Log API: a running simulated container has an empty log; a missing container is 400, a missing pod 404', async () => {
    const ns = await namespace('logs');
    await core.createNamespacedPod({ namespace: ns, body: { metadata: { name: 'p' }, spec: { containers: [{ name: 'c', image: 'busybox' }] } } });
    await until('the pod to run', async () => ((await core.readNamespacedPod({ namespace: ns, name: 'p' })).status?.phase === 'Running' ? true : undefined));
    assert.equal(await core.readNamespacedPodLog({ namespace: ns, name: 'p', container: 'c' }), '');
    let out = '';
    const finished = new Promise<void>((resolve) => {
      const sink = new Writable({
        write(chunk: Buffer, _enc, cb) {
          out += chunk.toString();
          cb();
        },
      });
      sink.on('finish', resolve);
      void new k8s.Log(kc).log(ns, 'p', 'c', sink, { tailLines: 10, timestamps: true });
    });
    await finished;
    assert.equal(out, '');
    const badContainer = await failure(core.readNamespacedPodLog({ namespace: ns, name: 'p', container: 'nope' }));
    assert.deepEqual(badContainer.status, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'container nope is not valid for pod p', reason: 'BadRequest', code: 400 });
    const badPod = await failure(core.readNamespacedPodLog({ namespace: ns, name: 'ghost' }));
    assert.deepEqual(badPod.status, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'pods "ghost" not found', reason: 'NotFound', details: { name: 'ghost', kind: 'pods' }, code: 404 });
  });

  test('the Metrics API: getPodMetrics, getNodeMetrics and topPods read the usage the test control sets', async () => {
    const ns = await namespace('metrics');
    await core.createNamespacedPod({ namespace: ns, body: { metadata: { name: 'm', labels: { app: 'm' } }, spec: { containers: [{ name: 'c', image: 'busybox', resources: { requests: { cpu: '500m', memory: '64Mi' } } }] } } });
    await until('the pod to run', async () => ((await core.readNamespacedPod({ namespace: ns, name: 'm' })).status?.phase === 'Running' ? true : undefined));
    s.usage.add({ namespace: ns, pod: 'm', cpu: '250m', memory: '32Mi' });
    const metrics = new k8s.Metrics(kc);
    const pods = await metrics.getPodMetrics(ns);
    assert.deepEqual([pods.kind, pods.apiVersion, pods.items.map((p) => [p.metadata.name, p.containers, p.window])], ['PodMetricsList', 'metrics.k8s.io/v1beta1', [['m', [{ name: 'c', usage: { cpu: '250m', memory: '32Mi' } }], '15s']]]);
    const nodes = await metrics.getNodeMetrics();
    assert.deepEqual(nodes.items.map((n) => n.metadata.name), ['capstan-node-1']);
    const top = await k8s.topPods(core, metrics, ns);
    assert.deepEqual(
      top.map((p) => [p.Pod.metadata?.name, p.CPU.CurrentUsage, p.CPU.RequestTotal, p.Memory.CurrentUsage, p.Memory.RequestTotal]),
      [['m', 0.25, 0.5, BigInt(32 * 1024 * 1024), BigInt(64 * 1024 * 1024)]],
    );
  });
});
