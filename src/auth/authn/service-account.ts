// Service account token authentication (pkg/serviceaccount/jwt.go, claims.go): a bearer JWT from one of the
// accepted issuers, signed by a verification key, not expired (a minute of leeway), naming one of the request's
// audiences, whose service account (and bound pod, secret or node) still exists with the same uid. Successes are
// cached for 10 s (kube's token success cache), keyed by a hash of the token; nothing logs the token. A legacy
// Secret-based token's use is recorded on its Secret, and one marked invalid is refused (legacy token tracking).

import { clockNow, utcDay } from '../../apis/clock.ts';
import { looksLikeJwt, requestBearerToken, requestTokenKey } from './token-key.ts';
import type { JWTPayload } from 'jose';
import { loadJose } from '../jose.ts';
import { isStatusError } from '../../apis/errors.ts';
import { loopbackContext } from '../../registry/registry.ts';
import type { KubeObject, Registry } from '../../registry/types.ts';
import { LEGACY_CLAIMS, LEGACY_ISSUER, type KubernetesClaim, type ObjectRef, type TokenIssuer } from '../serviceaccount/tokens.ts';
import type { UserInfo } from '../user.ts';
import { NO_OPINION, authenticated, failed, type AuthnResult, type Authenticator } from './types.ts';

export const SERVICE_ACCOUNTS_GROUP = 'system:serviceaccounts';
const SUCCESS_TTL_MS = 10_000;
const CACHE_LIMIT = 10_000;
const LEEWAY_SECONDS = 60;
const LEGACY_TOKEN_LAST_USED = 'kubernetes.io/legacy-token-last-used';
const LEGACY_TOKEN_INVALID_SINCE = 'kubernetes.io/legacy-token-invalid-since';

export function serviceAccountGroups(namespace: string): string[] {
  return [SERVICE_ACCOUNTS_GROUP, `${SERVICE_ACCOUNTS_GROUP}:${namespace}`];
}

async function lookup(registry: Registry, resource: string, namespace: string, name: string): Promise<KubeObject | undefined> {
  const def = registry.lookup('', 'v1', resource);
  if (!def) return undefined;
  try {
    return await registry.store(def).get(loopbackContext(namespace), name, { resourceVersion: '0' });
  } catch (e) {
    if (isStatusError(e) && e.code === 404) return undefined;
    throw e;
  }
}

function isRef(v: unknown): v is ObjectRef {
  return typeof v === 'object' && v !== null && typeof (v as ObjectRef).name === 'string' && typeof (v as ObjectRef).uid === 'string';
}

function claimOf(payload: JWTPayload): KubernetesClaim | undefined {
  const k = payload['kubernetes.io'] as Record<string, unknown> | undefined;
  if (!k || typeof k.namespace !== 'string' || !isRef(k.serviceaccount)) return undefined;
  return {
    namespace: k.namespace,
    serviceaccount: k.serviceaccount,
    ...(isRef(k.pod) ? { pod: k.pod } : {}),
    ...(isRef(k.secret) ? { secret: k.secret } : {}),
    ...(isRef(k.node) ? { node: k.node } : {}),
  };
}

/** The bound object still exists, with the token's uid, and is not being deleted (pods, secrets). */
async function checkBound(registry: Registry, kind: string, resource: string, namespace: string, ref: ObjectRef): Promise<string | undefined> {
  const obj = await lookup(registry, resource, namespace, ref.name);
  const what = namespace ? `${namespace}/${ref.name}` : ref.name;
  if (!obj) return `${kind} ${JSON.stringify(what)} is not found`;
  if (obj.metadata.uid !== ref.uid) return `${kind} UID (${obj.metadata.uid ?? ''}) does not match claim (${ref.uid})`;
  const deletion = obj.metadata.deletionTimestamp;
  if (deletion && Date.parse(deletion) <= clockNow()) return `${kind} ${JSON.stringify(what)} is marked for deletion`;
  return undefined;
}

export interface ServiceAccountAuthenticatorOptions {
  readonly issuer: TokenIssuer;
  readonly registry: Registry;
  /** Clock (tests). */
  readonly now?: () => number;
}

