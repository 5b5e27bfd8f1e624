// A pod volume's source, validated as kube 1.31 validates it (pkg/apis/core/validation: validateVolumeSource and the
// per-source functions under it, ValidatePersistentVolumeClaimTemplate for ephemeral volumes). Pods and every pod
// template reach it through validateVolumes; paths and messages are kube's, its quirks included. PersistentVolumes
// reuse the per-source checks kube shares with them (persistent-volume-sources.ts).

import { fieldErrors, goStringsValue, renderedBadValue, type FieldError } from '../../../apis/errors.ts';
import { goQuote } from '../../../encoding/go-format.ts';
import { validateLabelSelector } from '../../validation/label-selector.ts';
import { validateAnnotations, validateDNS1123Label, validateLabels } from '../../validation/meta.ts';
import { inclusiveRangeError, isDNS1123Subdomain } from '../../validation/names.ts';
import { quantityNanos } from '../../validation/quantity.ts';
import { signerNameErrors } from '../certificates/signing-requests.ts';
import { arrAt, isObj, objsAt, type Obj } from '../object.ts';
import { objectFieldSelectorErrors, resourceFieldSelectorErrors, VOLUME_FIELD_PATHS } from './downward-api-validation.ts';
import { pullPolicyErrors } from './image-pull-policy.ts';
import { localDescendingPathErrors, localNonReservedPathErrors, noBackstepsErrors } from './local-paths.ts';
import { validateClaimSpec } from './persistent-volume-claims.ts';

export interface VolumeSourceOptions {
  /** A Pod is validated, not a template: its image volumes must name an image. */
  readonly isPod: boolean;
  /** The pod's name (pods only): an ephemeral volume's claim is named after it. */
  readonly podName?: string;
  /** The server's feature gates, for the claim spec of an ephemeral volume. */
  readonly featureGates: Readonly<Record<string, boolean>>;
  /** The pod being updated already projected a token outside its volume (kube keeps accepting that pod). */
  readonly allowNonLocalProjectedTokenPath?: boolean;
}

interface VolumeAt {
  readonly name: string;
  /** The volume's own path (spec.volumes[i]). */
  readonly path: string;
  readonly opts: VolumeSourceOptions;
}

type SourceCheck = (src: Obj, path: string, volume: VolumeAt) => FieldError[];
/** A check kube makes of a source in pod volumes and PersistentVolumes alike. */
type SharedCheck = (src: Obj, path: string) => FieldError[];

const FILE_MODE_ERROR = 'must be a number between 0 and 0777 (octal), both inclusive';
const PARTITION_ERROR = inclusiveRangeError(1, 255);
const MORE_THAN_ONE = 'may not specify more than 1 volume type';
const DUPLICATE_PATHS = 'conflicting duplicate paths';

const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const num = (v: unknown): number => (typeof v === 'number' ? v : 0);
/** A Go pointer or slice field holding something (JSON null decodes to nil). */
const isSet = (v: unknown): boolean => v !== undefined && v !== null;
const byteLength = (s: string): number => Buffer.byteLength(s, 'utf8');

export function requiredErrors(src: Obj, path: string, keys: readonly string[]): FieldError[] {
  return keys.filter((k) => str(src[k]) === '').map((k) => fieldErrors.required(`${path}.${k}`));
}

const required =
  (...keys: string[]): SharedCheck =>
  (src, path) =>
    requiredErrors(src, path, keys);

function fileModeErrors(mode: unknown, path: string): FieldError[] {
  return typeof mode === 'number' && (mode < 0 || mode > 0o777) ? [fieldErrors.invalid(path, mode, FILE_MODE_ERROR)] : [];
}

function partitionErrors(src: Obj, path: string): FieldError[] {
  const partition = num(src.partition);
  // kube refuses only values outside 0..255, in words that start at 1.
  return partition < 0 || partition > 255 ? [fieldErrors.invalid(`${path}.partition`, partition, PARTITION_ERROR)] : [];
}

/** validateKeyToPath: an item of a secret or config map. */
function keyToPathErrors(item: Obj, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (str(item.key) === '') errs.push(fieldErrors.required(`${path}.key`));
  if (str(item.path) === '') errs.push(fieldErrors.required(`${path}.path`));
  errs.push(...localNonReservedPathErrors(str(item.path), `${path}.path`));
  errs.push(...fileModeErrors(item.mode, `${path}.mode`));
  return errs;
}

