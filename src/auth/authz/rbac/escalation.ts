// RBAC's escalation prevention (pkg/registry/rbac/*/policybased): a user may write a Role or ClusterRole only with
// rules it already holds (or with the `escalate` verb on it), and a binding only to a role whose rules it holds
// (or with the `bind` verb on that role). system:masters is exempt. The checks wrap the generic stores.

import { forbidden } from '../../../apis/errors.ts';
import type { KubeObject, RequestContext, ResourceStore } from '../../../registry/types.ts';
import { SYSTEM_MASTERS, type UserInfo } from '../../user.ts';
import type { Authorizer, AuthzAttributes } from '../types.ts';
import type { RbacRuleResolver } from './authorizer.ts';
import { RBAC_GROUP } from './policy.ts';
import { compactRules, compactString, covers, goQuotedList, rulesOf, type PolicyRule, type RoleRef } from './rules.ts';

export interface EscalationChecks {
  /** The server's authorizer (asked about `escalate` and `bind`). */
  authorizer(): Authorizer;
  /** The RBAC rule resolver (what the user holds). */
  resolver(): RbacRuleResolver;
}

const FULL_AUTHORITY: PolicyRule[] = [
  { verbs: ['*'], apiGroups: ['*'], resources: ['*'], resourceNames: [], nonResourceURLs: [] },
  { verbs: ['*'], apiGroups: [], resources: [], resourceNames: [], nonResourceURLs: ['*'] },
];

/** rbacregistry.EscalationAllowed: system:masters may do anything (the API server's own loopback user is one). */
function escalationAllowed(user: UserInfo): boolean {
  return user.groups.includes(SYSTEM_MASTERS);
}

function resourceAttributes(user: UserInfo, verb: string, namespace: string, resource: string, name: string): AuthzAttributes {
  return { user, verb, isResourceRequest: true, path: '', namespace, apiGroup: RBAC_GROUP, apiVersion: '*', resource, subresource: '', name };
}

async function allowed(checks: EscalationChecks, attrs: AuthzAttributes): Promise<boolean> {
  return (await checks.authorizer().authorize(attrs)).decision === 'allow';
}

/** validation.ConfirmNoEscalation: the message kube gives, or undefined when the user holds every rule. */
function escalationError(checks: EscalationChecks, user: UserInfo, namespace: string, rules: readonly PolicyRule[]): string | undefined {
  const owner = checks.resolver().rulesFor(user, namespace);
  const { covered, missing } = covers(owner.rules, rules);
  if (covered) return undefined;
  const descriptions = [...new Set(compactRules(missing).map(compactString))].sort();
  let msg = `user ${JSON.stringify(user.name)} (groups=${goQuotedList(user.groups)}) is attempting to grant RBAC permissions not currently held:\n${descriptions.join('\n')}`;
  if (owner.errors.length > 0) msg += `; resolution errors: [${owner.errors.length === 1 ? owner.errors[0] : `[${owner.errors.join(", ")}]`}]`;
  return msg;
}

function roleRefOf(obj: KubeObject): RoleRef {
  const r = (obj.roleRef ?? {}) as Record<string, unknown>;
  return { apiGroup: String(r.apiGroup ?? ''), kind: String(r.kind ?? ''), name: String(r.name ?? '') };
}

function hasAggregationRule(obj: KubeObject): boolean {
  const rule = obj.aggregationRule as { clusterRoleSelectors?: unknown[] } | undefined;
  return Array.isArray(rule?.clusterRoleSelectors) && rule.clusterRoleSelectors.length > 0;
}

/** rbacregistry.IsOnlyMutatingGCFields: an update that only touches owner references or finalizers. */
function onlyGcFieldsChange(next: KubeObject, old: KubeObject | undefined): boolean {
  if (!old) return false;
  const strip = (o: KubeObject) => {
    const { ownerReferences: _o, finalizers: _f, selfLink: _s, managedFields: _m, resourceVersion: _r, ...meta } = o.metadata;
    return JSON.stringify({ ...o, metadata: meta });
  };
  return strip(next) === strip(old);
}

function roleStore(store: ResourceStore, checks: EscalationChecks): ResourceStore {
  const { group, resource } = store.definition;
  const gr = { group, resource };
  const rulesToCheck = (obj: KubeObject) => (resource === 'clusterroles' && hasAggregationRule(obj) ? FULL_AUTHORITY : rulesOf(obj));
  const exempt = async (ctx: RequestContext, name: string) =>
    escalationAllowed(ctx.user) || (await allowed(checks, resourceAttributes(ctx.user, 'escalate', ctx.namespace, resource, name)));
  return {
    ...store,
    async create(ctx, obj) {
      const name = obj.metadata?.name ?? '';
      if (!(await exempt(ctx, name))) {
        const err = escalationError(checks, ctx.user, ctx.namespace, rulesToCheck(obj));
        if (err) throw forbidden(gr, name, err);
      }
      return store.create(ctx, obj);
    },
    async update(ctx, name, tryUpdate, options) {
      if (await exempt(ctx, name)) return store.update(ctx, name, tryUpdate, options);
      return store.update(
        ctx,
        name,
        async (current) => {
          const next = await tryUpdate(current);
          if (onlyGcFieldsChange(next, current)) return next;
          const err = escalationError(checks, ctx.user, ctx.namespace, rulesToCheck(next));
          if (err) throw forbidden(gr, name, err);
          return next;
        },
        options,
      );
    },
  };
}

function bindingStore(store: ResourceStore, checks: EscalationChecks): ResourceStore {
  const { group, resource } = store.definition;
  const gr = { group, resource };
  const check = async (ctx: RequestContext, name: string, obj: KubeObject) => {
    const namespace = ctx.namespace;
    const ref = roleRefOf(obj);
    const refResource = ref.kind === 'ClusterRole' ? 'clusterroles' : ref.kind === 'Role' ? 'roles' : '';
    // rbacregistry.BindingAuthorized: the `bind` verb on the referenced role.
    if (refResource && (await allowed(checks, resourceAttributes(ctx.user, 'bind', namespace, refResource, ref.name)))) return;
    const { rules, error } = checks.resolver().roleRefRules(ref, namespace);
    if (error) throw forbidden(gr, name, error);
    const err = escalationError(checks, ctx.user, namespace, rules ?? []);
    if (err) throw forbidden(gr, name, err);
  };
  return {
    ...store,
    async create(ctx, obj) {
      if (!escalationAllowed(ctx.user)) await check(ctx, obj.metadata?.name ?? '', obj);
      return store.create(ctx, obj);
    },
    async update(ctx, name, tryUpdate, options) {
      if (escalationAllowed(ctx.user)) return store.update(ctx, name, tryUpdate, options);
      return store.update(
        ctx,
        name,
        async (current) => {
          const next = await tryUpdate(current);
          if (!onlyGcFieldsChange(next, current)) await check(ctx, name, next);
          return next;
        },
        options,
      );
    },
  };
}

/** The store wrappers to give the registry (its storeWrappers option). */
export function rbacEscalationWrappers(checks: EscalationChecks): ReadonlyMap<string, (store: ResourceStore) => ResourceStore> {
  return new Map([
    [`${RBAC_GROUP}/roles`, (s: ResourceStore) => roleStore(s, checks)],
    [`${RBAC_GROUP}/clusterroles`, (s: ResourceStore) => roleStore(s, checks)],
    [`${RBAC_GROUP}/rolebindings`, (s: ResourceStore) => bindingStore(s, checks)],
    [`${RBAC_GROUP}/clusterrolebindings`, (s: ResourceStore) => bindingStore(s, checks)],
  ]);
}
