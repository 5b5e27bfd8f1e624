// ValidatePodSpecificAnnotations (pkg/apis/core/validation): the annotations a pod or pod template may only hold
// in a given form: the mirror pod marker, the pod deletion cost, and the deprecated seccomp and AppArmor profiles.

import { fieldErrors, type FieldError } from '../../../apis/errors.ts';
import { goDecodeError, goNamedString, GO_STRING, type GoType } from '../../../encoding/go-typed.ts';
import { parseJson } from '../../../encoding/json.ts';
import { jsonKind } from '../../../encoding/json-value.ts';
import { isObj, objsAt, strAt, type Obj } from '../object.ts';
import { validateTolerations } from './pod-validation.ts';
import { localDescendingPathErrors } from './local-paths.ts';

const MIRROR_POD_ANNOTATION = 'kubernetes.io/config.mirror';
export const POD_DELETION_COST_ANNOTATION = 'controller.kubernetes.io/pod-deletion-cost';
export const SECCOMP_POD_ANNOTATION = 'seccomp.security.alpha.kubernetes.io/pod';
export const SECCOMP_CONTAINER_ANNOTATION_PREFIX = 'container.seccomp.security.alpha.kubernetes.io/';
export const APPARMOR_CONTAINER_ANNOTATION_PREFIX = 'container.apparmor.security.beta.kubernetes.io/';
const TOLERATIONS_ANNOTATION = 'scheduler.alpha.kubernetes.io/tolerations';

const TOLERATION: GoType = {
  go: 'core.Toleration',
  struct: 'Toleration',
  fields: {
    key: GO_STRING,
    operator: goNamedString('core.TolerationOperator'),
    value: GO_STRING,
    effect: goNamedString('core.TaintEffect'),
    tolerationSeconds: { go: 'int64', scalar: 'int64' },
  },
};
const TOLERATIONS: GoType = { go: '[]core.Toleration', elem: TOLERATION };

/** The tolerations annotation decoded as encoding/json decodes it into []core.Toleration, or Go's error. */
function annotationTolerations(text: string): { tolerations: Obj[] } | { error: string } {
  let value: unknown;
  try {
    value = parseJson(text).value;
  } catch (err) {
    return { error: (err as Error).message };
  }
  if (value === null) return { tolerations: [] };
  if (!Array.isArray(value)) return { error: `json: cannot unmarshal ${jsonKind(value)} into Go value of type ${TOLERATIONS.go}` };
  const notObject = value.find((t) => t !== null && (typeof t !== 'object' || Array.isArray(t)));
  if (notObject !== undefined) return { error: `json: cannot unmarshal ${jsonKind(notObject)} into Go value of type ${TOLERATION.go}` };
  const error = goDecodeError(value, TOLERATIONS, '', []);
  return error === undefined ? { tolerations: value.map((t) => (isObj(t) ? t : {})) } : { error };
}

/** ValidateTolerationsInPodAnnotations: the deprecated tolerations annotation holds valid tolerations as JSON. */
function tolerationsAnnotationErrors(text: string, path: string): FieldError[] {
  const decoded = annotationTolerations(text);
  if ('error' in decoded) return [fieldErrors.invalid(path, TOLERATIONS_ANNOTATION, decoded.error)];
  return validateTolerations(decoded.tolerations, `${path}.${TOLERATIONS_ANNOTATION}`);
}

/**
 * helper.GetDeletionCostFromPodAnnotations: the cost, 0 without the annotation, or undefined for a value that is not a
 * 32-bit integer in canonical form (no plus sign, no leading zeros).
 */
export function podDeletionCost(annotations: unknown): number | undefined {
  if (!isObj(annotations) || !Object.hasOwn(annotations, POD_DELETION_COST_ANNOTATION)) return 0;
  const value = annotations[POD_DELETION_COST_ANNOTATION];
  if (typeof value !== 'string' || !/^(?:-\d+|0|[1-9]\d*)$/.test(value)) return undefined;
  const n = Number(value);
  return n >= -2147483648 && n <= 2147483647 ? n : undefined;
}

