// The simulated StatefulSet controller, through a real server: claims made from spec.volumeClaimTemplates before each
// pod and mounted in it, existing ones reused, owner references by persistentVolumeClaimRetentionPolicy (whenDeleted,
// whenScaled), the events kube records, and a pod held back while its claim cannot be made or is being deleted; the
// scale-down (one pod at a time and each gone first, or all at once) with the status counting the pods still there,
// and a failed pod made again.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer, until } from '../../../test/e2e/helpers.ts';

type Json = Record<string, any>;

const claimSpec = (storage = '1Gi') => ({ accessModes: ['ReadWriteOnce'], resources: { requests: { storage } } });

function statefulSet(name: string, extra: { replicas?: number; policy?: Json; volumes?: Json[]; templates?: Json[] } = {}): Json {
  return {
    apiVersion: 'apps/v1',
    kind: 'StatefulSet',
    metadata: { name },
    spec: {
      replicas: extra.replicas ?? 1,
      serviceName: name,
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        // (Capstan's StatefulSet validation wants a mounted volume in the pod template: no mounts without one.)
        spec: extra.volumes ? { containers: [{ name: 'c', image: 'busybox', volumeMounts: [{ name: 'data', mountPath: '/data' }] }], volumes: extra.volumes } : { containers: [{ name: 'c', image: 'busybox' }] },
      },
      volumeClaimTemplates: extra.templates ?? [{ metadata: { name: 'data' }, spec: claimSpec() }],
      ...(extra.policy ? { persistentVolumeClaimRetentionPolicy: extra.policy } : {}),
    },
  };
}

