import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fieldErrorString } from '../../../apis/errors.ts';
import { validatePodSpec } from './pod-validation.ts';
import { volumeSourceErrors, type VolumeSourceOptions } from './volume-source-validation.ts';

// Sources: pkg/apis/core/validation/validation.go of kube 1.31 (validateVolumeSource and the functions it calls,
// ValidateLocalNonReservedPath, validateObjectFieldSelector, validateContainerResourceFieldSelector,
// ValidatePersistentVolumeClaimTemplate), messages as kube-apiserver prints them.

const errors = (source: object, opts: Partial<VolumeSourceOptions> = {}, name = 'v') =>
  volumeSourceErrors({ name, ...source }, 'spec.volumes[0]', { isPod: false, featureGates: {}, ...opts }).map(fieldErrorString);

const SUBDOMAIN =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const LABEL =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
const FILE_MODE = 'must be a number between 0 and 0777 (octal), both inclusive';
const BYTE_DIVISORS = '1, 1k, 1M, 1G, 1T, 1P, 1E, 1Ki, 1Mi, 1Gi, 1Ti, 1Pi, 1Ei';

test('volume types: one is required, the first set is validated and later ones refused under the names kube gives them', () => {
  assert.deepEqual(errors({}), ['spec.volumes[0]: Required value: must specify a volume type']);
  assert.deepEqual(errors({ emptyDir: {}, hostPath: { path: '/x' } }), ['spec.volumes[0].hostPath: Forbidden: may not specify more than 1 volume type']);
  assert.deepEqual(errors({ secret: { secretName: '' }, cephfs: { monitors: ['m'] }, downwardAPI: {} }), [
    'spec.volumes[0].secret.secretName: Required value',
    'spec.volumes[0].cephFS: Forbidden: may not specify more than 1 volume type',
    'spec.volumes[0].downwarAPI: Forbidden: may not specify more than 1 volume type',
  ]);
  assert.deepEqual(errors({ emptyDir: { sizeLimit: '-1Gi' } }), ['spec.volumes[0].emptyDir.sizeLimit: Forbidden: SizeLimit field must be a valid resource quantity']);
  assert.deepEqual(errors({ persistentVolumeClaim: {} }), ['spec.volumes[0].persistentVolumeClaim.claimName: Required value']);
});

test('hostPath: a path without backsteps and a supported type', () => {
  assert.deepEqual(errors({ hostPath: { path: '', type: 'Nope' } }), ['spec.volumes[0].hostPath.path: Required value']);
  assert.deepEqual(errors({ hostPath: { path: '/var/../etc', type: 'Dir' } }), [
    `spec.volumes[0].hostPath.path: Invalid value: "/var/../etc": must not contain '..'`,
    'spec.volumes[0].hostPath.type: Unsupported value: "Dir": supported values: "", "BlockDevice", "CharDevice", "Directory", "DirectoryOrCreate", "File", "FileOrCreate", "Socket"',
  ]);
  assert.deepEqual(errors({ hostPath: { path: '/var/log', type: 'DirectoryOrCreate' } }), []);
});

test('secret and configMap: a name, modes in range, items with a key and a local path that is not reserved', () => {
  const items = [{ key: '', path: '' }, { key: 'k', path: '/abs', mode: -1 }, { key: 'k', path: '..data' }, { key: 'k', path: 'a/../../up' }, { key: 'k', path: 'ok/file', mode: 0o400 }];
  assert.deepEqual(errors({ secret: { secretName: '', defaultMode: 0o1000, items } }), [
    'spec.volumes[0].secret.secretName: Required value',
    `spec.volumes[0].secret.defaultMode: Invalid value: 512: ${FILE_MODE}`,
    'spec.volumes[0].secret.items[0].key: Required value',
    'spec.volumes[0].secret.items[0].path: Required value',
    'spec.volumes[0].secret.items[1].path: Invalid value: "/abs": must be a relative path',
    `spec.volumes[0].secret.items[1].mode: Invalid value: -1: ${FILE_MODE}`,
    `spec.volumes[0].secret.items[2].path: Invalid value: "..data": must not start with '..'`,
    `spec.volumes[0].secret.items[3].path: Invalid value: "a/../../up": must not contain '..'`,
  ]);
  assert.deepEqual(errors({ configMap: { defaultMode: 420, items: [{ key: 'k', path: '../up' }] } }), [
    'spec.volumes[0].configMap.name: Required value',
    `spec.volumes[0].configMap.items[0].path: Invalid value: "../up": must not contain '..'`,
  ]);
  // kube 1.31 checks only that an item names a key, not its form.
  assert.deepEqual(errors({ configMap: { name: 'cm', items: [{ key: 'not a key!', path: 'f' }] } }), []);
});

