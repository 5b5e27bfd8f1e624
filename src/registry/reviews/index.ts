// The review kinds kube-apiserver serves without storage, each a create-only store that evaluates the request:
// access reviews (authorization.k8s.io) against the server's authorizer, token and self-subject reviews
// (authentication.k8s.io) against its authenticators. Keyed by "group/resource" for the registry's
// virtual-store hook; every served version of a group/resource gets the same evaluation.

import { clockDate } from '../../apis/clock.ts';
import type { Authenticator } from '../../auth/authn/types.ts';
import { alwaysAllowAuthorizer } from '../../auth/authz/builtin.ts';
import type { Authorizer } from '../../auth/authz/types.ts';
import type { StoreFactory } from '../types.ts';
import { createOnlyStore } from './create-only-store.ts';
import { localSubjectAccessReview } from './local-subject-access-review.ts';
import { selfSubjectAccessReview } from './self-subject-access-review.ts';
import { selfSubjectReview } from './self-subject-review.ts';
import { selfSubjectRulesReview } from './self-subject-rules-review.ts';
import { subjectAccessReview } from './subject-access-review.ts';
import { DEFAULT_API_AUDIENCES, tokenReview } from './token-review.ts';

export { DEFAULT_API_AUDIENCES } from './token-review.ts';

export interface ReviewOptions {
  /** The server's authorizer. Absent: every request is allowed (a server that does not authorize). */
  readonly authorizer?: Authorizer;
  /**
   * Authenticates a request carrying only `Authorization: Bearer <token>` (the token file, never client
   * certificates). Absent: TokenReviews come back unevaluated, as kube's do without token authenticators.
   */
  readonly tokenAuthenticator?: Authenticator;
  /** --api-audiences (default DEFAULT_API_AUDIENCES). */
  readonly apiAudiences?: readonly string[];
  readonly featureGates?: Readonly<Record<string, boolean>>;
  /** Clock of SelfSubjectReview's creationTimestamp (tests). */
  readonly now?: () => Date;
}


export function reviewStores(options: ReviewOptions = {}): ReadonlyMap<string, StoreFactory> {
  const authorizer = options.authorizer ?? alwaysAllowAuthorizer();
  const gates = options.featureGates ?? {};
  const now = options.now ?? clockDate;
  const audiences = options.apiAudiences ?? DEFAULT_API_AUDIENCES;
  return new Map<string, StoreFactory>([
    ['authorization.k8s.io/subjectaccessreviews', (def) => createOnlyStore(def, subjectAccessReview(authorizer, gates))],
    ['authorization.k8s.io/selfsubjectaccessreviews', (def) => createOnlyStore(def, selfSubjectAccessReview(authorizer, gates))],
    ['authorization.k8s.io/localsubjectaccessreviews', (def) => createOnlyStore(def, localSubjectAccessReview(authorizer, gates))],
    ['authorization.k8s.io/selfsubjectrulesreviews', (def) => createOnlyStore(def, selfSubjectRulesReview(authorizer))],
    ['authentication.k8s.io/selfsubjectreviews', (def) => createOnlyStore(def, selfSubjectReview(now))],
    ['authentication.k8s.io/tokenreviews', (def) => createOnlyStore(def, tokenReview(options.tokenAuthenticator, audiences))],
  ]);
}