function itemsErrors(src: Obj, path: string): FieldError[] {
  return objsAt(src, 'items').flatMap((item, i) => keyToPathErrors(item, `${path}.items[${i}]`));
}

// ---- sources ----

function emptyDirErrors(src: Obj, path: string): FieldError[] {
  const limit = isSet(src.sizeLimit) ? quantityNanos(src.sizeLimit) : undefined;
  return limit !== undefined && limit < 0n ? [fieldErrors.forbidden(`${path}.sizeLimit`, 'SizeLimit field must be a valid resource quantity')] : [];
}

const HOST_PATH_TYPES = ['', 'BlockDevice', 'CharDevice', 'Directory', 'DirectoryOrCreate', 'File', 'FileOrCreate', 'Socket'];

/** validateHostPathVolumeSource (PersistentVolumes share it). */
export function hostPathSourceErrors(src: Obj, path: string): FieldError[] {
  const hostPath = str(src.path);
  if (hostPath === '') return [fieldErrors.required(`${path}.path`)];
  const errs = noBackstepsErrors(hostPath, `${path}.path`);
  if (typeof src.type === 'string' && !HOST_PATH_TYPES.includes(src.type)) errs.push(fieldErrors.notSupported(`${path}.type`, src.type, HOST_PATH_TYPES));
  return errs;
}

export const gcePersistentDiskErrors: SharedCheck = (src, path) => [...requiredErrors(src, path, ['pdName']), ...partitionErrors(src, path)];
export const awsElasticBlockStoreErrors: SharedCheck = (src, path) => [...requiredErrors(src, path, ['volumeID']), ...partitionErrors(src, path)];
export const glusterfsErrors = required('endpoints', 'path');
export const azureFileErrors = required('secretName', 'shareName');
export const vsphereVolumeErrors = required('volumePath');
export const photonPersistentDiskErrors = required('pdID');
export const portworxVolumeErrors = required('volumeID');
export const scaleIOErrors = required('gateway', 'system', 'volumeName');

function gitRepoErrors(src: Obj, path: string): FieldError[] {
  return [...requiredErrors(src, path, ['repository']), ...localDescendingPathErrors(str(src.directory), `${path}.directory`)];
}

function secretErrors(src: Obj, path: string): FieldError[] {
  return [...requiredErrors(src, path, ['secretName']), ...fileModeErrors(src.defaultMode, `${path}.defaultMode`), ...itemsErrors(src, path)];
}

function configMapErrors(src: Obj, path: string): FieldError[] {
  return [...requiredErrors(src, path, ['name']), ...fileModeErrors(src.defaultMode, `${path}.defaultMode`), ...itemsErrors(src, path)];
}

/** validateNFSVolumeSource (PersistentVolumes share it); an empty path is also not absolute. */
export function nfsSourceErrors(src: Obj, path: string): FieldError[] {
  const errs = requiredErrors(src, path, ['server', 'path']);
  if (!str(src.path).startsWith('/')) errs.push(fieldErrors.invalid(`${path}.path`, str(src.path), 'must be an absolute path'));
  return errs;
}

const IQN_RE = /iqn\.\d{4}-\d{2}\.([A-Za-z0-9.-]+)(:[^,;*&$|\t\n\f\r ]+)$/;
const EUI_RE = /^eui[^\n][A-Za-z0-9]{16}$/u;
const NAA_RE = /^naa[^\n][A-Za-z0-9]{32}$/u;
const ISCSI_PREFIX_ERROR = 'must be valid format starting with iqn, eui, or naa';

/** The format of an iSCSI qualified name ('must be valid format'), once its prefix is known to be iqn, eui or naa. */
function iscsiNameFormatValid(name: string): boolean {
  if (name.startsWith('iqn')) return IQN_RE.test(name);
  if (name.startsWith('eui')) return EUI_RE.test(name);
  return !name.startsWith('naa') || NAA_RE.test(name);
}

const hasIscsiPrefix = (name: string): boolean => ['iqn', 'eui', 'naa'].some((p) => name.startsWith(p));

/** An iqn or initiator name: its prefix (in the words given), then its format. */
function iscsiNameErrors(name: string, path: string, prefixError: string): FieldError[] {
  if (!hasIscsiPrefix(name)) return [fieldErrors.invalid(path, name, prefixError)];
  return iscsiNameFormatValid(name) ? [] : [fieldErrors.invalid(path, name, 'must be valid format')];
}

