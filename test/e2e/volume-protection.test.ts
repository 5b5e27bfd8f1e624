// Storage object in-use protection through kubectl: claims and volumes are created with their protection finalizers
// (StorageObjectInUseProtection); a deleted claim a scheduled pod uses stays Terminating until the pod goes
// (pvc-protection); a deleted volume stays Terminating while its phase is Bound (pv-protection).

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from './helpers.ts';

const json = (o: unknown): string => JSON.stringify(o);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const claim = (name: string, spec: object = {}) =>
  json({ apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } }, ...spec } });
const volume = (name: string, spec: object = {}) =>
  json({
    apiVersion: 'v1',
    kind: 'PersistentVolume',
    metadata: { name },
    spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], persistentVolumeReclaimPolicy: 'Retain', hostPath: { path: `/tmp/${name}` }, ...spec },
  });

describe('storage object in-use protection', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer();
  });
  after(async () => s?.close());

  const getJson = async (kind: string, name: string) => JSON.parse(await s.kubectlOk(['get', kind, name, '-o', 'json']));
  const row = async (kind: string, name: string) => (await s.kubectlOk(['get', kind, name, '--no-headers'])).trim().split(/\s+/);
  /** Milliseconds until the object is gone (polled), or -1 past the limit. */
  const goneWithin = async (kind: string, name: string, limitMs: number) => {
    const started = Date.now();
    while (Date.now() - started < limitMs) {
      if ((await s.kubectlOk(['get', kind, name, '--ignore-not-found', '-o', 'name'])) === '') return Date.now() - started;
      await sleep(25);
    }
    return -1;
  };

  test('a claim used by a scheduled pod stays Terminating until the pod is force-deleted', async () => {
    assert.equal((await s.kubectlOk(['create', '-f', '-'], { input: claim('data') })).trim(), 'persistentvolumeclaim/data created');
    const created = await getJson('pvc', 'data');
    assert.deepEqual(created.metadata.finalizers, ['kubernetes.io/pvc-protection']);

    await s.kubectlOk(['create', '-f', '-'], {
      input: json({
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: 'user' },
        spec: { nodeName: 'node-1', containers: [{ name: 'c', image: 'busybox' }], volumes: [{ name: 'data', persistentVolumeClaim: { claimName: 'data' } }] },
      }),
    });

    assert.equal((await s.kubectlOk(['delete', 'pvc', 'data', '--wait=false'])).trim(), 'persistentvolumeclaim "data" deleted');
    await sleep(300);
    const kept = await getJson('pvc', 'data');
    assert.equal(typeof kept.metadata.deletionTimestamp, 'string');
    assert.deepEqual(kept.metadata.finalizers, ['kubernetes.io/pvc-protection']);
    assert.deepEqual((await row('pvc', 'data')).slice(0, 2), ['data', 'Terminating']);

    const forced = await s.kubectl(['delete', 'pod', 'user', '--grace-period=0', '--force']);
    assert.equal(forced.code, 0, forced.stderr);
    assert.equal(forced.stdout.trim(), 'pod "user" force deleted');
    const ms = await goneWithin('pvc', 'data', 3000);
    assert.ok(ms >= 0, 'the claim was not removed after its pod went');
  });

  test('an unused claim and an unbound volume are deleted at once, each created with its finalizer', async () => {
    await s.kubectlOk(['create', '-f', '-'], { input: claim('idle') });
    assert.deepEqual((await getJson('pvc', 'idle')).metadata.finalizers, ['kubernetes.io/pvc-protection']);
    await s.kubectlOk(['delete', 'pvc', 'idle', '--timeout=5s']);
    assert.equal(await s.kubectlOk(['get', 'pvc', 'idle', '--ignore-not-found']), '');

    await s.kubectlOk(['create', '-f', '-'], { input: volume('free') });
    assert.deepEqual((await getJson('pv', 'free')).metadata.finalizers, ['kubernetes.io/pv-protection']);
    await s.kubectlOk(['delete', 'pv', 'free', '--timeout=5s']);
    assert.equal(await s.kubectlOk(['get', 'pv', 'free', '--ignore-not-found']), '');
  });

  test('a Bound volume stays Terminating after its delete until its phase changes', async () => {
    // A consistent bound pair (the claim names the volume, the volume the claim), so that a volume binder would
    // keep it Bound too.
    await s.kubectlOk(['create', '-f', '-'], { input: claim('bound-claim', { volumeName: 'bound-pv', storageClassName: '' }) });
    const claimUid = (await getJson('pvc', 'bound-claim')).metadata.uid;
    await s.kubectlOk(['create', '-f', '-'], { input: volume('bound-pv', { storageClassName: '', claimRef: { kind: 'PersistentVolumeClaim', namespace: 'default', name: 'bound-claim', uid: claimUid } }) });
    assert.deepEqual((await getJson('pv', 'bound-pv')).metadata.finalizers, ['kubernetes.io/pv-protection']);
    await s.kubectlOk(['patch', 'pv', 'bound-pv', '--subresource=status', '--type=merge', '-p', '{"status":{"phase":"Bound"}}']);
    await s.kubectlOk(['patch', 'pvc', 'bound-claim', '--subresource=status', '--type=merge', '-p', '{"status":{"phase":"Bound"}}']);

    assert.equal((await s.kubectlOk(['delete', 'pv', 'bound-pv', '--wait=false'])).trim(), 'persistentvolume "bound-pv" deleted');
    await sleep(300);
    const kept = await getJson('pv', 'bound-pv');
    assert.equal(typeof kept.metadata.deletionTimestamp, 'string');
    assert.deepEqual(kept.metadata.finalizers, ['kubernetes.io/pv-protection']);
    assert.equal(kept.status.phase, 'Bound');
    // NAME CAPACITY ACCESS MODES RECLAIM POLICY STATUS CLAIM ...
    assert.deepEqual((await row('pv', 'bound-pv')).slice(0, 6), ['bound-pv', '1Gi', 'RWO', 'Retain', 'Terminating', 'default/bound-claim']);

    // The claim goes (no pod uses it); then the volume is no longer Bound. A volume binder would mark it Released
    // itself; the patch says the same (and finds the volume gone if that already finished it).
    await s.kubectlOk(['delete', 'pvc', 'bound-claim', '--timeout=5s']);
    const released = await s.kubectl(['patch', 'pv', 'bound-pv', '--subresource=status', '--type=merge', '-p', '{"status":{"phase":"Released"}}']);
    assert.ok(released.code === 0 || released.stderr.includes('NotFound'), released.stderr);
    const ms = await goneWithin('pv', 'bound-pv', 3000);
    assert.ok(ms >= 0, 'the volume was not removed after it stopped being Bound');
  });
});
