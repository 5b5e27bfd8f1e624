// --authentication-config: AuthenticationConfiguration (apiserver.config.k8s.io v1alpha1, v1beta1, v1) decoded,
// validated with kube's field errors (k8s.io/apiserver/pkg/apis/apiserver/validation) and its CEL expressions
// compiled, ready for the JWT authenticators (jwt.ts).

import { aggregateFieldErrors, fieldErrors, type FieldError } from '../../apis/errors.ts';
import type { CompiledExpression } from '../../cel/index.ts';
import { DYN, surelyNotOf, type DeclType } from '../../cel/decl.ts';
import { cel } from '../../cel/lazy.ts';
import { decodeConfigDocument } from '../config-file.ts';

export const MAX_JWT_AUTHENTICATORS = 64;

/** claims: map(string, dyn), as kube declares it. */
export const CLAIMS_TYPE: DeclType = { kind: 'map', value: DYN };
const STRING_LIST: DeclType = { kind: 'list', elem: { kind: 'string' } };
/** user: kubernetes.UserInfo (username, uid, groups, extra). */
export const USER_TYPE: DeclType = {
  kind: 'object',
  fields: new Map([
    ['username', { name: 'username', type: { kind: 'string' } }],
    ['uid', { name: 'uid', type: { kind: 'string' } }],
    ['groups', { name: 'groups', type: STRING_LIST }],
    ['extra', { name: 'extra', type: { kind: 'map', value: STRING_LIST } }],
  ]),
};

/** A claim read directly (with its prefix) or computed by a CEL expression on `claims`. */
export type ClaimSource = { readonly claim: string; readonly prefix: string } | { readonly expression: CompiledExpression };

export type ClaimValidationRule = { readonly claim: string; readonly requiredValue: string } | { readonly expression: CompiledExpression; readonly message: string };

export interface JwtAuthenticatorConfig {
  readonly issuer: { readonly url: string; readonly discoveryURL?: string; readonly certificateAuthority?: string; readonly audiences: readonly string[] };
  readonly claimValidationRules: readonly ClaimValidationRule[];
  readonly username: ClaimSource;
  readonly groups?: ClaimSource;
  readonly uid?: ClaimSource;
  readonly extra: readonly { readonly key: string; readonly valueExpression: CompiledExpression }[];
  readonly userValidationRules: readonly { readonly expression: CompiledExpression; readonly message: string }[];
}

export interface AuthenticationConfiguration {
  readonly jwt: readonly JwtAuthenticatorConfig[];
}

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : {});
const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');

/**
 * Parses and validates a file's content; throws an Error with kube's aggregated field errors. `disallowedIssuers`:
 * the service account issuers, which no JWT authenticator may claim.
 */
export function parseAuthenticationConfiguration(text: string, disallowedIssuers: readonly string[] = []): AuthenticationConfiguration {
  const doc = decodeConfigDocument(text, 'AuthenticationConfiguration', ['v1alpha1', 'v1beta1', 'v1']);
  const errors: FieldError[] = [];
  const jwts = arr(doc.jwt);
  if (jwts.length > MAX_JWT_AUTHENTICATORS) errors.push(fieldErrors.tooMany('jwt', jwts.length, MAX_JWT_AUTHENTICATORS));
  const seenIssuers = new Set<string>();
  const jwt = jwts.map((raw, i) => jwtAuthenticatorConfig(obj(raw), `jwt[${i}]`, seenIssuers, disallowedIssuers, errors));
  if (errors.length > 0) throw new Error(aggregateFieldErrors(errors));
  return { jwt };
}

/** Compiles a claim mapping (any result) or validation rule (a bool result, as kube's compiler requires). */
function compile(source: string, variable: 'claims' | 'user', path: string, errors: FieldError[], returns: 'bool' | 'any' = 'any'): CompiledExpression | undefined {
  const r = cel().compileExpression(source, variable === 'claims' ? { claims: CLAIMS_TYPE } : { user: USER_TYPE });
  if (!r.ok) errors.push(fieldErrors.invalid(path, source, `compilation failed: ${r.error}`));
  else if (returns === 'bool' && surelyNotOf(r.expression.info.resultType, ['bool'])) errors.push(fieldErrors.invalid(path, source, 'must evaluate to bool'));
  else return r.expression;
  return undefined;
}