const ISCSI_NAME_TOO_LONG = 'Total length of <volume name>:<iscsi.targetPortal> must be under 64 characters if iscsi.initiatorName is specified.';

/** Whether a volume's name with the portal is too long for a source naming its initiator. */
const iscsiNameTooLong = (src: Obj, volumeName: string): boolean => isSet(src.initiatorName) && byteLength(`${volumeName}:${str(src.targetPortal)}`) > 64;

/**
 * validateISCSIVolumeSource, or with a PersistentVolume's name validateISCSIPersistentVolumeSource: that one also
 * checks the length of the volume's name with the portal, requires a named secretRef, and words a bad prefix as
 * only 'must be valid format'.
 */
export function iscsiSourceErrors(src: Obj, path: string, persistentVolumeName?: string): FieldError[] {
  const inVolume = persistentVolumeName !== undefined;
  const prefixError = inVolume ? 'must be valid format' : ISCSI_PREFIX_ERROR;
  const errs = requiredErrors(src, path, ['targetPortal']);
  // kube spells this path and the initiator's in lower case.
  if (inVolume && iscsiNameTooLong(src, persistentVolumeName)) errs.push(fieldErrors.invalid(`${path}.targetportal`, str(src.targetPortal), ISCSI_NAME_TOO_LONG));
  const iqn = str(src.iqn);
  errs.push(...(iqn === '' ? [fieldErrors.required(`${path}.iqn`)] : iscsiNameErrors(iqn, `${path}.iqn`, prefixError)));
  const lun = num(src.lun);
  if (lun < 0 || lun > 255) errs.push(fieldErrors.invalid(`${path}.lun`, lun, inclusiveRangeError(0, 255)));
  if ((src.discoveryCHAPAuth === true || src.sessionCHAPAuth === true) && !isSet(src.secretRef)) errs.push(fieldErrors.required(`${path}.secretRef`));
  if (inVolume) errs.push(...secretRefErrors(src, path, false));
  if (isSet(src.initiatorName)) errs.push(...iscsiNameErrors(str(src.initiatorName), `${path}.initiatorname`, prefixError));
  return errs;
}

/** The check kube makes of any iSCSI source with an initiator name, validated or not. */
function iscsiVolumeNameErrors(src: Obj, volume: VolumeAt): FieldError[] {
  return iscsiNameTooLong(src, volume.name) ? [fieldErrors.invalid(`${volume.path}.name`, volume.name, ISCSI_NAME_TOO_LONG)] : [];
}

export function flockerErrors(src: Obj, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const name = str(src.datasetName);
  const uuid = str(src.datasetUUID);
  if (name === '' && uuid === '') errs.push(fieldErrors.required(path, 'one of datasetName and datasetUUID is required'));
  if (name !== '' && uuid !== '') errs.push(fieldErrors.invalid(path, 'resource', 'datasetName and datasetUUID can not be specified simultaneously'));
  if (name.includes('/')) errs.push(fieldErrors.invalid(`${path}.datasetName`, name, "must not contain '/'"));
  return errs;
}

export function rbdErrors(src: Obj, path: string): FieldError[] {
  const errs = arrAt(src, 'monitors').length === 0 ? [fieldErrors.required(`${path}.monitors`)] : [];
  return [...errs, ...requiredErrors(src, path, ['image'])];
}

/** A set secretRef must name its secret; a PersistentVolume's SecretReference (namespaced) also its namespace. */
function secretRefErrors(src: Obj, path: string, namespaced: boolean): FieldError[] {
  if (!isSet(src.secretRef)) return [];
  const ref = isObj(src.secretRef) ? src.secretRef : {};
  return requiredErrors(ref, `${path}.secretRef`, namespaced ? ['name', 'namespace'] : ['name']);
}

/** validateCinderVolumeSource, or validateCinderPersistentVolumeSource when the secretRef is namespaced. */
export function cinderSourceErrors(src: Obj, path: string, namespacedSecret: boolean): FieldError[] {
  return [...requiredErrors(src, path, ['volumeID']), ...secretRefErrors(src, path, namespacedSecret)];
}

export function cephfsErrors(src: Obj, path: string): FieldError[] {
  return arrAt(src, 'monitors').length === 0 ? [fieldErrors.required(`${path}.monitors`)] : [];
}

