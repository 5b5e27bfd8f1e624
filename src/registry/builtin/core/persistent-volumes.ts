// PersistentVolumes (SetDefaults_PersistentVolume; core validation ValidatePersistentVolume/Update of kube 1.31 and
// the strategy's mount-options check; the status reset and lastPhaseTransitionTime; printPersistentVolume).

import { clockDate } from '../../../apis/clock.ts';
import { fieldErrors, renderedBadValue, type FieldError } from '../../../apis/errors.ts';
import type { KubeObject } from '../../types.ts';
import { FIELD_IMMUTABLE, validateImmutableField, validateObjectMeta } from '../../validation/meta.ts';
import { buildStrategy } from '../generic.ts';
import { arrAt, ensureObj, getPath, isObj, objAt, semanticEqual, setDefaultString, strAt, type Obj } from '../object.ts';
import { ageColumn, column, quantityCell } from '../printing.ts';
import type { TypeFacts } from '../facts.ts';
import type { TypeRules } from '../type-rules.ts';
import { persistentVolumeWarnings } from './pod-warnings.ts';
import { accessModesString, storageClassOf, terminatingPhase, unsetOr } from './volume-printing.ts';
import { goNodeSelectorTerms, nodeSelectorErrors } from './node-selector-validation.ts';
import { basicResourceErrors, goResourceList, positiveQuantityErrors } from './quantity-values.ts';
import { accessModeErrors, attributesClassUpdateErrors, changedFieldsNote, classNameErrors, volumeModeErrors } from './volume-validation.ts';
import { PV_SOURCE_KINDS } from './persistent-volume-sources.ts';

const RECLAIM_POLICIES = ['Delete', 'Recycle', 'Retain'];
const NON_SOURCE_SPEC_KEYS = new Set([
  'accessModes', 'capacity', 'claimRef', 'persistentVolumeReclaimPolicy', 'storageClassName', 'mountOptions', 'volumeMode', 'nodeAffinity', 'volumeAttributesClassName',
]);
const MOUNT_OPTIONS_ANNOTATION = 'volume.beta.kubernetes.io/mount-options';
// The sources the deprecated mount-options annotation may go with (pkg/volume/validation checkMountOption).
const MOUNT_OPTION_SOURCES = [
  'gcePersistentDisk', 'awsElasticBlockStore', 'glusterfs', 'nfs', 'rbd', 'quobyte', 'iscsi', 'cinder', 'cephfs', 'azureFile', 'vsphereVolume', 'azureDisk',
  'photonPersistentDisk', 'flocker', 'scaleIO', 'fc', 'portworxVolume',
];
// The beta node labels a volume's node affinity may move to their GA names (validatePvNodeAffinity).
const BETA_TO_GA_LABEL: Readonly<Record<string, string>> = {
  'failure-domain.beta.kubernetes.io/zone': 'topology.kubernetes.io/zone',
  'failure-domain.beta.kubernetes.io/region': 'topology.kubernetes.io/region',
  'beta.kubernetes.io/os': 'kubernetes.io/os',
  'beta.kubernetes.io/arch': 'kubernetes.io/arch',
  'beta.kubernetes.io/instance-type': 'node.kubernetes.io/instance-type',
};

type Gates = Readonly<Record<string, boolean>>;

/** Go's path.Clean, enough to tell whether a path names the root. */
function isRootPath(p: string): boolean {
  if (!p.startsWith('/')) return false;
  const stack: string[] = [];
  for (const part of p.split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') stack.pop();
    else stack.push(part);
  }
  return stack.length === 0;
}

/** ValidationOptionsForPersistentVolume: volumeAttributesClassName is checked where its gate is on or the volume had one. */
const attributesClassEnabled = (gates: Gates, old: KubeObject | undefined): boolean => gates.VolumeAttributesClass === true || getPath(old, 'spec', 'volumeAttributesClassName') != null;

