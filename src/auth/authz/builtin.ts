// The built-in authorizers of kube's authorizerfactory: AlwaysAllow, AlwaysDeny, privileged groups.

import type { AuthzResult, Authorizer } from './types.ts';

const ALLOW: AuthzResult = { decision: 'allow', reason: '' };
const NO_OPINION: AuthzResult = { decision: 'noopinion', reason: '' };

export function alwaysAllowAuthorizer(): Authorizer {
  return { authorize: () => ALLOW };
}

/** Says no opinion with a reason, as kube's does: the union ends in a denial unless a later mode allows. */
export function alwaysDenyAuthorizer(): Authorizer {
  const result: AuthzResult = { decision: 'noopinion', reason: 'Everything is forbidden.' };
  return { authorize: () => result };
}

/** Allows every request of a user in one of the groups (kube-apiserver puts system:masters first). */
export function privilegedGroupsAuthorizer(groups: readonly string[]): Authorizer {
  const set = new Set(groups);
  return {
    authorize(attrs) {
      for (const g of attrs.user.groups) if (set.has(g)) return ALLOW;
      return NO_OPINION;
    },
  };
}
