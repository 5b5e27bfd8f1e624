import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../types.ts';
import { builtinTypeFacts } from '../index.ts';
import { createErrors, statusUpdateErrors, updateErrors } from '../test-context.ts';

const classes = builtinTypeFacts('storage.k8s.io', 'storageclasses');
const drivers = builtinTypeFacts('storage.k8s.io', 'csidrivers');
const csiNodes = builtinTypeFacts('storage.k8s.io', 'csinodes');
const capacities = builtinTypeFacts('storage.k8s.io', 'csistoragecapacities');
const attachments = builtinTypeFacts('storage.k8s.io', 'volumeattachments');

// Sources: pkg/apis/storage/v1/defaults.go; pkg/apis/storage/validation/validation.go.
test('storage classes: reclaimPolicy and volumeBindingMode defaults, kube messages', () => {
  const sc: KubeObject = { metadata: { name: 'fast' }, provisioner: 'csi.example.com', parameters: { type: 'ssd' } };
  assert.deepEqual(createErrors(classes, sc), []);
  assert.equal(sc.reclaimPolicy, 'Delete');
  assert.equal(sc.volumeBindingMode, 'Immediate');
  assert.deepEqual(createErrors(classes, { metadata: { name: 'x' }, provisioner: '', reclaimPolicy: 'Recycle', volumeBindingMode: 'Later' }), [
    'provisioner: Required value',
    'reclaimPolicy: Unsupported value: "Recycle": supported values: "Delete", "Retain"',
    'volumeBindingMode: Unsupported value: "Later": supported values: "Immediate", "WaitForFirstConsumer"',
  ]);
});

test('storage classes: provisioner, parameters, reclaimPolicy and volumeBindingMode are fixed; expansion may change', () => {
  const old: KubeObject = { metadata: { name: 'fast', resourceVersion: '2' }, provisioner: 'a.io/p', parameters: { type: 'ssd' }, reclaimPolicy: 'Delete', volumeBindingMode: 'Immediate' };
  assert.deepEqual(updateErrors(classes, { metadata: { name: 'fast' }, provisioner: 'b.io/p', parameters: { type: 'hdd' }, reclaimPolicy: 'Retain', volumeBindingMode: 'WaitForFirstConsumer' }, old), [
    'parameters: Forbidden: updates to parameters are forbidden.',
    'provisioner: Forbidden: updates to provisioner are forbidden.',
    'reclaimPolicy: Forbidden: updates to reclaimPolicy are forbidden.',
    'volumeBindingMode: Invalid value: "WaitForFirstConsumer": field is immutable',
  ]);
  assert.deepEqual(updateErrors(classes, { metadata: { name: 'fast' }, provisioner: 'a.io/p', parameters: { type: 'ssd' }, allowVolumeExpansion: true }, old), []);
});

test('CSI drivers: defaults; attachRequired and lifecycle modes fixed; token requests checked', () => {
  const d: KubeObject = { metadata: { name: 'csi.example.com' }, spec: {} };
  assert.deepEqual(createErrors(drivers, d), []);
  assert.deepEqual(d.spec, {
    attachRequired: true,
    podInfoOnMount: false,
    storageCapacity: false,
    fsGroupPolicy: 'ReadWriteOnceWithFSType',
    volumeLifecycleModes: ['Persistent'],
    requiresRepublish: false,
    seLinuxMount: false,
  });
  assert.deepEqual(createErrors(drivers, { metadata: { name: 'd' }, spec: { fsGroupPolicy: 'Some', tokenRequests: [{ audience: 'a', expirationSeconds: 60 }, { audience: 'a' }] } }), [
    'spec.fsGroupPolicy: Unsupported value: "Some": supported values: "File", "None", "ReadWriteOnceWithFSType"',
    'spec.tokenRequests[0].expirationSeconds: Invalid value: 60: may not specify a duration less than 10 minutes',
    'spec.tokenRequests[1].audience: Duplicate value: "a"',
  ]);
  const old = structuredClone(d);
  old.metadata = { ...old.metadata, resourceVersion: '2' };
  const next = structuredClone(old);
  (next.spec as Record<string, unknown>).attachRequired = false;
  (next.spec as Record<string, unknown>).podInfoOnMount = true;
  assert.deepEqual(updateErrors(drivers, next, old), ['spec.attachedRequired: Invalid value: false: field is immutable']);
});

