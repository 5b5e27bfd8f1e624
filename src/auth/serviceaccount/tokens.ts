// Service account tokens as kube-apiserver issues them (pkg/serviceaccount/claims.go): a JWT signed with the
// service account signing key, its issuer the first --service-account-issuer, its audiences the request's (or
// --api-audiences), with the private "kubernetes.io" claim naming the namespace, the service account and the
// object the token is bound to.

import { clockDate } from '../../apis/clock.ts';
import { randomUUID } from 'node:crypto';
import { loadJose } from '../jose.ts';
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
  /** A legacy token for a kubernetes.io/service-account-token Secret: no expiry, no audience (kube's LegacyClaims). */
  issueLegacy(namespace: string, serviceAccount: ObjectRef, secretName: string): Promise<string>;
}

/** The claims of a legacy token. */
export const LEGACY_CLAIMS = {
  namespace: 'kubernetes.io/serviceaccount/namespace',
  secretName: 'kubernetes.io/serviceaccount/secret.name',
  serviceAccountName: 'kubernetes.io/serviceaccount/service-account.name',
  serviceAccountUid: 'kubernetes.io/serviceaccount/service-account.uid',
} as const;

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
      const { SignJWT } = await loadJose();
      const token = await new SignJWT({ 'kubernetes.io': claim })
        .setProtectedHeader({ alg: keys.signing.alg, kid: keys.signing.kid })
        .setIssuer(issuer)
        .setSubject(`system:serviceaccount:${claim.namespace}:${claim.serviceaccount.name}`)
        .setAudience([...audiences])
        .setIssuedAt(iat)
        .setNotBefore(iat)
        .setExpirationTime(exp)
        .setJti(randomUUID())
        .sign(await keys.signing.key());
      return { token, expiresAt: new Date(exp * 1000) };
    },
    async issueLegacy(namespace, serviceAccount, secretName) {
      const { SignJWT } = await loadJose();
      return new SignJWT({
        [LEGACY_CLAIMS.namespace]: namespace,
        [LEGACY_CLAIMS.secretName]: secretName,
        [LEGACY_CLAIMS.serviceAccountName]: serviceAccount.name,
        [LEGACY_CLAIMS.serviceAccountUid]: serviceAccount.uid,
      })
        .setProtectedHeader({ alg: keys.signing.alg, kid: keys.signing.kid })
        .setIssuer(LEGACY_ISSUER)
        .setSubject(`system:serviceaccount:${namespace}:${serviceAccount.name}`)
        .sign(await keys.signing.key());
    },
  };
}
