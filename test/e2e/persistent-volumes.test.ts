// Persistent volumes as on a small cluster: the PersistentVolume controller binds claims to volumes (kubectl get
// pvc / pv show Bound, Released, Failed), and with simulated workloads the default `standard` class provisions a
// volume for a claim once the scheduler has put its first pod on a node, the scheduler refuses pods whose claims
// are missing with kube's message, and static volumes pinned to a node bring their pods to that node.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer, until as waitFor } from './helpers.ts';

let s: TestServer;
before(async () => {
  s = await startTestServer({ simulateWorkloads: { nodes: 2, podStartupMs: 20, podTerminationMs: 20 } });
});
after(async () => s?.close());

type Obj = Record<string, any>;

async function get(kind: string, name: string): Promise<Obj> {
  return JSON.parse(await s.kubectlOk(['get', kind, name, '-o', 'json'])) as Obj;
}

/** Polls for at most 20 s (the controllers' work here spans several passes). */
const until = <T>(what: string, check: () => Promise<T | undefined | false>): Promise<T> => waitFor(what, check, { timeoutMs: 20_000 });

async function eventsOf(name: string): Promise<string[]> {
  const list = JSON.parse(await s.kubectlOk(['get', 'events', '--field-selector', `involvedObject.name=${name}`, '-o', 'json'])) as { items: Obj[] };
  return list.items.map((e) => `${e.reason}: ${e.message}`);
}

const claim = (name: string, size: string, extra: Obj = {}) => ({ apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: size } }, ...extra } });
const podUsing = (name: string, claimName: string) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name },
  spec: { containers: [{ name: 'app', image: 'nginx', volumeMounts: [{ name: 'data', mountPath: '/data' }] }], volumes: [{ name: 'data', persistentVolumeClaim: { claimName } }] },
});
const apply = (obj: Obj) => s.kubectlOk(['create', '-f', '-'], { input: JSON.stringify(obj) });

test('the default class provisions a claim for its first pod, on that pod\'s node; the volume goes with the claim', async () => {
  assert.match(await s.kubectlOk(['get', 'storageclass']), /standard \(default\)\s+capstan\.dev\/hostpath\s+Delete\s+WaitForFirstConsumer\s+true/);
  await apply(claim('data', '1Gi'));
  const pending = await get('pvc', 'data');
  assert.equal(pending.spec.storageClassName, 'standard');
  await until('WaitForFirstConsumer event', async () => (await eventsOf('data')).includes('WaitForFirstConsumer: waiting for first consumer to be created before binding'));
  assert.equal((await get('pvc', 'data')).status.phase, 'Pending');

  await apply(podUsing('web', 'data'));
  await s.kubectlOk(['wait', '--for=condition=Ready', 'pod/web', '--timeout=20s'], { timeoutMs: 30_000 });
  const pod = await get('pod', 'web');
  const bound = await get('pvc', 'data');
  assert.equal(bound.status.phase, 'Bound');
  assert.equal(bound.metadata.annotations['volume.kubernetes.io/selected-node'], pod.spec.nodeName);
  assert.equal(bound.metadata.annotations['volume.kubernetes.io/storage-provisioner'], 'capstan.dev/hostpath');
  assert.equal(bound.spec.volumeName, `pvc-${bound.metadata.uid}`);
  assert.deepEqual(bound.status.capacity, { storage: '1Gi' });
  const pv = await get('pv', bound.spec.volumeName);
  assert.deepEqual(pv.spec.nodeAffinity, { required: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'In', values: [pod.spec.nodeName] }] }] } });
  assert.equal(pv.metadata.annotations['pv.kubernetes.io/provisioned-by'], 'capstan.dev/hostpath');
  assert.equal(pv.spec.persistentVolumeReclaimPolicy, 'Delete');
  assert.equal(pv.status.phase, 'Bound');
  const events = await until('provisioning events', async () => {
    const e = await eventsOf('data');
    return e.some((m) => m.startsWith('ProvisioningSucceeded')) && e;
  });
  assert.ok(events.includes(`Provisioning: External provisioner is provisioning volume for claim "default/data"`), events.join('\n'));
  assert.ok(events.includes(`ProvisioningSucceeded: Successfully provisioned volume ${pv.metadata.name}`), events.join('\n'));
  assert.ok(events.includes("ExternalProvisioning: Waiting for a volume to be created either by the external provisioner 'capstan.dev/hostpath' or manually by the system administrator. If volume creation is delayed, please verify that the provisioner is running and correctly registered."), events.join('\n'));
  assert.match(await s.kubectlOk(['get', 'pvc', 'data']), new RegExp(`data\\s+Bound\\s+${pv.metadata.name}\\s+1Gi\\s+RWO\\s+standard`));

  // The pod and the claim go: the volume is released, and its provisioner deletes it (reclaim policy Delete).
  await s.kubectlOk(['delete', 'pod', 'web']);
  await s.kubectlOk(['delete', 'pvc', 'data']);
  await until('the volume is deleted', async () => (await s.kubectl(['get', 'pv', pv.metadata.name])).code !== 0);
});