/** net.SplitHostPort's acceptance: a port after the last colon, a host without colons unless bracketed. */
function isHostPort(hostport: string): boolean {
  const colon = hostport.lastIndexOf(':');
  if (colon < 0) return false;
  let openFrom = 0;
  let closeFrom = 0;
  if (hostport.startsWith('[')) {
    const end = hostport.indexOf(']');
    if (end < 0 || end + 1 !== colon) return false;
    openFrom = 1;
    closeFrom = end + 1;
  } else if (hostport.slice(0, colon).includes(':')) return false;
  return !hostport.slice(openFrom).includes('[') && !hostport.slice(closeFrom).includes(']');
}

export function quobyteErrors(src: Obj, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const registry = str(src.registry);
  const registryDetail = 'must be a host:port pair or multiple pairs separated by commas';
  if (registry === '') errs.push(fieldErrors.required(`${path}.registry`, registryDetail));
  else if (byteLength(str(src.tenant)) >= 65) errs.push(fieldErrors.required(`${path}.tenant`, 'must be a UUID and may not exceed a length of 64 characters'));
  else for (const pair of registry.split(',')) if (!isHostPort(pair)) errs.push(fieldErrors.invalid(`${path}.registry`, registry, registryDetail));
  errs.push(...requiredErrors(src, path, ['volume']));
  return errs;
}

/** validateDownwardAPIVolumeFile: kube reports a file's errors at the source's path, not the item's. */
function downwardAPIFileErrors(file: Obj, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const filePath = str(file.path);
  if (filePath === '') errs.push(fieldErrors.required(`${path}.path`));
  errs.push(...localNonReservedPathErrors(filePath, `${path}.path`));
  if (isObj(file.fieldRef)) {
    errs.push(...objectFieldSelectorErrors(file.fieldRef, VOLUME_FIELD_PATHS, `${path}.fieldRef`));
    if (isObj(file.resourceFieldRef)) errs.push(fieldErrors.invalid(path, 'resource', 'fieldRef and resourceFieldRef can not be specified simultaneously'));
  } else if (isObj(file.resourceFieldRef)) {
    errs.push(...resourceFieldSelectorErrors(file.resourceFieldRef, `${path}.resourceFieldRef`, true));
  } else errs.push(fieldErrors.required(path, 'one of fieldRef and resourceFieldRef is required'));
  errs.push(...fileModeErrors(file.mode, `${path}.mode`));
  return errs;
}

function downwardAPIErrors(src: Obj, path: string): FieldError[] {
  return [...fileModeErrors(src.defaultMode, `${path}.defaultMode`), ...objsAt(src, 'items').flatMap((file) => downwardAPIFileErrors(file, path))];
}

export function fcErrors(src: Obj, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const wwns = arrAt(src, 'targetWWNs');
  const wwids = arrAt(src, 'wwids');
  if (wwns.length === 0 && wwids.length === 0) errs.push(fieldErrors.required(`${path}.targetWWNs`, 'must specify either targetWWNs or wwids, but not both'));
  if (wwns.length > 0 && wwids.length > 0) errs.push(fieldErrors.invalid(`${path}.targetWWNs`, goStringsValue(wwns), 'targetWWNs and wwids can not be specified simultaneously'));
  if (wwns.length > 0) {
    if (!isSet(src.lun)) errs.push(fieldErrors.required(`${path}.lun`, 'lun is required if targetWWNs is specified'));
    else if (num(src.lun) < 0 || num(src.lun) > 255) errs.push(fieldErrors.invalid(`${path}.lun`, num(src.lun), inclusiveRangeError(0, 255)));
  }
  return errs;
}

/** An option key in a kubernetes.io or k8s.io namespace (the part before '/', or the whole key). */
function isReservedOption(key: string): boolean {
  const slash = key.indexOf('/');
  const namespace = `.${(slash < 0 ? key : key.slice(0, slash)).toLowerCase()}`;
  return namespace.endsWith('.kubernetes.io') || namespace.endsWith('.k8s.io');
}

export function flexVolumeErrors(src: Obj, path: string): FieldError[] {
  const errs = requiredErrors(src, path, ['driver']);
  for (const key of Object.keys(isObj(src.options) ? src.options : {})) {
    if (isReservedOption(key)) errs.push(fieldErrors.invalid(`${path}.options[${key}]`, key, 'kubernetes.io and k8s.io namespaces are reserved'));
  }
  return errs;
}

