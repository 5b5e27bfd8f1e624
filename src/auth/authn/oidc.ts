// OpenID Connect token authentication (the --oidc-* flags of kube-apiserver): a bearer JWT whose issuer is
// --oidc-issuer-url, signed by a key of the issuer's JWKS (found through its discovery document, fetched over
// HTTPS trusting --oidc-ca-file), for the audience --oidc-client-id, unexpired, with every --oidc-required-claim.
// The user is the --oidc-username-claim (prefixed with "<issuer>#" unless the claim is email or a prefix is given;
// "-" means none), an email username needs email_verified to be true when present, and the groups come from
// --oidc-groups-claim with --oidc-groups-prefix. Successes are cached for 10 s.

import { looksLikeJwt, requestBearerToken, requestTokenKey } from './token-key.ts';
import type { FetchImplementation, JWTPayload, JWTVerifyOptions, createRemoteJWKSet } from 'jose';
import { loadJose } from '../jose.ts';
import type { UserInfo } from '../user.ts';
import { NO_OPINION, authenticated, failed, type AuthnResult, type Authenticator } from './types.ts';

export interface OidcOptions {
  readonly issuerUrl: string;
  readonly clientId: string;
  /** PEM bundle trusted for the issuer's TLS (--oidc-ca-file); absent: the system roots. */
  readonly caPem?: string;
  readonly usernameClaim?: string;
  readonly usernamePrefix?: string;
  readonly groupsClaim?: string;
  readonly groupsPrefix?: string;
  readonly requiredClaims?: Readonly<Record<string, string>>;
  readonly signingAlgs?: readonly string[];
}

const SUCCESS_TTL_MS = 10_000;

/** GET over HTTPS with the issuer's CA, as a fetch Response (what jose's remote JWK set expects). */
function fetcher(caPem: string | undefined): FetchImplementation {
  return (url, options) =>
    new Promise((resolve, reject) => {
      // node:https is loaded by the first fetch, not at start-up.
      const req = process.getBuiltinModule('node:https').request(url, { method: 'GET', ca: caPem, headers: Object.fromEntries(options.headers.entries()), timeout: 10_000 }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve(new Response(Buffer.concat(chunks), { status: res.statusCode ?? 0, headers: { 'content-type': String(res.headers['content-type'] ?? 'application/json') } })));
        res.on('error', reject);
      });
      req.on('timeout', () => req.destroy(new Error(`GET ${url}: timeout`)));
      req.on('error', reject);
      options.signal?.addEventListener('abort', () => req.destroy(new Error('aborted')));
      req.end();
    });
}

export type IssuerKeySet = ReturnType<typeof createRemoteJWKSet>;

/**
 * The issuer's signing keys: its discovery document (at `discoveryUrl`, default `<issuer>/.well-known/openid-configuration`)
 * must name `issuerUrl` as its issuer; its jwks_uri is then fetched (and refetched for unknown key ids) by jose.
 * A failed discovery is tried again on the next call.
 */
export function issuerKeySet(issuerUrl: string, discoveryUrl: string | undefined, caPem: string | undefined): () => Promise<IssuerKeySet> {
  const fetchImpl = fetcher(caPem);
  let keys: Promise<IssuerKeySet> | undefined;
  return () =>
    (keys ??= (async () => {
      const discovery = discoveryUrl ?? `${issuerUrl.replace(/\/$/, '')}/.well-known/openid-configuration`;
      const res = await fetchImpl(discovery, { headers: new Headers({ accept: 'application/json' }), method: 'GET', redirect: 'manual', signal: AbortSignal.timeout(10_000) });
      if (res.status !== 200) throw new Error(`oidc: discovery ${discovery}: ${res.status}`);
      const doc = (await res.json()) as { issuer?: string; jwks_uri?: string };
      if (doc.issuer !== issuerUrl) throw new Error(`oidc: issuer did not match the issuer returned by provider, expected ${JSON.stringify(issuerUrl)} got ${JSON.stringify(doc.issuer)}`);
      if (!doc.jwks_uri) throw new Error('oidc: the discovery document has no jwks_uri');
      const { createRemoteJWKSet, customFetch } = await loadJose();
      return createRemoteJWKSet(new URL(doc.jwks_uri), { [customFetch]: fetchImpl });
    })().catch((e: unknown) => {
      keys = undefined;
      throw e;
    }));
}

