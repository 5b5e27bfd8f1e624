// What the three access reviews (SubjectAccessReview, SelfSubjectAccessReview, LocalSubjectAccessReview) share,
// after kube's pkg/registry/authorization/util and pkg/apis/authorization/validation: the authorizer attributes
// of a spec, the status of a decision, the validation rules and their 422.

import { fieldErrors, invalid, renderedBadValue, type FieldError, type StatusError } from '../../apis/errors.ts';
import type { AuthzAttributes, AuthzResult } from '../../auth/authz/types.ts';
import type { UserInfo } from '../../auth/user.ts';
import type { KubeObject, ObjectMeta, RequestContext } from '../types.ts';
import { nonResourceAttributesGoString, objectMetaString } from './go-render.ts';

export const AUTHORIZATION_GROUP = 'authorization.k8s.io';

export type Obj = Record<string, unknown>;

export function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export const str = (v: unknown): string => (typeof v === 'string' ? v : '');

function strings(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
}

/** The object's spec (an absent one is echoed as {}, Go's zero struct). */
export function specOf(obj: KubeObject): Obj {
  if (!isObj(obj.spec)) obj.spec = {};
  return obj.spec as Obj;
}

export function resourceAttributesOf(spec: Obj): Obj | undefined {
  return isObj(spec.resourceAttributes) ? spec.resourceAttributes : undefined;
}

export function nonResourceAttributesOf(spec: Obj): Obj | undefined {
  return isObj(spec.nonResourceAttributes) ? spec.nonResourceAttributes : undefined;
}

/** Selectors in resourceAttributes are dropped unless the AuthorizeWithSelectors gate is on (alpha in 1.31). */
export function dropDisabledSelectors(spec: Obj, featureGates: Readonly<Record<string, boolean>>): void {
  if (featureGates.AuthorizeWithSelectors === true) return;
  const ra = resourceAttributesOf(spec);
  if (!ra) return;
  delete ra.fieldSelector;
  delete ra.labelSelector;
}

/** ValidateSelfSubjectAccessReviewSpec: exactly one of resourceAttributes and nonResourceAttributes. */
export function validateAttributesChoice(spec: Obj): FieldError[] {
  const ra = resourceAttributesOf(spec);
  const nra = nonResourceAttributesOf(spec);
  if (ra && nra) {
    return [fieldErrors.invalid('spec.nonResourceAttributes', renderedBadValue(nonResourceAttributesGoString(nra)), 'cannot be specified in combination with resourceAttributes')];
  }
  // Go prints the nil *NonResourceAttributes it passes as the string "null".
  if (!ra && !nra) return [fieldErrors.invalid('spec.resourceAttributes', 'null', 'exactly one of nonResourceAttributes or resourceAttributes must be specified')];
  return [];
}

/** ValidateSubjectAccessReviewSpec: the attributes choice, and a user or a group to check. */
export function validateSubjectSpec(spec: Obj): FieldError[] {
  const errs = validateAttributesChoice(spec);
  if (str(spec.user) === '' && strings(spec.groups).length === 0) {
    errs.push(fieldErrors.invalid('spec.user', str(spec.user), 'at least one of user or group must be specified'));
  }
  return errs;
}

function isEmptyValue(v: unknown): boolean {
  if (v === undefined || v === null || v === '' || v === 0 || v === false) return true;
  if (Array.isArray(v)) return v.length === 0;
  if (isObj(v)) return Object.keys(v).length === 0;
  return false;
}

/** The "metadata must be empty" rule (managedFields aside; LocalSubjectAccessReview also allows a namespace). */
export function validateEmptyMetadata(meta: ObjectMeta, allowNamespace: boolean): FieldError[] {
  const ignored = new Set(['managedFields', ...(allowNamespace ? ['namespace'] : [])]);
  const empty = Object.entries(meta).every(([k, v]) => ignored.has(k) || isEmptyValue(v));
  if (empty) return [];
  const detail = allowNamespace ? 'must be empty except for namespace' : 'must be empty';
  return [fieldErrors.invalid('metadata', renderedBadValue(objectMetaString(meta)), detail)];
}

/**
 * kube's NewInvalid(authorizationapi.Kind(review.Kind), "", errs): the decoded internal object has no kind, so
 * the message reads `.authorization.k8s.io "" is invalid: ...` and details carry no kind.
 */
export function invalidReview(errs: FieldError[]): StatusError {
  const err = invalid({ group: AUTHORIZATION_GROUP, kind: '' }, '', errs);
  if (err.details && err.details.kind === '') delete err.details.kind;
  return err;
}

/** The subject a SubjectAccessReview asks about (no groups are added: the spec is taken as is). */
export function subjectOf(spec: Obj): UserInfo {
  const user: { name: string; uid?: string; groups: string[]; extra?: Record<string, string[]> } = { name: str(spec.user), groups: strings(spec.groups) };
  if (str(spec.uid) !== '') user.uid = str(spec.uid);
  if (isObj(spec.extra)) {
    const extra: Record<string, string[]> = {};
    for (const [k, v] of Object.entries(spec.extra)) extra[k] = strings(v);
    user.extra = extra;
  }
  return user;
}

/** ResourceAttributesFrom / NonResourceAttributesFrom (an empty version matches all versions: "*"). */
export function attributesFrom(spec: Obj, user: UserInfo): AuthzAttributes {
  const ra = resourceAttributesOf(spec);
  if (ra) {
    return {
      user,
      verb: str(ra.verb),
      isResourceRequest: true,
      path: '',
      namespace: str(ra.namespace),
      apiGroup: str(ra.group),
      apiVersion: str(ra.version) || '*',
      resource: str(ra.resource),
      subresource: str(ra.subresource),
      name: str(ra.name),
    };
  }
  const nra = nonResourceAttributesOf(spec) ?? {};
  return { user, verb: str(nra.verb), isResourceRequest: false, path: str(nra.path), namespace: '', apiGroup: '', apiVersion: '', resource: '', subresource: '', name: '' };
}

/** SubjectAccessReviewStatus of a decision, with Go's omitempty fields left out. */
export function statusFrom(result: AuthzResult): Obj {
  const status: Obj = { allowed: result.decision === 'allow' };
  if (result.decision === 'deny') status.denied = true;
  if (result.reason) status.reason = result.reason;
  if (result.error) status.evaluationError = result.error;
  return status;
}

/** The managedFields kube's create handler records before the review's REST sees the object. */
export function recordManagedFields(ctx: RequestContext, obj: KubeObject): void {
  if (!ctx.trackManagedFields) return;
  const managed = ctx.trackManagedFields(undefined, obj, '').metadata.managedFields;
  if (managed && managed.length > 0) obj.metadata.managedFields = managed;
}
