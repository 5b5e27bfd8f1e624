// The CEL variables admission expressions see (webhook matchConditions and ValidatingAdmissionPolicy): object,
// oldObject, request (the AdmissionRequest), authorizer (checks for the requesting user through the server's
// authorizer), and for policies params, namespaceObject and variables.

import type { CelAuthorizationAttributes, CelAuthorizationDecision } from '../cel/library/authorizer.ts';
import { DYN, objectType, type DeclType } from '../cel/decl.ts';
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

const STRING: DeclType = { kind: 'string' };
const STRINGS: DeclType = { kind: 'list', elem: STRING };
const TIMESTAMP: DeclType = { kind: 'timestamp' };
const INT: DeclType = { kind: 'int' };

const GROUP_VERSION_KIND = objectType({ group: STRING, version: STRING, kind: STRING });
const GROUP_VERSION_RESOURCE = objectType({ group: STRING, version: STRING, resource: STRING });

/** kube's BuildRequestType: `request` is typed, so an unknown field or a mistyped use fails to compile. */
const REQUEST_TYPE = objectType({
  kind: GROUP_VERSION_KIND,
  resource: GROUP_VERSION_RESOURCE,
  subResource: STRING,
  requestKind: GROUP_VERSION_KIND,
  requestResource: GROUP_VERSION_RESOURCE,
  requestSubResource: STRING,
  name: STRING,
  namespace: STRING,
  operation: STRING,
  userInfo: objectType({ username: STRING, uid: STRING, groups: STRINGS, extra: { kind: 'map', value: STRINGS } }),
  dryRun: { kind: 'bool' },
  options: DYN,
});

/** kube's BuildNamespaceType (its metadata's uid field is spelled `UID` there too). */
const NAMESPACE_TYPE = objectType({
  metadata: objectType({
    name: STRING,
    generateName: STRING,
    namespace: STRING,
    labels: { kind: 'map', value: STRING },
    annotations: { kind: 'map', value: STRING },
    UID: STRING,
    creationTimestamp: TIMESTAMP,
    deletionGracePeriodSeconds: INT,
    deletionTimestamp: TIMESTAMP,
    generation: INT,
    resourceVersion: STRING,
    finalizers: STRINGS,
  }),
  spec: objectType({ finalizers: STRINGS }),
  status: objectType({
    conditions: { kind: 'list', elem: objectType({ status: STRING, type: STRING, lastTransitionTime: TIMESTAMP, message: STRING, reason: STRING }) },
    phase: STRING,
  }),
});

/**
 * The variables admission expressions are compiled against, as kube's admission CEL compiler declares them: object
 * and oldObject dyn (typed by a resource's schema for the policy type checker), request and namespaceObject typed,
 * authorizer, params only when the policy has a paramKind (or, for a policy's matchConditions, always), and
 * `variables` only where a policy's variables are composed in, typed by each variable's result.
 */
export function admissionDeclarations(options: { params?: boolean | DeclType; variables?: ReadonlyMap<string, DeclType>; object?: DeclType } = {}): Record<string, DeclType> {
  const object = options.object ?? DYN;
  const out: Record<string, DeclType> = { object, oldObject: object, request: REQUEST_TYPE, namespaceObject: NAMESPACE_TYPE, authorizer: DYN };
  if (options.params) out.params = options.params === true ? DYN : options.params;
  if (options.variables) out.variables = objectType(Object.fromEntries(options.variables));
  return out;
}

export const toCel = (v: unknown): unknown => cel().jsonToCel(v, DYN);