const AZURE_CACHING_MODES = ['None', 'ReadOnly', 'ReadWrite'];
const AZURE_DISK_KINDS = ['Dedicated', 'Managed', 'Shared'];

export function azureDiskErrors(src: Obj, path: string): FieldError[] {
  const errs = requiredErrors(src, path, ['diskName', 'diskURI']);
  const uri = str(src.diskURI);
  if (isSet(src.cachingMode) && !AZURE_CACHING_MODES.includes(str(src.cachingMode))) errs.push(fieldErrors.notSupported(`${path}.cachingMode`, str(src.cachingMode), AZURE_CACHING_MODES));
  if (!isSet(src.kind)) return errs;
  const kind = str(src.kind);
  if (!AZURE_DISK_KINDS.includes(kind)) errs.push(fieldErrors.notSupported(`${path}.kind`, kind, AZURE_DISK_KINDS));
  if (kind === 'Managed' && !uri.startsWith('/subscriptions/')) {
    errs.push(fieldErrors.notSupported(`${path}.diskURI`, uri, ['/subscriptions/{sub-id}/resourcegroups/{group-name}/providers/microsoft.compute/disks/{disk-id}']));
  }
  if (kind !== 'Managed' && !uri.startsWith('https://')) {
    errs.push(fieldErrors.notSupported(`${path}.diskURI`, uri, ['https://{account-name}.blob.core.windows.net/{container-name}/{disk-name}.vhd']));
  }
  return errs;
}

/** validateStorageOSVolumeSource, or validateStorageOSPersistentVolumeSource when the secretRef is namespaced. */
export function storageOSSourceErrors(src: Obj, path: string, namespacedSecret: boolean): FieldError[] {
  const name = str(src.volumeName);
  const errs = name === '' ? [fieldErrors.required(`${path}.volumeName`)] : validateDNS1123Label(name, `${path}.volumeName`);
  const namespace = str(src.volumeNamespace);
  if (namespace !== '') errs.push(...validateDNS1123Label(namespace, `${path}.volumeNamespace`));
  errs.push(...secretRefErrors(src, path, namespacedSecret));
  return errs;
}

/** ValidateCSIDriverName (PersistentVolumes share it): an empty name is also not a DNS subdomain. */
export function csiDriverNameErrors(driver: string, path: string): FieldError[] {
  const errs = driver === '' ? [fieldErrors.required(path)] : [];
  if (byteLength(driver) > 63) errs.push(fieldErrors.tooLong(path, 63));
  for (const m of isDNS1123Subdomain(driver.toLowerCase())) errs.push(fieldErrors.invalid(path, driver, m));
  return errs;
}

function csiErrors(src: Obj, path: string): FieldError[] {
  const errs = csiDriverNameErrors(str(src.driver), `${path}.driver`);
  if (isObj(src.nodePublishSecretRef)) {
    const name = str(src.nodePublishSecretRef.name);
    if (name === '') errs.push(fieldErrors.required(`${path}.nodePublishSecretRef.name`));
    // kube reports a badly formed name at csi.name.
    else for (const m of isDNS1123Subdomain(name)) errs.push(fieldErrors.invalid(`${path}.name`, name, m));
  }
  return errs;
}

// ObjectMeta's fields in Go's order with the names validateFieldAllowList gives them: only labels and annotations may be set.
const TEMPLATE_META_FIELDS: readonly (readonly [string, string])[] = [
  ['name', 'name'],
  ['generateName', 'generateName'],
  ['namespace', 'namespace'],
  ['selfLink', 'selfLink'],
  ['uid', 'uID'],
  ['resourceVersion', 'resourceVersion'],
  ['generation', 'generation'],
  ['creationTimestamp', 'creationTimestamp'],
  ['deletionTimestamp', 'deletionTimestamp'],
  ['deletionGracePeriodSeconds', 'deletionGracePeriodSeconds'],
  ['ownerReferences', 'ownerReferences'],
  ['finalizers', 'finalizers'],
  ['managedFields', 'managedFields'],
];

/** Whether a metadata field differs from Go's zero value (an empty list decodes to a non-nil slice, which counts). */
const isNonZero = (v: unknown): boolean => v !== undefined && v !== null && v !== '' && v !== 0;

