// PersistentVolumeClaims (SetDefaults_PersistentVolumeClaimSpec; core validation of kube 1.31
// ValidatePersistentVolumeClaim, ValidatePersistentVolumeClaimUpdate: immutable spec but for bound claims' storage
// request, the attributes class and the volume name set once, no shrinking, the beta class annotation; and
// ValidatePersistentVolumeClaimStatusUpdate with the strategy's dropped status fields; printPersistentVolumeClaim).

import { fieldErrors, type FieldError } from '../../../apis/errors.ts';
import type { KubeObject } from '../../types.ts';
import { FIELD_IMMUTABLE, validateImmutableField, validateObjectMeta, validateObjectMetaUpdate } from '../../validation/meta.ts';
import { isQualifiedName } from '../../validation/names.ts';
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
import { basicResourceErrors, positiveQuantityErrors, resourceQuantityValueErrors } from './quantity-values.ts';
import { isNativeResourceName, resourceNameValue } from './resource-names.ts';
import { accessModeErrors, attributesClassUpdateErrors, changedFieldsNote, classNameErrors, volumeModeErrors } from './volume-validation.ts';

const BETA_CLASS_ANNOTATION = 'volume.beta.kubernetes.io/storage-class';
// The resize states a claim's status.allocatedResourceStatuses may hold, sorted as kube lists them.
const RESIZE_STATUSES = ['ControllerResizeFailed', 'ControllerResizeInProgress', 'NodeResizeFailed', 'NodeResizeInProgress', 'NodeResizePending'];

type Gates = Readonly<Record<string, boolean>>;

/** ValidationOptionsForPersistentVolumeClaim (the options these checks depend on). */
interface ClaimOptions {
  enableAttributesClass: boolean;
  enableRecoverFromExpansionFailure: boolean;
}

const hasAllocations = (pvc: KubeObject | undefined): boolean =>
  getPath(pvc, 'status', 'allocatedResources') != null || getPath(pvc, 'status', 'allocatedResourceStatuses') != null;

function claimOptions(gates: Gates, old: KubeObject | undefined): ClaimOptions {
  return {
    enableAttributesClass: gates.VolumeAttributesClass === true || getPath(old, 'spec', 'volumeAttributesClassName') != null,
    enableRecoverFromExpansionFailure: gates.RecoverVolumeExpansionFailure === true || hasAllocations(old),
  };
}

/** ValidatePersistentVolumeClaimSpec. */
export function validateClaimSpec(spec: Obj, path: string, gates: Gates, enableAttributesClass = gates.VolumeAttributesClass === true): FieldError[] {
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
  errs.push(...claimDataSourceErrors(spec, path));
  const attributesClass = spec.volumeAttributesClassName;
  if (enableAttributesClass && typeof attributesClass === 'string' && attributesClass !== '') {
    errs.push(...classNameErrors(attributesClass, `${path}.volumeAttributesClassName`));
  }
  return errs;
}

/**
 * What the spec comparison ignores (ValidatePersistentVolumeClaimUpdate): the volume name the binder sets once, a
 * class moved from the beta annotation or set on a claim that had none, a bound claim's storage request and the
 * attributes class. Also the annotation's own immutability error, which depends on the same decision.
 */
function comparableSpecs(pvc: KubeObject, old: KubeObject): { newSpec: Obj; oldSpec: Obj; errs: FieldError[] } {
  const newSpec = clone(objAt(pvc, 'spec') ?? {});
  const oldSpec = clone(objAt(old, 'spec') ?? {});
  const errs: FieldError[] = [];
  if (strAt(oldSpec, 'volumeName') === '') {
    if (newSpec.volumeName === undefined) delete oldSpec.volumeName;
    else oldSpec.volumeName = newSpec.volumeName;
  }
  const oldAnnotations = old.metadata?.annotations ?? {};
  const newAnnotations = pvc.metadata?.annotations ?? {};
  const oldAnnotation = Object.hasOwn(oldAnnotations, BETA_CLASS_ANNOTATION) ? oldAnnotations[BETA_CLASS_ANNOTATION] : undefined;
  const newAnnotation = Object.hasOwn(newAnnotations, BETA_CLASS_ANNOTATION) ? newAnnotations[BETA_CLASS_ANNOTATION] : undefined;
  const oldClass = oldSpec.storageClassName;
  const newClass = newSpec.storageClassName;
  // validateStorageClassUpgradeFromAnnotation: the class moves from the beta annotation into the field.
  const fromAnnotation = oldAnnotation !== undefined && oldClass == null && newClass != null && newClass === oldAnnotation && (newAnnotation === undefined || newAnnotation === oldAnnotation);
  if (fromAnnotation) delete newSpec.storageClassName;
  else {
    // ValidateImmutableAnnotation compares the values, a missing annotation reading as "".
    if ((newAnnotation ?? '') !== (oldAnnotation ?? '')) errs.push(fieldErrors.invalid(`metadata.annotations.${BETA_CLASS_ANNOTATION}`, newAnnotation ?? '', FIELD_IMMUTABLE));
    // validateStorageClassUpgradeFromNil: a claim without a class may get one (the annotation's, if it had that).
    if (newClass != null && oldClass == null && (oldAnnotation === undefined || newClass === oldAnnotation)) delete newSpec.storageClassName;
  }
  const requests = getPath(newSpec, 'resources', 'requests');
  if (strAt(pvc, 'status', 'phase') === 'Bound' && isObj(requests)) requests.storage = getPath(oldSpec, 'resources', 'requests', 'storage') ?? '0';
  if (oldSpec.volumeAttributesClassName === undefined) delete newSpec.volumeAttributesClassName;
  else newSpec.volumeAttributesClassName = oldSpec.volumeAttributesClassName;
  return { newSpec, oldSpec, errs };
}