test('downwardAPI: files reported at the source path, with the field paths a volume may project', () => {
  const file = (path: string, ref: object) => ({ path, ...ref });
  const fieldRef = (fieldPath: string) => ({ fieldRef: { apiVersion: 'v1', fieldPath } });
  const resourceFieldRef = (ref: object) => ({ resourceFieldRef: ref });
  const items = [
    file('labels', fieldRef('metadata.labels')),
    file('app', fieldRef("metadata.labels['app']")),
    file('node', fieldRef('spec.nodeName')),
    file('key', fieldRef("metadata.annotations['Bad Key']")),
    file('sub', fieldRef("spec.nodeName['x']")),
    file('old', { fieldRef: { apiVersion: 'v2', fieldPath: 'metadata.name' } }),
    file('cpu', resourceFieldRef({ resource: 'limits.cpu' })),
    file('gpu', resourceFieldRef({ containerName: 'app', resource: 'limits.gpu' })),
    file('mem', resourceFieldRef({ containerName: 'app', resource: 'limits.memory', divisor: '1m' })),
    file('milli', resourceFieldRef({ containerName: 'app', resource: 'requests.cpu', divisor: '1000m' })),
    file('huge', resourceFieldRef({ containerName: 'app', resource: 'limits.hugepages-2Mi', divisor: '2' })),
    file('both', { ...fieldRef('metadata.name'), resourceFieldRef: { containerName: 'app', resource: 'limits.cpu' }, mode: 0o1000 }),
    file('', {}),
  ];
  assert.deepEqual(errors({ downwardAPI: { defaultMode: -1, items } }), [
    `spec.volumes[0].downwardAPI.defaultMode: Invalid value: -1: ${FILE_MODE}`,
    'spec.volumes[0].downwardAPI.fieldRef.fieldPath: Unsupported value: "spec.nodeName": supported values: "metadata.annotations", "metadata.labels", "metadata.name", "metadata.namespace", "metadata.uid"',
    "spec.volumes[0].downwardAPI.fieldRef: Invalid value: \"bad key\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
    `spec.volumes[0].downwardAPI.fieldRef.fieldPath: Invalid value: "spec.nodeName['x']": error converting fieldPath: field label does not support subscript: spec.nodeName['x']`,
    'spec.volumes[0].downwardAPI.fieldRef.fieldPath: Invalid value: "metadata.name": error converting fieldPath: unsupported pod version: v2',
    'spec.volumes[0].downwardAPI.resourceFieldRef.containerName: Required value',
    'spec.volumes[0].downwardAPI.resourceFieldRef.resource: Unsupported value: "limits.gpu": supported values: "limits.cpu", "limits.ephemeral-storage", "limits.memory", "requests.cpu", "requests.ephemeral-storage", "requests.memory"',
    `spec.volumes[0].downwardAPI.resourceFieldRef.divisor: Invalid value: "limits.memory": only divisor's values ${BYTE_DIVISORS} are supported with the memory resource`,
    `spec.volumes[0].downwardAPI.resourceFieldRef.divisor: Invalid value: "limits.hugepages-2Mi": only divisor's values ${BYTE_DIVISORS} are supported with the hugepages resource`,
    'spec.volumes[0].downwardAPI: Invalid value: "resource": fieldRef and resourceFieldRef can not be specified simultaneously',
    `spec.volumes[0].downwardAPI.mode: Invalid value: 512: ${FILE_MODE}`,
    'spec.volumes[0].downwardAPI.path: Required value',
    'spec.volumes[0].downwardAPI: Required value: one of fieldRef and resourceFieldRef is required',
  ]);
});

