// ObjectMeta validation (k8s.io/apimachinery/pkg/api/validation/objectmeta.go and the core-group wrappers in
// pkg/apis/core/validation): names, namespace, labels, annotations, finalizers, owner references, managed
// fields, and what an update may not change. Paths and messages are kube's.

import { fieldErrors, goStringsText, renderedBadValue, type FieldError } from '../../apis/errors.ts';
import { goOwnerReference, goOwnerReferences, goStrings } from '../../apis/go-bad-values.ts';
import { goTimeString, isPrint } from '../../encoding/go-format.ts';
import type { ObjectMeta } from '../types.ts';
import { isDNS1123Label, isQualifiedName, isValidLabelValue, type NameValidator } from './names.ts';

export const FIELD_IMMUTABLE = 'field is immutable';
export const IS_NEGATIVE = 'must be greater than or equal to 0';
export const TOTAL_ANNOTATION_SIZE_LIMIT = 256 * 1024;
export const FIELD_MANAGER_MAX_LENGTH = 128;
const SUBRESOURCE_NAME_MAX_LENGTH = 256;

/** The finalizer names core types accept without a domain prefix. */
export const STANDARD_FINALIZERS: ReadonlySet<string> = new Set(['kubernetes', 'orphan', 'foregroundDeletion']);

export interface ObjectMetaRules {
  readonly namespaced: boolean;
  /** How metadata.name (and generateName, as a prefix) must look for this type. */
  readonly nameFn: NameValidator;
  /**
   * Core-group rule (pkg/apis/core/validation.ValidateObjectMeta): a finalizer without '/' must be a standard
   * one. Most built-in types validate their metadata this way; RBAC, CRDs and custom resources do not.
   */
  readonly kubeFinalizers?: boolean;
}

function record(v: unknown): Record<string, unknown> | undefined {
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
}