describe('simulated StatefulSet controller', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer({ simulateWorkloads: { nodes: 1, podStartupMs: 10, podTerminationMs: 20 } });
  });
  after(async () => s.close());

  async function api(path: string, method = 'GET', body?: unknown): Promise<{ status: number; body: Json }> {
    const contentType = method === 'PATCH' ? 'application/merge-patch+json' : 'application/json';
    const text = body === undefined ? undefined : JSON.stringify(body);
    const r = await s.adminRequest(path, { method, body: text, headers: text === undefined ? {} : { 'content-type': contentType, 'content-length': String(Buffer.byteLength(text)) } });
    return { status: r.status, body: JSON.parse(r.body) };
  }
  async function ok(path: string, method = 'GET', body?: unknown): Promise<Json> {
    const r = await api(path, method, body);
    assert.ok(r.status < 300, `${method} ${path}: ${r.status} ${JSON.stringify(r.body)}`);
    return r.body;
  }
  const namespace = (ns: string) => ok('/api/v1/namespaces', 'POST', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
  const createSet = (ns: string, sts: Json) => ok(`/apis/apps/v1/namespaces/${ns}/statefulsets`, 'POST', sts);
  const claims = async (ns: string) => (await ok(`/api/v1/namespaces/${ns}/persistentvolumeclaims`)).items as Json[];
  const claim = async (ns: string, name: string) => {
    const r = await api(`/api/v1/namespaces/${ns}/persistentvolumeclaims/${name}`);
    return r.status === 404 ? undefined : r.body;
  };
  const pod = async (ns: string, name: string) => {
    const r = await api(`/api/v1/namespaces/${ns}/pods/${name}`);
    return r.status === 404 ? undefined : r.body;
  };
  const ready = (ns: string, name: string, replicas: number) =>
    until(`${name} ready`, async () => ((await ok(`/apis/apps/v1/namespaces/${ns}/statefulsets/${name}`)).status?.readyReplicas === replicas ? true : undefined));
  /** The set's events: [type, reason, message], sorted. */
  const events = async (ns: string, set: string) =>
    ((await ok(`/api/v1/namespaces/${ns}/events`)).items as Json[])
      .filter((e) => e.involvedObject.kind === 'StatefulSet' && e.involvedObject.name === set)
      .map((e) => [e.type, e.reason, e.message] as string[])
      .sort((a, b) => a[2]!.localeCompare(b[2]!));
  const eventWith = (ns: string, set: string, message: string) =>
    until(`event "${message}"`, async () => (await events(ns, set)).find((e) => e[2] === message));
  /** Deleted: gone, or held by a finalizer (the claims' pvc-protection) with its deletionTimestamp set. */
  const deleted = (ns: string, name: string) =>
    until(`${name} deleted`, async () => {
      const c = await claim(ns, name);
      return !c || c.metadata.deletionTimestamp ? true : undefined;
    });

  test("claims from the templates come before each pod, with the selector's labels, mounted in it; an existing claim is reused as it is", async () => {
    await namespace('claims');
    await ok('/api/v1/namespaces/claims/persistentvolumeclaims', 'POST', { apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name: 'logs-web-1', labels: { mine: 'yes' } }, spec: claimSpec('5Gi') });
    await createSet(
      'claims',
      statefulSet('web', {
        replicas: 2,
        volumes: [{ name: 'data', emptyDir: {} }, { name: 'config', emptyDir: {} }],
        templates: [
          { metadata: { name: 'data', labels: { tier: 'db', app: 'other' }, annotations: { 'example.com/note': 'kept' } }, spec: claimSpec('2Gi') },
          { metadata: { name: 'logs' }, spec: claimSpec() },
        ],
      }),
    );
    await ready('claims', 'web', 2);
    const byName = Object.fromEntries((await claims('claims')).map((c) => [c.metadata.name, c]));
    assert.deepEqual(Object.keys(byName).sort(), ['data-web-0', 'data-web-1', 'logs-web-0', 'logs-web-1']);
    const data0 = byName['data-web-0']!;
    assert.deepEqual(data0.metadata.labels, { tier: 'db', app: 'web' });
    // (The template's annotations, beside any a volume binder adds.)
    assert.equal(data0.metadata.annotations['example.com/note'], 'kept');
    assert.deepEqual(data0.spec.accessModes, ['ReadWriteOnce']);
    assert.deepEqual(data0.spec.resources, { requests: { storage: '2Gi' } });
    assert.equal(data0.metadata.ownerReferences, undefined);
    assert.deepEqual(byName['logs-web-0']!.metadata.labels, { app: 'web' });
    assert.deepEqual(byName['logs-web-1']!.metadata.labels, { mine: 'yes' });
    assert.deepEqual(byName['logs-web-1']!.spec.resources, { requests: { storage: '5Gi' } });
    // updateStorage: the claims' volumes first, in place of the template's volume of the same name.
    for (const i of [0, 1]) {
      assert.deepEqual((await pod('claims', `web-${i}`))!.spec.volumes, [
        { name: 'data', persistentVolumeClaim: { claimName: `data-web-${i}` } },
        { name: 'logs', persistentVolumeClaim: { claimName: `logs-web-${i}` } },
        { name: 'config', emptyDir: {} },
      ]);
    }
    await eventWith('claims', 'web', 'create Pod web-1 in StatefulSet web successful');
    assert.deepEqual(await events('claims', 'web'), [
      ['Normal', 'SuccessfulCreate', 'create Claim data-web-0 Pod web-0 in StatefulSet web success'],
      ['Normal', 'SuccessfulCreate', 'create Claim data-web-1 Pod web-1 in StatefulSet web success'],
      ['Normal', 'SuccessfulCreate', 'create Claim logs-web-0 Pod web-0 in StatefulSet web success'],
      ['Normal', 'SuccessfulCreate', 'create Pod web-0 in StatefulSet web successful'],
      ['Normal', 'SuccessfulCreate', 'create Pod web-1 in StatefulSet web successful'],
    ]);
  });

  test('Retain (the default): claims stay after background and foreground deletions of the set', async () => {
    await namespace('retain');
    await createSet('retain', statefulSet('bg'));
    await createSet('retain', statefulSet('fg', { policy: { whenDeleted: 'Retain', whenScaled: 'Retain' } }));
    await ready('retain', 'bg', 1);
    await ready('retain', 'fg', 1);
    await ok('/apis/apps/v1/namespaces/retain/statefulsets/bg', 'DELETE', { kind: 'DeleteOptions', apiVersion: 'v1', propagationPolicy: 'Background' });
    await ok('/apis/apps/v1/namespaces/retain/statefulsets/fg', 'DELETE', { kind: 'DeleteOptions', apiVersion: 'v1', propagationPolicy: 'Foreground' });
    await until('the pods gone', async () => ((await ok('/api/v1/namespaces/retain/pods')).items.length === 0 ? true : undefined));
    await until('the sets gone', async () => ((await ok('/apis/apps/v1/namespaces/retain/statefulsets')).items.length === 0 ? true : undefined));
    const left = await claims('retain');
    assert.deepEqual(left.map((c) => c.metadata.name).sort(), ['data-bg-0', 'data-fg-0']);
    for (const c of left) {
      assert.equal(c.metadata.deletionTimestamp, undefined);
      assert.equal(c.metadata.ownerReferences, undefined);
    }
  });

  test('whenDeleted Delete: the claims are controlled by the set, and the garbage collector deletes them with it', async () => {
    await namespace('owned');
    const sts = await createSet('owned', statefulSet('db', { replicas: 2, policy: { whenDeleted: 'Delete', whenScaled: 'Retain' } }));
    await ready('owned', 'db', 2);
    for (const name of ['data-db-0', 'data-db-1']) {
      assert.deepEqual((await claim('owned', name))!.metadata.ownerReferences, [{ apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'db', uid: sts.metadata.uid, controller: true, blockOwnerDeletion: true }]);
    }
    await ok('/apis/apps/v1/namespaces/owned/statefulsets/db', 'DELETE', { kind: 'DeleteOptions', apiVersion: 'v1', propagationPolicy: 'Background' });
    await deleted('owned', 'data-db-0');
    await deleted('owned', 'data-db-1');
  });

  test("whenScaled Delete: a condemned pod's claims are given to it before it goes, and go after it", async () => {
    await namespace('scaled');
    await createSet('scaled', statefulSet('shrink', { replicas: 2, policy: { whenDeleted: 'Retain', whenScaled: 'Delete' } }));
    await ready('scaled', 'shrink', 2);
    assert.equal((await claim('scaled', 'data-shrink-1'))!.metadata.ownerReferences, undefined);
    // A finalizer keeps the condemned pod (deleted, not yet gone) so its claim's reference can be seen.
    const condemned = await ok('/api/v1/namespaces/scaled/pods/shrink-1', 'PATCH', { metadata: { finalizers: ['example.com/hold'] } });
    await ok('/apis/apps/v1/namespaces/scaled/statefulsets/shrink', 'PATCH', { spec: { replicas: 1 } });
    await until('shrink-1 deleted', async () => ((await pod('scaled', 'shrink-1'))?.metadata.deletionTimestamp ? true : undefined));
    assert.deepEqual((await claim('scaled', 'data-shrink-1'))!.metadata.ownerReferences, [{ apiVersion: 'v1', kind: 'Pod', name: 'shrink-1', uid: condemned.metadata.uid, controller: true, blockOwnerDeletion: true }]);
    assert.equal((await claim('scaled', 'data-shrink-0'))!.metadata.ownerReferences, undefined);
    const old = (await claim('scaled', 'data-shrink-1'))!;
    await ok('/api/v1/namespaces/scaled/pods/shrink-1', 'PATCH', { metadata: { finalizers: null } });
    await deleted('scaled', 'data-shrink-1');
    assert.equal((await claim('scaled', 'data-shrink-0'))!.metadata.deletionTimestamp, undefined);
    // Scaled up again, the pod waits for the old claim to be gone (stale, then being deleted) and gets a new one.
    await ok('/apis/apps/v1/namespaces/scaled/statefulsets/shrink', 'PATCH', { spec: { replicas: 2 } });
    await ready('scaled', 'shrink', 2);
    const fresh = (await claim('scaled', 'data-shrink-1'))!;
    assert.notEqual(fresh.metadata.uid, old.metadata.uid);
    assert.equal(fresh.metadata.ownerReferences, undefined);
  });

  test('a claim that cannot be created: FailedCreate events and no pod, until it can be', async () => {
    await namespace('quota');
    await ok('/api/v1/namespaces/quota/resourcequotas', 'POST', { apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name: 'none' }, spec: { hard: { persistentvolumeclaims: '0' } } });
    await until('the quota counted', async () => ((await ok('/api/v1/namespaces/quota/resourcequotas/none')).status?.hard ? true : undefined));
    await createSet('quota', statefulSet('q'));
    const refusal = 'persistentvolumeclaims "data-q-0" is forbidden: exceeded quota: none, requested: persistentvolumeclaims=1, used: persistentvolumeclaims=0, limited: persistentvolumeclaims=0';
    await eventWith('quota', 'q', `create Claim data-q-0 for Pod q-0 in StatefulSet q failed error: ${refusal}`);
    await eventWith('quota', 'q', `create Pod q-0 in StatefulSet q failed error: failed to create PVC data-q-0: ${refusal}`);
    assert.equal(await pod('quota', 'q-0'), undefined);
    assert.deepEqual(await claims('quota'), []);
    await ok('/api/v1/namespaces/quota/resourcequotas/none', 'DELETE');
    await ready('quota', 'q', 1);
    assert.ok(await claim('quota', 'data-q-0'));
    await eventWith('quota', 'q', 'create Pod q-0 in StatefulSet q successful');
    assert.deepEqual(
      (await events('quota', 'q')).filter((e) => e[0] === 'Normal'),
      [
        ['Normal', 'SuccessfulCreate', 'create Claim data-q-0 Pod q-0 in StatefulSet q success'],
        ['Normal', 'SuccessfulCreate', 'create Pod q-0 in StatefulSet q successful'],
      ],
    );
  });

  test('a claim being deleted holds its pod back until it is gone, then a new one is made', async () => {
    await namespace('held');
    const old = await ok('/api/v1/namespaces/held/persistentvolumeclaims', 'POST', { apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name: 'data-h-0', finalizers: ['example.com/hold'] }, spec: claimSpec() });
    await ok('/api/v1/namespaces/held/persistentvolumeclaims/data-h-0', 'DELETE');
    await createSet('held', statefulSet('h'));
    await eventWith('held', 'h', 'create Pod h-0 in StatefulSet h failed error: pvc data-h-0 is being deleted');
    assert.equal(await pod('held', 'h-0'), undefined);
    await ok('/api/v1/namespaces/held/persistentvolumeclaims/data-h-0', 'PATCH', { metadata: { finalizers: null } });
    await ready('held', 'h', 1);
    const made = await claim('held', 'data-h-0');
    assert.notEqual(made!.metadata.uid, old.metadata.uid);
    assert.equal(made!.metadata.deletionTimestamp, undefined);
  });

  const setStatus = async (ns: string, name: string) => (await ok(`/apis/apps/v1/namespaces/${ns}/statefulsets/${name}`)).status as Json;
  const hold = (ns: string, name: string) => ok(`/api/v1/namespaces/${ns}/pods/${name}`, 'PATCH', { metadata: { finalizers: ['example.com/hold'] } });
  const release = (ns: string, name: string) => ok(`/api/v1/namespaces/${ns}/pods/${name}`, 'PATCH', { metadata: { finalizers: null } });
  const terminatingPod = (ns: string, name: string) => until(`${name} terminating`, async () => ((await pod(ns, name))?.metadata.deletionTimestamp ? true : undefined));
  const statusWith = (ns: string, name: string, want: Json) =>
    until(`${name} status ${JSON.stringify(want)}`, async () => {
      const st = await setStatus(ns, name);
      return Object.entries(want).every(([k, v]) => st?.[k] === v) ? st : undefined;
    });

  test('OrderedReady scale-down: the highest pod goes first and is gone before the next goes; the status counts the terminating pod', async () => {
    await namespace('down');
    await createSet('down', statefulSet('web', { replicas: 3, templates: [] }));
    await ready('down', 'web', 3);
    await hold('down', 'web-2');
    await hold('down', 'web-1');
    await ok('/apis/apps/v1/namespaces/down/statefulsets/web', 'PATCH', { spec: { replicas: 1 } });
    await terminatingPod('down', 'web-2');
    // Its kubelet has stopped web-2 (Succeeded, the phase kube's kubelet writes before a deleted pod goes; the
    // finalizer keeps it): a pass counts it in replicas but not in ready, current and updated, and leaves web-1 alone.
    const held = await statusWith('down', 'web', { replicas: 3, currentReplicas: 2, readyReplicas: 2 });
    assert.deepEqual([held.updatedReplicas, held.availableReplicas], [2, 2]);
    assert.equal((await pod('down', 'web-2'))!.status?.phase, 'Succeeded');
    assert.equal((await pod('down', 'web-1'))!.metadata.deletionTimestamp, undefined);
    await release('down', 'web-2');
    await terminatingPod('down', 'web-1');
    await statusWith('down', 'web', { replicas: 2, currentReplicas: 1 });
    await release('down', 'web-1');
    const done = await statusWith('down', 'web', { replicas: 1 });
    assert.deepEqual([done.readyReplicas, done.currentReplicas, done.updatedReplicas, done.availableReplicas], [1, 1, 1, 1]);
    assert.ok(await pod('down', 'web-0'));
  });

  test('Parallel scale-down: every condemned pod goes at once; a terminating one is counted until it is gone', async () => {
    await namespace('par');
    const sts = statefulSet('p', { replicas: 3, templates: [] });
    sts.spec.podManagementPolicy = 'Parallel';
    await createSet('par', sts);
    await ready('par', 'p', 3);
    await hold('par', 'p-2');
    await ok('/apis/apps/v1/namespaces/par/statefulsets/p', 'PATCH', { spec: { replicas: 1 } });
    await terminatingPod('par', 'p-2');
    await until('p-1 gone', async () => ((await pod('par', 'p-1')) === undefined ? true : undefined));
    await statusWith('par', 'p', { replicas: 2, currentReplicas: 1, updatedReplicas: 1 });
    await release('par', 'p-2');
    await statusWith('par', 'p', { replicas: 1, readyReplicas: 1 });
  });

  test('a pod that failed is deleted and made again', async () => {
    await namespace('failed');
    await createSet('failed', statefulSet('f', { replicas: 2, templates: [] }));
    await ready('failed', 'f', 2);
    const before = (await pod('failed', 'f-0'))!;
    await ok('/api/v1/namespaces/failed/pods/f-0/status', 'PATCH', { status: { phase: 'Failed' } });
    await until('f-0 made again', async () => {
      const p = await pod('failed', 'f-0');
      return p && p.metadata.uid !== before.metadata.uid ? true : undefined;
    });
    await ready('failed', 'f', 2);
    await eventWith('failed', 'f', 'delete Pod f-0 in StatefulSet f successful');
  });

  test('OnDelete: a pod is updated only when deleted, and the current revision stays (kube completes only rolling updates)', async () => {
    await namespace('ondelete');
    const sts = statefulSet('o', { replicas: 1, templates: [] });
    sts.spec.updateStrategy = { type: 'OnDelete' };
    await createSet('ondelete', sts);
    await ready('ondelete', 'o', 1);
    const first = await setStatus('ondelete', 'o');
    assert.equal(first.currentRevision, first.updateRevision);
    await ok('/apis/apps/v1/namespaces/ondelete/statefulsets/o', 'PATCH', { spec: { template: { metadata: { labels: { app: 'o', v: '2' } } } } });
    const changed = await until('a new update revision', async () => {
      const st = await setStatus('ondelete', 'o');
      return st.updateRevision !== first.updateRevision ? st : undefined;
    });
    assert.deepEqual([changed.currentRevision, changed.currentReplicas, changed.updatedReplicas], [first.currentRevision, 1, undefined]);
    await ok('/api/v1/namespaces/ondelete/pods/o-0', 'DELETE');
    const updated = await statusWith('ondelete', 'o', { updatedReplicas: 1, readyReplicas: 1 });
    assert.deepEqual([updated.currentRevision, updated.currentReplicas], [first.currentRevision, undefined]);
  });
});
