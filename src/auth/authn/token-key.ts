// What the bearer-token authenticators share: the key a token is cached under (its SHA-256, so no cache holds a
// token itself) and the cheap shape check that tells JWTs from other tokens, both on every request.

import { hash } from 'node:crypto';

/** The cache key of a token (and what else the answer depends on, e.g. the audiences). */
export function tokenKey(token: string, context?: string): string {
  return hash('sha256', context === undefined ? token : `${token}\0${context}`, 'base64url');
}

/** The SHA-256 of a token as bytes (for constant-time comparison). */
export function tokenDigest(token: string): Buffer {
  return hash('sha256', token, 'buffer') as unknown as Buffer;
}

/** Whether a token has a compact JWS's three dot-separated parts (without splitting it). */
export function looksLikeJwt(token: string): boolean {
  const first = token.indexOf('.');
  if (first < 0) return false;
  const second = token.indexOf('.', first + 1);
  return second >= 0 && token.indexOf('.', second + 1) < 0;
}