test('a pod whose claim is missing waits with kube\'s message, and is scheduled once the claim exists', async () => {
  await apply(podUsing('early', 'later'));
  const refused = await until('FailedScheduling', async () => (await eventsOf('early')).find((e) => e.startsWith('FailedScheduling')));
  assert.equal(refused, 'FailedScheduling: 0/2 nodes are available: persistentvolumeclaim "later" not found. preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling..');
  await apply(claim('later', '1Gi'));
  await s.kubectlOk(['wait', '--for=condition=Ready', 'pod/early', '--timeout=20s'], { timeoutMs: 30_000 });
  assert.equal((await get('pvc', 'later')).status.phase, 'Bound');
  await s.kubectlOk(['delete', 'pod', 'early']);
  await s.kubectlOk(['delete', 'pvc', 'later']);
});

test("a ReadWriteOncePod claim another pod uses: kube's VolumeRestrictions refusal on every node, until that pod goes", async () => {
  await apply(claim('solo', '1Gi', { accessModes: ['ReadWriteOncePod'] }));
  await apply(podUsing('owner', 'solo'));
  await s.kubectlOk(['wait', '--for=condition=Ready', 'pod/owner', '--timeout=20s'], { timeoutMs: 30_000 });
  await apply(podUsing('second', 'solo'));
  const refused = await until('FailedScheduling', async () => (await eventsOf('second')).find((e) => e.startsWith('FailedScheduling')));
  assert.equal(refused, 'FailedScheduling: 0/2 nodes are available: 2 node has pod using PersistentVolumeClaim with the same name and ReadWriteOncePod access mode. preemption: 0/2 nodes are available: 2 No preemption victims found for incoming pod..');
  assert.equal((await get('pod', 'second')).status.conditions.find((c: Obj) => c.type === 'PodScheduled').reason, 'Unschedulable');
  // Once the pod using it has gone, the second one is scheduled.
  await s.kubectlOk(['delete', 'pod', 'owner']);
  await s.kubectlOk(['wait', '--for=condition=Ready', 'pod/second', '--timeout=20s'], { timeoutMs: 30_000 });
  await s.kubectlOk(['delete', 'pod', 'second']);
  await s.kubectlOk(['delete', 'pvc', 'solo']);
});

