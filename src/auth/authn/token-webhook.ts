// Webhook token authentication (--authentication-token-webhook-config-file): the bearer token is sent in a
// TokenReview (authentication.k8s.io v1beta1 by default, --authentication-token-webhook-version) to the webhook
// the kubeconfig names; its status says who it is. Answers are cached for --authentication-token-webhook-cache-ttl
// (default 2 minutes), keyed by a hash of the token and the audiences.

import { requestBearerToken, tokenKey } from './token-key.ts';
import { postJson, type WebhookTarget } from '../../webhook/client.ts';
import { reviewDecodeError, GO_BOOL, GO_STRING, type GoType } from '../../encoding/go-typed.ts';
import type { UserInfo } from '../user.ts';
import { NO_OPINION, authenticated, failed, type Authenticator, type AuthnResult } from './types.ts';

export interface TokenWebhookOptions {
  readonly target: WebhookTarget;
  /** 'v1' or 'v1beta1' (kube's default). */
  readonly version: string;
  readonly cacheTtlMs: number;
  readonly timeoutMs?: number;
}

/** The Go types of a TokenReview's status, in the review's version (authentication/v1 or v1beta1). */
function tokenReviewStatus(version: string): GoType {
  const strings: GoType = { go: '[]string', elem: GO_STRING };
  return {
    go: `${version}.TokenReviewStatus`,
    struct: 'TokenReviewStatus',
    fields: {
      authenticated: GO_BOOL,
      user: {
        go: `${version}.UserInfo`,
        struct: 'UserInfo',
        fields: { username: GO_STRING, uid: GO_STRING, groups: strings, extra: { go: `map[string]${version}.ExtraValue`, elem: { go: `${version}.ExtraValue`, elem: GO_STRING }, map: true } },
      },
      audiences: strings,
      error: GO_STRING,
    },
  };
}

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : {});
const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);

export function tokenWebhookAuthenticator(options: TokenWebhookOptions): Authenticator {
  const cache = new Map<string, { result: AuthnResult; until: number }>();
  const statusType = tokenReviewStatus(options.version);
  return {
    async authenticate(req) {
      const token = requestBearerToken(req);
      if (token === undefined) return NO_OPINION;
      const audiences = req.audiences ?? [];
      const key = tokenKey(token, audiences.join(','));
      const hit = cache.get(key);
      if (hit && hit.until > Date.now()) return hit.result;
      let answer: Obj;
      try {
        answer = obj(
          await postJson(
            options.target,
            { apiVersion: `authentication.k8s.io/${options.version}`, kind: 'TokenReview', spec: { token, ...(audiences.length > 0 ? { audiences } : {}) } },
            options.timeoutMs ?? 30_000,
          ),
        );
      } catch (e) {
        return failed(`token webhook: ${(e as Error).message}`);
      }
      // An answer that does not decode as a TokenReview authenticates no one, as client-go's decoder refuses it.
      const decodeError = reviewDecodeError(answer, 'TokenReview', 'status', statusType);
      if (decodeError) return failed(`token webhook: ${decodeError}`);
      const status = obj(answer.status);
      let result: AuthnResult;
      if (status.authenticated === true) {
        const u = obj(status.user);
        const extra: Record<string, string[]> = {};
        for (const [k, v] of Object.entries(obj(u.extra))) extra[k] = strings(v);
        const user: UserInfo = {
          name: typeof u.username === 'string' ? u.username : '',
          ...(typeof u.uid === 'string' && u.uid ? { uid: u.uid } : {}),
          groups: strings(u.groups),
          ...(Object.keys(extra).length > 0 ? { extra } : {}),
        };
        result = authenticated(user, strings(status.audiences).length > 0 ? strings(status.audiences) : undefined);
      } else {
        result = typeof status.error === 'string' && status.error ? failed(status.error) : NO_OPINION;
      }
      if (cache.size >= 10_000) cache.clear();
      cache.set(key, { result, until: Date.now() + options.cacheTtlMs });
      return result;
    },
  };
}
