// kube 1.31's authorization of what a ValidatingAdmissionPolicy's paramKind and a binding's paramRef name
// (pkg/registry/admissionregistration/validatingadmissionpolicy{,binding}/authz.go): a write that passes validation
// is refused unless its user may "get" the parameter resource (paramKind: every object of it; paramRef: the named
// one), reported as a Forbidden field error among the validation errors. system:masters is exempt, and an update
// that keeps the paramKind (the paramRef and policy) is not checked again.
//
// The check runs where kube's strategy runs it: after the type's validation passed, before validating admission
// (the wrapped stores call it through the request's validate hook).

import { fieldErrors, invalid } from '../../../apis/errors.ts';
import type { Authorizer } from '../../../auth/authz/types.ts';
import { SYSTEM_MASTERS, type UserInfo } from '../../../auth/user.ts';
import { loopbackContext } from '../../loopback-context.ts';
import type { KubeObject, Registry, RequestContext, ResourceStore } from '../../types.ts';
import { isObj, type Obj } from '../object.ts';
import { parseGroupVersion } from './policies.ts';

const GROUP = 'admissionregistration.k8s.io';

export interface ParamAccessChecks {
  /** The server's authorizer. */
  authorizer(): Authorizer;
  /** The registry: its served kinds stand for kube's RESTMapper, and it holds the policies bindings name. */
  registry(): Registry;
}

const specOf = (obj: KubeObject | undefined): Obj => (isObj(obj?.spec) ? obj.spec : {});
const text = (v: unknown): string => (typeof v === 'string' ? v : '');

/** fmt's %v of the request's *user.DefaultInfo: `&{name uid [groups] map[key:[values]]}`. */
export function goUserText(user: UserInfo): string {
  const extra = user.extra ?? {};
  const entries = Object.keys(extra)
    .sort()
    .map((k) => `${k}:[${extra[k].join(' ')}]`);
  return `&{${user.name} ${user.uid ?? ''} [${user.groups.join(' ')}] map[${entries.join(' ')}]}`;
}

/** The RESTMapper's kind -> resource for one served group/version; undefined when the kind is not served there. */
function resourceOfKind(registry: Registry, group: string, version: string, kind: string): string | undefined {
  return registry.all().find((d) => d.group === group && d.version === version && d.kind === kind)?.resource;
}

/** The group, version and resource a paramKind names: "*" for what cannot be told (kube authorizes all of them). */
function paramResource(registry: Registry, paramKind: Obj | undefined): { apiGroup: string; apiVersion: string; resource: string } {
  const all = { apiGroup: '*', apiVersion: '*', resource: '*' };
  if (!paramKind) return all;
  const gv = parseGroupVersion(text(paramKind.apiVersion));
  if (!gv) return all;
  return { apiGroup: gv.group, apiVersion: gv.version, resource: resourceOfKind(registry, gv.group, gv.version, text(paramKind.kind)) ?? '*' };
}

/** Whether the user may get the resource (named, in a namespace, or "*"); an authorizer's error is its refusal. */
async function mayGet(checks: ParamAccessChecks, user: UserInfo, target: { apiGroup: string; apiVersion: string; resource: string }, namespace: string, name: string): Promise<{ allowed: true } | { allowed: false; error?: string }> {
  const result = await checks.authorizer().authorize({ user, verb: 'get', isResourceRequest: true, path: '', namespace, apiGroup: target.apiGroup, apiVersion: target.apiVersion, resource: target.resource, subresource: '', name });
  if (result.decision === 'allow') return { allowed: true };
  return { allowed: false, error: result.error };
}

const sameParamKind = (a: unknown, b: unknown): boolean => isObj(a) && isObj(b) && text(a.apiVersion) === text(b.apiVersion) && text(a.kind) === text(b.kind);