/** validateVolumeNodeAffinity; whether the volume has one. */
function nodeAffinityErrors(spec: Obj): { specified: boolean; errs: FieldError[] } {
  const affinity = spec.nodeAffinity;
  if (!isObj(affinity)) return { specified: false, errs: [] };
  const path = 'spec.nodeAffinity.required';
  const errs = isObj(affinity.required) ? nodeSelectorErrors(affinity.required, path) : [fieldErrors.required(path, 'must specify required node constraints')];
  return { specified: true, errs };
}

function capacityErrors(capacity: unknown): FieldError[] {
  const names = isObj(capacity) ? Object.keys(capacity) : [];
  const errs: FieldError[] = [];
  if (names.length === 0) errs.push(fieldErrors.required('spec.capacity'));
  if (!names.includes('storage') || names.length > 1) errs.push(fieldErrors.notSupported('spec.capacity', goResourceList(capacity), ['storage']));
  for (const name of names) {
    const q = (capacity as Obj)[name];
    errs.push(...basicResourceErrors(q, `spec.capacity[${name}]`), ...positiveQuantityErrors(q, `spec.capacity[${name}]`));
  }
  return errs;
}

/** The one-source rule: kube validates the first source it meets and forbids the others (flexVolume always counts). */
function volumeSourceErrors(pv: KubeObject, spec: Obj, nodeAffinitySpecified: boolean): FieldError[] {
  const errs: FieldError[] = [];
  let count = 0;
  for (const kind of PV_SOURCE_KINDS) {
    const source = spec[kind.key];
    if (!isObj(source)) continue;
    if (count > 0 && kind.key !== 'flexVolume') {
      errs.push(fieldErrors.forbidden(`spec.${kind.forbiddenAs ?? kind.key}`, 'may not specify more than 1 volume type'));
      continue;
    }
    count++;
    errs.push(...kind.check(source, `spec.${kind.validatedAs ?? kind.key}`, pv.metadata?.name ?? ''));
    if (kind.key === 'local' && !nodeAffinitySpecified) errs.push(fieldErrors.required('spec.nodeAffinity', 'Local volume requires node affinity'));
  }
  if (count === 0) errs.push(fieldErrors.required('spec', 'must specify a volume type'));
  return errs;
}

function attributesClassErrors(spec: Obj, enabled: boolean): FieldError[] {
  const name = spec.volumeAttributesClassName;
  if (name == null || !enabled) return [];
  const path = 'spec.volumeAttributesClassName';
  const errs = name === '' ? [fieldErrors.required(path, 'an empty string is disallowed')] : classNameErrors(name, path);
  if (!isObj(spec.csi)) errs.push(fieldErrors.required('spec.csi', 'has to be specified when using volumeAttributesClassName'));
  return errs;
}

/** ValidatePersistentVolumeSpec (not inline). */
export function validatePersistentVolumeSpec(pv: KubeObject, enableAttributesClass: boolean): FieldError[] {
  const spec = objAt(pv, 'spec') ?? {};
  const errs: FieldError[] = [];
  const modes = arrAt(spec, 'accessModes');
  if (modes.length === 0) errs.push(fieldErrors.required('spec.accessModes'));
  errs.push(...accessModeErrors(modes, 'spec.accessModes'));
  errs.push(...capacityErrors(spec.capacity));
  const policy = strAt(spec, 'persistentVolumeReclaimPolicy');
  if (policy !== '' && !RECLAIM_POLICIES.includes(policy)) errs.push(fieldErrors.notSupported('spec.persistentVolumeReclaimPolicy', policy, RECLAIM_POLICIES));
  const affinity = nodeAffinityErrors(spec);
  errs.push(...affinity.errs, ...volumeSourceErrors(pv, spec, affinity.specified));
  if (isObj(spec.hostPath) && policy === 'Recycle' && isRootPath(strAt(spec, 'hostPath', 'path'))) {
    errs.push(fieldErrors.forbidden('spec.persistentVolumeReclaimPolicy', "may not be 'recycle' for a hostPath mount of '/'"));
  }
  errs.push(...classNameErrors(spec.storageClassName, 'spec.storageClassName'));
  errs.push(...volumeModeErrors(spec.volumeMode, 'spec.volumeMode'));
  errs.push(...attributesClassErrors(spec, enableAttributesClass));
  return errs;
}