export function serviceAccountAuthenticator(options: ServiceAccountAuthenticatorOptions): Authenticator {
  const { issuer, registry } = options;
  const now = options.now ?? clockNow;
  let keySet: ReturnType<Awaited<ReturnType<typeof loadJose>>['createLocalJWKSet']> | undefined;
  const accepted = new Set([...issuer.acceptedIssuers, LEGACY_ISSUER]);
  const algorithms = [...new Set(issuer.keys.jwks.map((k) => k.alg!))];
  // A hit gives the same (read-only) answer object again, so what is memoized per answer downstream (the
  // authenticated group added, flow control's user key) is found again rather than made anew on every request.
  const cache = new Map<string, { answer: AuthnResult; audiences: readonly string[]; until: number }>();

  /** The user and the token's expiry, or why the token is refused. */
  async function verify(token: string, audiences: readonly string[]): Promise<{ user: UserInfo; granted: string[]; expiresAt: number } | string> {
    const { createLocalJWKSet, errors: joseErrors, jwtVerify } = await loadJose();
    keySet ??= createLocalJWKSet({ keys: [...issuer.keys.jwks] });
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, keySet, { algorithms, clockTolerance: LEEWAY_SECONDS, currentDate: new Date(now()) }));
    } catch (e) {
      if (e instanceof joseErrors.JWTExpired) return 'service account token has expired';
      return `invalid service account token: ${e instanceof joseErrors.JOSEError ? e.code : 'malformed'}`;
    }
    if (payload.iss === LEGACY_ISSUER) return verifyLegacy(token, payload);
    const tokenAudiences = typeof payload.aud === 'string' ? [payload.aud] : (payload.aud ?? []);
    const granted = tokenAudiences.filter((a) => audiences.includes(a));
    if (granted.length === 0) return `token audiences ${JSON.stringify(tokenAudiences)} is invalid for the target audiences ${JSON.stringify(audiences)}`;
    const claim = claimOf(payload);
    if (!claim) return 'service account token has no kubernetes.io claim';
    const sa = await lookup(registry, 'serviceaccounts', claim.namespace, claim.serviceaccount.name);
    if (!sa) return `service account ${claim.namespace}/${claim.serviceaccount.name} not found`;
    if (sa.metadata.uid !== claim.serviceaccount.uid) return `service account UID (${sa.metadata.uid ?? ''}) does not match claim (${claim.serviceaccount.uid})`;
    if (sa.metadata.deletionTimestamp) return `service account ${claim.namespace}/${claim.serviceaccount.name} has been deleted`;
    const extra: Record<string, string[]> = {};
    if (claim.pod) {
      const err = await checkBound(registry, 'pod', 'pods', claim.namespace, claim.pod);
      if (err) return err;
      extra['authentication.kubernetes.io/pod-name'] = [claim.pod.name];
      extra['authentication.kubernetes.io/pod-uid'] = [claim.pod.uid];
    }
    if (claim.secret) {
      const err = await checkBound(registry, 'secret', 'secrets', claim.namespace, claim.secret);
      if (err) return err;
    }
    if (claim.node) {
      // A node named through a pod binding is informational; a token bound to the node itself needs it alive.
      if (!claim.pod) {
        const err = await checkBound(registry, 'node', 'nodes', '', claim.node);
        if (err) return err;
      }
      extra['authentication.kubernetes.io/node-name'] = [claim.node.name];
      extra['authentication.kubernetes.io/node-uid'] = [claim.node.uid];
    }
    if (typeof payload.jti === 'string') extra['authentication.kubernetes.io/credential-id'] = [`JTI=${payload.jti}`];
    const user: UserInfo = {
      name: `system:serviceaccount:${claim.namespace}:${claim.serviceaccount.name}`,
      uid: claim.serviceaccount.uid,
      groups: serviceAccountGroups(claim.namespace),
      ...(Object.keys(extra).length > 0 ? { extra } : {}),
    };
    return { user, granted, expiresAt: typeof payload.exp === 'number' ? payload.exp * 1000 : Infinity };
  }

  /**
   * kube's legacy token tracking: the Secret of a legacy token used is labelled with the day (UTC, server clock), at
   * most once a day (a label of today or tomorrow stays). A failed write does not fail the request.
   */
  async function recordLegacyUse(secret: KubeObject): Promise<void> {
    const today = utcDay(now());
    const lastUsed = secret.metadata.labels?.[LEGACY_TOKEN_LAST_USED];
    if (lastUsed === today || lastUsed === utcDay(now() + 86_400_000)) return;
    const def = registry.lookup('', 'v1', 'secrets');
    if (!def) return;
    await registry
      .store(def)
      .update(loopbackContext(secret.metadata.namespace ?? ''), secret.metadata.name ?? '', (cur) => {
        if (!cur || cur.metadata.uid !== secret.metadata.uid) throw new Error('the secret changed');
        return { ...cur, metadata: { ...cur.metadata, labels: { ...(cur.metadata.labels ?? {}), [LEGACY_TOKEN_LAST_USED]: today } } };
      })
      .catch(() => undefined);
  }

  /** A legacy Secret-based token: its Secret still holds it, and its service account still has the uid it names. */
  async function verifyLegacy(token: string, payload: JWTPayload): Promise<{ user: UserInfo; granted: string[]; expiresAt: number } | string> {
    const claim = (k: string) => (typeof payload[k] === 'string' ? (payload[k] as string) : '');
    const namespace = claim(LEGACY_CLAIMS.namespace);
    const secretName = claim(LEGACY_CLAIMS.secretName);
    const saName = claim(LEGACY_CLAIMS.serviceAccountName);
    const saUid = claim(LEGACY_CLAIMS.serviceAccountUid);
    if (!namespace || !secretName || !saName || !saUid) return 'legacy service account token is missing a claim';
    const secret = await lookup(registry, 'secrets', namespace, secretName);
    const stored = (secret?.data as Record<string, string> | undefined)?.token;
    if (!secret || secret.metadata.deletionTimestamp || !stored || Buffer.from(stored, 'base64').toString('utf8') !== token) return `token of secret ${namespace}/${secretName} is not valid any more`;
    const sa = await lookup(registry, 'serviceaccounts', namespace, saName);
    if (!sa || sa.metadata.deletionTimestamp) return `service account ${namespace}/${saName} not found`;
    if (sa.metadata.uid !== saUid) return `service account UID (${sa.metadata.uid ?? ''}) does not match claim (${saUid})`;
    await recordLegacyUse(secret);
    if (secret.metadata.labels?.[LEGACY_TOKEN_INVALID_SINCE] !== undefined) {
      return `the token in secret ${namespace}/${secretName} for service account ${namespace}/${saName} has been marked invalid. Use tokens from the TokenRequest API or manually created secret-based tokens, or remove the '${LEGACY_TOKEN_INVALID_SINCE}' label from the secret to temporarily allow use of this token`;
    }
    // Legacy tokens name no audience: they stand for the API's own (kube's audience-agnostic wrapping).
    return { user: { name: `system:serviceaccount:${namespace}:${saName}`, uid: saUid, groups: serviceAccountGroups(namespace) }, granted: [...issuer.apiAudiences], expiresAt: Infinity };
  }

  /** A token not in the success cache: decoded, verified, cached when it passes. */
  async function authenticateAfresh(token: string, key: string, audiences: readonly string[], t: number): Promise<AuthnResult> {
    let iss: string | undefined;
    try {
      iss = (await loadJose()).decodeJwt(token).iss;
    } catch {
      return NO_OPINION;
    }
    if (iss === undefined || !accepted.has(iss)) return NO_OPINION;
    const result = await verify(token, audiences);
    if (typeof result === 'string') return failed(result);
    if (cache.size >= CACHE_LIMIT) cache.clear();
    const answer = authenticated(result.user, result.granted);
    cache.set(key, { answer, audiences, until: Math.min(t + SUCCESS_TTL_MS, result.expiresAt) });
    return answer;
  }

  return {
    authenticate(req) {
      const token = requestBearerToken(req);
      // Only JWTs of an accepted issuer are ours; other bearer tokens are left to the other authenticators.
      if (token === undefined || !looksLikeJwt(token)) return NO_OPINION;
      // Only tokens this authenticator verified are cached, so a hit needs no decoding, and is answered at once.
      const audiences = req.audiences && req.audiences.length > 0 ? req.audiences : issuer.apiAudiences;
      const key = requestTokenKey(req);
      const hit = cache.get(key);
      const t = now();
      if (hit && hit.until > t && hit.audiences === audiences) return hit.answer;
      return authenticateAfresh(token, key, audiences, t);
    },
  };
}
