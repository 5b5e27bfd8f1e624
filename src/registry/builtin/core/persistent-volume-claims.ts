// PersistentVolumeClaims (SetDefaults_PersistentVolumeClaimSpec; core validation ValidatePersistentVolumeClaim
// and ValidatePersistentVolumeClaimUpdate: immutable spec but for bound claims' storage request and the volume
// name set once, no shrinking, the beta class annotation; printPersistentVolumeClaim).

import { fieldErrors, type FieldError } from '../../../apis/errors.ts';
import type { KubeObject } from '../../types.ts';
import { FIELD_IMMUTABLE } from '../../validation/meta.ts';
import { validateLabelSelector } from '../../validation/label-selector.ts';
import { quantityNanos } from '../../validation/quantity.ts';
import { buildStrategy } from '../generic.ts';
import { arrAt, clone, ensureObj, getPath, isObj, objAt, semanticEqual, setDefaultString, strAt, type Obj } from '../object.ts';
import { ageColumn, column, quantityCell } from '../printing.ts';
import type { TypeFacts } from '../facts.ts';
import type { TypeRules } from '../type-rules.ts';
import { claimDataSourceErrors, prepareClaimDataSource } from './claim-data-sources.ts';
import { persistentVolumeClaimWarnings } from './pod-warnings.ts';
import { accessModesString, storageClassOf, terminatingPhase, unsetOr } from './volume-printing.ts';
import { accessModeErrors, changedFieldsNote, classNameErrors, positiveQuantityErrors, volumeModeErrors } from './volume-validation.ts';

const BETA_CLASS_ANNOTATION = 'volume.beta.kubernetes.io/storage-class';

/** ValidatePersistentVolumeClaimSpec. */
export function validateClaimSpec(spec: Obj, path: string, gates: Readonly<Record<string, boolean>>): FieldError[] {
  const errs: FieldError[] = [];
  const modes = arrAt(spec, 'accessModes');
  if (modes.length === 0) errs.push(fieldErrors.required(`${path}.accessModes`, 'at least 1 access mode is required'));
  if (isObj(spec.selector)) errs.push(...validateLabelSelector(spec.selector, `${path}.selector`));
  errs.push(...accessModeErrors(modes, `${path}.accessModes`));
  const storage = getPath(spec, 'resources', 'requests', 'storage');
  if (storage === undefined) errs.push(fieldErrors.required(`${path}.resources[storage]`));
  else errs.push(...positiveQuantityErrors(storage, `${path}.resources[storage]`));
  errs.push(...classNameErrors(spec.storageClassName, `${path}.storageClassName`));
  errs.push(...volumeModeErrors(spec.volumeMode, `${path}.volumeMode`));
  errs.push(...claimDataSourceErrors(spec, path, gates));
  return errs;
}