/** ValidateTemplateObjectMeta. */
function templateMetaErrors(meta: Obj, path: string): FieldError[] {
  const errs = [...validateAnnotations(meta.annotations, `${path}.annotations`), ...validateLabels(meta.labels, `${path}.labels`)];
  for (const [key, goName] of TEMPLATE_META_FIELDS) if (isNonZero(meta[key])) errs.push(fieldErrors.forbidden(`${path}.${goName}`, 'cannot be set'));
  return errs;
}

function ephemeralErrors(src: Obj, path: string, volume: VolumeAt): FieldError[] {
  const template = src.volumeClaimTemplate;
  if (!isObj(template)) return [fieldErrors.required(`${path}.volumeClaimTemplate`)];
  const p = `${path}.volumeClaimTemplate`;
  const errs = templateMetaErrors(isObj(template.metadata) ? template.metadata : {}, `${p}.metadata`);
  errs.push(...validateClaimSpec(isObj(template.spec) ? template.spec : {}, `${p}.spec`, volume.opts.featureGates));
  // The claim the pod gets is named <pod>-<volume>: it must make a valid claim name.
  const pod = volume.opts.podName ?? '';
  if (pod !== '' && volume.name !== '') {
    const claim = `${pod}-${volume.name}`;
    for (const m of isDNS1123Subdomain(claim)) errs.push(fieldErrors.invalid(`${volume.path}.name`, volume.name, `PVC name ${goQuote(claim)}: ${m}`));
  }
  return errs;
}

function imageErrors(src: Obj, path: string, volume: VolumeAt): FieldError[] {
  const errs = volume.opts.isPod && str(src.reference) === '' ? [fieldErrors.required(`${path}.reference`)] : [];
  return [...errs, ...pullPolicyErrors(src.pullPolicy, `${path}.pullPolicy`)];
}

// ---- projected volumes ----

/** Go's %#v of a metav1.LabelSelector. */
function goLabelSelector(sel: Obj): string {
  const labels = isObj(sel.matchLabels) ? sel.matchLabels : undefined;
  const labelText = labels
    ? `map[string]string{${Object.keys(labels).sort().map((k) => `${goQuote(k)}:${goQuote(str(labels[k]))}`).join(', ')}}`
    : 'map[string]string(nil)';
  const exprs = Array.isArray(sel.matchExpressions) ? objsAt(sel, 'matchExpressions') : undefined;
  const requirement = (r: Obj) => {
    const values = Array.isArray(r.values) ? `[]string{${r.values.map((v) => goQuote(String(v))).join(', ')}}` : '[]string(nil)';
    return `v1.LabelSelectorRequirement{Key:${goQuote(str(r.key))}, Operator:${goQuote(str(r.operator))}, Values:${values}}`;
  };
  const exprText = exprs ? `[]v1.LabelSelectorRequirement{${exprs.map(requirement).join(', ')}}` : '[]v1.LabelSelectorRequirement(nil)';
  return `v1.LabelSelector{MatchLabels:${labelText}, MatchExpressions:${exprText}}`;
}

/** Go's %#v of a core.ClusterTrustBundleProjection (a set pointer shows its value, as elsewhere in Capstan). */
function goClusterTrustBundle(ctb: Obj): string {
  const ptr = (type: string, v: unknown, text: (x: unknown) => string) => `(*${type})(${isSet(v) ? text(v) : 'nil'})`;
  const quoted = (v: unknown) => goQuote(str(v));
  const fields = [
    `Name:${ptr('string', ctb.name, quoted)}`,
    `SignerName:${ptr('string', ctb.signerName, quoted)}`,
    `LabelSelector:${ptr('v1.LabelSelector', ctb.labelSelector, (v) => goLabelSelector(isObj(v) ? v : {}))}`,
    `Path:${goQuote(str(ctb.path))}`,
    `Optional:${ptr('bool', ctb.optional, String)}`,
  ];
  return `core.ClusterTrustBundleProjection{${fields.join(', ')}}`;
}

/** ValidateClusterTrustBundleName for a name a projection refers to (the signer read from the name's colons). */
function clusterTrustBundleNameMessages(name: string): string[] {
  const colon = name.lastIndexOf(':');
  if (colon < 0) return isDNS1123Subdomain(name);
  const signer = name.slice(0, colon).replaceAll(':', '/');
  const prefix = `${signer.replaceAll('/', ':')}:`;
  if (!name.startsWith(prefix)) return [`ClusterTrustBundle for signerName ${signer} must be named with prefix ${prefix}`];
  return isDNS1123Subdomain(name.slice(prefix.length));
}

