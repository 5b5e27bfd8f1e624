// The RBAC authorizer (plugin/pkg/auth/authorizer/rbac): allows a request when a rule of a role bound to the user
// (or one of its groups, or its service account) allows it; otherwise no opinion, with the resolution errors as
// the reason. It also resolves a user's rules (SelfSubjectRulesReview, escalation checks).

import type { UserInfo } from '../../user.ts';
import type { Authorizer, AuthzAttributes, AuthzResult, NonResourceRule, ResourceRule, RulesResult } from '../types.ts';
import type { RbacPolicy } from './policy.ts';
import { describeSubject, ruleAllowsSomeName, type PolicyRule } from './rules.ts';

/** utilerrors.NewAggregate(errs).Error(). */
function aggregate(errors: readonly string[]): string {
  return errors.length === 1 ? errors[0] : `[${errors.join(', ')}]`;
}

export interface RbacRuleResolver {
  /** kube's AuthorizationRuleResolver.RulesFor: the user's rules in the namespace, and the errors met on the way. */
  rulesFor(user: UserInfo, namespace: string): { rules: PolicyRule[]; errors: string[] };
  roleRefRules: RbacPolicy['roleRefRules'];
}

/** `policy` is called at each use: the informers start when RBAC is first asked, after start-up reconciled the defaults. */
export function rbacRuleResolver(policy: () => RbacPolicy): RbacRuleResolver {
  return {
    rulesFor(user, namespace) {
      const rules: PolicyRule[] = [];
      const errors: string[] = [];
      policy().visit(user, namespace, (b) => {
        if (b.error) errors.push(b.error);
        else rules.push(...b.rules!);
        return true;
      });
      return { rules, errors };
    },
    roleRefRules: (ref, namespace) => policy().roleRefRules(ref, namespace),
  };
}

/** The most decisions kept; past it the cache starts again (a client reading many objects by name). */
const MAX_DECISIONS = 10_000;

/**
 * Decisions already reached under the current policy (its revision): a request asks again only after a role or
 * binding changed. Keyed by the user's name and groups (all RBAC reads of a user) and the request without its object
 * name; a decision that a rule's resourceNames made is kept under the name too.
 */
function decisionCache() {
  const userKeys = new WeakMap<UserInfo, string>();
  let decisions = new Map<string, { result?: AuthzResult; byName?: Map<string, AuthzResult> }>();
  let size = 0;
  let revision = -1;
  const keyOf = (a: AuthzAttributes): string => {
    let user = userKeys.get(a.user);
    if (user === undefined) userKeys.set(a.user, (user = JSON.stringify([a.user.name, a.user.groups])));
    // JSON: no field's text can run into the next one's (paths and URL segments may hold any character).
    return a.isResourceRequest ? JSON.stringify([user, a.verb, a.apiGroup, a.resource, a.subresource, a.namespace]) : JSON.stringify([user, a.verb, a.path]);
  };
  return {
    get(a: AuthzAttributes, policyRevision: number): AuthzResult | undefined {
      if (policyRevision !== revision) {
        decisions = new Map();
        size = 0;
        revision = policyRevision;
        return undefined;
      }
      const entry = decisions.get(keyOf(a));
      return entry?.result ?? entry?.byName?.get(a.name);
    },
    set(a: AuthzAttributes, result: AuthzResult, byName: boolean): void {
      if (++size > MAX_DECISIONS) {
        decisions = new Map();
        size = 1;
      }
      const key = keyOf(a);
      if (!byName) decisions.set(key, { result });
      else {
        let entry = decisions.get(key);
        if (!entry?.byName) decisions.set(key, (entry = { byName: new Map() }));
        entry.byName!.set(a.name, result);
      }
    },
  };
}

export function rbacAuthorizer(policy: () => RbacPolicy): Authorizer & { resolver: RbacRuleResolver } {
  const resolver = rbacRuleResolver(policy);
  const cache = decisionCache();
  return {
    resolver,
    authorize(attrs): AuthzResult {
      const current = policy();
      const revision = current.revision();
      const known = cache.get(attrs, revision);
      if (known) return known;
      let allowedBy: string | undefined;
      // Whether a rule's resourceNames took part: then the decision holds for this object name only.
      let byName = false;
      const errors: string[] = [];
      current.visit(attrs.user, attrs.namespace, (b) => {
        if (b.error) {
          if (!errors.includes(b.error)) errors.push(b.error);
          return true;
        }
        for (const rule of b.rules!) {
          if (!ruleAllowsSomeName(attrs, rule)) continue;
          if (attrs.isResourceRequest && rule.resourceNames.length > 0) {
            byName = true;
            if (!rule.resourceNames.includes(attrs.name)) continue;
          }
          const { binding } = b;
          allowedBy = binding.namespace
            ? `RoleBinding ${JSON.stringify(`${binding.name}/${binding.namespace}`)} of ${binding.roleRef.kind} ${JSON.stringify(binding.roleRef.name)} to ${describeSubject(b.subject, binding.namespace)}`
            : `ClusterRoleBinding ${JSON.stringify(binding.name)} of ${binding.roleRef.kind} ${JSON.stringify(binding.roleRef.name)} to ${describeSubject(b.subject, '')}`;
          return false;
        }
        return true;
      });
      const result: AuthzResult = allowedBy ? { decision: 'allow', reason: `RBAC: allowed by ${allowedBy}` } : { decision: 'noopinion', reason: errors.length > 0 ? `RBAC: ${aggregate(errors)}` : '' };
      cache.set(attrs, result, byName);
      return result;
    },
    rulesFor(user, namespace): RulesResult {
      const { rules, errors } = resolver.rulesFor(user, namespace);
      const resourceRules: ResourceRule[] = [];
      const nonResourceRules: NonResourceRule[] = [];
      for (const r of rules) {
        if (r.resources.length > 0) resourceRules.push({ verbs: r.verbs, apiGroups: r.apiGroups, resources: r.resources, resourceNames: r.resourceNames });
        if (r.nonResourceURLs.length > 0) nonResourceRules.push({ verbs: r.verbs, nonResourceURLs: r.nonResourceURLs });
      }
      const result = { resourceRules, nonResourceRules, incomplete: false };
      return errors.length > 0 ? { ...result, error: aggregate(errors) } : result;
    },
  };
}
