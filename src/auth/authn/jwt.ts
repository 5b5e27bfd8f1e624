// The JWT authenticators of --authentication-config: a bearer JWT goes to the authenticator whose issuer.url is
// its `iss`; it must be signed by a key of that issuer (discovery + JWKS, shared with the --oidc-* authenticator),
// name one of the audiences (MatchAny), pass the claim validation rules; the user comes from the claim mappings
// (claim + prefix or CEL on `claims`) and must pass the user validation rules (CEL on `user`). Every failure is an
// error (401); a token of another issuer is no opinion. Successes are cached for 10 s.

import type { JWTPayload } from 'jose';
import type { CompiledExpression } from '../../cel/index.ts';
import { PER_CALL_LIMIT } from '../../cel/cost.ts';
import { cel } from '../../cel/lazy.ts';
import type { UserInfo } from '../user.ts';
import { CLAIMS_TYPE, USER_TYPE, type AuthenticationConfiguration, type ClaimSource, type JwtAuthenticatorConfig } from './authentication-config.ts';
import { issuerKeySet, verifiedJwtAuthenticator, type JwtIssuer } from './oidc.ts';
import { NO_OPINION, type Authenticator } from './types.ts';

/** A CEL result as a string list (a string is a list of one); undefined when it is neither. */
function stringsOf(v: unknown): string[] | undefined {
  if (typeof v === 'string') return [v];
  if (cel().isCelList(v)) {
    const out: string[] = [];
    for (const x of v) {
      if (typeof x !== 'string') return undefined;
      out.push(x);
    }
    return out;
  }
  return undefined;
}

function run(expr: CompiledExpression, vars: Record<string, unknown>): unknown {
  const r = cel().evaluate(expr, vars, PER_CALL_LIMIT);
  if (!r.ok) throw new Error(r.error);
  return r.value;
}

export class TokenRefused extends Error {}

function claimValue(source: ClaimSource, claims: JWTPayload, celClaims: unknown, what: string): string[] | undefined {
  if ('claim' in source) {
    const v = claims[source.claim];
    if (v === undefined || v === null) return undefined;
    const values = typeof v === 'string' ? [v] : Array.isArray(v) && v.every((x) => typeof x === 'string') ? (v as string[]) : undefined;
    if (!values) throw new TokenRefused(`oidc: parse ${what} claim ${JSON.stringify(source.claim)}: claim is not a string or a list of strings`);
    return values.map((x) => source.prefix + x);
  }
  let v: unknown;
  try {
    v = run(source.expression, { claims: celClaims });
  } catch (e) {
    throw new TokenRefused(`oidc: error evaluating ${what} claim expression: expression '${source.expression.source}' resulted in error: ${(e as Error).message}`);
  }
  const values = stringsOf(v);
  if (!values) throw new TokenRefused(`oidc: error evaluating ${what} claim expression: ${what} claim expression must return a string or a list of strings`);
  return values;
}

/** The user a verified token's claims map to; throws TokenRefused (its message is the 401's log line). */
export function userFromClaims(config: JwtAuthenticatorConfig, claims: JWTPayload): UserInfo {
  const celClaims = cel().jsonToCel(claims, CLAIMS_TYPE);
  for (const rule of config.claimValidationRules) {
    if ('claim' in rule) {
      const v = claims[rule.claim];
      if (v === undefined) throw new TokenRefused(`oidc: required claim ${rule.claim} not present`);
      if (v !== rule.requiredValue) throw new TokenRefused(`oidc: required claim ${rule.claim} value does not match. Got = ${String(v)}, want = ${rule.requiredValue}`);
      continue;
    }
    let ok: unknown;
    try {
      ok = run(rule.expression, { claims: celClaims });
    } catch (e) {
      throw new TokenRefused(`oidc: error evaluating claim validation expression: expression '${rule.expression.source}' resulted in error: ${(e as Error).message}`);
    }
    if (ok !== true) throw new TokenRefused(`oidc: error evaluating claim validation expression: validation expression '${rule.expression.source}' failed: ${rule.message}`);
  }
  const username = claimValue(config.username, claims, celClaims, 'username');
  if (!username || username.length !== 1 || username[0] === '' || ('claim' in config.username && username[0] === config.username.prefix)) {
    throw new TokenRefused('claim' in config.username ? `oidc: parse username claims ${JSON.stringify(config.username.claim)}: claim not present` : 'oidc: error evaluating username expression: username must not be empty');
  }
  // The email_verified rule: a username from the email claim needs email_verified true when it is present.
  if ('claim' in config.username && config.username.claim === 'email' && claims.email_verified !== undefined && claims.email_verified !== true) {
    throw new TokenRefused('oidc: email not verified');
  }
  const groups = config.groups ? (claimValue(config.groups, claims, celClaims, 'groups') ?? []) : [];
  const uid = config.uid ? claimValue(config.uid, claims, celClaims, 'uid') : undefined;
  if (uid && uid.length !== 1) throw new TokenRefused('oidc: error evaluating uid claim expression: uid must be a string');
  const extra: Record<string, string[]> = {};
  for (const e of config.extra) {
    let v: unknown;
    try {
      v = run(e.valueExpression, { claims: celClaims });
    } catch (err) {
      throw new TokenRefused(`oidc: error evaluating extra claim expression: expression '${e.valueExpression.source}' resulted in error: ${(err as Error).message}`);
    }
    const values = stringsOf(v);
    if (!values) throw new TokenRefused('oidc: error evaluating extra claim expression: extra claim expression must return a string or a list of strings');
    const kept = values.filter((x) => x !== '');
    if (kept.length > 0) extra[e.key] = kept;
  }
  const user: UserInfo = { name: username[0], groups, ...(uid?.[0] ? { uid: uid[0] } : {}), ...(Object.keys(extra).length > 0 ? { extra } : {}) };
  if (config.userValidationRules.length > 0) {
    const celUser = cel().jsonToCel({ username: user.name, uid: user.uid ?? '', groups: user.groups, extra: user.extra ?? {} }, USER_TYPE);
    for (const rule of config.userValidationRules) {
      let ok: unknown;
      try {
        ok = run(rule.expression, { user: celUser });
      } catch (e) {
        throw new TokenRefused(`oidc: error evaluating user info validation rule: expression '${rule.expression.source}' resulted in error: ${(e as Error).message}`);
      }
      if (ok !== true) throw new TokenRefused(`oidc: error evaluating user info validation rule: validation expression '${rule.expression.source}' failed: ${rule.message}`);
    }
  }
  return user;
}

/** The authenticator of one configuration (rebuilt on reload; each issuer's keys are fetched on first use). */
export function jwtAuthenticators(configuration: AuthenticationConfiguration): Authenticator {
  const byIssuer = new Map<string, JwtIssuer>();
  for (const config of configuration.jwt) {
    byIssuer.set(config.issuer.url, {
      keys: issuerKeySet(config.issuer.url, config.issuer.discoveryURL, config.issuer.certificateAuthority),
      verify: { issuer: config.issuer.url, audience: [...config.issuer.audiences] },
      user(payload) {
        try {
          return userFromClaims(config, payload);
        } catch (e) {
          if (e instanceof TokenRefused) return e.message;
          throw e;
        }
      },
    });
  }
  const verified = verifiedJwtAuthenticator((iss) => byIssuer.get(iss));
  return byIssuer.size === 0 ? { authenticate: async () => NO_OPINION } : verified;
}