function clusterTrustBundleErrors(ctb: Obj, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const usingName = isSet(ctb.name);
  const usingSigner = isSet(ctb.signerName);
  if (usingName && usingSigner) errs.push(fieldErrors.invalid(path, renderedBadValue(goClusterTrustBundle(ctb)), 'only one of name and signerName may be used'));
  else if (usingName) {
    const name = str(ctb.name);
    if (name === '') errs.push(fieldErrors.required(`${path}.name`, 'must be a valid object name'));
    for (const m of clusterTrustBundleNameMessages(name)) errs.push(fieldErrors.invalid(`${path}.name`, name, `not a valid clustertrustbundlename: ${m}`));
    if (isObj(ctb.labelSelector)) {
      errs.push(fieldErrors.invalid(`${path}.labelSelector`, renderedBadValue(goLabelSelector(ctb.labelSelector)), 'labelSelector must be unset if name is specified'));
    }
  } else if (usingSigner) {
    const signer = str(ctb.signerName);
    if (signer === '') errs.push(fieldErrors.required(`${path}.signerName`, 'must be a valid signer name'));
    errs.push(...signerNameErrors(signer, `${path}.signerName`));
    errs.push(...validateLabelSelector(ctb.labelSelector, `${path}.labelSelector`));
  } else errs.push(fieldErrors.required(path, 'either name or signerName must be specified'));
  if (str(ctb.path) === '') errs.push(fieldErrors.required(`${path}.path`));
  errs.push(...localNonReservedPathErrors(str(ctb.path), `${path}.path`));
  return errs;
}

function serviceAccountTokenErrors(token: Obj, tokenPath: string, projectedPath: string, volume: VolumeAt): FieldError[] {
  const errs: FieldError[] = [];
  const seconds = num(token.expirationSeconds);
  if (seconds < 600) errs.push(fieldErrors.invalid(`${tokenPath}.expirationSeconds`, seconds, 'may not specify a duration less than 10 minutes'));
  if (seconds > 2 ** 32) errs.push(fieldErrors.invalid(`${tokenPath}.expirationSeconds`, seconds, 'may not specify a duration larger than 2^32 seconds'));
  // kube reports the token's path at the projected volume's path.
  const path = str(token.path);
  if (path === '') errs.push(fieldErrors.required(`${projectedPath}.path`));
  else if (!volume.opts.allowNonLocalProjectedTokenPath) errs.push(...localNonReservedPathErrors(path, `${projectedPath}.path`));
  return errs;
}

/** validateProjectionSources: each source one kind, no two files at one path across all of them. */
function projectionSourcesErrors(src: Obj, path: string, volume: VolumeAt): FieldError[] {
  const errs: FieldError[] = [];
  const paths = new Set<string>();
  // The first file at a path wins; later ones are reported with the value kube names (a source's name, or the path).
  const claim = (filePath: string, badValue: string) => {
    if (paths.has(filePath)) errs.push(fieldErrors.invalid(path, badValue, DUPLICATE_PATHS));
    else paths.add(filePath);
  };
  objsAt(src, 'sources').forEach((source, i) => {
    const sourcePath = `${path}.sources[${i}]`;
    let kinds = 0;
    for (const kind of ['secret', 'configMap'] as const) {
      const ref = source[kind];
      if (!isObj(ref)) continue;
      kinds++;
      const p = `${sourcePath}.${kind}`;
      errs.push(...requiredErrors(ref, p, ['name']));
      objsAt(ref, 'items').forEach((item, j) => {
        errs.push(...keyToPathErrors(item, `${p}.items[${j}]`));
        if (str(item.path) !== '') claim(str(item.path), str(ref.name));
      });
    }
    if (isObj(source.downwardAPI)) {
      kinds++;
      for (const file of objsAt(source.downwardAPI, 'items')) {
        errs.push(...downwardAPIFileErrors(file, `${sourcePath}.downwardAPI`));
        if (str(file.path) !== '') claim(str(file.path), str(file.path));
      }
    }
    if (isObj(source.serviceAccountToken)) {
      kinds++;
      errs.push(...serviceAccountTokenErrors(source.serviceAccountToken, `${sourcePath}.serviceAccountToken`, path, volume));
    }
    if (isObj(source.clusterTrustBundle)) {
      kinds++;
      errs.push(...clusterTrustBundleErrors(source.clusterTrustBundle, `${sourcePath}.clusterTrustBundle`));
      claim(str(source.clusterTrustBundle.path), str(source.clusterTrustBundle.path));
    }
    if (kinds > 1) errs.push(fieldErrors.forbidden(sourcePath, `${MORE_THAN_ONE} per source`));
  });
  return errs;
}