/** ValidateSeccompProfile: a seccomp profile as the deprecated annotations name one. */
function seccompProfileErrors(profile: string, path: string): FieldError[] {
  if (profile === 'runtime/default' || profile === 'docker/default' || profile === 'unconfined') return [];
  if (!profile.startsWith('localhost/')) return [fieldErrors.invalid(path, profile, 'must be a valid seccomp profile')];
  return localDescendingPathErrors(profile.slice('localhost/'.length), path);
}

/** apparmor.ValidateProfileFormat. */
const appArmorProfileValid = (p: string): boolean => p === '' || p === 'runtime/default' || p === 'unconfined' || p.startsWith('localhost/');

function hasContainer(spec: unknown, name: string): boolean {
  return ['initContainers', 'containers', 'ephemeralContainers'].some((list) => objsAt(spec, list).some((c) => strAt(c, 'name') === name));
}

/**
 * The annotations of a pod (`path` metadata.annotations) or pod template (`<template>.annotations`). An update may
 * keep a deletion cost its old object already held in an invalid form (`allowInvalidDeletionCost`).
 */
export function podSpecificAnnotationErrors(annotations: unknown, spec: unknown, path: string, allowInvalidDeletionCost = false): FieldError[] {
  if (!isObj(annotations)) return [];
  const errs: FieldError[] = [];
  const a = annotations as Obj;
  if (Object.hasOwn(a, MIRROR_POD_ANNOTATION) && strAt(spec, 'nodeName') === '') {
    errs.push(fieldErrors.invalid(`${path}[${MIRROR_POD_ANNOTATION}]`, a[MIRROR_POD_ANNOTATION], 'must set spec.nodeName if mirror pod annotation is set'));
  }
  const tolerations = a[TOLERATIONS_ANNOTATION];
  if (typeof tolerations === 'string' && tolerations !== '') errs.push(...tolerationsAnnotationErrors(tolerations, path));
  if (!allowInvalidDeletionCost && podDeletionCost(a) === undefined) {
    errs.push(fieldErrors.invalid(`${path}[${POD_DELETION_COST_ANNOTATION}]`, a[POD_DELETION_COST_ANNOTATION], 'must be a 32bit integer'));
  }
  // Go ranges over a map here: the keys are taken in order.
  const keys = Object.keys(a).sort();
  if (Object.hasOwn(a, SECCOMP_POD_ANNOTATION)) errs.push(...seccompProfileErrors(String(a[SECCOMP_POD_ANNOTATION]), `${path}.${SECCOMP_POD_ANNOTATION}`));
  for (const k of keys) if (k.startsWith(SECCOMP_CONTAINER_ANNOTATION_PREFIX)) errs.push(...seccompProfileErrors(String(a[k]), `${path}.${k}`));
  for (const k of keys) {
    if (!k.startsWith(APPARMOR_CONTAINER_ANNOTATION_PREFIX)) continue;
    const container = k.slice(APPARMOR_CONTAINER_ANNOTATION_PREFIX.length);
    if (!hasContainer(spec, container)) errs.push(fieldErrors.invalid(`${path}[${k}]`, container, 'container not found'));
    const profile = String(a[k]);
    if (!appArmorProfileValid(profile)) errs.push(fieldErrors.invalid(`${path}[${k}]`, profile, `invalid AppArmor profile name: ${JSON.stringify(profile)}`));
  }
  return errs;
}

/** The deprecated annotation's value for an AppArmor profile field ('' for one it cannot name). */
function appArmorAnnotationFor(profile: Obj): string {
  switch (profile.type) {
    case 'Unconfined':
      return 'unconfined';
    case 'RuntimeDefault':
      return 'runtime/default';
    case 'Localhost':
      return typeof profile.localhostProfile === 'string' ? `localhost/${profile.localhostProfile}` : '';
    default:
      return '';
  }
}

