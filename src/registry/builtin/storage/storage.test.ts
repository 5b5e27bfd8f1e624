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
  assert.deepEqual(updateErrors(attachments, moved, va), ['spec: Invalid value: {"attacher":"csi.example.com","nodeName":"n2","source":{"persistentVolumeName":"pv1"}}: field is immutable']);
  const { merged, errors } = statusUpdateErrors(attachments, { ...structuredClone(va), status: { attached: true, attachError: { errorCode: -1 } } }, va);
  assert.deepEqual(errors, ['status.attachError.errorCode: Invalid value: -1: must be between 0 and 2147483647, inclusive']);
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
