// What the bearer-token authenticators share: the key a token is cached under (its SHA-256, so no cache holds a
// token itself) and the cheap shape check that tells JWTs from other tokens, both on every request.

import { hash } from 'node:crypto';
import { headerValue, type AuthnRequest } from './types.ts';

/** The bearer token of an Authorization header, as kube's bearertoken authenticator reads it. */
export function bearerToken(authorization: string | undefined): string | undefined {
  const auth = (authorization ?? '').trim();
  if (auth === '') return undefined;
  const parts = auth.split(' ');
  if (parts.length < 2 || parts[0].toLowerCase() !== 'bearer') return undefined;
  const token = parts[1];
  return token === '' ? undefined : token;
}

// A request's token is parsed and hashed once, however many authenticators look at it (the token file, service
// accounts, OIDC and webhooks each did both). The memo lives on the request object and goes with it.
const BEARER = Symbol('bearer token');

interface BearerMemo {
  readonly token: string | undefined;
  digest?: Buffer;
  key?: string;
}

function bearerMemo(req: AuthnRequest): BearerMemo {
  const r = req as AuthnRequest & { [BEARER]?: BearerMemo };
  return (r[BEARER] ??= { token: bearerToken(headerValue(req, 'authorization')) });
}

/** The request's bearer token (parsed once per request). */
export function requestBearerToken(req: AuthnRequest): string | undefined {
  return bearerMemo(req).token;
}

/**
 * Per connection, its last bearer token and that token's digest: a kept-alive connection sends the same header with
 * every request, so a token is hashed once per connection. The token is held as long as the connection, no longer.
 */
const connectionDigests = new WeakMap<object, { readonly token: string; readonly digest: Buffer; key?: string }>();

/** The connection's memo of the request's token, made when the connection last carried another one. */
function connectionMemo(req: AuthnRequest, memo: BearerMemo): { readonly token: string; readonly digest: Buffer; key?: string } {
  const token = memo.token ?? '';
  const connection = req.connection;
  const last = connection !== undefined ? connectionDigests.get(connection) : undefined;
  if (last !== undefined && last.token === token) return last;
  const fresh = { token, digest: tokenDigest(token) };
  if (connection !== undefined) connectionDigests.set(connection, fresh);
  return fresh;
}

/** The SHA-256 of the request's bearer token (once per request, or per connection); call only when it has one. */
export function requestTokenDigest(req: AuthnRequest): Buffer {
  const memo = bearerMemo(req);
  return (memo.digest ??= connectionMemo(req, memo).digest);
}

/** tokenKey of the request's bearer token without a context (once per request, or per connection); call only when it has one. */
export function requestTokenKey(req: AuthnRequest): string {
  const memo = bearerMemo(req);
  if (memo.key !== undefined) return memo.key;
  const shared = connectionMemo(req, memo);
  memo.digest = shared.digest;
  return (memo.key = shared.key ??= shared.digest.toString('base64url'));
}

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