test('projected: one kind per source, no path twice, service account tokens between 10 minutes and 2^32 seconds at a local path', () => {
  const sources = [
    { secret: { name: 's', items: [{ key: 'a', path: 'same' }] }, configMap: { name: 'c' } },
    { configMap: { name: '', items: [{ key: 'b', path: 'same' }] } },
    { downwardAPI: { items: [{ path: 'same', fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.name' } }] } },
    { serviceAccountToken: { path: '', expirationSeconds: 60 } },
    { serviceAccountToken: { path: '../token', expirationSeconds: 2 ** 32 + 1, audience: 'anything' } },
    { serviceAccountToken: { path: 'token', expirationSeconds: 3600 } },
  ];
  assert.deepEqual(errors({ projected: { defaultMode: 0o1000, sources } }), [
    `spec.volumes[0].projected.defaultMode: Invalid value: 512: ${FILE_MODE}`,
    'spec.volumes[0].projected.sources[0]: Forbidden: may not specify more than 1 volume type per source',
    'spec.volumes[0].projected.sources[1].configMap.name: Required value',
    'spec.volumes[0].projected: Invalid value: "": conflicting duplicate paths',
    'spec.volumes[0].projected: Invalid value: "same": conflicting duplicate paths',
    'spec.volumes[0].projected.sources[3].serviceAccountToken.expirationSeconds: Invalid value: 60: may not specify a duration less than 10 minutes',
    'spec.volumes[0].projected.path: Required value',
    'spec.volumes[0].projected.sources[4].serviceAccountToken.expirationSeconds: Invalid value: 4294967297: may not specify a duration larger than 2^32 seconds',
    `spec.volumes[0].projected.path: Invalid value: "../token": must not contain '..'`,
  ]);
  // A pod that already projected a token outside its volume keeps it on updates.
  assert.deepEqual(errors({ projected: { sources: [sources[4]] } }, { allowNonLocalProjectedTokenPath: true }), [
    'spec.volumes[0].projected.sources[0].serviceAccountToken.expirationSeconds: Invalid value: 4294967297: may not specify a duration larger than 2^32 seconds',
  ]);
});

test('projected clusterTrustBundle: a name or a signer name, and a path', () => {
  const bundle = (ctb: object) => errors({ projected: { sources: [{ clusterTrustBundle: ctb }] } });
  const at = 'spec.volumes[0].projected.sources[0].clusterTrustBundle';
  assert.deepEqual(bundle({ name: 'a', signerName: 'example.com/s', path: 'ca.pem' }), [
    `${at}: Invalid value: core.ClusterTrustBundleProjection{Name:(*string)("a"), SignerName:(*string)("example.com/s"), LabelSelector:(*v1.LabelSelector)(nil), Path:"ca.pem", Optional:(*bool)(nil)}: only one of name and signerName may be used`,
  ]);
  assert.deepEqual(bundle({ name: 'example.com:s:Bad', labelSelector: { matchLabels: { b: '2', a: '1' } }, path: '/ca.pem' }), [
    `${at}.name: Invalid value: "example.com:s:Bad": not a valid clustertrustbundlename: ${SUBDOMAIN}`,
    `${at}.labelSelector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string{"a":"1", "b":"2"}, MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: labelSelector must be unset if name is specified`,
    `${at}.path: Invalid value: "/ca.pem": must be a relative path`,
  ]);
  assert.deepEqual(bundle({ name: 'a/b:c', path: 'ca.pem' }), [`${at}.name: Invalid value: "a/b:c": not a valid clustertrustbundlename: ClusterTrustBundle for signerName a/b must be named with prefix a:b:`]);
  assert.deepEqual(bundle({ signerName: '', labelSelector: { matchExpressions: [{ key: 'k', operator: 'In' }] }, path: 'ca.pem' }), [
    `${at}.signerName: Required value: must be a valid signer name`,
    `${at}.signerName: Required value`,
    `${at}.labelSelector.matchExpressions[0].values: Required value: must be specified when \`operator\` is 'In' or 'NotIn'`,
  ]);
  assert.deepEqual(bundle({}), [`${at}: Required value: either name or signerName must be specified`, `${at}.path: Required value`]);
  assert.deepEqual(bundle({ signerName: 'example.com/signer', path: 'ca.pem' }), []);
});

test('ephemeral: a claim template with only labels and annotations and a valid claim spec; a pod names the claim after itself', () => {
  assert.deepEqual(errors({ ephemeral: {} }), ['spec.volumes[0].ephemeral.volumeClaimTemplate: Required value']);
  const template = { metadata: { name: 'x', uid: 'u', labels: { 'bad key': 'v' }, finalizers: [], creationTimestamp: null }, spec: { volumeMode: 'Filesystem' } };
  const at = 'spec.volumes[0].ephemeral.volumeClaimTemplate';
  assert.deepEqual(errors({ ephemeral: { volumeClaimTemplate: template } }), [
    `${at}.metadata.labels: Invalid value: "bad key": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`,
    `${at}.metadata.name: Forbidden: cannot be set`,
    `${at}.metadata.uID: Forbidden: cannot be set`,
    `${at}.metadata.finalizers: Forbidden: cannot be set`,
    `${at}.spec.accessModes: Required value: at least 1 access mode is required`,
    `${at}.spec.resources[storage]: Required value`,
  ]);
  const claim = { volumeClaimTemplate: { metadata: { labels: { app: 'web' } }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } } };
  assert.deepEqual(errors({ ephemeral: claim }), []);
  const pod = 'p'.repeat(250);
  assert.deepEqual(errors({ ephemeral: claim }, { isPod: true, podName: pod }, 'data'), [
    `spec.volumes[0].name: Invalid value: "data": PVC name "${pod}-data": must be no more than 253 characters`,
  ]);
  assert.deepEqual(errors({ ephemeral: claim }, { isPod: true, podName: 'web' }, 'data'), []);
});

test('a pod may not also mount, as a claim, one its ephemeral volumes create', () => {
  const spec = {
    containers: [{ name: 'app', image: 'nginx', imagePullPolicy: 'Always', terminationMessagePolicy: 'File' }],
    volumes: [
      { name: 'scratch', ephemeral: { volumeClaimTemplate: { spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } } } },
      { name: 'shared', persistentVolumeClaim: { claimName: 'web-scratch' } },
    ],
  };
  const volumeErrors = (opts: { isPod: boolean; podName?: string }) =>
    validatePodSpec(spec, 'spec', opts)
      .map(fieldErrorString)
      .filter((e) => e.startsWith('spec.volumes'));
  assert.deepEqual(volumeErrors({ isPod: true, podName: 'web' }), [
    'spec.volumes[1].persistentVolumeClaim.claimName: Invalid value: "web-scratch": must not reference a PVC that gets created for an ephemeral volume',
  ]);
  assert.deepEqual(volumeErrors({ isPod: false }), []);
});

test('csi: a driver name kube accepts and a node publish secret with a valid name', () => {
  assert.deepEqual(errors({ csi: { driver: '' } }), ['spec.volumes[0].csi.driver: Required value', `spec.volumes[0].csi.driver: Invalid value: "": ${SUBDOMAIN}`]);
  assert.deepEqual(errors({ csi: { driver: `${'a'.repeat(60)}.example` } }), ['spec.volumes[0].csi.driver: Too long: may not be more than 63 bytes']);
  // The name is checked lower-cased; a bad secret name is reported at csi.name.
  assert.deepEqual(errors({ csi: { driver: 'Hostpath.CSI.k8s.io', nodePublishSecretRef: { name: 'Bad_Name' } } }), [`spec.volumes[0].csi.name: Invalid value: "Bad_Name": ${SUBDOMAIN}`]);
  assert.deepEqual(errors({ csi: { driver: 'd', nodePublishSecretRef: {} } }), ['spec.volumes[0].csi.nodePublishSecretRef.name: Required value']);
});

test('iscsi: portal, qualified name, lun, CHAP secret, initiator name, and the volume name beside the portal', () => {
  assert.deepEqual(errors({ iscsi: { targetPortal: '', iqn: 'bogus', lun: 256, sessionCHAPAuth: true, initiatorName: 'iqn.bad' } }), [
    'spec.volumes[0].iscsi.targetPortal: Required value',
    'spec.volumes[0].iscsi.iqn: Invalid value: "bogus": must be valid format starting with iqn, eui, or naa',
    'spec.volumes[0].iscsi.lun: Invalid value: 256: must be between 0 and 255, inclusive',
    'spec.volumes[0].iscsi.secretRef: Required value',
    'spec.volumes[0].iscsi.initiatorname: Invalid value: "iqn.bad": must be valid format',
  ]);
  assert.deepEqual(errors({ iscsi: { targetPortal: '10.0.0.1:3260', iqn: 'eui.0123' } }), ['spec.volumes[0].iscsi.iqn: Invalid value: "eui.0123": must be valid format']);
  for (const iqn of ['iqn.2001-04.com.example:storage', 'eui.0123456789ABCDEF', `naa.${'a1'.repeat(16)}`]) assert.deepEqual(errors({ iscsi: { targetPortal: 'p:3260', iqn } }), [], iqn);
  const portal = `${'h'.repeat(60)}:3260`;
  // Checked even when the iSCSI source is refused as a second one.
  assert.deepEqual(errors({ emptyDir: {}, iscsi: { targetPortal: portal, iqn: 'iqn.2001-04.com.example:storage', initiatorName: 'iqn.2001-04.com.example:node' } }), [
    'spec.volumes[0].iscsi: Forbidden: may not specify more than 1 volume type',
    'spec.volumes[0].name: Invalid value: "v": Total length of <volume name>:<iscsi.targetPortal> must be under 64 characters if iscsi.initiatorName is specified.',
  ]);
});

test('the other in-tree sources: required fields and value rules as kube 1.31 has them', () => {
  const cases: [object, string[]][] = [
    [{ gitRepo: { directory: '/abs' } }, ['spec.volumes[0].gitRepo.repository: Required value', 'spec.volumes[0].gitRepo.directory: Invalid value: "/abs": must be a relative path']],
    [{ gcePersistentDisk: { partition: 256 } }, ['spec.volumes[0].persistentDisk.pdName: Required value', 'spec.volumes[0].persistentDisk.partition: Invalid value: 256: must be between 1 and 255, inclusive']],
    [{ awsElasticBlockStore: { volumeID: 'vol', partition: -1 } }, ['spec.volumes[0].awsElasticBlockStore.partition: Invalid value: -1: must be between 1 and 255, inclusive']],
    [{ nfs: { server: '', path: '' } }, ['spec.volumes[0].nfs.server: Required value', 'spec.volumes[0].nfs.path: Required value', 'spec.volumes[0].nfs.path: Invalid value: "": must be an absolute path']],
    [{ nfs: { server: 's', path: 'exports' } }, ['spec.volumes[0].nfs.path: Invalid value: "exports": must be an absolute path']],
    [{ glusterfs: {} }, ['spec.volumes[0].glusterfs.endpoints: Required value', 'spec.volumes[0].glusterfs.path: Required value']],
    [{ flocker: {} }, ['spec.volumes[0].flocker: Required value: one of datasetName and datasetUUID is required']],
    [
      { flocker: { datasetName: 'a/b', datasetUUID: 'u' } },
      ['spec.volumes[0].flocker: Invalid value: "resource": datasetName and datasetUUID can not be specified simultaneously', `spec.volumes[0].flocker.datasetName: Invalid value: "a/b": must not contain '/'`],
    ],
    [{ rbd: { monitors: [] } }, ['spec.volumes[0].rbd.monitors: Required value', 'spec.volumes[0].rbd.image: Required value']],
    [{ cinder: { secretRef: {} } }, ['spec.volumes[0].cinder.volumeID: Required value', 'spec.volumes[0].cinder.secretRef.name: Required value']],
    [{ cephfs: {} }, ['spec.volumes[0].cephfs.monitors: Required value']],
    [{ quobyte: { registry: '' } }, ['spec.volumes[0].quobyte.registry: Required value: must be a host:port pair or multiple pairs separated by commas', 'spec.volumes[0].quobyte.volume: Required value']],
    [{ quobyte: { registry: 'a:7861,b', volume: 'v' } }, ['spec.volumes[0].quobyte.registry: Invalid value: "a:7861,b": must be a host:port pair or multiple pairs separated by commas']],
    [{ quobyte: { registry: '[::1]:7861', tenant: 't'.repeat(65), volume: 'v' } }, ['spec.volumes[0].quobyte.tenant: Required value: must be a UUID and may not exceed a length of 64 characters']],
    [{ quobyte: { registry: '[::1]:7861,host:7861', volume: 'v' } }, []],
    [{ fc: {} }, ['spec.volumes[0].fc.targetWWNs: Required value: must specify either targetWWNs or wwids, but not both']],
    [
      { fc: { targetWWNs: ['500a0982991b8dc5'], wwids: ['3600508b400105e210000900000490000'] } },
      ['spec.volumes[0].fc.targetWWNs: Invalid value: []string{"500a0982991b8dc5"}: targetWWNs and wwids can not be specified simultaneously', 'spec.volumes[0].fc.lun: Required value: lun is required if targetWWNs is specified'],
    ],
    [{ fc: { targetWWNs: ['500a0982991b8dc5'], lun: 300 } }, ['spec.volumes[0].fc.lun: Invalid value: 300: must be between 0 and 255, inclusive']],
    [
      { flexVolume: { options: { 'kubernetes.io/secret': 'x', 'a.k8s.io': 'y', 'example.com/ok': 'z' } } },
      [
        'spec.volumes[0].flexVolume.driver: Required value',
        'spec.volumes[0].flexVolume.options[kubernetes.io/secret]: Invalid value: "kubernetes.io/secret": kubernetes.io and k8s.io namespaces are reserved',
        'spec.volumes[0].flexVolume.options[a.k8s.io]: Invalid value: "a.k8s.io": kubernetes.io and k8s.io namespaces are reserved',
      ],
    ],
    [{ azureFile: {} }, ['spec.volumes[0].azureFile.secretName: Required value', 'spec.volumes[0].azureFile.shareName: Required value']],
    [{ vsphereVolume: {} }, ['spec.volumes[0].vsphereVolume.volumePath: Required value']],
    [{ photonPersistentDisk: {} }, ['spec.volumes[0].photonPersistentDisk.pdID: Required value']],
    [{ portworxVolume: {} }, ['spec.volumes[0].portworxVolume.volumeID: Required value']],
    [{ scaleIO: {} }, ['spec.volumes[0].scaleIO.gateway: Required value', 'spec.volumes[0].scaleIO.system: Required value', 'spec.volumes[0].scaleIO.volumeName: Required value']],
    [
      { azureDisk: { diskName: 'd', diskURI: 'https://acct.blob.core.windows.net/c/d.vhd', cachingMode: 'Fast', kind: 'Managed' } },
      [
        'spec.volumes[0].azureDisk.cachingMode: Unsupported value: "Fast": supported values: "None", "ReadOnly", "ReadWrite"',
        'spec.volumes[0].azureDisk.diskURI: Unsupported value: "https://acct.blob.core.windows.net/c/d.vhd": supported values: "/subscriptions/{sub-id}/resourcegroups/{group-name}/providers/microsoft.compute/disks/{disk-id}"',
      ],
    ],
    [
      { azureDisk: { kind: 'Huge' } },
      [
        'spec.volumes[0].azureDisk.diskName: Required value',
        'spec.volumes[0].azureDisk.diskURI: Required value',
        'spec.volumes[0].azureDisk.kind: Unsupported value: "Huge": supported values: "Dedicated", "Managed", "Shared"',
        'spec.volumes[0].azureDisk.diskURI: Unsupported value: "": supported values: "https://{account-name}.blob.core.windows.net/{container-name}/{disk-name}.vhd"',
      ],
    ],
    [
      { storageos: { volumeName: 'Bad', volumeNamespace: 'ns_x', secretRef: {} } },
      [
        `spec.volumes[0].storageos.volumeName: Invalid value: "Bad": ${LABEL}`,
        `spec.volumes[0].storageos.volumeNamespace: Invalid value: "ns_x": ${LABEL}`,
        'spec.volumes[0].storageos.secretRef.name: Required value',
      ],
    ],
  ];
  for (const [source, want] of cases) assert.deepEqual(errors(source), want, JSON.stringify(source));
});

test('image volumes: a pod names the image, pods and templates a pull policy kube knows', () => {
  assert.deepEqual(errors({ image: { reference: '', pullPolicy: 'Sometimes' } }, { isPod: true }), [
    'spec.volumes[0].image.reference: Required value',
    'spec.volumes[0].image.pullPolicy: Unsupported value: "Sometimes": supported values: "Always", "IfNotPresent", "Never"',
  ]);
  assert.deepEqual(errors({ image: { reference: '' } }), ['spec.volumes[0].image.pullPolicy: Required value']);
  assert.deepEqual(errors({ image: { reference: 'quay.io/crio/artifact:v1', pullPolicy: 'IfNotPresent' } }, { isPod: true }), []);
});