function jwtAuthenticatorConfig(raw: Obj, path: string, seenIssuers: Set<string>, disallowedIssuers: readonly string[], errors: FieldError[]): JwtAuthenticatorConfig {
  const issuer = obj(raw.issuer);
  const url = str(issuer.url);
  if (!url) errors.push(fieldErrors.required(`${path}.issuer.url`));
  else {
    let parsed: URL | undefined;
    try {
      parsed = new URL(url);
    } catch {
      errors.push(fieldErrors.invalid(`${path}.issuer.url`, url, 'must be a valid URL'));
    }
    if (parsed && parsed.protocol !== 'https:') errors.push(fieldErrors.invalid(`${path}.issuer.url`, url, 'URL scheme must be https'));
    if (disallowedIssuers.includes(url)) errors.push(fieldErrors.invalid(`${path}.issuer.url`, url, `URL must not overlap with disallowed issuers: [${[...disallowedIssuers].sort().join(' ')}]`));
    if (seenIssuers.has(url)) errors.push(fieldErrors.duplicate(`${path}.issuer.url`, url));
    seenIssuers.add(url);
  }
  const discoveryURL = str(issuer.discoveryURL) || undefined;
  if (discoveryURL !== undefined) {
    if (!/^https:\/\//.test(discoveryURL)) errors.push(fieldErrors.invalid(`${path}.issuer.discoveryURL`, discoveryURL, 'URL scheme must be https'));
    if (discoveryURL === url) errors.push(fieldErrors.invalid(`${path}.issuer.discoveryURL`, discoveryURL, 'discoveryURL must be different from URL'));
  }
  const audiences = arr(issuer.audiences).map(str);
  if (audiences.length === 0) errors.push(fieldErrors.required(`${path}.issuer.audiences`, 'at least one issuer.audiences is required'));
  audiences.forEach((a, j) => {
    if (!a) errors.push(fieldErrors.required(`${path}.issuer.audiences[${j}]`, 'audience can\'t be empty'));
    else if (audiences.indexOf(a) !== j) errors.push(fieldErrors.duplicate(`${path}.issuer.audiences[${j}]`, a));
  });
  const policy = str(issuer.audienceMatchPolicy);
  if (audiences.length > 1 && policy !== 'MatchAny') errors.push(fieldErrors.invalid(`${path}.issuer.audienceMatchPolicy`, policy, 'audienceMatchPolicy must be MatchAny for multiple audiences'));
  else if (policy !== '' && policy !== 'MatchAny') errors.push(fieldErrors.invalid(`${path}.issuer.audienceMatchPolicy`, policy, 'audienceMatchPolicy must be empty or MatchAny for single audience'));

  const claimValidationRules: ClaimValidationRule[] = [];
  const seenClaims = new Set<string>();
  arr(raw.claimValidationRules).forEach((r, j) => {
    const rule = obj(r);
    const p = `${path}.claimValidationRules[${j}]`;
    const claim = str(rule.claim);
    const expression = str(rule.expression);
    if (claim && expression) errors.push(fieldErrors.invalid(p, '', "claim and expression can't both be set"));
    else if (!claim && !expression) errors.push(fieldErrors.required(p, 'claim or expression is required'));
    else if (claim) {
      if (str(rule.message)) errors.push(fieldErrors.invalid(`${p}.message`, str(rule.message), 'may not be specified when claim is set'));
      if (seenClaims.has(claim)) errors.push(fieldErrors.duplicate(`${p}.claim`, claim));
      seenClaims.add(claim);
      claimValidationRules.push({ claim, requiredValue: str(rule.requiredValue) });
    } else {
      if (str(rule.requiredValue)) errors.push(fieldErrors.invalid(`${p}.requiredValue`, str(rule.requiredValue), 'may not be specified when expression is set'));
      const compiled = compile(expression, 'claims', `${p}.expression`, errors, 'bool');
      if (compiled) claimValidationRules.push({ expression: compiled, message: str(rule.message) });
    }
  });

  const mappings = obj(raw.claimMappings);
  const source = (name: 'username' | 'groups' | 'uid', required: boolean): ClaimSource | undefined => {
    const m = obj(mappings[name]);
    const p = `${path}.claimMappings.${name}`;
    const claim = str(m.claim);
    const expression = str(m.expression);
    const hasPrefix = typeof m.prefix === 'string';
    if (claim && expression) {
      errors.push(fieldErrors.invalid(p, '', "claim and expression can't both be set"));
      return undefined;
    }
    if (!claim && !expression) {
      if (required) errors.push(fieldErrors.required(p, 'claim or expression is required'));
      else if (hasPrefix && m.prefix !== '') errors.push(fieldErrors.invalid(`${p}.prefix`, m.prefix, 'may not be specified when claim is not set'));
      return undefined;
    }
    if (expression) {
      if (hasPrefix && m.prefix !== '') errors.push(fieldErrors.invalid(`${p}.prefix`, m.prefix, 'may not be specified when expression is set'));
      const compiled = compile(expression, 'claims', `${p}.expression`, errors);
      return compiled && { expression: compiled };
    }
    if (name === 'username' && !hasPrefix) {
      errors.push(fieldErrors.required(`${p}.prefix`, 'prefix is required when claim is set. It can be set to an empty string to disable prefixing'));
    }
    if (name === 'uid' && hasPrefix) errors.push(fieldErrors.invalid(`${p}.prefix`, m.prefix, 'may not be specified'));
    return { claim, prefix: str(m.prefix) };
  };
  const username = source('username', true);
  const groups = source('groups', false);
  const uid = source('uid', false);
  const extra: { key: string; valueExpression: CompiledExpression }[] = [];
  const seenKeys = new Set<string>();
  arr(mappings.extra).forEach((e, j) => {
    const m = obj(e);
    const p = `${path}.claimMappings.extra[${j}]`;
    const key = str(m.key);
    if (!key) errors.push(fieldErrors.required(`${p}.key`));
    else if (!/^[a-z0-9.-]+\/\S+$/.test(key)) errors.push(fieldErrors.invalid(`${p}.key`, key, 'must be a domain-prefixed path (such as "acme.io/foo")'));
    else if (key !== key.toLowerCase()) errors.push(fieldErrors.invalid(`${p}.key`, key, 'key must be lowercase'));
    if (key && seenKeys.has(key)) errors.push(fieldErrors.duplicate(`${p}.key`, key));
    seenKeys.add(key);
    const valueExpression = str(m.valueExpression);
    if (!valueExpression) errors.push(fieldErrors.required(`${p}.valueExpression`, 'valueExpression is required'));
    else {
      const compiled = compile(valueExpression, 'claims', `${p}.valueExpression`, errors);
      if (compiled && key) extra.push({ key, valueExpression: compiled });
    }
  });
  // kube's rule for usernames built from the email claim by CEL: email_verified must be checked somewhere.
  if (username && 'expression' in username && /\bclaims\.\??email\b/.test(username.expression.source)) {
    const sources = [username.expression.source, ...extra.map((e) => e.valueExpression.source), ...claimValidationRules.flatMap((r) => ('expression' in r ? [r.expression.source] : []))];
    if (!sources.some((src) => /\bclaims\.\??email_verified\b/.test(src))) {
      errors.push(
        fieldErrors.invalid(
          `${path}.claimMappings.username.expression`,
          username.expression.source,
          'claims.email_verified must be used in claimMappings.username.expression or claimMappings.extra[*].valueExpression or claimValidationRules[*].expression when claimMappings.username.expression uses claims.email',
        ),
      );
    }
  }
  const userValidationRules: { expression: CompiledExpression; message: string }[] = [];
  arr(raw.userValidationRules).forEach((r, j) => {
    const rule = obj(r);
    const p = `${path}.userValidationRules[${j}]`;
    const expression = str(rule.expression);
    if (!expression) errors.push(fieldErrors.required(`${p}.expression`, 'expression is required'));
    else {
      const compiled = compile(expression, 'user', `${p}.expression`, errors, 'bool');
      if (compiled) userValidationRules.push({ expression: compiled, message: str(rule.message) });
    }
  });
  return {
    issuer: { url, discoveryURL, certificateAuthority: str(issuer.certificateAuthority) || undefined, audiences },
    claimValidationRules,
    username: username ?? { claim: 'sub', prefix: '' },
    groups,
    uid,
    extra,
    userValidationRules,
  };
}