/** The volume-plugin check the strategy adds: the deprecated mount-options annotation only with sources that mount. */
function mountOptionErrors(pv: KubeObject): FieldError[] {
  const spec = objAt(pv, 'spec') ?? {};
  if (MOUNT_OPTION_SOURCES.some((s) => isObj(spec[s]))) return [];
  if (!Object.hasOwn(pv.metadata?.annotations ?? {}, MOUNT_OPTIONS_ANNOTATION)) return [];
  return [fieldErrors.forbidden(`metadata.annotations.${MOUNT_OPTIONS_ANNOTATION}`, 'may not specify mount options for this volume type')];
}

function volumeSource(spec: Obj): Obj {
  const out: Obj = {};
  for (const [k, v] of Object.entries(spec)) if (!NON_SOURCE_SPEC_KEYS.has(k)) out[k] = v;
  return out;
}

/** The old affinity with each beta label key that the new one names by its GA label renamed (as kube compares them). */
function withGALabels(oldValue: unknown, newValue: unknown): unknown {
  if (Array.isArray(oldValue)) return oldValue.map((x, i) => withGALabels(x, Array.isArray(newValue) ? newValue[i] : undefined));
  if (!isObj(oldValue)) return oldValue;
  const n = isObj(newValue) ? newValue : {};
  const out: Obj = {};
  for (const [k, v] of Object.entries(oldValue)) out[k] = withGALabels(v, n[k]);
  if (typeof oldValue.key === 'string' && 'operator' in oldValue && BETA_TO_GA_LABEL[oldValue.key] === n.key) out.key = n.key;
  return out;
}

/** Go's %#v of a core.VolumeNodeAffinity (the pointer's pointee, as field.Error prints it). */
function goVolumeNodeAffinity(affinity: unknown): unknown {
  if (!isObj(affinity)) return null;
  const required = isObj(affinity.required) ? `core.NodeSelector{NodeSelectorTerms:${goNodeSelectorTerms(arrAt(affinity.required, 'nodeSelectorTerms'))}}` : 'nil';
  return renderedBadValue(`core.VolumeNodeAffinity{Required:(*core.NodeSelector)(${required})}`);
}

/**
 * ValidatePersistentVolumeUpdate after the strategy's own ValidatePersistentVolume: the volume validated once more,
 * then the source (a CSI controllerExpandSecretRef may be added), volumeMode and node affinity fixed at creation.
 */
function validatePersistentVolumeUpdate(pv: KubeObject, old: KubeObject, validateNew: () => FieldError[], rules: TypeRules): FieldError[] {
  const gates = rules.featureGates;
  const enableAttributesClass = attributesClassEnabled(gates, old);
  const errs = [...validateNew(), ...validateObjectMeta(pv.metadata, rules), ...validatePersistentVolumeSpec(pv, enableAttributesClass)];
  const spec = objAt(pv, 'spec') ?? {};
  const oldSpec = objAt(old, 'spec') ?? {};
  const before = volumeSource(oldSpec);
  const after = volumeSource(spec);
  const csi = after.csi;
  if (isObj(before.csi) && before.csi.controllerExpandSecretRef == null && isObj(csi) && csi.controllerExpandSecretRef != null) {
    const { controllerExpandSecretRef: _added, ...rest } = csi;
    after.csi = rest;
  }
  if (!semanticEqual(before, after)) {
    errs.push(fieldErrors.forbidden('spec.persistentvolumesource', `spec.persistentvolumesource is immutable after creation\n${changedFieldsNote(before, after)}`));
  }
  errs.push(...validateImmutableField(spec.volumeMode, oldSpec.volumeMode, 'volumeMode'));
  if (isObj(oldSpec.nodeAffinity) && !semanticEqual(spec.nodeAffinity, withGALabels(oldSpec.nodeAffinity, spec.nodeAffinity))) {
    errs.push(fieldErrors.invalid('nodeAffinity', goVolumeNodeAffinity(spec.nodeAffinity), `${FIELD_IMMUTABLE}, except for updating from beta label to GA`));
  }
  errs.push(...attributesClassUpdateErrors(spec.volumeAttributesClassName, oldSpec.volumeAttributesClassName, gates, enableAttributesClass, false));
  return errs;
}

