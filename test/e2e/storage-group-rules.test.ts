// kubectl against a real Capstan for the storage.k8s.io, node.k8s.io and scheduling.k8s.io rules of kube 1.31:
// StorageClass allowed topologies and their warnings, updates validated as creates first, and the Go structs kube
// prints as the bad values of CSINode, CSIStorageCapacity, VolumeAttachment and RuntimeClass errors.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestServer } from './helpers.ts';
import type { TestServer } from './helpers.ts';

describe('storage, node and scheduling rules through kubectl', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer();
  });
  after(async () => {
    await s?.close();
  });

  const ok = (args: string[], input?: string) => s.kubectlOk(args, { input });
  const refused = (args: string[], input?: string) => s.kubectlRefused(args, { input });
  const manifest = (obj: Record<string, unknown>) => JSON.stringify(obj);

  test('storage class: an empty allowed topology term is a duplicate, deprecated topology labels warn', async () => {
    const sc = (name: string, allowedTopologies: unknown[]) => manifest({ apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', metadata: { name }, provisioner: 'csi.example.com', allowedTopologies });
    assert.equal(await refused(['create', '-f', '-'], sc('empty-term', [{}])), 'The StorageClass "empty-term" is invalid: allowedTopologies[0].matchLabelExpressions: Duplicate value: ""');
    const created = await s.kubectl(['create', '-f', '-'], { input: sc('zonal', [{ matchLabelExpressions: [{ key: 'failure-domain.beta.kubernetes.io/zone', values: ['a'] }] }]) });
    assert.equal(created.code, 0);
    assert.equal(created.stderr, 'Warning: allowedTopologies[0].matchLabelExpressions[0].key: deprecated since v1.17; use "topology.kubernetes.io/zone" instead\n');
  });

  test('storage class: an update is validated as a create before the update rules', async () => {
    await ok(['create', '-f', '-'], manifest({ apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', metadata: { name: 'fast' }, provisioner: 'csi.example.com' }));
    assert.equal(
      await refused(['patch', 'storageclass', 'fast', '--type=merge', '-p', '{"reclaimPolicy":"Recycle"}']),
      'The StorageClass "fast" is invalid: \n* reclaimPolicy: Unsupported value: "Recycle": supported values: "Delete", "Retain"\n* reclaimPolicy: Forbidden: updates to reclaimPolicy are forbidden.',
    );
  });

  test('CSI node: a changed driver entry is printed as the storage.CSINodeDriver struct', async () => {
    await ok(['create', '-f', '-'], manifest({ apiVersion: 'storage.k8s.io/v1', kind: 'CSINode', metadata: { name: 'n1' }, spec: { drivers: [{ name: 'csi.example.com', nodeID: 'n1' }] } }));
    assert.equal(
      await refused(['patch', 'csinode', 'n1', '--type=merge', '-p', '{"spec":{"drivers":[{"name":"csi.example.com","nodeID":"n2","topologyKeys":["zone"]}]}}']),
      'The CSINode "n1" is invalid: spec.drivers: Invalid value: storage.CSINodeDriver{Name:"csi.example.com", NodeID:"n2", TopologyKeys:[]string{"zone"}, Allocatable:(*storage.VolumeNodeResources)(nil)}: field is immutable',
    );
  });

  test('CSI storage capacity: a changed topology is printed as the v1.LabelSelector struct', async () => {
    await ok(['create', '-f', '-'], manifest({ apiVersion: 'storage.k8s.io/v1', kind: 'CSIStorageCapacity', metadata: { name: 'c1', namespace: 'default' }, storageClassName: 'fast', nodeTopology: { matchLabels: { zone: 'a' } } }));
    assert.equal(
      await refused(['patch', 'csistoragecapacity', 'c1', '--type=merge', '-p', '{"nodeTopology":{"matchLabels":{"zone":"b"}}}']),
      'The CSIStorageCapacity "c1" is invalid: nodeTopology: Invalid value: v1.LabelSelector{MatchLabels:map[string]string{"zone":"b"}, MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: field is immutable',
    );
  });

  test('volume attachment: a changed spec is printed as the storage.VolumeAttachmentSpec struct', async () => {
    await ok(['create', '-f', '-'], manifest({ apiVersion: 'storage.k8s.io/v1', kind: 'VolumeAttachment', metadata: { name: 'va1' }, spec: { attacher: 'csi.example.com', nodeName: 'n1', source: { persistentVolumeName: 'pv1' } } }));
    assert.equal(
      await refused(['patch', 'volumeattachment', 'va1', '--type=merge', '-p', '{"spec":{"nodeName":"n2"}}']),
      'The VolumeAttachment "va1" is invalid: spec: Invalid value: storage.VolumeAttachmentSpec{Attacher:"csi.example.com", Source:storage.VolumeAttachmentSource{PersistentVolumeName:(*string)("pv1"), InlineVolumeSpec:(*core.PersistentVolumeSpec)(nil)}, NodeName:"n2"}: field is immutable',
    );
  });

  test('runtime class: a repeated toleration is printed as the core.Toleration struct', async () => {
    const rc = manifest({ apiVersion: 'node.k8s.io/v1', kind: 'RuntimeClass', metadata: { name: 'gvisor' }, handler: 'runsc', scheduling: { tolerations: [{ key: 'gpu', operator: 'Exists' }, { key: 'gpu', operator: 'Exists' }] } });
    assert.equal(
      await refused(['create', '-f', '-'], rc),
      'The RuntimeClass "gvisor" is invalid: scheduling.tolerations[1]: Duplicate value: core.Toleration{Key:"gpu", Operator:"Exists", Value:"", Effect:"", TolerationSeconds:(*int64)(nil)}',
    );
  });
});
