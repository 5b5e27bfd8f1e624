// The shape of kube's authorizer library (k8s.io/apiserver/pkg/cel/library/authz.go) for admission policies:
//   authorizer.group('apps').resource('deployments').subresource('scale').namespace('ns').name('x').check('get').allowed()
//   authorizer.path('/healthz').check('get').reason()
//   authorizer.serviceAccount('ns', 'sa').group('').resource('pods').check('list').errored()
// Whoever evaluates an expression binds the variable `authorizer` to authorizerValue(...) with a synchronous
// authorizer (CEL evaluation is synchronous: RBAC over informer caches fits; webhooks would need a pre-fetch).

import { CelScalar } from '@bufbuild/cel';
import { OpaqueValue, expect, opaqueMethod, OPAQUE, noSuchOverload } from '../opaque.ts';

const { STRING, BOOL } = CelScalar;

/** The attributes of one check, as kube's authorizer.AttributesRecord names them. */
export interface CelAuthorizationAttributes {
  /** The user to check; undefined means the requesting user the binder chose. */
  user?: { name: string; groups: string[] };
  verb: string;
  resourceRequest: boolean;
  path?: string;
  apiGroup?: string;
  resource?: string;
  subresource?: string;
  namespace?: string;
  name?: string;
}

export interface CelAuthorizationDecision {
  decision: 'Allow' | 'Deny' | 'NoOpinion';
  reason: string;
  error?: string;
}

export type CelAuthorizer = (attrs: CelAuthorizationAttributes) => CelAuthorizationDecision;

class AuthorizerValue extends OpaqueValue {
  readonly typeName = 'kubernetes.authorization.Authorizer';
  readonly authorize: CelAuthorizer;
  readonly user: CelAuthorizationAttributes['user'];
  constructor(authorize: CelAuthorizer, user: CelAuthorizationAttributes['user']) {
    super();
    this.authorize = authorize;
    this.user = user;
  }
  protected identity(): string {
    return this.typeName;
  }
}

class CheckValue extends OpaqueValue {
  readonly typeName: string;
  readonly authz: AuthorizerValue;
  readonly attrs: Omit<CelAuthorizationAttributes, 'verb'>;
  constructor(authz: AuthorizerValue, attrs: Omit<CelAuthorizationAttributes, 'verb'>) {
    super();
    this.authz = authz;
    this.attrs = attrs;
    this.typeName = attrs.resourceRequest ? 'kubernetes.authorization.ResourceCheck' : 'kubernetes.authorization.PathCheck';
  }
  protected identity(): string {
    return JSON.stringify(this.attrs);
  }
  with(patch: Partial<CelAuthorizationAttributes>): CheckValue {
    return new CheckValue(this.authz, { ...this.attrs, ...patch });
  }
}

class DecisionValue extends OpaqueValue {
  readonly typeName = 'kubernetes.authorization.Decision';
  readonly decision: CelAuthorizationDecision;
  constructor(decision: CelAuthorizationDecision) {
    super();
    this.decision = decision;
  }
  protected identity(): string {
    return JSON.stringify(this.decision);
  }
}

/** The value to bind to the variable `authorizer`; `user` is the requester the checks are made for. */
export function authorizerValue(authorize: CelAuthorizer, user?: CelAuthorizationAttributes['user']): unknown {
  return new AuthorizerValue(authorize, user);
}

function resourceCheck(v: unknown): CheckValue {
  const c = expect(CheckValue, v);
  if (!c.attrs.resourceRequest) throw noSuchOverload();
  return c;
}

export const authorizerFuncs = [
  opaqueMethod('path', AuthorizerValue, [STRING], OPAQUE, (a, path) => new CheckValue(a, { user: a.user, resourceRequest: false, path: path as string })),
  opaqueMethod('group', AuthorizerValue, [STRING], OPAQUE, (a, group) => new CheckValue(a, { user: a.user, resourceRequest: true, apiGroup: group as string })),
  opaqueMethod('serviceAccount', AuthorizerValue, [STRING, STRING], OPAQUE, (a, ns, name) => {
    const user = { name: `system:serviceaccount:${ns as string}:${name as string}`, groups: ['system:serviceaccounts', `system:serviceaccounts:${ns as string}`, 'system:authenticated'] };
    return new AuthorizerValue(a.authorize, user);
  }),
  opaqueMethod('resource', CheckValue, [STRING], OPAQUE, (c, r) => resourceCheck(c).with({ resource: r as string })),
  opaqueMethod('subresource', CheckValue, [STRING], OPAQUE, (c, r) => resourceCheck(c).with({ subresource: r as string })),
  opaqueMethod('namespace', CheckValue, [STRING], OPAQUE, (c, r) => resourceCheck(c).with({ namespace: r as string })),
  opaqueMethod('name', CheckValue, [STRING], OPAQUE, (c, r) => resourceCheck(c).with({ name: r as string })),
  opaqueMethod('check', CheckValue, [STRING], OPAQUE, (c, verb) => {
    try {
      return new DecisionValue(c.authz.authorize({ ...c.attrs, verb: verb as string }));
    } catch (e) {
      return new DecisionValue({ decision: 'NoOpinion', reason: '', error: (e as Error).message });
    }
  }),
  opaqueMethod('allowed', DecisionValue, [], BOOL, (d) => d.decision.decision === 'Allow'),
  opaqueMethod('reason', DecisionValue, [], STRING, (d) => d.decision.reason),
  opaqueMethod('errored', DecisionValue, [], BOOL, (d) => d.decision.error !== undefined),
  opaqueMethod('error', DecisionValue, [], STRING, (d) => d.decision.error ?? ''),
];