test('CSI nodes: driver entries named once with node IDs', () => {
  const n: KubeObject = { metadata: { name: 'n1' }, spec: { drivers: [{ name: 'csi.example.com', nodeID: 'n1' }, { name: 'csi.example.com', nodeID: '' }] } };
  assert.deepEqual(createErrors(csiNodes, n), ['spec.drivers[1].nodeID: Required value', 'spec.drivers[1].name: Duplicate value: "csi.example.com"']);
});

test('CSI storage capacities: class name and topology fixed, capacity not negative', () => {
  const c: KubeObject = { metadata: { name: 'c1', namespace: 'default' }, storageClassName: 'fast', capacity: '-1Gi' };
  assert.deepEqual(createErrors(capacities, c), ['capacity: Invalid value: "-1Gi": must be greater than or equal to 0']);
  const old: KubeObject = { metadata: { name: 'c1', namespace: 'default', resourceVersion: '2' }, storageClassName: 'fast', capacity: '1Gi' };
  assert.deepEqual(updateErrors(capacities, { metadata: { name: 'c1', namespace: 'default' }, storageClassName: 'slow', capacity: '2Gi' }, old), ['storageClassName: Invalid value: "slow": field is immutable']);
});

test('volume attachments: one source, a fixed spec, status reset and checked; Name column first', () => {
  const va: KubeObject = { metadata: { name: 'va1' }, spec: { attacher: 'csi.example.com', nodeName: 'n1', source: { persistentVolumeName: 'pv1' } }, status: { attached: true } };
  assert.deepEqual(createErrors(attachments, va), []);
  assert.deepEqual(va.status, {});
  assert.deepEqual(createErrors(attachments, { metadata: { name: 'v' }, spec: { attacher: 'a.io', nodeName: 'n1', source: {} } }), [
    'spec.source: Required value: must specify exactly one of inlineVolumeSpec and persistentVolumeName',
  ]);
  va.metadata = { ...va.metadata, resourceVersion: '2' };
  const moved = structuredClone(va);
  (moved.spec as Record<string, unknown>).nodeName = 'n2';
  assert.deepEqual(updateErrors(attachments, moved, va), [
    'spec: Invalid value: storage.VolumeAttachmentSpec{Attacher:"csi.example.com", Source:storage.VolumeAttachmentSource{PersistentVolumeName:(*string)("pv1"), InlineVolumeSpec:(*core.PersistentVolumeSpec)(nil)}, NodeName:"n2"}: field is immutable',
  ]);
  const { merged, errors } = statusUpdateErrors(attachments, { ...structuredClone(va), status: { attached: true, attachError: { message: 'failed' } } }, va);
  assert.deepEqual(errors, []);
  assert.equal((merged.status as Record<string, unknown>).attached, true);
  assert.deepEqual(attachments.printerColumns.map((c) => c.name), ['Name', 'Attacher', 'PV', 'Node', 'Attached', 'Age']);
});

// Source: pkg/apis/storage/validation/validation.go ValidateVolumeAttributesClass/Update.
test('volume attributes classes: parameters required, driver and parameters fixed', () => {
  const classes = builtinTypeFacts('storage.k8s.io', 'volumeattributesclasses');
  assert.deepEqual(createErrors(classes, { metadata: { name: 'gold' }, driverName: 'csi.example.com' }), ['parameters: Required value: must contain at least one key/value pair']);
  const old: KubeObject = { metadata: { name: 'gold', resourceVersion: '2' }, driverName: 'csi.example.com', parameters: { iops: '100' } };
  assert.deepEqual(updateErrors(classes, { metadata: { name: 'gold' }, driverName: 'csi.example.com', parameters: { iops: '200' } }, old), ['parameters: Forbidden: updates to parameters are forbidden.']);
});