test('a pod of higher priority preempts the pod of lower priority that holds its ReadWriteOncePod claim, waits while it stops, and takes its node', async () => {
  // The holder takes a minute to stop, past its 30 s grace period: it is killed then, on the server clock.
  const rule = s.containers.add({ pod: 'holder', stopAfter: '1m' });
  try {
    await apply({ apiVersion: 'scheduling.k8s.io/v1', kind: 'PriorityClass', metadata: { name: 'rwop-urgent' }, value: 1000 });
    await apply(claim('exclusive', '1Gi', { accessModes: ['ReadWriteOncePod'] }));
    await apply(podUsing('holder', 'exclusive'));
    await s.kubectlOk(['wait', '--for=condition=Ready', 'pod/holder', '--timeout=20s'], { timeoutMs: 30_000 });
    const holder = await get('pod', 'holder');
    const node = String(holder.spec.nodeName);
    const taker = podUsing('taker', 'exclusive');
    await apply({ ...taker, spec: { ...taker.spec, priorityClassName: 'rwop-urgent' } });
    // The first attempt finds its victim (kube's message then has no preemption part) and nominates the holder's
    // node; the next ones wait for the victim to stop, with DefaultPreemption's reason.
    const waiting = await until('the taker waiting for its victim', async () => {
      const failures = (await eventsOf('taker')).filter((e) => e.startsWith('FailedScheduling'));
      return failures.length >= 2 && failures;
    });
    assert.deepEqual(waiting, [
      'FailedScheduling: 0/2 nodes are available: 2 node has pod using PersistentVolumeClaim with the same name and ReadWriteOncePod access mode.',
      'FailedScheduling: 0/2 nodes are available: 2 node has pod using PersistentVolumeClaim with the same name and ReadWriteOncePod access mode. preemption: not eligible due to a terminating pod on the nominated node..',
    ]);
    assert.equal((await get('pod', 'taker')).status.nominatedNodeName, node);
    const stopping = await get('pod', 'holder');
    assert.ok(stopping.metadata.deletionTimestamp);
    assert.deepEqual(
      stopping.status.conditions.filter((c: Obj) => c.type === 'DisruptionTarget').map((c: Obj) => [c.status, c.reason, c.message]),
      [['True', 'PreemptionByScheduler', 'default-scheduler: preempting to accommodate a higher priority pod']],
    );
    const taken = await get('pod', 'taker');
    assert.deepEqual((await eventsOf('holder')).filter((e) => e.startsWith('Preempted')), [`Preempted: Preempted by pod ${String(taken.metadata.uid)} on node ${node}`]);
    // Killed at the end of its grace period, the holder goes, and the taker is scheduled on its node.
    s.clock.advance('30s');
    await s.kubectlOk(['wait', '--for=condition=Ready', 'pod/taker', '--timeout=20s'], { timeoutMs: 30_000 });
    assert.equal((await get('pod', 'taker')).spec.nodeName, node);
    assert.equal((await s.kubectl(['get', 'pod', 'holder'])).code, 1);
    await s.kubectlOk(['delete', 'pod', 'taker']);
    await s.kubectlOk(['delete', 'pvc', 'exclusive']);
    await s.kubectlOk(['delete', 'priorityclass', 'rwop-urgent']);
  } finally {
    s.containers.remove(rule.id);
    s.clock.reset();
  }
});

test("VolumeZone: a pod whose volume carries a zone goes to a node of that zone; none in it, kube's refusal", async () => {
  const nodes = ['capstan-node-1', 'capstan-node-2'];
  const zoned = (name: string, labels: Record<string, string>) => ({
    apiVersion: 'v1',
    kind: 'PersistentVolume',
    metadata: { name, labels },
    spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], nfs: { server: 'nfs.example', path: `/${name}` }, storageClassName: '', claimRef: { namespace: 'default', name } },
  });
  await s.kubectlOk(['label', 'node', nodes[0]!, 'topology.kubernetes.io/zone=zone-a']);
  await s.kubectlOk(['label', 'node', nodes[1]!, 'topology.kubernetes.io/zone=zone-b']);
  try {
    const volumes = [
      ['in-b', { 'failure-domain.beta.kubernetes.io/zone': 'zone-b' }],
      ['in-c', { 'topology.kubernetes.io/zone': 'zone-c' }],
    ] as const;
    for (const [name, labels] of volumes) {
      await apply(zoned(name, labels));
      await apply(claim(name, '1Gi', { storageClassName: '', volumeName: name }));
      await until(`${name} Bound`, async () => (await get('pvc', name)).status.phase === 'Bound');
      await apply(podUsing(name, name));
    }
    // A volume's beta label is matched against the node's GA one.
    await s.kubectlOk(['wait', '--for=condition=Ready', 'pod/in-b', '--timeout=20s'], { timeoutMs: 30_000 });
    assert.equal((await get('pod', 'in-b')).spec.nodeName, nodes[1]);
    const refused = await until('FailedScheduling', async () => (await eventsOf('in-c')).find((e) => e.startsWith('FailedScheduling')));
    assert.equal(refused, 'FailedScheduling: 0/2 nodes are available: 2 node(s) had no available volume zone. preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling..');
    // A volume of several zones ("__") fits a node of any of them.
    await s.kubectlOk(['label', 'pv', 'in-c', '--overwrite', 'topology.kubernetes.io/zone=zone-c__zone-a']);
    await s.kubectlOk(['wait', '--for=condition=Ready', 'pod/in-c', '--timeout=20s'], { timeoutMs: 30_000 });
    assert.equal((await get('pod', 'in-c')).spec.nodeName, nodes[0]);
    await s.kubectlOk(['delete', 'pod', 'in-b', 'in-c']);
    await s.kubectlOk(['delete', 'pvc', 'in-b', 'in-c']);
    await s.kubectlOk(['delete', 'pv', 'in-b', 'in-c']);
  } finally {
    for (const node of nodes) await s.kubectlOk(['label', 'node', node, 'topology.kubernetes.io/zone-']);
  }
});

