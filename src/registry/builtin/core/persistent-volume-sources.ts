// The volume source of a PersistentVolume, validated as kube 1.31's ValidatePersistentVolumeSpec validates it: most
// sources share their pod volume checks; the PersistentVolume variants differ where a secret reference carries a
// namespace, and in glusterfs's endpointsNamespace and iSCSI's name rules.

import { fieldErrors, type FieldError } from '../../../apis/errors.ts';
import { validateDNS1123Label } from '../../validation/meta.ts';
import { isDNS1123Subdomain } from '../../validation/names.ts';
import { isObj, strAt, type Obj } from '../object.ts';
import { noBackstepsErrors } from './local-paths.ts';
import {
  awsElasticBlockStoreErrors, azureDiskErrors, azureFileErrors, cephfsErrors, cinderSourceErrors, csiDriverNameErrors, fcErrors, flexVolumeErrors, flockerErrors,
  gcePersistentDiskErrors, glusterfsErrors, hostPathSourceErrors, iscsiSourceErrors, nfsSourceErrors, photonPersistentDiskErrors, portworxVolumeErrors,
  quobyteErrors, rbdErrors, requiredErrors, scaleIOErrors, storageOSSourceErrors, vsphereVolumeErrors, type SourceKind,
} from './volume-source-validation.ts';

type PersistentSourceCheck = (src: Obj, path: string, persistentVolumeName: string) => FieldError[];

/** validatePVSecretReference. */
function secretReferenceErrors(ref: Obj, path: string): FieldError[] {
  const name = strAt(ref, 'name');
  const namespace = strAt(ref, 'namespace');
  return [
    ...(name === '' ? [fieldErrors.required(`${path}.name`)] : isDNS1123Subdomain(name).map((m) => fieldErrors.invalid(`${path}.name`, name, m))),
    ...(namespace === '' ? [fieldErrors.required(`${path}.namespace`)] : validateDNS1123Label(namespace, `${path}.namespace`)),
  ];
}

/** validateGlusterfsPersistentVolumeSource: a set endpointsNamespace must name a namespace. */
function glusterfsPersistentErrors(src: Obj, path: string): FieldError[] {
  const errs = glusterfsErrors(src, path);
  if (src.endpointsNamespace === undefined || src.endpointsNamespace === null) return errs;
  const namespace = strAt(src, 'endpointsNamespace');
  const p = `${path}.endpointsNamespace`;
  if (namespace === '') errs.push(fieldErrors.invalid(p, namespace, 'if the endpointnamespace is set, it must be a valid namespace name'));
  else errs.push(...validateDNS1123Label(namespace, p));
  return errs;
}

/** validateAzureFilePV: a set secretNamespace may not be empty. */
function azureFilePersistentErrors(src: Obj, path: string): FieldError[] {
  const errs = azureFileErrors(src, path);
  if (src.secretNamespace !== undefined && src.secretNamespace !== null && strAt(src, 'secretNamespace') === '') errs.push(fieldErrors.required(`${path}.secretNamespace`));
  return errs;
}

/** validateLocalVolumeSource. */
function localErrors(src: Obj, path: string): FieldError[] {
  const localPath = strAt(src, 'path');
  return localPath === '' ? [fieldErrors.required(`${path}.path`)] : noBackstepsErrors(localPath, `${path}.path`);
}

const CSI_SECRET_REFS = ['controllerPublishSecretRef', 'controllerExpandSecretRef', 'nodePublishSecretRef', 'nodeExpandSecretRef'];

/** validateCSIPersistentVolumeSource. */
function csiPersistentErrors(src: Obj, path: string): FieldError[] {
  const errs = csiDriverNameErrors(strAt(src, 'driver'), `${path}.driver`);
  errs.push(...requiredErrors(src, path, ['volumeHandle']));
  for (const ref of CSI_SECRET_REFS) if (isObj(src[ref])) errs.push(...secretReferenceErrors(src[ref], `${path}.${ref}`));
  return errs;
}

/**
 * The sources of a PersistentVolumeSpec in the order kube's validation visits them, with the name kube gives a
 * second source it forbids (cephfs is "cephFS" there) and the path it validates a source at (gcePersistentDisk's is
 * "persistentDisk").
 */
export const PV_SOURCE_KINDS: readonly SourceKind<PersistentSourceCheck>[] = [
  { key: 'hostPath', check: hostPathSourceErrors },
  { key: 'gcePersistentDisk', check: gcePersistentDiskErrors, validatedAs: 'persistentDisk' },
  { key: 'awsElasticBlockStore', check: awsElasticBlockStoreErrors },
  { key: 'glusterfs', check: glusterfsPersistentErrors },
  { key: 'flocker', check: flockerErrors },
  { key: 'nfs', check: nfsSourceErrors },
  { key: 'rbd', check: rbdErrors },
  { key: 'quobyte', check: quobyteErrors },
  { key: 'cephfs', check: cephfsErrors, forbiddenAs: 'cephFS' },
  { key: 'iscsi', check: iscsiSourceErrors },
  { key: 'cinder', check: (src, path) => cinderSourceErrors(src, path, true) },
  { key: 'fc', check: fcErrors },
  { key: 'flexVolume', check: flexVolumeErrors },
  { key: 'azureFile', check: azureFilePersistentErrors },
  { key: 'vsphereVolume', check: vsphereVolumeErrors },
  { key: 'photonPersistentDisk', check: photonPersistentDiskErrors },
  { key: 'portworxVolume', check: portworxVolumeErrors },
  { key: 'azureDisk', check: azureDiskErrors },
  { key: 'scaleIO', check: scaleIOErrors },
  { key: 'local', check: localErrors },
  { key: 'storageos', check: (src, path) => storageOSSourceErrors(src, path, true) },
  { key: 'csi', check: csiPersistentErrors },
];
