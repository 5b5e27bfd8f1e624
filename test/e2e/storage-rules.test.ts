// kubectl create / patch of PersistentVolumes, PersistentVolumeClaims, ResourceQuotas and LimitRanges against a
// real Capstan: kube 1.31's messages, with resource names printed bare and Quantity bad values as Go's %#v.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestServer } from './helpers.ts';
import type { TestServer } from './helpers.ts';

const goQuantity = (value: number, scale: number, s: string, format = 'DecimalSI') =>
  `resource.Quantity{i:resource.int64Amount{value:${value}, scale:${scale}}, d:resource.infDecAmount{Dec:(*inf.Dec)(nil)}, s:"${s}", Format:"${format}"}`;

describe('storage, quota and limit rules through kubectl', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer();
  });
  after(async () => {
    await s?.close();
  });

  const ok = (args: string[], input?: string) => s.kubectlOk(args, { input });
  const refused = (args: string[], input?: string) => s.kubectlRefused(args, { input });
  const json = (obj: unknown) => JSON.stringify(obj);

  test('resource quota: every name rule, integer counts, scopes fixed after creation', async () => {
    const quota = (hard: Record<string, string>, scopes?: string[]) =>
      json({ apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name: 'q', namespace: 'default' }, spec: { hard, ...(scopes && { scopes }) } });
    assert.equal(
      await refused(['create', '-f', '-'], quota({ 'limits.pods': '1', pods: '1500m' })),
      [
        'The ResourceQuota "q" is invalid: ',
        '* spec.hard[limits.pods]: Invalid value: limits.pods: must be a standard resource type or fully qualified',
        '* spec.hard[limits.pods]: Invalid value: limits.pods: must be a standard resource for quota',
        `* spec.hard[pods]: Invalid value: ${goQuantity(1500, -3, '1500m')}: must be an integer`,
      ].join('\n'),
    );
    await ok(['create', '-f', '-'], quota({ pods: '2' }, ['BestEffort']));
    assert.equal(
      await refused(['patch', 'resourcequota', 'q', '--type=merge', '-p', '{"spec":{"scopes":["NotBestEffort"]}}']),
      'The ResourceQuota "q" is invalid: spec.scopes: Invalid value: []core.ResourceQuotaScope{"NotBestEffort"}: field is immutable',
    );
  });

  test('limit range: the quantities compared are the bad values, their canonical texts in the message', async () => {
    const range = (limit: Record<string, unknown>) => json({ apiVersion: 'v1', kind: 'LimitRange', metadata: { name: 'lr', namespace: 'default' }, spec: { limits: [limit] } });
    assert.equal(
      await refused(['create', '-f', '-'], range({ type: 'Pod', min: { cpu: '2' }, max: { cpu: '1' } })),
      `The LimitRange "lr" is invalid: spec.limits[0].min[cpu]: Invalid value: ${goQuantity(2, 0, '2')}: min value 2 is greater than max value 1`,
    );
    assert.equal(
      await refused(['create', '-f', '-'], range({ type: 'PersistentVolumeClaim', max: { storage: '1Gi' }, default: { storage: '2Gi' } })),
      `The LimitRange "lr" is invalid: spec.limits[0].default[storage]: Invalid value: ${goQuantity(1073741824, 0, '1Gi', 'BinarySI')}: default value 2Gi is greater than max value 1Gi`,
    );
  });

  test('persistent volume: capacity, local volumes need node affinity, affinity fixed but for GA labels', async () => {
    const volume = (name: string, spec: Record<string, unknown>) =>
      json({ apiVersion: 'v1', kind: 'PersistentVolume', metadata: { name }, spec: { accessModes: ['ReadWriteOnce'], capacity: { storage: '1Gi' }, ...spec } });
    assert.equal(
      await refused(['create', '-f', '-'], volume('neg', { capacity: { storage: '-1Gi' }, hostPath: { path: '/data' } })),
      [
        'The PersistentVolume "neg" is invalid: ',
        '* spec.capacity[storage]: Invalid value: -1073741824: must be a valid resource quantity',
        '* spec.capacity[storage]: Invalid value: "-1Gi": must be greater than zero',
      ].join('\n'),
    );
    assert.equal(
      await refused(['create', '-f', '-'], volume('disk', { local: { path: '/mnt/disk' } })),
      'The PersistentVolume "disk" is invalid: spec.nodeAffinity: Required value: Local volume requires node affinity',
    );
    const affinity = (key: string) => ({ required: { nodeSelectorTerms: [{ matchExpressions: [{ key, operator: 'In', values: ['a'] }] }] } });
    await ok(['create', '-f', '-'], volume('disk', { local: { path: '/mnt/disk' }, nodeAffinity: affinity('failure-domain.beta.kubernetes.io/zone') }));
    await ok(['apply', '--server-side', '--force-conflicts', '-f', '-'], volume('disk', { local: { path: '/mnt/disk' }, nodeAffinity: affinity('topology.kubernetes.io/zone') }));
    assert.equal(
      await refused(['patch', 'pv', 'disk', '--type=json', '-p', '[{"op":"replace","path":"/spec/nodeAffinity/required/nodeSelectorTerms/0/matchExpressions/0/key","value":"example.com/rack"}]']),
      'The PersistentVolume "disk" is invalid: nodeAffinity: Invalid value: core.VolumeNodeAffinity{Required:(*core.NodeSelector)(core.NodeSelector{NodeSelectorTerms:[]core.NodeSelectorTerm{core.NodeSelectorTerm{MatchExpressions:[]core.NodeSelectorRequirement{core.NodeSelectorRequirement{Key:"example.com/rack", Operator:"In", Values:[]string{"a"}}}, MatchFields:[]core.NodeSelectorRequirement(nil)}}})}: field is immutable, except for updating from beta label to GA',
    );
  });

  test('persistent volume: every source checked as kube checks it, storageos warned by its Go name', async () => {
    const volume = (name: string, spec: Record<string, unknown>) =>
      json({ apiVersion: 'v1', kind: 'PersistentVolume', metadata: { name }, spec: { accessModes: ['ReadWriteOnce'], capacity: { storage: '1Gi' }, ...spec } });
    assert.equal(
      await refused(['create', '-f', '-'], volume('target', { iscsi: { targetPortal: '10.0.0.1:3260', iqn: 'disk', secretRef: { namespace: 'default' } } })),
      ['The PersistentVolume "target" is invalid: ', '* spec.iscsi.iqn: Invalid value: "disk": must be valid format', '* spec.iscsi.secretRef.name: Required value'].join('\n'),
    );
    assert.equal(
      await refused(['create', '-f', '-'], volume('block', { cinder: { volumeID: 'v', secretRef: { name: 's' } } })),
      'The PersistentVolume "block" is invalid: spec.cinder.secretRef.namespace: Required value',
    );
    assert.equal(
      await refused(['create', '-f', '-'], volume('gce', { gcePersistentDisk: { pdName: '' } })),
      'The PersistentVolume "gce" is invalid: spec.persistentDisk.pdName: Required value',
    );
    const created = await s.kubectl(['create', '-f', '-'], { input: volume('legacy', { storageos: { volumeName: 'data' } }) });
    assert.equal(created.code, 0, created.stderr);
    assert.equal(created.stderr.trim(), 'Warning: spec.storageOS: deprecated in v1.22, non-functional in v1.25+');
  });

  test('persistent volume claim: the beta class annotation is fixed, a class may be set once', async () => {
    const claim = json({
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      metadata: { name: 'data', namespace: 'default', annotations: { 'volume.beta.kubernetes.io/storage-class': 'fast' } },
      spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
    });
    const created = await s.kubectl(['create', '-f', '-'], { input: claim });
    assert.equal(created.code, 0, created.stderr);
    assert.equal(created.stderr.trim(), 'Warning: metadata.annotations[volume.beta.kubernetes.io/storage-class]: deprecated since v1.8; use "storageClassName" attribute instead');
    assert.equal(
      await refused(['annotate', 'pvc', 'data', '--overwrite', 'volume.beta.kubernetes.io/storage-class=slow']),
      'The PersistentVolumeClaim "data" is invalid: metadata.annotations.volume.beta.kubernetes.io/storage-class: Invalid value: "slow": field is immutable',
    );
    const moved = await s.kubectl(['patch', 'pvc', 'data', '--type=merge', '-p', '{"spec":{"storageClassName":"fast"}}']);
    assert.equal(moved.code, 0, moved.stderr);
  });
});