/** The status subresource: a phase change stamps lastPhaseTransitionTime unless the writer set a new one. */
function stampPhaseTransition(pv: KubeObject, old: KubeObject): void {
  const status = ensureObj(pv, 'status');
  const oldStatus = objAt(old, 'status') ?? {};
  const phaseSame = strAt(status, 'phase') === strAt(oldStatus, 'phase');
  if (phaseSame && status.lastPhaseTransitionTime == null) {
    if (oldStatus.lastPhaseTransitionTime !== undefined) status.lastPhaseTransitionTime = oldStatus.lastPhaseTransitionTime;
  } else if (!phaseSame && (status.lastPhaseTransitionTime == null || status.lastPhaseTransitionTime === oldStatus.lastPhaseTransitionTime)) {
    status.lastPhaseTransitionTime = nowSeconds();
  }
}

function nowSeconds(): string {
  return clockDate().toISOString().replace(/\.\d+Z$/, 'Z');
}

function dropAttributesClass(obj: KubeObject, old: KubeObject | undefined, gates: Readonly<Record<string, boolean>>): void {
  if (gates.VolumeAttributesClass !== true && getPath(old, 'spec', 'volumeAttributesClassName') == null && isObj(obj.spec)) delete obj.spec.volumeAttributesClassName;
}

export function persistentVolumeFacts(rules: TypeRules): TypeFacts {
  return {
    strategy: buildStrategy(rules, {
      defaults(obj) {
        const spec = ensureObj(obj, 'spec');
        setDefaultString(spec, 'persistentVolumeReclaimPolicy', 'Retain');
        setDefaultString(spec, 'volumeMode', 'Filesystem');
        setDefaultString(ensureObj(obj, 'status'), 'phase', 'Pending');
      },
      initialStatus: () => ({ phase: 'Pending', lastPhaseTransitionTime: nowSeconds() }),
      // DropDisabledSpecFields: volumeAttributesClassName needs its feature unless the volume already had one.
      prepareForCreate: (obj) => dropAttributesClass(obj, undefined, rules.featureGates),
      prepareForUpdate: (obj, old) => dropAttributesClass(obj, old, rules.featureGates),
      validate: (obj) => [...validatePersistentVolumeSpec(obj, attributesClassEnabled(rules.featureGates, undefined)), ...mountOptionErrors(obj)],
      validateUpdate: (obj, old, _ctx, validateNew) => validatePersistentVolumeUpdate(obj, old, validateNew, rules),
      prepareForStatusUpdate: stampPhaseTransition,
      warnings: persistentVolumeWarnings,
    }),
    printerColumns: [
      column('Capacity', 'string', 'Storage capacity.', (o) => quantityCell(getPath(o, 'spec', 'capacity', 'storage'))),
      column('Access Modes', 'string', 'How the volume can be mounted.', (o) => accessModesString(arrAt(o, 'spec', 'accessModes'))),
      column('Reclaim Policy', 'string', 'What happens to the volume when released.', (o) => strAt(o, 'spec', 'persistentVolumeReclaimPolicy')),
      column('Status', 'string', 'The phase of the volume.', terminatingPhase),
      column('Claim', 'string', 'The claim bound to the volume.', (o) => {
        const ref = objAt(objAt(o, 'spec'), 'claimRef');
        return ref ? `${strAt(ref, 'namespace')}/${strAt(ref, 'name')}` : '';
      }),
      column('StorageClass', 'string', 'The storage class of the volume.', storageClassOf),
      column('VolumeAttributesClass', 'string', 'The volume attributes class.', (o) => unsetOr(getPath(o, 'spec', 'volumeAttributesClassName'))),
      column('Reason', 'string', 'Why the volume is in its phase.', (o) => strAt(o, 'status', 'reason')),
      ageColumn,
      column('VolumeMode', 'string', 'Filesystem or Block.', (o) => unsetOr(getPath(o, 'spec', 'volumeMode')), 1),
    ],
    selectableFields: {},
  };
}