/** The AppArmor profile field an annotation value stands for, when it names a valid one (ValidateAppArmorProfileField). */
function appArmorFieldFor(annotation: string): Obj | undefined {
  if (annotation === 'unconfined') return { type: 'Unconfined' };
  if (annotation === 'runtime/default') return { type: 'RuntimeDefault' };
  if (!annotation.startsWith('localhost/')) return undefined;
  const local = annotation.slice('localhost/'.length);
  if (local === '' || local.trim() !== local || local.length > 4095) return undefined;
  return { type: 'Localhost', localhostProfile: local };
}

const sameProfile = (a: Obj, b: unknown): boolean => isObj(b) && a.type === b.type && a.localhostProfile === b.localhostProfile;

/**
 * applyAppArmorVersionSkew, on pod create: a container's AppArmor profile is written to its deprecated annotation
 * (from the container's field or the pod's), and an annotation without a field becomes the container's field unless
 * the pod's field already says the same; such an annotation, or one naming no valid profile, is warned about.
 */
export function applyAppArmorVersionSkew(pod: Obj, warnings: string[]): void {
  const spec = isObj(pod.spec) ? pod.spec : {};
  if (isObj(spec.os) && spec.os.name === 'windows') return;
  const podProfile = isObj(spec.securityContext) ? spec.securityContext.appArmorProfile : undefined;
  const meta = isObj(pod.metadata) ? pod.metadata : (pod.metadata = {});
  for (const list of ['initContainers', 'containers', 'ephemeralContainers']) {
    for (const c of objsAt(spec, list)) {
      const key = APPARMOR_CONTAINER_ANNOTATION_PREFIX + strAt(c, 'name');
      const annotations = isObj(meta.annotations) ? meta.annotations : undefined;
      const containerProfile = isObj(c.securityContext) ? c.securityContext.appArmorProfile : undefined;
      if (!annotations || !Object.hasOwn(annotations, key)) {
        const profile = isObj(containerProfile) ? containerProfile : isObj(podProfile) ? podProfile : undefined;
        const value = profile ? appArmorAnnotationFor(profile) : '';
        if (value !== '') meta.annotations = { ...(annotations ?? {}), [key]: value };
        continue;
      }
      if (containerProfile !== undefined && containerProfile !== null) continue;
      const field = appArmorFieldFor(String(annotations[key]));
      let warn = field === undefined;
      if (field && !sameProfile(field, podProfile)) {
        c.securityContext = { ...(isObj(c.securityContext) ? c.securityContext : {}), appArmorProfile: field };
        warn = true;
      }
      if (warn) warnings.push(`metadata.annotations[${key}]: deprecated since v1.30; use the "appArmorProfile" field instead`);
    }
  }
}

/**
 * ValidatePodSpecificAnnotationUpdates, before it validates the new annotations again: a pod update may not add,
 * change or remove the AppArmor annotations or the mirror pod marker.
 */
export function podSpecificAnnotationUpdateErrors(annotations: unknown, oldAnnotations: unknown, path: string): FieldError[] {
  const now = isObj(annotations) ? annotations : {};
  const before = isObj(oldAnnotations) ? oldAnnotations : {};
  const guarded = (k: string) => k.startsWith(APPARMOR_CONTAINER_ANNOTATION_PREFIX) || k === MIRROR_POD_ANNOTATION;
  const what = (k: string) => (k === MIRROR_POD_ANNOTATION ? 'mirror pod annotation' : 'AppArmor annotations');
  const errs: FieldError[] = [];
  // Go ranges over the maps here: the keys are taken in order.
  for (const k of Object.keys(before).sort()) {
    if (guarded(k) && (!Object.hasOwn(now, k) || now[k] !== before[k])) errs.push(fieldErrors.forbidden(`${path}[${k}]`, `may not remove or update ${what(k)}`));
  }
  for (const k of Object.keys(now).sort()) {
    if (guarded(k) && !Object.hasOwn(before, k)) errs.push(fieldErrors.forbidden(`${path}[${k}]`, `may not add ${what(k)}`));
  }
  return errs;
}