/** validatingAdmissionPolicyStrategy.authorizeCreate/authorizeUpdate: the Forbidden detail, if refused. */
export async function paramKindRefusal(checks: ParamAccessChecks, user: UserInfo, policy: KubeObject, old: KubeObject | undefined): Promise<string | undefined> {
  const paramKind = specOf(policy).paramKind;
  if (!isObj(paramKind)) return undefined;
  if (old && sameParamKind(specOf(old).paramKind, paramKind)) return undefined;
  if (user.groups.includes(SYSTEM_MASTERS)) return undefined;
  const access = await mayGet(checks, user, paramResource(checks.registry(), paramKind), '*', '*');
  if (access.allowed) return undefined;
  return access.error ?? `user ${goUserText(user)} must have "get" permission on all objects of the referenced paramKind (kind=${text(paramKind.kind)}, apiVersion=${text(paramKind.apiVersion)})`;
}

/**
 * Go compares the old and new ParamRef structs with ==: their selector and parameterNotFoundAction are pointers, so
 * two separately decoded refs are equal only when both are unset.
 */
function sameParamRef(a: unknown, b: unknown): boolean {
  if (!isObj(a) || !isObj(b)) return false;
  const unsetPointers = (r: Obj) => (r.selector === undefined || r.selector === null) && (r.parameterNotFoundAction === undefined || r.parameterNotFoundAction === null);
  return text(a.name) === text(b.name) && text(a.namespace) === text(b.namespace) && unsetPointers(a) && unsetPointers(b);
}

async function boundPolicy(registry: Registry, name: string): Promise<KubeObject | undefined> {
  const def = registry.lookup(GROUP, 'v1', 'validatingadmissionpolicies');
  if (!def || name === '') return undefined;
  return registry.store(def).get(loopbackContext(), name).catch(() => undefined);
}

/** validatingAdmissionPolicyBindingStrategy.authorizeCreate/authorizeUpdate: the Forbidden detail, if refused. */
export async function paramRefRefusal(checks: ParamAccessChecks, user: UserInfo, binding: KubeObject, old: KubeObject | undefined): Promise<string | undefined> {
  const spec = specOf(binding);
  const paramRef = spec.paramRef;
  if (!isObj(paramRef)) return undefined;
  if (old && sameParamRef(specOf(old).paramRef, paramRef) && text(specOf(old).policyName) === text(spec.policyName)) return undefined;
  if (user.groups.includes(SYSTEM_MASTERS)) return undefined;
  const policy = await boundPolicy(checks.registry(), text(spec.policyName));
  const paramKind = specOf(policy).paramKind;
  const target = paramResource(checks.registry(), isObj(paramKind) ? paramKind : undefined);
  const access = await mayGet(checks, user, target, text(paramRef.namespace), text(paramRef.name));
  if (access.allowed) return undefined;
  return access.error ?? `user ${goUserText(user)} does not have "get" permission on the object referenced by paramRef`;
}

type Refusal = (checks: ParamAccessChecks, user: UserInfo, obj: KubeObject, old: KubeObject | undefined) => Promise<string | undefined>;

/** The store with the check run on main-resource writes, right before the request's validating admission. */
function checkedStore(store: ResourceStore, checks: ParamAccessChecks, field: string, refusal: Refusal): ResourceStore {
  const gk = { group: store.definition.group, kind: store.definition.kind };
  const checked = (ctx: RequestContext): RequestContext => ({
    ...ctx,
    validate: async (obj, old) => {
      if (obj) {
        const detail = await refusal(checks, ctx.user, obj, old);
        if (detail !== undefined) throw invalid(gk, obj.metadata?.name ?? '', [fieldErrors.forbidden(field, detail)]);
      }
      await ctx.validate?.(obj, old);
    },
  });
  return {
    ...store,
    create: (ctx, obj) => store.create(checked(ctx), obj),
    update: (ctx, name, tryUpdate, options) => store.update(options?.subresource ? ctx : checked(ctx), name, tryUpdate, options),
  };
}

/** The store wrappers to give the registry (its storeWrappers option). */
export function paramAccessWrappers(checks: ParamAccessChecks): ReadonlyMap<string, (store: ResourceStore) => ResourceStore> {
  return new Map([
    [`${GROUP}/validatingadmissionpolicies`, (s: ResourceStore) => checkedStore(s, checks, 'spec.paramKind', paramKindRefusal)],
    [`${GROUP}/validatingadmissionpolicybindings`, (s: ResourceStore) => checkedStore(s, checks, 'spec.paramRef', paramRefRefusal)],
  ]);
}
