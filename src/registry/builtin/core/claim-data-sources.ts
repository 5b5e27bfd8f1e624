// A PersistentVolumeClaim's data source (pkg/api/persistentvolumeclaim: DropDisabledFields,
// EnforceDataSourceBackwardsCompatibility, NormalizeDataSources; core validation of dataSource and dataSourceRef).
// kube keeps spec.dataSource and spec.dataSourceRef in step: a claim written with one reads back with both.

import { fieldErrors, renderedBadValue, type FieldError } from '../../../apis/errors.ts';
import { isDNS1123Subdomain, nameIsDNSLabel } from '../../validation/names.ts';
import { isObj, type Obj } from '../object.ts';

type Gates = Readonly<Record<string, boolean>>;

const str = (v: unknown): string => (typeof v === 'string' ? v : '');

/** A reference's fields in kube's order, an API group only when it has one. */
function reference(from: Obj): Obj {
  const ref: Obj = {};
  if (typeof from.apiGroup === 'string') ref.apiGroup = from.apiGroup;
  ref.kind = from.kind;
  ref.name = from.name;
  return ref;
}

const crossNamespace = (ref: unknown): boolean => isObj(ref) && str(ref.namespace) !== '';

/** The only data sources a claim could name before dataSourceRef: another claim or a volume snapshot. */
function pvcOrSnapshot(source: Obj): boolean {
  const group = str(source.apiGroup);
  return (source.kind === 'PersistentVolumeClaim' && group === '') || (source.kind === 'VolumeSnapshot' && group === 'snapshot.storage.k8s.io');
}

/**
 * PrepareForCreate/PrepareForUpdate of a claim's spec: fields of disabled features dropped, a data source an old
 * client could not have meant dropped, then dataSource and dataSourceRef filled from each other.
 */
export function prepareClaimDataSource(spec: Obj, oldSpec: Obj | undefined, gates: Gates): void {
  const anyVolumeDataSource = gates.AnyVolumeDataSource !== false;
  if (gates.VolumeAttributesClass !== true && oldSpec?.volumeAttributesClassName == null) delete spec.volumeAttributesClassName;
  const refInUse = oldSpec?.dataSourceRef != null;
  if (!anyVolumeDataSource && !refInUse) delete spec.dataSourceRef;
  if (gates.CrossNamespaceVolumeDataSource !== true && crossNamespace(spec.dataSourceRef) && !refInUse) delete spec.dataSourceRef;

  if (oldSpec?.dataSource == null && spec.dataSourceRef == null && isObj(spec.dataSource) && !pvcOrSnapshot(spec.dataSource)) delete spec.dataSource;

  if (!anyVolumeDataSource) return;
  if (isObj(spec.dataSource) && spec.dataSourceRef == null) spec.dataSourceRef = reference(spec.dataSource);
  else if (isObj(spec.dataSourceRef) && spec.dataSource == null && !crossNamespace(spec.dataSourceRef)) spec.dataSource = reference(spec.dataSourceRef);
}

function referenceErrors(ref: Obj, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (str(ref.name) === '') errs.push(fieldErrors.required(`${path}.name`));
  if (str(ref.kind) === '') errs.push(fieldErrors.required(`${path}.kind`));
  const group = str(ref.apiGroup);
  if (group === '' && ref.kind !== 'PersistentVolumeClaim') {
    errs.push(fieldErrors.invalid(path, str(ref.kind), "must be 'PersistentVolumeClaim' when referencing the default apiGroup"));
  }
  if (group !== '') for (const msg of isDNS1123Subdomain(group)) errs.push(fieldErrors.invalid(`${path}.apiGroup`, group, msg));
  return errs;
}

/** ValidatePersistentVolumeClaimSpec's checks of dataSource and dataSourceRef. */
export function claimDataSourceErrors(spec: Obj, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const source = isObj(spec.dataSource) ? spec.dataSource : undefined;
  const ref = isObj(spec.dataSourceRef) ? spec.dataSourceRef : undefined;
  if (source) errs.push(...referenceErrors(source, `${path}.dataSource`));
  if (ref) {
    errs.push(...referenceErrors(ref, `${path}.dataSourceRef`));
    const namespace = str(ref.namespace);
    if (namespace !== '') for (const msg of nameIsDNSLabel(namespace, false)) errs.push(fieldErrors.invalid(`${path}.dataSourceRef.namespace`, namespace, msg));
  }
  // kube gives the field path itself as the bad value (a field.Path prints as its string).
  const dataSourcePath = renderedBadValue(`${path}.dataSource`);
  if (ref && crossNamespace(ref)) {
    if (source) errs.push(fieldErrors.invalid(path, dataSourcePath, 'may not be specified when dataSourceRef.namespace is specified'));
  } else if (source && ref && !((source.apiGroup ?? null) === (ref.apiGroup ?? null) && source.kind === ref.kind && source.name === ref.name)) {
    errs.push(fieldErrors.invalid(path, dataSourcePath, 'must match dataSourceRef'));
  }
  return errs;
}
