// Service account tokens as kube-apiserver issues them (pkg/serviceaccount/claims.go): a JWT signed with the
// service account signing key, its issuer the first --service-account-issuer, its audiences the request's (or
// --api-audiences), with the private "kubernetes.io" claim naming the namespace, the service account and the
// object the token is bound to.

import { clockDate } from '../../apis/clock.ts';
import { randomUUID } from 'node:crypto';
import { SignJWT } from 'jose';
import type { ServiceAccountKeys } from './keys.ts';

/** kube-apiserver requires --service-account-issuer; kubeadm and kind use this one, and so does Capstan by default. */
export const DEFAULT_ISSUER = 'https://kubernetes.default.svc.cluster.local';
/** The issuer of legacy, secret-based tokens. */
export const LEGACY_ISSUER = 'kubernetes/serviceaccount';

export interface ObjectRef {
  readonly name: string;
  readonly uid: string;
}

/** The private claim ("kubernetes.io") of a bound token. */
export interface KubernetesClaim {
  readonly namespace: string;
  readonly serviceaccount: ObjectRef;
  readonly pod?: ObjectRef;
  readonly secret?: ObjectRef;
  readonly node?: ObjectRef;
}

export interface TokenIssuer {
  /** The issuer written into tokens (the first --service-account-issuer). */
  readonly issuer: string;
  /** Every --service-account-issuer: tokens of any of them are accepted. */
  readonly acceptedIssuers: readonly string[];
  /** --api-audiences: the audiences of tokens requested without any, and what a request's token must name. */
  readonly apiAudiences: readonly string[];
  readonly keys: ServiceAccountKeys;
  issue(claim: KubernetesClaim, audiences: readonly string[], expirationSeconds: number, now?: Date): Promise<{ token: string; expiresAt: Date }>;
}

export function createTokenIssuer(keys: ServiceAccountKeys, issuers: readonly string[], apiAudiences: readonly string[]): TokenIssuer {
  const issuer = issuers[0] ?? DEFAULT_ISSUER;
  return {
    issuer,
    acceptedIssuers: issuers.length > 0 ? issuers : [issuer],
    apiAudiences: apiAudiences.length > 0 ? apiAudiences : [issuer],
    keys,
    async issue(claim, audiences, expirationSeconds, now = clockDate()) {
      const iat = Math.floor(now.getTime() / 1000);
      const exp = iat + expirationSeconds;
      const token = await new SignJWT({ 'kubernetes.io': claim })
        .setProtectedHeader({ alg: keys.signing.alg, kid: keys.signing.kid })
        .setIssuer(issuer)
        .setSubject(`system:serviceaccount:${claim.namespace}:${claim.serviceaccount.name}`)
        .setAudience([...audiences])
        .setIssuedAt(iat)
        .setNotBefore(iat)
        .setExpirationTime(exp)
        .setJti(randomUUID())
        .sign(keys.signing.key);
      return { token, expiresAt: new Date(exp * 1000) };
    },
  };
}
