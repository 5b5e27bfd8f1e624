// StorageClasses (storage/v1 SetDefaults_StorageClass; pkg/apis/storage/validation ValidateStorageClass and its
// update: provisioner, parameters and reclaimPolicy forbidden to change, volumeBindingMode fixed; the strategy
// validates an update as a create first; GetWarningsForStorageClass; printStorageClass).

import { fieldErrors, type FieldError } from '../../../apis/errors.ts';
import type { KubeObject } from '../../types.ts';
import { FIELD_IMMUTABLE, validateQualifiedName } from '../../validation/meta.ts';
import { DEPRECATED_NODE_LABELS } from '../core/pod-warnings.ts';
import type { FactsMaker } from '../facts.ts';
import { buildStrategy } from '../generic.ts';
import { arrAt, isObj, objAt, objsAt, setDefault, strAt } from '../object.ts';
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

/**
 * core ValidateTopologySelectorTerm: each expression needs values, named once, under a label-name key, and each key
 * comes once. Also the term's key-to-values map, which the duplicate-term check compares.
 */
function topologySelectorTermErrors(term: unknown, path: string): { errs: FieldError[]; expressions: Map<string, Set<string>> } {
  const errs: FieldError[] = [];
  const expressions = new Map<string, Set<string>>();
  objsAt(term, 'matchLabelExpressions').forEach((req, i) => {
    const p = `${path}.matchLabelExpressions[${i}]`;
    const values = arrAt(req, 'values').map(String);
    if (values.length === 0) errs.push(fieldErrors.required(`${p}.values`));
    const seen = new Set<string>();
    values.forEach((v, j) => {
      if (seen.has(v)) errs.push(fieldErrors.duplicate(`${p}.values[${j}]`, v));
      seen.add(v);
    });
    const key = strAt(req, 'key');
    errs.push(...validateQualifiedName(key, `${p}.key`));
    if (expressions.has(key)) errs.push(fieldErrors.duplicate(`${p}.key`, key));
    expressions.set(key, seen);
  });
  return { errs, expressions };
}

/** A term's key-to-values map as Semantic.DeepEqual compares it (order-free; empty equal to nil). */
function expressionsKey(expressions: Map<string, Set<string>>): string {
  return JSON.stringify([...expressions.keys()].sort().map((k) => [k, [...expressions.get(k)!].sort()]));
}

/**
 * validateAllowedTopologies. kube compares each term with one nil map per term before the earlier terms (its list
 * starts with that many zero entries), so a term without expressions is reported once for each of them.
 */
function allowedTopologyErrors(topologies: unknown): FieldError[] {
  const terms = Array.isArray(topologies) ? topologies : [];
  const errs: FieldError[] = [];
  const seen: string[] = terms.map(() => expressionsKey(new Map()));
  terms.forEach((term, i) => {
    const path = `allowedTopologies[${i}]`;
    const checked = topologySelectorTermErrors(term, path);
    errs.push(...checked.errs);
    const key = expressionsKey(checked.expressions);
    for (const other of seen) if (other === key) errs.push(fieldErrors.duplicate(`${path}.matchLabelExpressions`, ''));
    seen.push(key);
  });
  return errs;
}

function validateStorageClass(sc: KubeObject): FieldError[] {
  const errs = [...provisionerErrors(strAt(sc, 'provisioner'), 'provisioner'), ...parameterErrors(sc.parameters, true, 'parameters')];
  const policy = strAt(sc, 'reclaimPolicy');
  if (policy !== '' && !RECLAIM_POLICIES.includes(policy)) errs.push(fieldErrors.notSupported('reclaimPolicy', policy, RECLAIM_POLICIES));
  const mode = sc.volumeBindingMode;
  if (typeof mode !== 'string') errs.push(fieldErrors.required('volumeBindingMode'));
  else if (!BINDING_MODES.includes(mode)) errs.push(fieldErrors.notSupported('volumeBindingMode', mode, BINDING_MODES));
  errs.push(...allowedTopologyErrors(sc.allowedTopologies));
  return errs;
}

/** storageutil.GetWarningsForStorageClass: deprecated node labels as allowedTopologies keys. */
function storageClassWarnings(sc: KubeObject): string[] {
  const out: string[] = [];
  objsAt(sc, 'allowedTopologies').forEach((term, i) => {
    objsAt(term, 'matchLabelExpressions').forEach((req, j) => {
      const key = strAt(req, 'key');
      if (Object.hasOwn(DEPRECATED_NODE_LABELS, key)) out.push(`allowedTopologies[${i}].matchLabelExpressions[${j}].key: ${DEPRECATED_NODE_LABELS[key]}`);
    });
  });
  return out;
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
    placesMetaUpdate: true,
    validateUpdate: (sc, old, _ctx, validateNew, validateMetaUpdate) => [...validateNew(), ...validateMetaUpdate(), ...validateStorageClassUpdate(sc, old)],
    warnings: storageClassWarnings,
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