/** An issuer a bearer JWT may come from: its keys, what jose checks, and the user its claims map to. */
export interface JwtIssuer {
  keys(): Promise<IssuerKeySet>;
  readonly verify: JWTVerifyOptions;
  /** The user, or the message of the 401 when the claims are refused. */
  user(payload: JWTPayload): UserInfo | string;
}

/**
 * A bearer JWT verified against the issuer its `iss` names (no opinion for tokens of other issuers), with successes
 * cached for 10 s (at most until `exp`) by the token's hash. Only verified tokens are cached, so a hit needs no decoding.
 */
export function verifiedJwtAuthenticator(issuerOf: (iss: string) => JwtIssuer | undefined): Authenticator {
  // A hit gives the same (read-only) answer again: what is memoized per answer downstream is found again.
  const cache = new Map<string, { answer: AuthnResult; until: number }>();
  return {
    async authenticate(req) {
      const token = requestBearerToken(req);
      if (token === undefined || !looksLikeJwt(token)) return NO_OPINION;
      const key = requestTokenKey(req);
      const hit = cache.get(key);
      if (hit && hit.until > Date.now()) return hit.answer;
      const { decodeJwt, errors: joseErrors, jwtVerify } = await loadJose();
      let iss: string | undefined;
      try {
        iss = decodeJwt(token).iss;
      } catch {
        return NO_OPINION;
      }
      const issuer = iss === undefined ? undefined : issuerOf(iss);
      if (!issuer) return NO_OPINION;
      let payload: JWTPayload;
      try {
        ({ payload } = await jwtVerify(token, await issuer.keys(), issuer.verify));
      } catch (e) {
        if (e instanceof joseErrors.JWTExpired) return failed('oidc: verify token: token is expired');
        return failed(`oidc: verify token: ${e instanceof joseErrors.JOSEError ? e.code : (e as Error).message}`);
      }
      const user = issuer.user(payload);
      if (typeof user === 'string') return failed(user);
      if (cache.size >= 10_000) cache.clear();
      const answer = authenticated(user);
      cache.set(key, { answer, until: Math.min(Date.now() + SUCCESS_TTL_MS, typeof payload.exp === 'number' ? payload.exp * 1000 : Infinity) });
      return answer;
    },
  };
}

export function oidcAuthenticator(options: OidcOptions): Authenticator {
  const usernameClaim = options.usernameClaim ?? 'sub';
  // kube's default: claims other than email are prefixed with the issuer URL and "#"; "-" turns prefixing off.
  const usernamePrefix = options.usernamePrefix === '-' ? '' : (options.usernamePrefix ?? (usernameClaim === 'email' ? '' : `${options.issuerUrl}#`));
  const algorithms = options.signingAlgs && options.signingAlgs.length > 0 ? [...options.signingAlgs] : ['RS256'];
  const keySet = issuerKeySet(options.issuerUrl, undefined, options.caPem);

  function userOf(claims: JWTPayload): UserInfo | string {
    for (const [k, v] of Object.entries(options.requiredClaims ?? {})) {
      if (claims[k] !== v) return `oidc: required claim ${k} not present or not ${JSON.stringify(v)}`;
    }
    const name = claims[usernameClaim];
    if (typeof name !== 'string' || name === '') return `oidc: parse username claims ${JSON.stringify(usernameClaim)}: claim not present`;
    if (usernameClaim === 'email' && claims.email_verified !== undefined && claims.email_verified !== true) return 'oidc: email not verified';
    let groups: string[] = [];
    if (options.groupsClaim) {
      const g = claims[options.groupsClaim];
      if (typeof g === 'string') groups = [g];
      else if (Array.isArray(g)) groups = g.filter((x): x is string => typeof x === 'string');
      else if (g !== undefined) return `oidc: parse groups claim ${JSON.stringify(options.groupsClaim)}: not a string or a list of strings`;
      groups = groups.map((x) => (options.groupsPrefix ?? '') + x);
    }
    return { name: usernamePrefix + name, groups };
  }

  const issuer: JwtIssuer = { keys: keySet, verify: { issuer: options.issuerUrl, audience: options.clientId, algorithms }, user: userOf };
  return verifiedJwtAuthenticator((iss) => (iss === options.issuerUrl ? issuer : undefined));
}