function projectedErrors(src: Obj, path: string, volume: VolumeAt): FieldError[] {
  return [...fileModeErrors(src.defaultMode, `${path}.defaultMode`), ...projectionSourcesErrors(src, path, volume)];
}

// ---- the volume ----

export interface SourceKind<Check = SourceCheck> {
  readonly key: string;
  readonly check: Check;
  /** The name kube's "more than 1 volume type" error gives the source, when not its key. */
  readonly forbiddenAs?: string;
  /** The name under which kube reports the source's own errors, when not its key. */
  readonly validatedAs?: string;
}

// In the order kube's validateVolumeSource visits them (the first one set is validated, the others refused).
const SOURCE_KINDS: readonly SourceKind[] = [
  { key: 'emptyDir', check: emptyDirErrors },
  { key: 'hostPath', check: hostPathSourceErrors },
  { key: 'gitRepo', check: gitRepoErrors },
  { key: 'gcePersistentDisk', check: gcePersistentDiskErrors, validatedAs: 'persistentDisk' },
  { key: 'awsElasticBlockStore', check: awsElasticBlockStoreErrors },
  { key: 'secret', check: secretErrors },
  { key: 'nfs', check: nfsSourceErrors },
  { key: 'iscsi', check: (src, path) => iscsiSourceErrors(src, path) },
  { key: 'glusterfs', check: glusterfsErrors },
  { key: 'flocker', check: flockerErrors },
  { key: 'persistentVolumeClaim', check: required('claimName') },
  { key: 'rbd', check: rbdErrors },
  { key: 'cinder', check: (src, path) => cinderSourceErrors(src, path, false) },
  { key: 'cephfs', check: cephfsErrors, forbiddenAs: 'cephFS' },
  { key: 'quobyte', check: quobyteErrors },
  { key: 'downwardAPI', check: downwardAPIErrors, forbiddenAs: 'downwarAPI' },
  { key: 'fc', check: fcErrors },
  { key: 'flexVolume', check: flexVolumeErrors },
  { key: 'configMap', check: configMapErrors },
  { key: 'azureFile', check: azureFileErrors },
  { key: 'vsphereVolume', check: vsphereVolumeErrors },
  { key: 'photonPersistentDisk', check: photonPersistentDiskErrors },
  { key: 'portworxVolume', check: portworxVolumeErrors },
  { key: 'azureDisk', check: azureDiskErrors },
  { key: 'storageos', check: (src, path) => storageOSSourceErrors(src, path, false) },
  { key: 'projected', check: projectedErrors },
  { key: 'scaleIO', check: scaleIOErrors },
  { key: 'csi', check: csiErrors },
  { key: 'ephemeral', check: ephemeralErrors },
  { key: 'image', check: imageErrors },
];

/** validateVolumeSource: exactly one source, validated; `path` is the volume's (spec.volumes[i]). */
export function volumeSourceErrors(volume: Obj, path: string, opts: VolumeSourceOptions): FieldError[] {
  const errs: FieldError[] = [];
  const at: VolumeAt = { name: str(volume.name), path, opts };
  let validated = false;
  for (const kind of SOURCE_KINDS) {
    const src = volume[kind.key];
    if (!isSet(src)) continue;
    const source = isObj(src) ? src : {};
    if (validated) errs.push(fieldErrors.forbidden(`${path}.${kind.forbiddenAs ?? kind.key}`, MORE_THAN_ONE));
    else errs.push(...kind.check(source, `${path}.${kind.validatedAs ?? kind.key}`, at));
    validated = true;
    if (kind.key === 'iscsi') errs.push(...iscsiVolumeNameErrors(source, at));
  }
  if (!validated) errs.push(fieldErrors.required(path, 'must specify a volume type'));
  return errs;
}

/** hasNonLocalProjectedTokenPath: a pod spec projecting a service account token outside its volume. */
export function projectsNonLocalToken(spec: unknown): boolean {
  return objsAt(spec, 'volumes').some((v) =>
    objsAt(v.projected, 'sources').some((s) => isObj(s.serviceAccountToken) && localNonReservedPathErrors(str(s.serviceAccountToken.path), '').length > 0),
  );
}
