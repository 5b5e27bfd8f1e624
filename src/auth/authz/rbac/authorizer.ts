// The RBAC authorizer (plugin/pkg/auth/authorizer/rbac): allows a request when a rule of a role bound to the user
// (or one of its groups, or its service account) allows it; otherwise no opinion, with the resolution errors as
// the reason. It also resolves a user's rules (SelfSubjectRulesReview, escalation checks).

import type { UserInfo } from '../../user.ts';
import type { Authorizer, AuthzResult, NonResourceRule, ResourceRule, RulesResult } from '../types.ts';
import type { RbacPolicy } from './policy.ts';
import { describeSubject, ruleAllows, type PolicyRule } from './rules.ts';

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

export function rbacAuthorizer(policy: () => RbacPolicy): Authorizer & { resolver: RbacRuleResolver } {
  const resolver = rbacRuleResolver(policy);
  return {
    resolver,
    authorize(attrs): AuthzResult {
      let allowedBy: string | undefined;
      const errors: string[] = [];
      policy().visit(attrs.user, attrs.namespace, (b) => {
        if (b.error) {
          if (!errors.includes(b.error)) errors.push(b.error);
          return true;
        }
        for (const rule of b.rules!) {
          if (!ruleAllows(attrs, rule)) continue;
          const { binding } = b;
          allowedBy = binding.namespace
            ? `RoleBinding ${JSON.stringify(`${binding.name}/${binding.namespace}`)} of ${binding.roleRef.kind} ${JSON.stringify(binding.roleRef.name)} to ${describeSubject(b.subject, binding.namespace)}`
            : `ClusterRoleBinding ${JSON.stringify(binding.name)} of ${binding.roleRef.kind} ${JSON.stringify(binding.roleRef.name)} to ${describeSubject(b.subject, '')}`;
          return false;
        }
        return true;
      });
      if (allowedBy) return { decision: 'allow', reason: `RBAC: allowed by ${allowedBy}` };
      return { decision: 'noopinion', reason: errors.length > 0 ? `RBAC: ${aggregate(errors)}` : '' };
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