test('static volumes: a claim binds at once to a volume without a class; a local volume pinned to a node draws its pod there; Retain keeps a released volume', async () => {
  await apply({ apiVersion: 'v1', kind: 'PersistentVolume', metadata: { name: 'shared' }, spec: { capacity: { storage: '5Gi' }, accessModes: ['ReadWriteMany'], nfs: { server: 'nfs.example', path: '/exports' }, storageClassName: '' } });
  await apply(claim('files', '2Gi', { accessModes: ['ReadWriteMany'], storageClassName: '' }));
  const files = await until('files Bound', async () => {
    const c = await get('pvc', 'files');
    return c.status.phase === 'Bound' && c;
  });
  assert.equal(files.spec.volumeName, 'shared');
  assert.deepEqual(files.metadata.annotations, { 'pv.kubernetes.io/bind-completed': 'yes', 'pv.kubernetes.io/bound-by-controller': 'yes' });
  assert.match(await s.kubectlOk(['get', 'pv', 'shared']), /shared\s+5Gi\s+RWX\s+Retain\s+Bound\s+default\/files\s+/);

  await apply({ apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', metadata: { name: 'local' }, provisioner: 'kubernetes.io/no-provisioner', volumeBindingMode: 'WaitForFirstConsumer' });
  await apply({
    apiVersion: 'v1',
    kind: 'PersistentVolume',
    metadata: { name: 'disk-2' },
    spec: {
      capacity: { storage: '10Gi' },
      accessModes: ['ReadWriteOnce'],
      storageClassName: 'local',
      local: { path: '/mnt/disk' },
      nodeAffinity: { required: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'In', values: ['capstan-node-2'] }] }] } },
    },
  });
  await apply(claim('fast', '1Gi', { storageClassName: 'local' }));
  await apply(podUsing('db', 'fast'));
  await s.kubectlOk(['wait', '--for=condition=Ready', 'pod/db', '--timeout=20s'], { timeoutMs: 30_000 });
  assert.equal((await get('pod', 'db')).spec.nodeName, 'capstan-node-2');
  assert.equal((await get('pvc', 'fast')).spec.volumeName, 'disk-2');
  assert.equal((await get('pv', 'disk-2')).status.phase, 'Bound');

  // No second local volume: a second claim's pod finds no node.
  await apply(claim('fast-2', '1Gi', { storageClassName: 'local' }));
  await apply(podUsing('db-2', 'fast-2'));
  const refused = await until('FailedScheduling', async () => (await eventsOf('db-2')).find((e) => e.startsWith('FailedScheduling')));
  assert.equal(refused, "FailedScheduling: 0/2 nodes are available: 2 node(s) didn't find available persistent volumes to bind. preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling..");

  await s.kubectlOk(['delete', 'pod', 'db', 'db-2']);
  await s.kubectlOk(['delete', 'pvc', 'fast', 'fast-2', 'files']);
  await until('disk-2 Released', async () => (await get('pv', 'disk-2')).status.phase === 'Released');
  await until('shared Released', async () => (await get('pv', 'shared')).status.phase === 'Released');
  assert.equal((await get('pv', 'shared')).spec.claimRef.name, 'files');
});

