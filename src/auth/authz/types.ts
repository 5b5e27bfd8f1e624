// The authorization contract (k8s.io/apiserver/pkg/authorization/authorizer): an authorizer allows, denies,
// or has no opinion on a request described by its attributes.

import type { UserInfo } from '../user.ts';
import type { RequestInfo } from '../../endpoints/request-info.ts';

export interface AuthzAttributes {
  readonly user: UserInfo;
  readonly verb: string;
  readonly isResourceRequest: boolean;
  /** The request path (non-resource requests are authorized by it). */
  readonly path: string;
  readonly namespace: string;
  readonly apiGroup: string;
  readonly apiVersion: string;
  readonly resource: string;
  readonly subresource: string;
  readonly name: string;
}

export type Decision = 'allow' | 'deny' | 'noopinion';

export interface AuthzResult {
  readonly decision: Decision;
  /** Why (shown to the client after a denial); '' when there is nothing to say. */
  readonly reason: string;
  /** An evaluation error; a request not allowed with an error is answered 500, not 403. */
  readonly error?: string;
}

/** One rule of what a user may do on resources (kube's authorizer.ResourceRuleInfo). */
export interface ResourceRule {
  readonly verbs: readonly string[];
  readonly apiGroups: readonly string[];
  readonly resources: readonly string[];
  readonly resourceNames: readonly string[];
}

/** One rule of what a user may do on non-resource URLs (kube's authorizer.NonResourceRuleInfo). */
export interface NonResourceRule {
  readonly verbs: readonly string[];
  readonly nonResourceURLs: readonly string[];
}

/** What a rule resolver can enumerate for a user in a namespace (SelfSubjectRulesReview). */
export interface RulesResult {
  readonly resourceRules: readonly ResourceRule[];
  readonly nonResourceRules: readonly NonResourceRule[];
  /** True when the authorizer may allow more than the rules list (e.g. it cannot enumerate its policy). */
  readonly incomplete: boolean;
  readonly error?: string;
}

export interface Authorizer {
  authorize(attrs: AuthzAttributes): AuthzResult | Promise<AuthzResult>;
  /**
   * kube's RuleResolver.RulesFor: the rules that apply to the user in the namespace. Optional: a union treats an
   * authorizer without it as one that cannot enumerate its rules (incomplete).
   */
  rulesFor?(user: UserInfo, namespace: string): RulesResult | Promise<RulesResult>;
}

export function attributesFor(user: UserInfo, info: RequestInfo): AuthzAttributes {
  return {
    user,
    verb: info.verb,
    isResourceRequest: info.isResourceRequest,
    path: info.path,
    namespace: info.namespace,
    apiGroup: info.apiGroup,
    apiVersion: info.apiVersion,
    resource: info.resource,
    subresource: info.subresource,
    name: info.name,
  };
}