// Sources: pkg/apis/storage/validation/validation.go validateAllowedTopologies; pkg/apis/core/validation
// ValidateTopologySelectorTerm; pkg/registry/storage/storageclass/strategy.go; pkg/api/storage/util.go.
test('storage classes: allowed topologies checked term by term, an empty term counted once per term', () => {
  assert.deepEqual(
    createErrors(classes, {
      metadata: { name: 'x' },
      provisioner: 'a.io/p',
      allowedTopologies: [{}, { matchLabelExpressions: [{ key: '/bad', values: [] }, { key: '/bad', values: ['a', 'a'] }] }],
    }),
    [
      'allowedTopologies[0].matchLabelExpressions: Duplicate value: ""',
      'allowedTopologies[0].matchLabelExpressions: Duplicate value: ""',
      'allowedTopologies[1].matchLabelExpressions[0].values: Required value',
      'allowedTopologies[1].matchLabelExpressions[0].key: Invalid value: "/bad": prefix part must be non-empty',
      'allowedTopologies[1].matchLabelExpressions[1].values[1]: Duplicate value: "a"',
      'allowedTopologies[1].matchLabelExpressions[1].key: Invalid value: "/bad": prefix part must be non-empty',
      'allowedTopologies[1].matchLabelExpressions[1].key: Duplicate value: "/bad"',
    ],
  );
  const sameTerms = [{ matchLabelExpressions: [{ key: 'zone', values: ['a', 'b'] }] }, { matchLabelExpressions: [{ key: 'zone', values: ['b', 'a'] }] }];
  assert.deepEqual(createErrors(classes, { metadata: { name: 'x' }, provisioner: 'a.io/p', allowedTopologies: sameTerms }), ['allowedTopologies[1].matchLabelExpressions: Duplicate value: ""']);
});

test('storage classes: an update is validated as a create first; deprecated topology labels warn', () => {
  const old: KubeObject = { metadata: { name: 'fast', resourceVersion: '2' }, provisioner: 'a.io/p', reclaimPolicy: 'Delete', volumeBindingMode: 'Immediate' };
  assert.deepEqual(updateErrors(classes, { metadata: { name: 'fast' }, provisioner: 'a.io/p', reclaimPolicy: 'Recycle' }, old), [
    'reclaimPolicy: Unsupported value: "Recycle": supported values: "Delete", "Retain"',
    'reclaimPolicy: Forbidden: updates to reclaimPolicy are forbidden.',
  ]);
  const sc: KubeObject = { metadata: { name: 'zonal' }, provisioner: 'a.io/p', allowedTopologies: [{ matchLabelExpressions: [{ key: 'failure-domain.beta.kubernetes.io/zone', values: ['a'] }] }] };
  assert.deepEqual(createErrors(classes, sc), []);
  assert.deepEqual(classes.strategy.warnings?.(sc, undefined), ['allowedTopologies[0].matchLabelExpressions[0].key: deprecated since v1.17; use "topology.kubernetes.io/zone" instead']);
});

// Sources: pkg/apis/storage/validation/validation.go ValidateCSINodeUpdate; pkg/registry/storage/csinode/strategy.go.
test('CSI nodes: a changed driver entry is printed as the Go struct', () => {
  const old: KubeObject = { metadata: { name: 'n1', resourceVersion: '2' }, spec: { drivers: [{ name: 'd.io', nodeID: 'n1', topologyKeys: ['zone'] }] } };
  assert.deepEqual(updateErrors(csiNodes, { metadata: { name: 'n1' }, spec: { drivers: [{ name: 'd.io', nodeID: 'n2', allocatable: { count: 3 } }] } }, old), [
    'spec.drivers: Invalid value: storage.CSINodeDriver{Name:"d.io", NodeID:"n2", TopologyKeys:[]string(nil), Allocatable:(*storage.VolumeNodeResources)(storage.VolumeNodeResources{Count:(*int32)(3)})}: field is immutable',
  ]);
});