test('a StatefulSet whose pods mount its volumeClaimTemplates: each replica gets its claim, bound on the replica\'s node', async () => {
  await apply({
    apiVersion: 'apps/v1',
    kind: 'StatefulSet',
    metadata: { name: 'pg' },
    spec: {
      replicas: 2,
      serviceName: 'pg',
      selector: { matchLabels: { app: 'pg' } },
      template: { metadata: { labels: { app: 'pg' } }, spec: { containers: [{ name: 'pg', image: 'postgres', volumeMounts: [{ name: 'data', mountPath: '/var/lib/postgresql' }] }] } },
      volumeClaimTemplates: [{ metadata: { name: 'data' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '2Gi' } } } }],
    },
  });
  await s.kubectlOk(['rollout', 'status', 'statefulset/pg', '--timeout=30s'], { timeoutMs: 40_000 });
  for (const i of [0, 1]) {
    const pod = await get('pod', `pg-${i}`);
    assert.deepEqual(pod.spec.volumes.find((v: Obj) => v.name === 'data'), { name: 'data', persistentVolumeClaim: { claimName: `data-pg-${i}` } });
    const pvc = await get('pvc', `data-pg-${i}`);
    assert.equal(pvc.status.phase, 'Bound');
    assert.deepEqual(pvc.metadata.labels, { app: 'pg' });
    assert.equal(pvc.metadata.annotations['volume.kubernetes.io/selected-node'], pod.spec.nodeName);
  }
  await s.kubectlOk(['delete', 'statefulset', 'pg']);
});

