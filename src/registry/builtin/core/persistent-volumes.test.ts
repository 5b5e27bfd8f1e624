import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../types.ts';
import { builtinTypeFacts } from '../index.ts';
import { createErrors, statusUpdateErrors, updateErrors } from '../test-context.ts';

const pvs = builtinTypeFacts('', 'persistentvolumes');
const pvcs = builtinTypeFacts('', 'persistentvolumeclaims');
const pv = (spec: Record<string, unknown>): KubeObject => ({ metadata: { name: 'pv1' }, spec: { accessModes: ['ReadWriteOnce'], capacity: { storage: '1Gi' }, hostPath: { path: '/data' }, ...spec } });
const claim = (spec: Record<string, unknown>): KubeObject => ({ metadata: { name: 'data', namespace: 'default' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } }, ...spec } });

// Sources: pkg/apis/core/v1/defaults.go (SetDefaults_PersistentVolume, SetDefaults_PersistentVolumeClaimSpec),
// pkg/apis/core/validation/validation.go (ValidatePersistentVolumeSpec/Update, ValidatePersistentVolumeClaimSpec/Update),
// pkg/registry/core/persistentvolume/strategy.go (status reset, lastPhaseTransitionTime).
test('persistent volumes: defaults and a fresh Pending status with its transition time', () => {
  const obj = pv({});
  obj.status = { phase: 'Bound' };
  assert.deepEqual(createErrors(pvs, obj), []);
  assert.equal((obj.spec as Record<string, unknown>).persistentVolumeReclaimPolicy, 'Retain');
  assert.equal((obj.spec as Record<string, unknown>).volumeMode, 'Filesystem');
  const status = obj.status as Record<string, unknown>;
  assert.equal(status.phase, 'Pending');
  assert.match(String(status.lastPhaseTransitionTime), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
});

const pvCases: [string, Record<string, unknown>, string[]][] = [
  ['no access modes', { accessModes: [] }, ['spec.accessModes: Required value']],
  ['RWOP with others', { accessModes: ['ReadWriteOncePod', 'ReadOnlyMany'] }, ['spec.accessModes: Forbidden: may not use ReadWriteOncePod with other access modes']],
  ['unknown access mode', { accessModes: ['Sometimes'] }, ['spec.accessModes: Unsupported value: "Sometimes": supported values: "ReadOnlyMany", "ReadWriteMany", "ReadWriteOnce", "ReadWriteOncePod"']],
  ['no capacity', { capacity: undefined }, ['spec.capacity: Required value', 'spec.capacity: Unsupported value: core.ResourceList(nil): supported values: "storage"']],
  ['zero capacity', { capacity: { storage: '0' } }, ['spec.capacity[storage]: Invalid value: "0": must be greater than zero']],
  ['unknown reclaim policy', { persistentVolumeReclaimPolicy: 'Keep' }, ['spec.persistentVolumeReclaimPolicy: Unsupported value: "Keep": supported values: "Delete", "Recycle", "Retain"']],
  ['no volume source', { hostPath: undefined }, ['spec: Required value: must specify a volume type']],
  ['two volume sources', { nfs: { server: 's', path: '/x' } }, ['spec.nfs: Forbidden: may not specify more than 1 volume type']],
  ['bad volume mode', { volumeMode: 'Raw' }, ['spec.volumeMode: Unsupported value: "Raw": supported values: "Block", "Filesystem"']],
];
for (const [name, spec, want] of pvCases) test(`persistent volumes: ${name}`, () => assert.deepEqual(createErrors(pvs, pv(spec)), want));

test('persistent volumes: the source and volumeMode are fixed; status writes stamp phase transitions', () => {
  const old = pv({});
  createErrors(pvs, old);
  old.metadata = { ...old.metadata, resourceVersion: '3' };
  const errs = updateErrors(pvs, pv({ hostPath: { path: '/other' }, volumeMode: 'Block' }), old);
  assert.deepEqual(errs.map((e) => e.split('\n')[0]), ['spec.persistentvolumesource: Forbidden: spec.persistentvolumesource is immutable after creation', 'volumeMode: Invalid value: "Block": field is immutable']);
  assert.deepEqual(updateErrors(pvs, pv({ persistentVolumeReclaimPolicy: 'Delete', capacity: { storage: '2Gi' } }), old), []);
  const before = String((old.status as Record<string, unknown>).lastPhaseTransitionTime);
  (old.status as Record<string, unknown>).lastPhaseTransitionTime = '2020-01-01T00:00:00Z';
  const { merged, errors } = statusUpdateErrors(pvs, { ...structuredClone(old), status: { phase: 'Available', lastPhaseTransitionTime: '2020-01-01T00:00:00Z' } }, old);
  assert.deepEqual(errors, []);
  assert.notEqual((merged.status as Record<string, unknown>).lastPhaseTransitionTime, '2020-01-01T00:00:00Z');
  assert.ok(before);
});

test('claims: volumeMode defaults to Filesystem, each spec rule with kube messages', () => {
  const obj = claim({});
  assert.deepEqual(createErrors(pvcs, obj), []);
  assert.equal((obj.spec as Record<string, unknown>).volumeMode, 'Filesystem');
  assert.deepEqual((obj.status as Record<string, unknown>).phase, 'Pending');
  assert.deepEqual(createErrors(pvcs, claim({ accessModes: [] })), ['spec.accessModes: Required value: at least 1 access mode is required']);
  assert.deepEqual(createErrors(pvcs, claim({ resources: {} })), ['spec.resources[storage]: Required value']);
  assert.deepEqual(createErrors(pvcs, claim({ resources: { requests: { storage: '0' } } })), ['spec.resources[storage]: Invalid value: "0": must be greater than zero']);
  assert.deepEqual(createErrors(pvcs, claim({ storageClassName: 'Fast_SSD' })).length, 1);
});

test('claims: resize only when bound and never smaller; the rest of the spec is immutable', () => {
  const old = claim({});
  createErrors(pvcs, old);
  old.metadata = { ...old.metadata, resourceVersion: '3' };
  // Unbound: a new size is a spec change.
  const grown = updateErrors(pvcs, claim({ resources: { requests: { storage: '2Gi' } } }), old);
  assert.equal(grown[0].split('\n')[0], 'spec: Forbidden: spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims');
  const bound = structuredClone(old);
  bound.status = { phase: 'Bound' };
  assert.deepEqual(updateErrors(pvcs, claim({ resources: { requests: { storage: '2Gi' } } }), bound), []);
  assert.deepEqual(updateErrors(pvcs, claim({ resources: { requests: { storage: '500Mi' } } }), bound), ['spec.resources.requests.storage: Forbidden: field can not be less than previous value']);
  // The binder sets volumeName once; a class may be set on a claim that had none.
  assert.deepEqual(updateErrors(pvcs, claim({ volumeName: 'pv1', storageClassName: 'fast' }), old), []);
  const named = structuredClone(old);
  (named.spec as Record<string, unknown>).volumeName = 'pv1';
  assert.equal(updateErrors(pvcs, claim({ volumeName: 'pv2' }), named).length, 1);
  assert.deepEqual(updateErrors(pvcs, claim({ volumeMode: 'Block' }), old).slice(-1), ['volumeMode: Invalid value: "Block": field is immutable']);
});

const goQuantity = (value: number, scale: number, s: string, format = 'DecimalSI') =>
  `resource.Quantity{i:resource.int64Amount{value:${value}, scale:${scale}}, d:resource.infDecAmount{Dec:(*inf.Dec)(nil)}, s:"${s}", Format:"${format}"}`;

const pvRuleCases: [string, Record<string, unknown>, string[]][] = [
  [
    // validateBasicResource reports Value() (an int64), then ValidatePositiveQuantityValue the canonical text.
    'negative capacity',
    { capacity: { storage: '-1Gi' } },
    ['spec.capacity[storage]: Invalid value: -1073741824: must be a valid resource quantity', 'spec.capacity[storage]: Invalid value: "-1Gi": must be greater than zero'],
  ],
  [
    'a capacity beside storage: the ResourceList as Go prints it',
    { capacity: { storage: '1Gi', cpu: '1' } },
    [`spec.capacity: Unsupported value: core.ResourceList{"cpu":${goQuantity(1, 0, '1')}, "storage":${goQuantity(1073741824, 0, '1Gi', 'BinarySI')}}: supported values: "storage"`],
  ],
  ['recycling the root of a hostPath', { hostPath: { path: '//./' }, persistentVolumeReclaimPolicy: 'Recycle' }, ["spec.persistentVolumeReclaimPolicy: Forbidden: may not be 'recycle' for a hostPath mount of '/'"]],
  ['a second source is named as kube names it', { cephfs: { monitors: ['m'] } }, ['spec.cephFS: Forbidden: may not specify more than 1 volume type']],
  ['a local volume needs node affinity', { hostPath: undefined, local: { path: '/mnt/disk' } }, ['spec.nodeAffinity: Required value: Local volume requires node affinity']],
  ['node affinity needs its required terms', { nodeAffinity: {} }, ['spec.nodeAffinity.required: Required value: must specify required node constraints']],
  ['node affinity with no terms', { nodeAffinity: { required: { nodeSelectorTerms: [] } } }, ['spec.nodeAffinity.required.nodeSelectorTerms: Required value: must have at least one node selector term']],
  [
    'node affinity comes before the source, the class after it',
    { hostPath: { path: '' }, storageClassName: 'Bad_Class', nodeAffinity: {} },
    [
      'spec.nodeAffinity.required: Required value: must specify required node constraints',
      'spec.hostPath.path: Required value',
      `spec.storageClassName: Invalid value: "Bad_Class": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
    ],
  ],
  [
    'CSI secret references',
    { hostPath: undefined, csi: { driver: 'csi.example.com', volumeHandle: 'h', nodePublishSecretRef: { name: 's' } } },
    ['spec.csi.nodePublishSecretRef.namespace: Required value'],
  ],
];
for (const [name, spec, want] of pvRuleCases) test(`persistent volumes: ${name}`, () => assert.deepEqual(createErrors(pvs, pv(spec)), want));

const DNS_LABEL_ERROR =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";

// Every source ValidatePersistentVolumeSpec visits, each checked as kube 1.31 checks it.
const sourceCases: [string, Record<string, unknown>, string[]][] = [
  [
    'a GCE disk is validated at spec.persistentDisk',
    { gcePersistentDisk: { partition: 256 } },
    ['spec.persistentDisk.pdName: Required value', 'spec.persistentDisk.partition: Invalid value: 256: must be between 1 and 255, inclusive'],
  ],
  ['an EBS partition below zero', { awsElasticBlockStore: { volumeID: 'v', partition: -1 } }, ['spec.awsElasticBlockStore.partition: Invalid value: -1: must be between 1 and 255, inclusive']],
  [
    'glusterfs with an empty endpointsNamespace',
    { glusterfs: { endpoints: '', path: 'vol', endpointsNamespace: '' } },
    ['spec.glusterfs.endpoints: Required value', 'spec.glusterfs.endpointsNamespace: Invalid value: "": if the endpointnamespace is set, it must be a valid namespace name'],
  ],
  ['glusterfs with a bad endpointsNamespace', { glusterfs: { endpoints: 'ep', path: 'vol', endpointsNamespace: 'Bad_NS' } }, [`spec.glusterfs.endpointsNamespace: Invalid value: "Bad_NS": ${DNS_LABEL_ERROR}`]],
  [
    'flocker with both dataset fields',
    { flocker: { datasetName: 'a/b', datasetUUID: 'u' } },
    ['spec.flocker: Invalid value: "resource": datasetName and datasetUUID can not be specified simultaneously', 'spec.flocker.datasetName: Invalid value: "a/b": must not contain \'/\''],
  ],
  ['rbd without monitors or image', { rbd: {} }, ['spec.rbd.monitors: Required value', 'spec.rbd.image: Required value']],
  [
    'quobyte with a registry that is no host:port',
    { quobyte: { registry: 'host' } },
    ['spec.quobyte.registry: Invalid value: "host": must be a host:port pair or multiple pairs separated by commas', 'spec.quobyte.volume: Required value'],
  ],
  ['cephfs without monitors', { cephfs: {} }, ['spec.cephfs.monitors: Required value']],
  [
    'iscsi names its volume and portal, prefixes and CHAP secret as PersistentVolumes do',
    { iscsi: { targetPortal: 'p'.repeat(61), iqn: 'foo', lun: 256, sessionCHAPAuth: true, initiatorName: 'bar' } },
    [
      `spec.iscsi.targetportal: Invalid value: "${'p'.repeat(61)}": Total length of <volume name>:<iscsi.targetPortal> must be under 64 characters if iscsi.initiatorName is specified.`,
      'spec.iscsi.iqn: Invalid value: "foo": must be valid format',
      'spec.iscsi.lun: Invalid value: 256: must be between 0 and 255, inclusive',
      'spec.iscsi.secretRef: Required value',
      'spec.iscsi.initiatorname: Invalid value: "bar": must be valid format',
    ],
  ],
  [
    'iscsi with an iqn missing its name and a secretRef without one',
    { iscsi: { targetPortal: '10.0.0.1:3260', iqn: 'iqn.2001-04.com.example', secretRef: {}, initiatorName: 'eui.0123' } },
    [
      'spec.iscsi.iqn: Invalid value: "iqn.2001-04.com.example": must be valid format',
      'spec.iscsi.secretRef.name: Required value',
      'spec.iscsi.initiatorname: Invalid value: "eui.0123": must be valid format',
    ],
  ],
  ['a valid iscsi volume', { iscsi: { targetPortal: '10.0.0.1:3260', iqn: 'iqn.2001-04.com.example:storage', initiatorName: 'iqn.2001-04.com.example:node' } }, []],
  ['cinder needs its secret namespace', { cinder: { volumeID: 'v', secretRef: { name: 's' } } }, ['spec.cinder.secretRef.namespace: Required value']],
  [
    'fc with both WWNs and WWIDs',
    { fc: { targetWWNs: ['w'], wwids: ['i'], lun: 300 } },
    ['spec.fc.targetWWNs: Invalid value: []string{"w"}: targetWWNs and wwids can not be specified simultaneously', 'spec.fc.lun: Invalid value: 300: must be between 0 and 255, inclusive'],
  ],
  [
    'flexVolume is validated beside another source, and counts for the ones after it',
    { hostPath: { path: '/data' }, flexVolume: { driver: '', options: { 'kubernetes.io/x': 'y' } }, azureFile: { secretName: 's', shareName: 'x' } },
    [
      'spec.flexVolume.driver: Required value',
      'spec.flexVolume.options[kubernetes.io/x]: Invalid value: "kubernetes.io/x": kubernetes.io and k8s.io namespaces are reserved',
      'spec.azureFile: Forbidden: may not specify more than 1 volume type',
    ],
  ],
  ['azureFile with an empty secretNamespace', { azureFile: { secretName: 's', shareName: '', secretNamespace: '' } }, ['spec.azureFile.shareName: Required value', 'spec.azureFile.secretNamespace: Required value']],
  ['vsphereVolume without a path', { vsphereVolume: {} }, ['spec.vsphereVolume.volumePath: Required value']],
  ['photonPersistentDisk without an id', { photonPersistentDisk: {} }, ['spec.photonPersistentDisk.pdID: Required value']],
  ['portworxVolume without an id', { portworxVolume: {} }, ['spec.portworxVolume.volumeID: Required value']],
  [
    'azureDisk caching mode and a managed disk URI',
    { azureDisk: { diskName: 'd', diskURI: 'http://x', cachingMode: 'Some', kind: 'Managed' } },
    [
      'spec.azureDisk.cachingMode: Unsupported value: "Some": supported values: "None", "ReadOnly", "ReadWrite"',
      'spec.azureDisk.diskURI: Unsupported value: "http://x": supported values: "/subscriptions/{sub-id}/resourcegroups/{group-name}/providers/microsoft.compute/disks/{disk-id}"',
    ],
  ],
  ['scaleIO without system or volume', { scaleIO: { gateway: 'g' } }, ['spec.scaleIO.system: Required value', 'spec.scaleIO.volumeName: Required value']],
  [
    'storageos with a bad volume name and a secret without namespace',
    { storageos: { volumeName: 'Bad', secretRef: { name: 's' } } },
    [`spec.storageos.volumeName: Invalid value: "Bad": ${DNS_LABEL_ERROR}`, 'spec.storageos.secretRef.namespace: Required value'],
  ],
];
for (const [name, spec, want] of sourceCases) test(`persistent volumes: ${name}`, () => assert.deepEqual(createErrors(pvs, pv({ hostPath: undefined, ...spec })), want));

test('persistent volumes: the mount-options annotation only with a source that mounts', () => {
  const annotated = (spec: Record<string, unknown>) => ({ ...pv(spec), metadata: { name: 'pv1', annotations: { 'volume.beta.kubernetes.io/mount-options': 'ro' } } });
  assert.deepEqual(createErrors(pvs, annotated({})), ['metadata.annotations.volume.beta.kubernetes.io/mount-options: Forbidden: may not specify mount options for this volume type']);
  assert.deepEqual(createErrors(pvs, annotated({ hostPath: undefined, nfs: { server: 's', path: '/x' } })), []);
});

test('persistent volumes: an update validates the volume twice, node affinity may only move to GA labels', () => {
  const affinity = (key: string) => ({ required: { nodeSelectorTerms: [{ matchExpressions: [{ key, operator: 'In', values: ['a'] }] }] } });
  const old = pv({ nodeAffinity: affinity('failure-domain.beta.kubernetes.io/zone') });
  createErrors(pvs, old);
  old.metadata = { ...old.metadata, resourceVersion: '3' };
  assert.deepEqual(updateErrors(pvs, pv({ nodeAffinity: affinity('topology.kubernetes.io/zone') }), old), []);
  assert.deepEqual(updateErrors(pvs, pv({ nodeAffinity: affinity('example.com/rack') }), old), [
    'nodeAffinity: Invalid value: core.VolumeNodeAffinity{Required:(*core.NodeSelector)(core.NodeSelector{NodeSelectorTerms:[]core.NodeSelectorTerm{core.NodeSelectorTerm{MatchExpressions:[]core.NodeSelectorRequirement{core.NodeSelectorRequirement{Key:"example.com/rack", Operator:"In", Values:[]string{"a"}}}, MatchFields:[]core.NodeSelectorRequirement(nil)}}})}: field is immutable, except for updating from beta label to GA',
  ]);
  assert.deepEqual(updateErrors(pvs, pv({ nodeAffinity: affinity('topology.kubernetes.io/zone'), capacity: { storage: '0' } }), old), [
    'spec.capacity[storage]: Invalid value: "0": must be greater than zero',
    'spec.capacity[storage]: Invalid value: "0": must be greater than zero',
  ]);
});

test('persistent volumes: a CSI volume may get a controllerExpandSecretRef; attributes classes need their gate', () => {
  const csi = { driver: 'csi.example.com', volumeHandle: 'h' };
  const old = pv({ hostPath: undefined, csi });
  createErrors(pvs, old);
  old.metadata = { ...old.metadata, resourceVersion: '3' };
  assert.deepEqual(updateErrors(pvs, pv({ hostPath: undefined, csi: { ...csi, controllerExpandSecretRef: { name: 's', namespace: 'ns' } } }), old), []);
  const withClass = structuredClone(old);
  (withClass.spec as Record<string, unknown>).volumeAttributesClassName = 'gold';
  assert.deepEqual(updateErrors(pvs, pv({ hostPath: undefined, csi }), withClass), [
    'spec.volumeAttributesClassName: Forbidden: update is forbidden when the VolumeAttributesClass feature gate is disabled',
    'spec.volumeAttributesClassName: Forbidden: update from non-nil value to nil is forbidden',
  ]);
});

test('claims: the beta class annotation, a class set once, the attributes class of an unbound claim', () => {
  const old = claim({});
  createErrors(pvcs, old);
  old.metadata = { ...old.metadata, resourceVersion: '3' };
  // A class set on a claim that had none, even an empty one.
  assert.deepEqual(updateErrors(pvcs, claim({ storageClassName: '' }), old), []);
  const annotated = structuredClone(old);
  annotated.metadata = { ...annotated.metadata, annotations: { 'volume.beta.kubernetes.io/storage-class': 'fast' } };
  // The class moves from the annotation into the field.
  assert.deepEqual(updateErrors(pvcs, { ...claim({ storageClassName: 'fast' }), metadata: structuredClone(annotated.metadata) }, annotated), []);
  const changed = updateErrors(pvcs, { ...claim({}), metadata: { ...annotated.metadata, annotations: { 'volume.beta.kubernetes.io/storage-class': 'slow' } } }, annotated);
  assert.deepEqual(changed, ['metadata.annotations.volume.beta.kubernetes.io/storage-class: Invalid value: "slow": field is immutable']);
  // With the gate on, the attributes class of a claim may change whether it is bound or not, but not be emptied.
  const gated = builtinTypeFacts('', 'persistentvolumeclaims', { VolumeAttributesClass: true });
  const silver = claim({ volumeAttributesClassName: 'silver' });
  createErrors(gated, silver);
  silver.metadata = { ...silver.metadata, resourceVersion: '3' };
  assert.deepEqual(updateErrors(gated, claim({ volumeAttributesClassName: 'gold' }), silver), []);
  assert.deepEqual(updateErrors(gated, claim({ volumeAttributesClassName: '' }), silver), ['spec.volumeAttributesClassName: Forbidden: update from non-nil value to an empty string is forbidden']);
});

test('claims: status writes check capacity, and allocations only where expansion recovery is on', () => {
  const old = claim({});
  createErrors(pvcs, old);
  old.metadata = { ...old.metadata, resourceVersion: '3' };
  const write = (facts: typeof pvcs, status: Record<string, unknown>) => statusUpdateErrors(facts, { ...structuredClone(old), status }, old);
  assert.deepEqual(write(pvcs, { phase: 'Bound', capacity: { storage: '-1' } }).errors, ['status.capacity[storage]: Invalid value: -1: must be a valid resource quantity']);
  // Without RecoverVolumeExpansionFailure the allocation fields are dropped.
  const dropped = write(pvcs, { phase: 'Bound', allocatedResources: { storage: '1Gi' }, allocatedResourceStatuses: { storage: 'Bogus' } });
  assert.deepEqual(dropped.errors, []);
  assert.deepEqual(dropped.merged.status, { phase: 'Bound' });
  const recovering = builtinTypeFacts('', 'persistentvolumeclaims', { RecoverVolumeExpansionFailure: true });
  assert.deepEqual(write(recovering, { phase: 'Bound', allocatedResources: { cpu: '1' }, allocatedResourceStatuses: { storage: 'Bogus' } }).errors, [
    'status.allocatedResourceStatus: Unsupported value: storage: supported values: "ControllerResizeFailed", "ControllerResizeInProgress", "NodeResizeFailed", "NodeResizeInProgress", "NodeResizePending"',
    'status.allocatedResources: Unsupported value: "cpu": supported values: "storage"',
  ]);
});

test('claims: with expansion recovery a request may shrink, but not to status.capacity', () => {
  const recovering = builtinTypeFacts('', 'persistentvolumeclaims', { RecoverVolumeExpansionFailure: true });
  const old = claim({ resources: { requests: { storage: '10Gi' } } });
  createErrors(recovering, old);
  old.metadata = { ...old.metadata, resourceVersion: '3' };
  old.status = { phase: 'Bound', capacity: { storage: '5Gi' } };
  assert.deepEqual(updateErrors(recovering, claim({ resources: { requests: { storage: '8Gi' } } }), old), []);
  assert.deepEqual(updateErrors(recovering, claim({ resources: { requests: { storage: '5Gi' } } }), old), ['spec.resources.requests.storage: Forbidden: field can not be less than status.capacity']);
});
