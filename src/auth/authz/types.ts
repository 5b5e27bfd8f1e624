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

export interface Authorizer {
  authorize(attrs: AuthzAttributes): AuthzResult | Promise<AuthzResult>;
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