/** The storage request may not shrink; with expansion-failure recovery, only down to above status.capacity. */
function shrinkErrors(pvc: KubeObject, old: KubeObject, opts: ClaimOptions): FieldError[] {
  const size = (o: KubeObject, ...path: string[]) => quantityNanos(getPath(o, ...path)) ?? 0n;
  const newSize = size(pvc, 'spec', 'resources', 'requests', 'storage');
  if (newSize >= size(old, 'spec', 'resources', 'requests', 'storage')) return [];
  const path = 'spec.resources.requests.storage';
  if (!opts.enableRecoverFromExpansionFailure) return [fieldErrors.forbidden(path, 'field can not be less than previous value')];
  return newSize <= size(old, 'status', 'capacity', 'storage') ? [fieldErrors.forbidden(path, 'field can not be less than status.capacity')] : [];
}

/**
 * The strategy's ValidateUpdate: ValidatePersistentVolumeClaim, then ValidatePersistentVolumeClaimUpdate, which
 * checks ObjectMeta's update rules and the whole claim once more before what may not change.
 */
function validateClaimUpdate(pvc: KubeObject, old: KubeObject, rules: TypeRules): FieldError[] {
  const gates = rules.featureGates;
  const opts = claimOptions(gates, old);
  const validateClaim = () => [...validateObjectMeta(pvc.metadata, rules), ...validateClaimSpec(objAt(pvc, 'spec') ?? {}, 'spec', gates, opts.enableAttributesClass)];
  const errs = [...validateClaim(), ...validateObjectMetaUpdate(pvc.metadata, old.metadata, 'metadata', rules.kubeFinalizers), ...validateClaim()];
  const { newSpec, oldSpec, errs: annotationErrs } = comparableSpecs(pvc, old);
  errs.push(...annotationErrs);
  if (!semanticEqual(newSpec, oldSpec)) {
    errs.push(fieldErrors.forbidden('spec', `spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims\n${changedFieldsNote(oldSpec, newSpec)}`));
  }
  errs.push(...shrinkErrors(pvc, old, opts));
  errs.push(...validateImmutableField(getPath(pvc, 'spec', 'volumeMode'), getPath(old, 'spec', 'volumeMode'), 'volumeMode'));
  errs.push(...attributesClassUpdateErrors(getPath(pvc, 'spec', 'volumeAttributesClassName'), getPath(old, 'spec', 'volumeAttributesClassName'), gates, opts.enableAttributesClass, true));
  return errs;
}

/** validatePersistentVolumeClaimResourceKey: a qualified name, and "storage" when it is a native one. */
function claimResourceKeyErrors(key: string, path: string): FieldError[] {
  const errs = isQualifiedName(key).map((m) => fieldErrors.invalid(path, key, m));
  if (errs.length) return errs;
  return isNativeResourceName(key) && key !== 'storage' ? [fieldErrors.notSupported(path, key, ['storage'])] : [];
}

/** ValidatePersistentVolumeClaimStatusUpdate (after ObjectMeta's update rules). */
function validateClaimStatusUpdate(pvc: KubeObject, old: KubeObject, gates: Gates): FieldError[] {
  const errs: FieldError[] = [];
  if (arrAt(pvc, 'spec', 'accessModes').length === 0) errs.push(fieldErrors.required('Spec.accessModes'));
  for (const [name, q] of Object.entries(objAt(objAt(pvc, 'status'), 'capacity') ?? {})) errs.push(...basicResourceErrors(q, `status.capacity[${name}]`));
  if (!claimOptions(gates, old).enableRecoverFromExpansionFailure) return errs;
  const statusPath = 'status.allocatedResourceStatus';
  for (const [name, state] of Object.entries(objAt(objAt(pvc, 'status'), 'allocatedResourceStatuses') ?? {})) {
    errs.push(...claimResourceKeyErrors(name, statusPath));
    if (!RESIZE_STATUSES.includes(String(state))) errs.push(fieldErrors.notSupported(statusPath, resourceNameValue(name), RESIZE_STATUSES));
  }
  for (const [name, q] of Object.entries(objAt(objAt(pvc, 'status'), 'allocatedResources') ?? {})) {
    const keyErrs = claimResourceKeyErrors(name, 'status.allocatedResources');
    if (keyErrs.length) {
      errs.push(...keyErrs);
      continue;
    }
    const path = `status.allocatedResources[${name}]`;
    const basic = basicResourceErrors(q, path);
    errs.push(...(basic.length ? basic : resourceQuantityValueErrors('storage', q, path)));
  }
  return errs;
}

/** DropDisabledFieldsFromStatus: status fields of disabled features, unless the claim already had them. */
function dropDisabledStatusFields(pvc: KubeObject, old: KubeObject, gates: Gates): void {
  const status = objAt(pvc, 'status');
  if (!status) return;
  const had = (field: string) => getPath(old, 'status', field) != null;
  const drop = (field: string) => {
    if (!had(field)) delete status[field];
  };
  if (gates.VolumeAttributesClass !== true) ['currentVolumeAttributesClassName', 'modifyVolumeStatus'].forEach(drop);
  if (gates.RecoverVolumeExpansionFailure !== true) ['allocatedResources', 'allocatedResourceStatuses'].forEach(drop);
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
      // validateClaimUpdate places ObjectMeta's update rules where kube's sequence has them.
      placesMetaUpdate: true,
      validateUpdate: (obj, old) => validateClaimUpdate(obj, old, rules),
      prepareForStatusUpdate: (obj, old) => dropDisabledStatusFields(obj, old, rules.featureGates),
      validateStatusUpdate: (obj, old) => validateClaimStatusUpdate(obj, old, rules.featureGates),
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