// Sources: pkg/apis/storage/v1/defaults.go; pkg/registry/storage/csidriver/strategy.go.
test('CSI drivers: seLinuxMount only with SELinuxMountReadWriteOncePod; a spec change counts a generation', () => {
  const off = builtinTypeFacts('storage.k8s.io', 'csidrivers', { SELinuxMountReadWriteOncePod: false });
  const d: KubeObject = { metadata: { name: 'd.io' }, spec: { seLinuxMount: true } };
  assert.deepEqual(createErrors(off, d), []);
  assert.equal((d.spec as Record<string, unknown>).seLinuxMount, undefined);
  const old: KubeObject = { metadata: { name: 'd.io' }, spec: {} };
  createErrors(drivers, old);
  old.metadata = { ...old.metadata, resourceVersion: '2' };
  const next: KubeObject = { metadata: { name: 'd.io' }, spec: { ...(old.spec as object), podInfoOnMount: true } };
  assert.deepEqual(updateErrors(drivers, next, old), []);
  assert.equal(next.metadata.generation, 1);
});

// Sources: pkg/apis/storage/validation/validation.go ValidateCSIStorageCapacity/Update; pkg/registry/storage/csistoragecapacity/strategy.go.
test('CSI storage capacities: an update is validated as a create first; the topology printed as the Go struct', () => {
  const old: KubeObject = { metadata: { name: 'c', namespace: 'default', resourceVersion: '2' }, storageClassName: 'fast', nodeTopology: { matchLabels: { zone: 'a' } } };
  assert.deepEqual(updateErrors(capacities, { metadata: { name: 'c', namespace: 'default' }, storageClassName: 'fast', capacity: '-1000m', nodeTopology: { matchLabels: { zone: 'b' } } }, old), [
    'capacity: Invalid value: "-1": must be greater than or equal to 0',
    'nodeTopology: Invalid value: v1.LabelSelector{MatchLabels:map[string]string{"zone":"b"}, MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: field is immutable',
  ]);
  const c: KubeObject = { metadata: { name: 'c', namespace: 'default' }, storageClassName: 'fast', nodeTopology: { matchLabels: { 'failure-domain.beta.kubernetes.io/zone': 'a' } } };
  assert.deepEqual(capacities.strategy.warnings?.(c, undefined), ['nodeTopology.matchLabels.failure-domain.beta.kubernetes.io/zone: deprecated since v1.17; use "topology.kubernetes.io/zone" instead']);
});

// Sources: pkg/registry/storage/volumeattachment/strategy.go; pkg/apis/storage/validation/validation.go.
test('volume attachments: v1 name rules only on create; status writes keep the labels and report each error twice', () => {
  const old: KubeObject = { metadata: { name: 'va', resourceVersion: '2', labels: { a: 'b' } }, spec: { attacher: 'csi.example.com', nodeName: 'n1', source: { persistentVolumeName: 'pv1' } }, status: { attached: false } };
  const write: KubeObject = { ...structuredClone(old), metadata: { name: 'va', labels: { a: 'c' } }, status: { attached: true, attachError: { message: 'x'.repeat(1025) } } };
  const { merged, errors } = statusUpdateErrors(attachments, write, old);
  assert.deepEqual(errors, ['status.attachError.message: Too long: may not be more than 262144 bytes', 'status.attachError.message: Too long: may not be more than 262144 bytes']);
  assert.deepEqual(merged.metadata.labels, { a: 'b' });
});
