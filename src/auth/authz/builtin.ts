// The built-in authorizers of kube's authorizerfactory: AlwaysAllow, AlwaysDeny, privileged groups.

import type { AuthzResult, Authorizer, RulesResult } from './types.ts';

const ALLOW: AuthzResult = { decision: 'allow', reason: '' };
const NO_OPINION: AuthzResult = { decision: 'noopinion', reason: '' };
const NO_RULES: RulesResult = { resourceRules: [], nonResourceRules: [], incomplete: false };
const EVERYTHING: RulesResult = {
  resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'], resourceNames: [] }],
  nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }],
  incomplete: false,
};

export function alwaysAllowAuthorizer(): Authorizer {
  return { authorize: () => ALLOW, rulesFor: () => EVERYTHING };
}

/** Says no opinion with a reason, as kube's does: the union ends in a denial unless a later mode allows. */
export function alwaysDenyAuthorizer(): Authorizer {
  const result: AuthzResult = { decision: 'noopinion', reason: 'Everything is forbidden.' };
  return { authorize: () => result, rulesFor: () => NO_RULES };
}

/**
 * Allows every request of a user in one of the groups (kube-apiserver puts system:masters first). kube does not
 * make it a rule resolver, so it contributes no rules to a SelfSubjectRulesReview.
 */
export function privilegedGroupsAuthorizer(groups: readonly string[]): Authorizer {
  const set = new Set(groups);
  return {
    authorize(attrs) {
      for (const g of attrs.user.groups) if (set.has(g)) return ALLOW;
      return NO_OPINION;
    },
    rulesFor: () => NO_RULES,
  };
}
