// The CEL variables admission expressions see (webhook matchConditions and ValidatingAdmissionPolicy): object,
// oldObject, request (the AdmissionRequest), authorizer (checks for the requesting user through the server's
// authorizer), and for policies params, namespaceObject and variables.

import type { CelAuthorizationAttributes, CelAuthorizationDecision } from '../cel/library/authorizer.ts';
import { DYN, type DeclType } from '../cel/decl.ts';
import { cel } from '../cel/lazy.ts';
import type { Authorizer } from '../auth/authz/types.ts';
import type { UserInfo } from '../auth/user.ts';
import type { AdmissionAttributes } from './types.ts';

/** The AdmissionRequest shape of the attributes (what `request` is and what a webhook receives, less uid). */
export function requestOf(a: AdmissionAttributes, invocation?: { resource: AdmissionAttributes['resource']; kind: AdmissionAttributes['kind'] }): Record<string, unknown> {
  const kind = invocation?.kind ?? a.kind;
  const resource = invocation?.resource ?? a.resource;
  const user: Record<string, unknown> = { username: a.userInfo.name };
  if (a.userInfo.uid) user.uid = a.userInfo.uid;
  if (a.userInfo.groups.length) user.groups = [...a.userInfo.groups];
  if (a.userInfo.extra && Object.keys(a.userInfo.extra).length) user.extra = a.userInfo.extra;
  const r: Record<string, unknown> = {
    kind: { group: kind.group, version: kind.version, kind: kind.kind },
    resource: { group: resource.group, version: resource.version, resource: resource.resource },
  };
  if (a.subResource) r.subResource = a.subResource;
  r.requestKind = { group: a.kind.group, version: a.kind.version, kind: a.kind.kind };
  r.requestResource = { group: a.resource.group, version: a.resource.version, resource: a.resource.resource };
  if (a.subResource) r.requestSubResource = a.subResource;
  if (a.name) r.name = a.name;
  if (a.namespace) r.namespace = a.namespace;
  r.operation = a.operation;
  r.userInfo = user;
  r.dryRun = a.dryRun;
  r.options = a.options;
  return r;
}

/** The authorizer library's view of the server's authorizer, for the requesting user (synchronous, as CEL is). */
export function celAuthorizer(authorizer: Authorizer | undefined, requester: UserInfo): unknown {
  const check = (attrs: CelAuthorizationAttributes): CelAuthorizationDecision => {
    if (!authorizer) return { decision: 'NoOpinion', reason: '', error: 'no authorizer' };
    const user: UserInfo = attrs.user ? { name: attrs.user.name, groups: attrs.user.groups } : requester;
    const result = authorizer.authorize({
      user,
      verb: attrs.verb,
      isResourceRequest: attrs.resourceRequest,
      path: attrs.path ?? '',
      namespace: attrs.namespace ?? '',
      apiGroup: attrs.apiGroup ?? '',
      apiVersion: '*',
      resource: attrs.resource ?? '',
      subresource: attrs.subresource ?? '',
      name: attrs.name ?? '',
    });
    if (result instanceof Promise) {
      result.catch(() => undefined);
      return { decision: 'NoOpinion', reason: '', error: 'the authorizer answers asynchronously' };
    }
    const decision = result.decision === 'allow' ? 'Allow' : result.decision === 'deny' ? 'Deny' : 'NoOpinion';
    return result.error !== undefined ? { decision, reason: result.reason, error: result.error } : { decision, reason: result.reason };
  };
  return cel().authorizerValue(check, undefined);
}

/** Declarations: every admission variable is dyn (objects of any kind). */
export function admissionDeclarations(names: readonly string[]): Record<string, DeclType> {
  const out: Record<string, DeclType> = {};
  for (const n of names) out[n] = DYN;
  return out;
}

export const toCel = (v: unknown): unknown => cel().jsonToCel(v, DYN);