function str(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

export function validateNonnegative(value: number, path: string): FieldError[] {
  return value < 0 ? [fieldErrors.invalid(path, value, IS_NEGATIVE)] : [];
}

export function validateQualifiedName(value: string, path: string): FieldError[] {
  return isQualifiedName(value).map((m) => fieldErrors.invalid(path, value, m));
}

export function validateDNS1123Label(value: string, path: string): FieldError[] {
  return isDNS1123Label(value).map((m) => fieldErrors.invalid(path, value, m));
}

/** v1validation.ValidateLabels: errors carry the labels' path, not the key's. */
export function validateLabels(labels: unknown, path: string): FieldError[] {
  const errs: FieldError[] = [];
  for (const [k, v] of Object.entries(record(labels) ?? {})) {
    for (const m of isQualifiedName(k)) errs.push(fieldErrors.invalid(path, k, m));
    for (const m of isValidLabelValue(str(v))) errs.push(fieldErrors.invalid(path, v, m));
  }
  return errs;
}

/** Keys are qualified names compared case-insensitively; keys and values together at most 256 KiB. */
export function validateAnnotations(annotations: unknown, path: string): FieldError[] {
  const errs: FieldError[] = [];
  let total = 0;
  for (const [k, v] of Object.entries(record(annotations) ?? {})) {
    for (const m of isQualifiedName(k.toLowerCase())) errs.push(fieldErrors.invalid(path, k, m));
    total += Buffer.byteLength(k) + Buffer.byteLength(str(v));
  }
  if (total > TOTAL_ANNOTATION_SIZE_LIMIT) errs.push(fieldErrors.tooLong(path, TOTAL_ANNOTATION_SIZE_LIMIT));
  return errs;
}

/** apimachinery ValidateFinalizers: qualified names, and not both orphan and foregroundDeletion. */
export function validateFinalizers(finalizers: unknown, path: string): FieldError[] {
  const list = Array.isArray(finalizers) ? finalizers.map(str) : [];
  const errs: FieldError[] = [];
  for (const f of list) errs.push(...validateQualifiedName(f, path));
  if (list.includes('orphan') && list.includes('foregroundDeletion')) {
    errs.push(fieldErrors.invalid(path, goStrings(list), 'finalizer orphan and foregroundDeletion cannot be both set'));
  }
  return errs;
}

/** The core-group check for finalizer names without a domain (validateKubeFinalizerName). */
export function validateKubeFinalizerName(name: string, path: string): FieldError[] {
  if (!name.includes('/') && !STANDARD_FINALIZERS.has(name)) {
    return [fieldErrors.invalid(path, name, 'name is neither a standard finalizer name nor is it fully qualified')];
  }
  return [];
}

function kubeFinalizerErrors(finalizers: unknown, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (Array.isArray(finalizers)) finalizers.forEach((f, i) => errs.push(...validateKubeFinalizerName(str(f), `${path}[${i}]`)));
  return errs;
}

/** schema.ParseGroupVersion as FromAPIVersionAndKind uses it: unparseable versions give an empty version. */
function versionOf(apiVersion: string): { group: string; version: string } {
  if (apiVersion === '') return { group: '', version: '' };
  const parts = apiVersion.split('/');
  if (parts.length === 1) return { group: '', version: parts[0] };
  if (parts.length === 2) return { group: parts[0], version: parts[1] };
  return { group: '', version: '' };
}

export function validateOwnerReferences(refs: unknown, path: string): FieldError[] {
  if (!Array.isArray(refs)) return [];
  const errs: FieldError[] = [];
  let firstController = '';
  for (const raw of refs) {
    const ref = record(raw) ?? {};
    const apiVersion = str(ref.apiVersion);
    const kind = str(ref.kind);
    const gv = versionOf(apiVersion);
    if (gv.version === '') errs.push(fieldErrors.invalid(`${path}.apiVersion`, apiVersion, 'version must not be empty'));
    if (kind === '') errs.push(fieldErrors.invalid(`${path}.kind`, kind, 'must not be empty'));
    if (str(ref.name) === '') errs.push(fieldErrors.invalid(`${path}.name`, str(ref.name), 'must not be empty'));
    if (str(ref.uid) === '') errs.push(fieldErrors.invalid(`${path}.uid`, str(ref.uid), 'must not be empty'));
    if (gv.group === '' && gv.version === 'v1' && kind === 'Event') {
      errs.push(fieldErrors.invalid(path, goOwnerReference(raw), '/v1, Kind=Event is disallowed from being an owner'));
    }
    if (ref.controller === true) {
      const current = `${kind}/${str(ref.name)}`;
      if (firstController !== '') {
        errs.push(
          fieldErrors.invalid(path, goOwnerReferences(refs), `Only one reference can have Controller set to true. Found "true" in references for ${firstController} and ${current}`),
        );
      } else {
        firstController = current;
      }
    }
  }
  return errs;
}

const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;

/** Whether every character of s is printable ASCII (the common case, with no Unicode table to consult). */
export const isPrintableAscii = (s: string): boolean => PRINTABLE_ASCII.test(s);

/** ValidateFieldManager (a write's ?fieldManager= and each managedFields entry's manager): at most 128 bytes,
 * printable runes only. */
export function validateFieldManager(manager: string, path: string): FieldError[] {
  const errs: FieldError[] = [];
  // Every manager name kubectl, client-go and controllers send: no character to look up in Unicode's tables.
  if (PRINTABLE_ASCII.test(manager)) {
    if (manager.length > FIELD_MANAGER_MAX_LENGTH) errs.push(fieldErrors.tooLong(path, FIELD_MANAGER_MAX_LENGTH));
    return errs;
  }
  if (Buffer.byteLength(manager) > FIELD_MANAGER_MAX_LENGTH) errs.push(fieldErrors.tooLong(path, FIELD_MANAGER_MAX_LENGTH));
  let byteIndex = 0;
  for (const ch of manager) {
    if (!isPrint(ch)) {
      const cp = ch.codePointAt(0) ?? 0;
      const hex = cp.toString(16).toUpperCase().padStart(4, '0');
      errs.push(fieldErrors.invalid(path, manager, `invalid character U+${hex} (at position ${byteIndex})`));
    }
    byteIndex += Buffer.byteLength(ch);
  }
  return errs;
}

export function validateManagedFields(entries: unknown, path: string): FieldError[] {
  if (!Array.isArray(entries)) return [];
  const errs: FieldError[] = [];
  entries.forEach((raw, i) => {
    const e = record(raw) ?? {};
    const p = `${path}[${i}]`;
    const op = str(e.operation);
    if (op !== 'Apply' && op !== 'Update') errs.push(fieldErrors.invalid(`${p}.operation`, op, 'must be `Apply` or `Update`'));
    const fieldsType = str(e.fieldsType);
    if (fieldsType !== '' && fieldsType !== 'FieldsV1') errs.push(fieldErrors.invalid(`${p}.fieldsType`, fieldsType, 'must be `FieldsV1`'));
    errs.push(...validateFieldManager(str(e.manager), `${p}.manager`));
    if (str(e.subresource).length > SUBRESOURCE_NAME_MAX_LENGTH) errs.push(fieldErrors.tooLong(`${p}.subresource`, SUBRESOURCE_NAME_MAX_LENGTH));
  });
  return errs;
}

function commonMetaErrors(meta: Record<string, unknown>, namespaced: boolean, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const namespace = str(meta.namespace);
  if (namespaced) {
    if (namespace === '') errs.push(fieldErrors.required(`${path}.namespace`));
    else for (const m of isDNS1123Label(namespace)) errs.push(fieldErrors.invalid(`${path}.namespace`, namespace, m));
  } else if (namespace !== '') {
    errs.push(fieldErrors.forbidden(`${path}.namespace`, 'not allowed on this type'));
  }
  if (typeof meta.generation === 'number') errs.push(...validateNonnegative(meta.generation, `${path}.generation`));
  errs.push(...validateLabels(meta.labels, `${path}.labels`));
  errs.push(...validateAnnotations(meta.annotations, `${path}.annotations`));
  errs.push(...validateOwnerReferences(meta.ownerReferences, `${path}.ownerReferences`));
  errs.push(...validateFinalizers(meta.finalizers, `${path}.finalizers`));
  errs.push(...validateManagedFields(meta.managedFields, `${path}.managedFields`));
  return errs;
}

/**
 * ValidateObjectMeta on create (name generation already done): generateName checked as a prefix, name
 * required, then namespace, generation, labels, annotations, owner references, finalizers, managed fields.
 */
export function validateObjectMeta(metadata: ObjectMeta | unknown, rules: ObjectMetaRules, path = 'metadata'): FieldError[] {
  const meta = record(metadata) ?? {};
  const errs: FieldError[] = [];
  const generateName = str(meta.generateName);
  const name = str(meta.name);
  if (generateName !== '') {
    for (const m of rules.nameFn(generateName, true)) errs.push(fieldErrors.invalid(`${path}.generateName`, generateName, m));
  }
  if (name === '') errs.push(fieldErrors.required(`${path}.name`, 'name or generateName is required'));
  else for (const m of rules.nameFn(name, false)) errs.push(fieldErrors.invalid(`${path}.name`, name, m));
  errs.push(...commonMetaErrors(meta, rules.namespaced, path));
  if (rules.kubeFinalizers) errs.push(...kubeFinalizerErrors(meta.finalizers, `${path}.finalizers`));
  return errs;
}

function same(a: unknown, b: unknown): boolean {
  if (a === undefined || a === null || a === '') return b === undefined || b === null || b === '';
  return JSON.stringify(a) === JSON.stringify(b);
}

export function validateImmutableField(newVal: unknown, oldVal: unknown, path: string): FieldError[] {
  return same(newVal, oldVal) ? [] : [fieldErrors.invalid(path, newVal ?? null, FIELD_IMMUTABLE)];
}

/**
 * ValidateObjectMetaUpdate: no new finalizers once deleting, resourceVersion present (the store fills it for
 * unconditional updates before validating), generation not decremented, identity and deletion fields
 * unchanged, and labels, annotations, owner references and managed fields well-formed.
 */
export function validateObjectMetaUpdate(newMetadata: ObjectMeta | unknown, oldMetadata: ObjectMeta | unknown, path = 'metadata', kubeFinalizers = false): FieldError[] {
  const n = record(newMetadata) ?? {};
  const o = record(oldMetadata) ?? {};
  const errs: FieldError[] = [];
  if (o.deletionTimestamp) {
    const oldSet = new Set(Array.isArray(o.finalizers) ? o.finalizers.map(str) : []);
    const added = [...new Set(Array.isArray(n.finalizers) ? n.finalizers.map(str) : [])].filter((f) => !oldSet.has(f)).sort();
    if (added.length > 0) {
      errs.push(
        fieldErrors.forbidden(
          `${path}.finalizers`,
          `no new finalizers can be added if the object is being deleted, found new finalizers ${goStringsText(added)}`,
        ),
      );
    }
  }
  if (str(n.resourceVersion) === '') errs.push(fieldErrors.invalid(`${path}.resourceVersion`, '', 'must be specified for an update'));
  const newGen = typeof n.generation === 'number' ? n.generation : 0;
  const oldGen = typeof o.generation === 'number' ? o.generation : 0;
  if (newGen < oldGen) errs.push(fieldErrors.invalid(`${path}.generation`, newGen, 'must not be decremented'));
  errs.push(...validateImmutableField(str(n.name), str(o.name), `${path}.name`));
  errs.push(...validateImmutableField(str(n.namespace), str(o.namespace), `${path}.namespace`));
  errs.push(...validateImmutableField(str(n.uid), str(o.uid), `${path}.uid`));
  errs.push(...validateImmutableField(n.creationTimestamp, o.creationTimestamp, `${path}.creationTimestamp`));
  // A *metav1.Time prints as time.Time's String().
  if (!same(n.deletionTimestamp, o.deletionTimestamp)) {
    const bad = typeof n.deletionTimestamp === 'string' ? renderedBadValue(goTimeString(n.deletionTimestamp)) : (n.deletionTimestamp ?? null);
    errs.push(fieldErrors.invalid(`${path}.deletionTimestamp`, bad, FIELD_IMMUTABLE));
  }
  errs.push(...validateImmutableField(n.deletionGracePeriodSeconds, o.deletionGracePeriodSeconds, `${path}.deletionGracePeriodSeconds`));
  errs.push(...validateLabels(n.labels, `${path}.labels`));
  errs.push(...validateAnnotations(n.annotations, `${path}.annotations`));
  errs.push(...validateOwnerReferences(n.ownerReferences, `${path}.ownerReferences`));
  errs.push(...validateManagedFields(n.managedFields, `${path}.managedFields`));
  if (kubeFinalizers) errs.push(...kubeFinalizerErrors(n.finalizers, `${path}.finalizers`));
  return errs;
}
