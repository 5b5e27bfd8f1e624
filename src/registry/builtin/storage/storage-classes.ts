// StorageClasses (storage/v1 SetDefaults_StorageClass; pkg/apis/storage/validation ValidateStorageClass and its
// update: provisioner, parameters and reclaimPolicy forbidden to change, volumeBindingMode fixed;
// printStorageClass).

import { fieldErrors, type FieldError } from '../../../apis/errors.ts';
import type { KubeObject } from '../../types.ts';
import { FIELD_IMMUTABLE, validateQualifiedName } from '../../validation/meta.ts';
import type { FactsMaker } from '../facts.ts';
import { buildStrategy } from '../generic.ts';
import { isObj, objAt, setDefault, strAt } from '../object.ts';
import { ageColumn, column } from '../printing.ts';

const RECLAIM_POLICIES = ['Delete', 'Retain'];
const BINDING_MODES = ['Immediate', 'WaitForFirstConsumer'];
const MAX_PARAMETERS = 512;
const MAX_PARAMETERS_SIZE = 256 * 1024;

/** validateProvisioner (also a VolumeAttributesClass's driverName). */
export function provisionerErrors(provisioner: string, path: string): FieldError[] {
  if (provisioner === '') return [fieldErrors.required(path)];
  return validateQualifiedName(provisioner.toLowerCase(), path);
}

/** validateParameters. */
export function parameterErrors(params: unknown, allowEmpty: boolean, path: string): FieldError[] {
  const entries = Object.entries(objAt({ p: params }, 'p') ?? {});
  if (entries.length > MAX_PARAMETERS) return [fieldErrors.tooLong(path, MAX_PARAMETERS)];
  const errs: FieldError[] = [];
  let size = 0;
  for (const [k, v] of entries) {
    if (k === '') errs.push(fieldErrors.invalid(path, k, 'field can not be empty.'));
    size += Buffer.byteLength(k) + Buffer.byteLength(String(v));
  }
  if (size > MAX_PARAMETERS_SIZE) errs.push(fieldErrors.tooLong(path, MAX_PARAMETERS_SIZE));
  if (!allowEmpty && entries.length === 0) errs.push(fieldErrors.required(path, 'must contain at least one key/value pair'));
  return errs;
}

function validateStorageClass(sc: KubeObject): FieldError[] {
  const errs = [...provisionerErrors(strAt(sc, 'provisioner'), 'provisioner'), ...parameterErrors(sc.parameters, true, 'parameters')];
  const policy = strAt(sc, 'reclaimPolicy');
  if (policy !== '' && !RECLAIM_POLICIES.includes(policy)) errs.push(fieldErrors.notSupported('reclaimPolicy', policy, RECLAIM_POLICIES));
  const mode = sc.volumeBindingMode;
  if (typeof mode !== 'string') errs.push(fieldErrors.required('volumeBindingMode'));
  else if (!BINDING_MODES.includes(mode)) errs.push(fieldErrors.notSupported('volumeBindingMode', mode, BINDING_MODES));
  return errs;
}

/** reflect.DeepEqual of two map[string]string: an empty map differs from none, key order does not matter. */
export function sameStringMap(a: unknown, b: unknown): boolean {
  const norm = (m: unknown) => (isObj(m) ? JSON.stringify(Object.keys(m).sort().map((k) => [k, m[k]])) : 'nil');
  return norm(a) === norm(b);
}

function validateStorageClassUpdate(sc: KubeObject, old: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  if (!sameStringMap(sc.parameters, old.parameters)) {
    errs.push(fieldErrors.forbidden('parameters', 'updates to parameters are forbidden.'));
  }
  if (strAt(sc, 'provisioner') !== strAt(old, 'provisioner')) errs.push(fieldErrors.forbidden('provisioner', 'updates to provisioner are forbidden.'));
  if (strAt(sc, 'reclaimPolicy') !== strAt(old, 'reclaimPolicy')) errs.push(fieldErrors.forbidden('reclaimPolicy', 'updates to reclaimPolicy are forbidden.'));
  if (strAt(sc, 'volumeBindingMode') !== strAt(old, 'volumeBindingMode')) errs.push(fieldErrors.invalid('volumeBindingMode', sc.volumeBindingMode ?? null, FIELD_IMMUTABLE));
  return errs;
}

function storageClassName(obj: KubeObject): string {
  const a = obj.metadata?.annotations ?? {};
  const isDefault = a['storageclass.kubernetes.io/is-default-class'] === 'true' || a['storageclass.beta.kubernetes.io/is-default-class'] === 'true';
  return isDefault ? `${obj.metadata?.name ?? ''} (default)` : (obj.metadata?.name ?? '');
}

export const storageClassFacts: FactsMaker = (rules) => ({
  strategy: buildStrategy(rules, {
    defaults(sc) {
      setDefault(sc, 'reclaimPolicy', 'Delete');
      setDefault(sc, 'volumeBindingMode', 'Immediate');
    },
    validate: validateStorageClass,
    validateUpdate: (sc, old) => validateStorageClassUpdate(sc, old),
  }),
  printerColumns: [
    // kube marks the default class in the name cell itself.
    column('Name', 'string', 'The name of the storage class; "(default)" marks the default one.', storageClassName, 0, 'name'),
    column('Provisioner', 'string', 'The volume provisioner.', (o) => strAt(o, 'provisioner')),
    column('ReclaimPolicy', 'string', 'What happens to released volumes.', (o) => strAt(o, 'reclaimPolicy') || 'Delete'),
    column('VolumeBindingMode', 'string', 'When volumes are bound.', (o) => strAt(o, 'volumeBindingMode') || 'Immediate'),
    column('AllowVolumeExpansion', 'string', 'Whether volumes may grow.', (o) => o.allowVolumeExpansion === true),
    ageColumn,
  ],
  selectableFields: {},
});