test("a claim grows as on a cluster with a CSI resizer: the volume at once, the file system once a running pod mounts it; kube's refusals for shrinking and for classes that do not expand", async () => {
  await apply(claim('grow', '1Gi'));
  await apply(podUsing('grower', 'grow'));
  await s.kubectlOk(['wait', '--for=condition=Ready', 'pod/grower', '--timeout=20s'], { timeoutMs: 30_000 });
  const volume = (await get('pvc', 'grow')).spec.volumeName as string;
  await s.kubectlOk(['patch', 'pvc', 'grow', '-p', '{"spec":{"resources":{"requests":{"storage":"3Gi"}}}}']);
  const grown = await until('the claim at 3Gi', async () => {
    const c = await get('pvc', 'grow');
    return c.status.capacity?.storage === '3Gi' && c;
  });
  assert.equal(grown.status.conditions, undefined);
  assert.equal((await get('pv', volume)).spec.capacity.storage, '3Gi');
  await until('the resize events', async () => {
    const events = await eventsOf('grow');
    return ['ExternalExpanding: waiting for an external controller to expand this PVC', `Resizing: External resizer is resizing volume ${volume}`, 'FileSystemResizeRequired: Require file system resize of volume on node'].every((e) => events.includes(e));
  });
  const node = (await get('pod', 'grower')).spec.nodeName as string;
  await until('the kubelet event', async () => (await eventsOf('grower')).includes(`FileSystemResizeSuccessful: MountVolume.NodeExpandVolume succeeded for volume "${volume}" ${node}`));
  assert.match(await s.kubectlOk(['get', 'pvc', 'grow']), new RegExp(`^grow\\s+Bound\\s+${volume}\\s+3Gi\\s+RWO\\s+standard`, 'm'));

  const shrink = await s.kubectl(['patch', 'pvc', 'grow', '-p', '{"spec":{"resources":{"requests":{"storage":"2Gi"}}}}']);
  assert.notEqual(shrink.code, 0);
  assert.match(shrink.stderr, /spec\.resources\.requests\.storage: Forbidden: field can not be less than previous value/);

  // Unmounted, the claim waits for a pod with FileSystemResizePending.
  await s.kubectlOk(['delete', 'pod', 'grower', '--wait=true']);
  await s.kubectlOk(['patch', 'pvc', 'grow', '-p', '{"spec":{"resources":{"requests":{"storage":"4Gi"}}}}']);
  const pending = await until('FileSystemResizePending', async () => {
    const c = await get('pvc', 'grow');
    return c.status.conditions?.some((x: Obj) => x.type === 'FileSystemResizePending') && c;
  });
  assert.equal(pending.status.capacity.storage, '3Gi');
  assert.deepEqual(pending.status.conditions.map((x: Obj) => [x.type, x.status, x.message]), [['FileSystemResizePending', 'True', 'Waiting for user to (re-)start a pod to finish file system resize of volume on node.']]);
  assert.equal((await get('pv', volume)).spec.capacity.storage, '4Gi');
  await apply({ ...podUsing('grower2', 'grow'), spec: { ...podUsing('grower2', 'grow').spec, nodeName: node } });
  await until('the claim at 4Gi', async () => (await get('pvc', 'grow')).status.capacity?.storage === '4Gi');

  // A class without allowVolumeExpansion: PersistentVolumeClaimResize refuses the growth.
  await apply({ apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', metadata: { name: 'fixed' }, provisioner: 'example.com/fixed', volumeBindingMode: 'Immediate' });
  await apply(claim('fixed-claim', '1Gi', { storageClassName: 'fixed' }));
  await until('the fixed claim bound', async () => (await get('pvc', 'fixed-claim')).status.phase === 'Bound');
  const refused = await s.kubectl(['patch', 'pvc', 'fixed-claim', '-p', '{"spec":{"resources":{"requests":{"storage":"2Gi"}}}}']);
  assert.notEqual(refused.code, 0);
  assert.equal(refused.stderr.trim(), 'Error from server (Forbidden): persistentvolumeclaims "fixed-claim" is forbidden: only dynamically provisioned pvc can be resized and the storageclass that provisions the pvc must support resize');
});


test("a generic ephemeral volume gets its claim from kube's ephemeral volume controller: <pod>-<volume>, controlled by the pod, provisioned, gone with the pod; one the pod does not own is refused", async () => {
  const ephemeralPod = (name: string) => ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name },
    spec: {
      containers: [{ name: 'app', image: 'busybox', volumeMounts: [{ name: 'scratch', mountPath: '/scratch' }] }],
      volumes: [{ name: 'scratch', ephemeral: { volumeClaimTemplate: { metadata: { labels: { use: 'scratch' } }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } } } }],
    },
  });
  await apply(ephemeralPod('eph'));
  await s.kubectlOk(['wait', '--for=condition=Ready', 'pod/eph', '--timeout=20s'], { timeoutMs: 30_000 });
  const pod = await get('pod', 'eph');
  const made = await get('pvc', 'eph-scratch');
  assert.deepEqual(made.metadata.ownerReferences, [{ apiVersion: 'v1', kind: 'Pod', name: 'eph', uid: pod.metadata.uid, controller: true, blockOwnerDeletion: true }]);
  assert.deepEqual(made.metadata.labels, { use: 'scratch' });
  assert.equal(made.status.phase, 'Bound');
  assert.equal(made.metadata.annotations['volume.kubernetes.io/selected-node'], pod.spec.nodeName);
  await s.kubectlOk(['delete', 'pod', 'eph']);
  await until('the claim to go with its pod', async () => (await s.kubectl(['get', 'pvc', 'eph-scratch'])).code !== 0);

  // A claim of that name made by someone else: the pod does not start, with kube's event and scheduler message.
  await apply(claim('taken-scratch', '1Gi'));
  await apply(ephemeralPod('taken'));
  await until('the FailedBinding event', async () => (await eventsOf('taken')).includes('FailedBinding: ephemeral volume scratch: PVC default/taken-scratch was not created for pod default/taken (pod is not owner)'));
  await until('the FailedScheduling event', async () => (await eventsOf('taken')).some((e) => e.startsWith('FailedScheduling: 0/2 nodes are available: PVC default/taken-scratch was not created for pod default/taken (pod is not owner).')));
  assert.equal((await get('pod', 'taken')).status.phase, 'Pending');
  await s.kubectlOk(['delete', 'pod', 'taken']);
  await s.kubectlOk(['delete', 'pvc', 'taken-scratch']);
});
