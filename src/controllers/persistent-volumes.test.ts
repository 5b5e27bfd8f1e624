import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loopbackContext } from '../registry/registry.ts';
import type { RegistryHandle } from '../registry/registry.ts';
import type { KubeObject } from '../registry/types.ts';
import { findBestMatchForClaim } from './persistent-volumes.ts';
import { startWithControlPlane } from './testing.ts';

type Obj = Record<string, unknown>;

async function eventually<T>(what: string, probe: () => Promise<T | undefined>, ms = 3000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`${what}: not reached in ${ms} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

function stores(registry: RegistryHandle) {
  const of = (group: string, resource: string) => registry.store(registry.lookup(group, group ? 'v1' : 'v1', resource)!);
  return { pvs: of('', 'persistentvolumes'), pvcs: of('', 'persistentvolumeclaims'), classes: of('storage.k8s.io', 'storageclasses'), events: of('', 'events') };
}

const pv = (name: string, size: string, extra: Obj = {}): KubeObject => ({
  metadata: { name },
  spec: { capacity: { storage: size }, accessModes: ['ReadWriteOnce'], hostPath: { path: `/data/${name}` }, ...extra },
});
const pvc = (name: string, size: string, extra: Obj = {}): KubeObject => ({
  metadata: { name },
  spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: size } }, storageClassName: '', ...extra },
});

async function eventsOf(registry: RegistryHandle, name: string): Promise<string[]> {
  const list = await stores(registry).events.list(loopbackContext('default'), {});
  return list.items.filter((e) => (e.involvedObject as Obj).name === name).map((e) => `${String(e.type)} ${String(e.reason)}: ${String(e.message)}`);
}

test('findBestMatchForClaim: the fewest extra access modes first, then the smallest volume that fits', () => {
  const avail = (o: KubeObject): KubeObject => ({ ...o, status: { phase: 'Available' } });
  const claim: KubeObject = { ...pvc('c', '1Gi'), metadata: { name: 'c', namespace: 'default', uid: 'u1' } };
  const volumes = [
    avail(pv('big', '10Gi')),
    avail(pv('small', '2Gi')),
    avail(pv('tiny', '500Mi')),
    avail(pv('rwx', '1Gi', { accessModes: ['ReadWriteOnce', 'ReadWriteMany'] })),
    avail(pv('block', '1Gi', { volumeMode: 'Block' })),
    avail(pv('classy', '1Gi', { storageClassName: 'fast' })),
  ];
  assert.equal(findBestMatchForClaim(claim, volumes, false)?.metadata.name, 'small');
  assert.equal(findBestMatchForClaim(claim, volumes.filter((v) => v.metadata.name !== 'small' && v.metadata.name !== 'big'), false)?.metadata.name, 'rwx');
  // A volume pre-bound to the claim wins over every other.
  const prebound = avail(pv('mine', '5Gi', { claimRef: { namespace: 'default', name: 'c' } }));
  assert.equal(findBestMatchForClaim(claim, [...volumes, prebound], false)?.metadata.name, 'mine');
  // A WaitForFirstConsumer claim takes only a pre-bound volume without a node.
  assert.equal(findBestMatchForClaim(claim, volumes, true), undefined);
  assert.equal(findBestMatchForClaim(claim, [...volumes, prebound], true)?.metadata.name, 'mine');
  // A selector narrows the candidates.
  const labelled = avail({ ...pv('labelled', '3Gi'), metadata: { name: 'labelled', labels: { tier: 'gold' } } });
  assert.equal(findBestMatchForClaim({ ...claim, spec: { ...(claim.spec as Obj), selector: { matchLabels: { tier: 'gold' } } } }, [...volumes, labelled], false)?.metadata.name, 'labelled');
});

test('a claim binds to the smallest matching volume; both show Bound with kube annotations and the claim its capacity', async () => {
  const registry = await startWithControlPlane({ bootstrap: false });
  try {
    const { pvs, pvcs } = stores(registry);
    const ctx = loopbackContext('default');
    await pvs.create(loopbackContext(), pv('pv-big', '5Gi'));
    await pvs.create(loopbackContext(), pv('pv-small', '2Gi', { accessModes: ['ReadWriteOnce', 'ReadOnlyMany'] }));
    await eventually('volumes Available', async () => ((await pvs.get(loopbackContext(), 'pv-small')).status as Obj).phase === 'Available' || undefined);
    const created = await pvcs.create(ctx, pvc('data', '1Gi'));
    const claim = await eventually('claim Bound', async () => {
      const c = await pvcs.get(ctx, 'data');
      return (c.status as Obj).phase === 'Bound' ? c : undefined;
    });
    assert.equal((claim.spec as Obj).volumeName, 'pv-big');
    assert.deepEqual(claim.metadata.annotations, { 'pv.kubernetes.io/bind-completed': 'yes', 'pv.kubernetes.io/bound-by-controller': 'yes' });
    assert.deepEqual(claim.status, { phase: 'Bound', accessModes: ['ReadWriteOnce'], capacity: { storage: '5Gi' } });
    const volume = await eventually('volume Bound', async () => {
      const v = await pvs.get(loopbackContext(), 'pv-big');
      return (v.status as Obj).phase === 'Bound' ? v : undefined;
    });
    assert.deepEqual(volume.metadata.annotations, { 'pv.kubernetes.io/bound-by-controller': 'yes' });
    const ref = (volume.spec as Obj).claimRef as Obj;
    assert.deepEqual({ ...ref, resourceVersion: undefined }, { kind: 'PersistentVolumeClaim', namespace: 'default', name: 'data', uid: created.metadata.uid, apiVersion: 'v1', resourceVersion: undefined });
    assert.equal(typeof (volume.status as Obj).lastPhaseTransitionTime, 'string');

    // The claim goes: a Retain volume is Released and kept; its claimRef stays.
    await pvcs.delete(ctx, 'data');
    const released = await eventually('volume Released', async () => {
      const v = await pvs.get(loopbackContext(), 'pv-big');
      return (v.status as Obj).phase === 'Released' ? v : undefined;
    });
    assert.equal(((released.spec as Obj).claimRef as Obj).name, 'data');
  } finally {
    await registry.close();
  }
});

test('unbound claims: no class, an external provisioner, a WaitForFirstConsumer class; Delete volumes without a deleter fail; lost volumes', async () => {
  const registry = await startWithControlPlane({ bootstrap: false });
  try {
    const { pvs, pvcs, classes } = stores(registry);
    const ctx = loopbackContext('default');
    await classes.create(loopbackContext(), { metadata: { name: 'ext' }, provisioner: 'example.com/disk' } as KubeObject);
    await classes.create(loopbackContext(), { metadata: { name: 'later' }, provisioner: 'example.com/disk', volumeBindingMode: 'WaitForFirstConsumer' } as KubeObject);
    await pvcs.create(ctx, pvc('plain', '1Gi'));
    await pvcs.create(ctx, pvc('provisioned', '1Gi', { storageClassName: 'ext' }));
    await pvcs.create(ctx, pvc('waiting', '1Gi', { storageClassName: 'later' }));
    await pvcs.create(ctx, pvc('missing-class', '1Gi', { storageClassName: 'nope' }));
    const provisioned = await eventually('provisioner annotations', async () => {
      const c = await pvcs.get(ctx, 'provisioned');
      return c.metadata.annotations?.['volume.kubernetes.io/storage-provisioner'] ? c : undefined;
    });
    assert.deepEqual(provisioned.metadata.annotations, { 'volume.beta.kubernetes.io/storage-provisioner': 'example.com/disk', 'volume.kubernetes.io/storage-provisioner': 'example.com/disk' });
    assert.deepEqual((await pvcs.get(ctx, 'provisioned')).status, { phase: 'Pending' });
    const expectEvent = (name: string, event: string) => eventually(`${name}: ${event}`, async () => ((await eventsOf(registry, name)).includes(event) ? true : undefined));
    await expectEvent('plain', 'Normal FailedBinding: no persistent volumes available for this claim and no storage class is set');
    await expectEvent('provisioned', "Normal ExternalProvisioning: Waiting for a volume to be created either by the external provisioner 'example.com/disk' or manually by the system administrator. If volume creation is delayed, please verify that the provisioner is running and correctly registered.");
    await expectEvent('waiting', 'Normal WaitForFirstConsumer: waiting for first consumer to be created before binding');
    await expectEvent('missing-class', 'Warning ProvisioningFailed: storageclass.storage.k8s.io "nope" not found');

    // A volume that appears later is found for the claim waiting without a class.
    await pvs.create(loopbackContext(), pv('late', '1Gi', { persistentVolumeReclaimPolicy: 'Delete' }));
    await eventually('plain bound to late', async () => ((await pvcs.get(ctx, 'plain')).spec as Obj).volumeName === 'late' || undefined);

    // Its claim gone, a Delete volume no in-tree plugin can delete fails, as kube's does.
    await pvcs.delete(ctx, 'plain');
    const failed = await eventually('late Failed', async () => {
      const v = await pvs.get(loopbackContext(), 'late');
      return (v.status as Obj).phase === 'Failed' ? v : undefined;
    });
    const message = 'error getting deleter volume plugin for volume "late": no deletable volume plugin matched';
    assert.equal((failed.status as Obj).message, message);

    // A bound claim whose volume is deleted is Lost.
    await pvs.create(loopbackContext(), pv('gone', '1Gi', { storageClassName: 'ext' }));
    await eventually('provisioned bound to gone', async () => ((await pvcs.get(ctx, 'provisioned')).status as Obj).phase === 'Bound' || undefined);
    // A bound volume is kept while bound (pv-protection); once its finalizer is cleared, it goes.
    await pvs.delete(loopbackContext(), 'gone');
    assert.ok((await pvs.get(loopbackContext(), 'gone')).metadata.deletionTimestamp);
    await pvs.update(loopbackContext(), 'gone', (cur) => ({ ...cur!, metadata: { ...cur!.metadata, finalizers: [] } }));
    await eventually('provisioned Lost', async () => ((await pvcs.get(ctx, 'provisioned')).status as Obj).phase === 'Lost' || undefined);
    await expectEvent('provisioned', 'Warning ClaimLost: Bound claim has lost its PersistentVolume. Data on the volume is lost!');
  } finally {
    await registry.close();
  }
});
