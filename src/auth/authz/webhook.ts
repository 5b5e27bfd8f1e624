// The Webhook authorization mode (--authorization-webhook-config-file): each request's attributes go to the webhook
// in a SubjectAccessReview (authorization.k8s.io v1beta1 by default, --authorization-webhook-version; v1beta1 names
// the groups `group`); allowed allows, denied denies, anything else is no opinion. Allowed answers are cached for
// --authorization-webhook-cache-authorized-ttl (5 minutes), the others for -unauthorized-ttl (30 seconds).

import type { CompiledExpression } from '../../cel/index.ts';
import { PER_CALL_LIMIT } from '../../cel/cost.ts';
import { DYN } from '../../cel/decl.ts';
import { cel } from '../../cel/lazy.ts';
import { postJson, type WebhookTarget } from '../../webhook/client.ts';
import { reviewDecodeError, GO_BOOL, GO_STRING, type GoType } from '../../encoding/go-typed.ts';
import type { Authorizer, AuthzAttributes, AuthzResult, RulesResult } from './types.ts';

export interface AuthorizationWebhookOptions {
  readonly target: WebhookTarget;
  readonly version: string;
  readonly authorizedTtlMs: number;
  readonly unauthorizedTtlMs: number;
  readonly timeoutMs?: number;
  /** failurePolicy of --authorization-config: the decision when the webhook cannot be asked (default no opinion). */
  readonly decisionOnError?: 'noopinion' | 'deny';
  /** matchConditions of --authorization-config (CEL on `request`, a v1 SubjectAccessReviewSpec): all must be true
   * for the webhook to be asked; otherwise no opinion. */
  readonly matchConditions?: readonly CompiledExpression[];
}

/** Whether the request matches every condition; throws when one cannot be evaluated. */
function matches(conditions: readonly CompiledExpression[], attrs: AuthzAttributes): boolean {
  const request = cel().jsonToCel(subjectAccessReviewFor(attrs, 'v1').spec, DYN);
  for (const c of conditions) {
    const r = cel().evaluate(c, { request }, PER_CALL_LIMIT);
    if (!r.ok) throw new Error(`authorization match condition evaluation error: ${r.error}`);
    if (r.value !== true) return false;
  }
  return true;
}

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : {});

export function subjectAccessReviewFor(a: AuthzAttributes, version: string): Obj {
  const spec: Obj = a.isResourceRequest
    ? { resourceAttributes: { namespace: a.namespace, verb: a.verb, group: a.apiGroup, version: a.apiVersion, resource: a.resource, subresource: a.subresource, name: a.name } }
    : { nonResourceAttributes: { path: a.path, verb: a.verb } };
  spec.user = a.user.name;
  if (a.user.uid) spec.uid = a.user.uid;
  spec[version === 'v1' ? 'groups' : 'group'] = [...a.user.groups];
  if (a.user.extra) spec.extra = a.user.extra;
  return { apiVersion: `authorization.k8s.io/${version}`, kind: 'SubjectAccessReview', spec };
}

/** kube's WebhookAuthorizer.RulesFor: a webhook's policy cannot be enumerated. */
const WEBHOOK_RULES_UNKNOWN: RulesResult = { resourceRules: [], nonResourceRules: [], incomplete: true, error: 'webhook authorizer does not support user rule resolution' };

/** The Go types of a SubjectAccessReview's status, in the review's version (authorization/v1 or v1beta1). */
function subjectAccessReviewStatus(version: string): GoType {
  return { go: `${version}.SubjectAccessReviewStatus`, struct: 'SubjectAccessReviewStatus', fields: { allowed: GO_BOOL, denied: GO_BOOL, reason: GO_STRING, evaluationError: GO_STRING } };
}

export function webhookAuthorizer(options: AuthorizationWebhookOptions): Authorizer {
  const cache = new Map<string, { result: AuthzResult; until: number }>();
  const statusType = subjectAccessReviewStatus(options.version);
  return {
    async authorize(attrs) {
      const onError = options.decisionOnError ?? 'noopinion';
      if (options.matchConditions && options.matchConditions.length > 0) {
        try {
          if (!matches(options.matchConditions, attrs)) return { decision: 'noopinion', reason: '' };
        } catch (e) {
          return { decision: onError, reason: '', error: (e as Error).message };
        }
      }
      const review = subjectAccessReviewFor(attrs, options.version);
      const key = JSON.stringify(review.spec);
      const hit = cache.get(key);
      if (hit && hit.until > Date.now()) return hit.result;
      let status: Obj;
      try {
        const answer = await postJson(options.target, review, options.timeoutMs ?? 30_000);
        // An answer that does not decode as a SubjectAccessReview is the webhook's failure, as client-go's decoder refuses it.
        const decodeError = reviewDecodeError(answer, 'SubjectAccessReview', 'status', statusType);
        if (decodeError) return { decision: onError, reason: '', error: decodeError };
        status = obj(obj(answer).status);
      } catch (e) {
        return { decision: onError, reason: '', error: (e as Error).message };
      }
      const reason = typeof status.reason === 'string' ? status.reason : '';
      const result: AuthzResult = status.allowed === true ? { decision: 'allow', reason } : status.denied === true ? { decision: 'deny', reason } : { decision: 'noopinion', reason };
      if (cache.size >= 10_000) cache.clear();
      cache.set(key, { result, until: Date.now() + (result.decision === 'allow' ? options.authorizedTtlMs : options.unauthorizedTtlMs) });
      return result;
    },
    rulesFor: () => WEBHOOK_RULES_UNKNOWN,
  };
}
