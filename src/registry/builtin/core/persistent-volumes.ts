// PersistentVolumes (SetDefaults_PersistentVolume; core validation ValidatePersistentVolume/Update; the
// strategy's status reset and lastPhaseTransitionTime; printPersistentVolume).

import { clockDate } from '../../../apis/clock.ts';
import { fieldErrors, renderedBadValue, type FieldError } from '../../../apis/errors.ts';
import type { KubeObject } from '../../types.ts';
import { FIELD_IMMUTABLE } from '../../validation/meta.ts';
import { quantityNanos } from '../../validation/quantity.ts';
import { buildStrategy } from '../generic.ts';
import { arrAt, ensureObj, getPath, isObj, objAt, semanticEqual, setDefaultString, strAt, type Obj } from '../object.ts';
import { ageColumn, column, quantityCell } from '../printing.ts';
import type { TypeFacts } from '../facts.ts';
import type { TypeRules } from '../type-rules.ts';
import { persistentVolumeWarnings } from './pod-warnings.ts';
import { accessModesString, storageClassOf, terminatingPhase, unsetOr } from './volume-printing.ts';
import { accessModeErrors, changedFieldsNote, classNameErrors, positiveQuantityErrors, volumeModeErrors } from './volume-validation.ts';
import { csiDriverNameErrors, hostPathSourceErrors, nfsSourceErrors } from './volume-source-validation.ts';

// The volume sources of a PersistentVolumeSpec, in the order kube's validation visits them.
const PV_SOURCES = [
  'hostPath', 'gcePersistentDisk', 'awsElasticBlockStore', 'glusterfs', 'flocker', 'nfs', 'rbd', 'quobyte', 'cinder', 'cephfs', 'iscsi', 'fc',
  'flexVolume', 'azureFile', 'vsphereVolume', 'photonPersistentDisk', 'portworxVolume', 'azureDisk', 'scaleIO', 'local', 'storageos', 'csi',
];
const RECLAIM_POLICIES = ['Delete', 'Recycle', 'Retain'];
const NON_SOURCE_SPEC_KEYS = new Set([
  'accessModes', 'capacity', 'claimRef', 'persistentVolumeReclaimPolicy', 'storageClassName', 'mountOptions', 'volumeMode', 'nodeAffinity', 'volumeAttributesClassName',
]);

/** Go's %#v of a ResourceList as NotSupported prints it (exact for the empty cases). */
function resourceListValue(capacity: unknown): unknown {
  if (!isObj(capacity)) return renderedBadValue('core.ResourceList(nil)');
  const names = Object.keys(capacity).sort();
  return renderedBadValue(`core.ResourceList{${names.map((n) => `${JSON.stringify(n)}:resource.MustParse(${JSON.stringify(String(capacity[n]))})`).join(', ')}}`);
}

function sourceErrors(spec: Obj, source: string): FieldError[] {
  const v = objAt(spec, source) ?? {};
  const p = `spec.${source}`;
  const errs: FieldError[] = [];
  const need = (key: string) => {
    if (strAt(v, key) === '') errs.push(fieldErrors.required(`${p}.${key}`));
  };
  switch (source) {
    case 'hostPath':
      errs.push(...hostPathSourceErrors(v, p));
      break;
    case 'nfs':
      errs.push(...nfsSourceErrors(v, p));
      break;
    case 'local':
      need('path');
      break;
    case 'csi':
      errs.push(...csiDriverNameErrors(strAt(v, 'driver'), `${p}.driver`));
      need('volumeHandle');
      break;
  }
  return errs;
}

/** ValidatePersistentVolumeSpec (not inline). */
export function validatePersistentVolumeSpec(pv: KubeObject): FieldError[] {
  const spec = objAt(pv, 'spec') ?? {};
  const errs: FieldError[] = [];
  const modes = arrAt(spec, 'accessModes');
  if (modes.length === 0) errs.push(fieldErrors.required('spec.accessModes'));
  errs.push(...accessModeErrors(modes, 'spec.accessModes'));
  const capacity = spec.capacity;
  const names = isObj(capacity) ? Object.keys(capacity) : [];
  if (names.length === 0) errs.push(fieldErrors.required('spec.capacity'));
  if (!names.includes('storage') || names.length > 1) errs.push(fieldErrors.notSupported('spec.capacity', resourceListValue(capacity), ['storage']));
  for (const name of names) {
    const q = (capacity as Obj)[name];
    const nanos = quantityNanos(q);
    if (nanos !== undefined && nanos < 0n) errs.push(fieldErrors.invalid(`spec.capacity[${name}]`, String(q), 'must be a valid resource quantity'));
    errs.push(...positiveQuantityErrors(q, `spec.capacity[${name}]`));
  }
  const policy = strAt(spec, 'persistentVolumeReclaimPolicy');
  if (policy !== '' && !RECLAIM_POLICIES.includes(policy)) errs.push(fieldErrors.notSupported('spec.persistentVolumeReclaimPolicy', policy, RECLAIM_POLICIES));
  errs.push(...classNameErrors(spec.storageClassName, 'spec.storageClassName'));
  const sources = PV_SOURCES.filter((s) => isObj(spec[s]));
  if (sources.length === 0) errs.push(fieldErrors.required('spec', 'must specify a volume type'));
  sources.forEach((s, i) => {
    if (i > 0) errs.push(fieldErrors.forbidden(`spec.${s}`, 'may not specify more than 1 volume type'));
    else errs.push(...sourceErrors(spec, s));
  });
  if (sources[0] === 'hostPath' && policy === 'Recycle' && /^\/+$/.test(strAt(spec, 'hostPath', 'path'))) {
    errs.push(fieldErrors.forbidden('spec.persistentVolumeReclaimPolicy', 'may not be \'recycle\' for a hostPath volume with path "/"'));
  }
  errs.push(...volumeModeErrors(spec.volumeMode, 'spec.volumeMode'));
  return errs;
}

function volumeSource(pv: KubeObject): Obj {
  const out: Obj = {};
  for (const [k, v] of Object.entries(objAt(pv, 'spec') ?? {})) if (!NON_SOURCE_SPEC_KEYS.has(k)) out[k] = v;
  return out;
}

/** ValidatePersistentVolumeUpdate: the volume source and volumeMode are fixed at creation. */
function validatePersistentVolumeUpdate(pv: KubeObject, old: KubeObject, validateNew: () => FieldError[]): FieldError[] {
  const errs = validateNew();
  const before = volumeSource(old);
  const after = volumeSource(pv);
  if (!semanticEqual(before, after)) {
    errs.push(fieldErrors.forbidden('spec.persistentvolumesource', `spec.persistentvolumesource is immutable after creation\n${changedFieldsNote(before, after)}`));
  }
  const mode = getPath(pv, 'spec', 'volumeMode');
  if (!semanticEqual(mode, getPath(old, 'spec', 'volumeMode'))) errs.push(fieldErrors.invalid('volumeMode', mode ?? null, FIELD_IMMUTABLE));
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
      validate: validatePersistentVolumeSpec,
      validateUpdate: (obj, old, _ctx, validateNew) => validatePersistentVolumeUpdate(obj, old, validateNew),
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