function validateClaimUpdate(pvc: KubeObject, old: KubeObject, gates: Readonly<Record<string, boolean>>): FieldError[] {
  const errs = validateClaimSpec(objAt(pvc, 'spec') ?? {}, 'spec', gates);
  const newSpec = clone(objAt(pvc, 'spec') ?? {});
  const oldSpec = clone(objAt(old, 'spec') ?? {});
  // The volume name may be set once (by the binder).
  if (strAt(oldSpec, 'volumeName') === '') {
    if (newSpec.volumeName === undefined) delete oldSpec.volumeName;
    else oldSpec.volumeName = newSpec.volumeName;
  }
  const oldAnnotation = old.metadata?.annotations?.[BETA_CLASS_ANNOTATION];
  const newAnnotation = pvc.metadata?.annotations?.[BETA_CLASS_ANNOTATION];
  const oldClass = oldSpec.storageClassName;
  const newClass = newSpec.storageClassName;
  // validateStorageClassUpgradeFromAnnotation: the class moves from the beta annotation into the field.
  const upgradeFromAnnotation = oldAnnotation !== undefined && oldClass == null && newClass === oldAnnotation && (newAnnotation === undefined || newAnnotation === oldAnnotation);
  if (upgradeFromAnnotation) delete newSpec.storageClassName;
  else {
    if (oldAnnotation !== newAnnotation) errs.push(fieldErrors.invalid(`metadata.annotations.${BETA_CLASS_ANNOTATION}`, newAnnotation ?? '', FIELD_IMMUTABLE));
    // validateStorageClassUpgradeFromNil: a claim without a class (nor annotation) may get one.
    if (oldAnnotation === undefined && (oldClass == null || oldClass === '') && typeof newClass === 'string' && newClass !== '') delete newSpec.storageClassName;
  }
  const bound = strAt(pvc, 'status', 'phase') === 'Bound';
  if (bound && isObj(getPath(newSpec, 'resources', 'requests'))) {
    const requests = (newSpec.resources as Obj).requests as Obj;
    const oldStorage = getPath(oldSpec, 'resources', 'requests', 'storage');
    if (oldStorage === undefined) delete requests.storage;
    else requests.storage = oldStorage;
  }
  if (bound) {
    if (oldSpec.volumeAttributesClassName === undefined) delete newSpec.volumeAttributesClassName;
    else newSpec.volumeAttributesClassName = oldSpec.volumeAttributesClassName;
  }
  if (!semanticEqual(newSpec, oldSpec)) {
    errs.push(fieldErrors.forbidden('spec', `spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims\n${changedFieldsNote(oldSpec, newSpec)}`));
  }
  const oldSize = quantityNanos(getPath(old, 'spec', 'resources', 'requests', 'storage')) ?? 0n;
  const newSize = quantityNanos(getPath(pvc, 'spec', 'resources', 'requests', 'storage')) ?? 0n;
  if (newSize < oldSize) errs.push(fieldErrors.forbidden('spec.resources.requests.storage', 'field can not be less than previous value'));
  const mode = getPath(pvc, 'spec', 'volumeMode');
  if (!semanticEqual(mode, getPath(old, 'spec', 'volumeMode'))) errs.push(fieldErrors.invalid('volumeMode', mode ?? null, FIELD_IMMUTABLE));
  if (gates.VolumeAttributesClass !== true && !semanticEqual(getPath(pvc, 'spec', 'volumeAttributesClassName'), getPath(old, 'spec', 'volumeAttributesClassName'))) {
    errs.push(fieldErrors.forbidden('spec.volumeAttributesClassName', 'update is forbidden when the VolumeAttributesClass feature gate is disabled'));
  }
  return errs;
}

export function persistentVolumeClaimFacts(rules: TypeRules): TypeFacts {
  return {
    strategy: buildStrategy(rules, {
      defaults(obj) {
        setDefaultString(ensureObj(obj, 'spec'), 'volumeMode', 'Filesystem');
        setDefaultString(ensureObj(obj, 'status'), 'phase', 'Pending');
      },
      initialStatus: () => ({ phase: 'Pending' }),
      prepareForCreate: (obj) => prepareClaimDataSource(ensureObj(obj, 'spec'), undefined, rules.featureGates),
      prepareForUpdate: (obj, old) => prepareClaimDataSource(ensureObj(obj, 'spec'), objAt(old, 'spec'), rules.featureGates),
      validate: (obj) => validateClaimSpec(objAt(obj, 'spec') ?? {}, 'spec', rules.featureGates),
      validateUpdate: (obj, old) => validateClaimUpdate(obj, old, rules.featureGates),
      warnings: persistentVolumeClaimWarnings,
    }),
    printerColumns: [
      column('Status', 'string', 'The phase of the claim.', terminatingPhase),
      column('Volume', 'string', 'The bound volume.', (o) => strAt(o, 'spec', 'volumeName')),
      column('Capacity', 'string', 'Storage capacity of the bound volume.', (o) => (strAt(o, 'spec', 'volumeName') ? quantityCell(getPath(o, 'status', 'capacity', 'storage')) : '')),
      column('Access Modes', 'string', 'How the volume can be mounted.', (o) => (strAt(o, 'spec', 'volumeName') ? accessModesString(arrAt(o, 'status', 'accessModes')) : '')),
      column('StorageClass', 'string', 'The storage class of the claim.', storageClassOf),
      column('VolumeAttributesClass', 'string', 'The volume attributes class.', (o) => unsetOr(getPath(o, 'spec', 'volumeAttributesClassName'))),
      ageColumn,
      column('VolumeMode', 'string', 'Filesystem or Block.', (o) => unsetOr(getPath(o, 'spec', 'volumeMode')), 1),
    ],
    selectableFields: {},
  };
}
