// The authentication contract (k8s.io/apiserver/pkg/authentication/authenticator): each authenticator looks at
// one kind of credential and either authenticates, has no opinion (no such credential), or fails.

import type { UserInfo } from '../user.ts';

/** The TLS client certificate a request came with, as the listener saw it. */
export interface ClientCertificate {
  /** True when the chain verified against the accepted client CAs (with client-auth usage). */
  readonly verified: boolean;
  /** Why verification failed (for logs only). */
  readonly verifyError?: string;
  readonly commonName: string;
  readonly organizations: readonly string[];
  /** The certificate (DER), for authenticators that verify it against their own CAs (the authenticating proxy). */
  readonly raw?: Buffer;
}

/** What authenticators may look at: transport-independent. */
export interface AuthnRequest {
  /** Request headers, names lowercased. */
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  readonly clientCertificate?: ClientCertificate;
  /** The raw header list (name, value, ...), where repeated headers must stay apart. */
  readonly rawHeaders?: readonly string[];
  /** The audiences a token must name (TokenReview's spec.audiences); absent: the server's --api-audiences. */
  readonly audiences?: readonly string[];
  /** The request's connection, as an identity only: what stays the same across its requests is memoized on it. */
  readonly connection?: object;
}

export type AuthnResult =
  /** `audiences`: the token's audiences among those asked for, from authenticators that know them (service accounts). */
  | { readonly kind: 'authenticated'; readonly user: UserInfo; readonly audiences?: readonly string[] }
  /** This authenticator found no credential of its kind. */
  | { readonly kind: 'none' }
  /** A credential was presented and is not valid. `error` is for logs and never contains the credential. */
  | { readonly kind: 'error'; readonly error: string };

export interface Authenticator {
  authenticate(req: AuthnRequest): AuthnResult | Promise<AuthnResult>;
}

export const NO_OPINION: AuthnResult = { kind: 'none' };

export function authenticated(user: UserInfo, audiences?: readonly string[]): AuthnResult {
  return audiences ? { kind: 'authenticated', user, audiences } : { kind: 'authenticated', user };
}

export function failed(error: string): AuthnResult {
  return { kind: 'error', error };
}

/** The first value of a header (HTTP/2 and HTTP/1 both lowercase header names). */
export function headerValue(req: AuthnRequest, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
}
