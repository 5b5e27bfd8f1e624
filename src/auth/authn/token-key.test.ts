import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { bearerToken, looksLikeJwt, requestBearerToken, requestTokenDigest, requestTokenKey, tokenDigest, tokenKey } from './token-key.ts';

test('a token is cached under its SHA-256, with what the answer depends on after a NUL', () => {
  assert.equal(tokenKey('abc'), createHash('sha256').update('abc').digest('base64url'));
  assert.equal(tokenKey('abc', 'aud1,aud2'), createHash('sha256').update('abc\0aud1,aud2').digest('base64url'));
  assert.notEqual(tokenKey('abc', ''), tokenKey('abc'));
  assert.deepEqual(tokenDigest('abc'), createHash('sha256').update('abc').digest());
});

test('a JWT has exactly three dot-separated parts', () => {
  assert.equal(looksLikeJwt('a.b.c'), true);
  assert.equal(looksLikeJwt('..'), true);
  for (const t of ['', 'abc', 'a.b', 'a.b.c.d', '....']) assert.equal(looksLikeJwt(t), false, t);
});

test('a request token is parsed and hashed once, and keys the caches as tokenKey does', () => {
  const token = 'eyJhbGciOiJSUzI1NiJ9.eyJpc3MiOiJ4In0.c2ln';
  const req = { headers: { authorization: `Bearer ${token}` } };
  assert.equal(requestBearerToken(req), token);
  const digest = requestTokenDigest(req);
  assert.equal(requestTokenDigest(req), digest);
  assert.deepEqual(digest, tokenDigest(token));
  assert.equal(requestTokenKey(req), tokenKey(token));
  // Another request with the same token gets the same key from its own memo.
  assert.equal(requestTokenKey({ headers: { authorization: `Bearer ${token}` } }), tokenKey(token));
});

test('bearer tokens as kube\'s bearertoken authenticator reads them', () => {
  assert.equal(bearerToken('Bearer abc'), 'abc');
  assert.equal(bearerToken('  bearer abc  '), 'abc');
  assert.equal(bearerToken('Bearer  abc'), undefined);
  assert.equal(bearerToken('Basic abc'), undefined);
  assert.equal(bearerToken('Bearer'), undefined);
  assert.equal(requestBearerToken({ headers: {} }), undefined);
});

test('a connection hashes its bearer token once: later requests with the same header reuse the digest, another token is hashed', () => {
  const connection = {};
  const request = (token: string, conn?: object) => ({ headers: { authorization: `Bearer ${token}` }, ...(conn ? { connection: conn } : {}) });
  const first = requestTokenDigest(request('aaa.bbb.ccc', connection));
  assert.deepEqual(first, tokenDigest('aaa.bbb.ccc'));
  assert.equal(requestTokenDigest(request('aaa.bbb.ccc', connection)), first, 'the same Buffer: not hashed again');
  const other = requestTokenDigest(request('ddd.eee.fff', connection));
  assert.deepEqual(other, tokenDigest('ddd.eee.fff'));
  assert.notEqual(requestTokenDigest(request('aaa.bbb.ccc', connection)), first, 'only the last token of a connection is kept');
  assert.notEqual(requestTokenDigest(request('ddd.eee.fff', {})), other, 'another connection hashes for itself');
  assert.notEqual(requestTokenDigest(request('ddd.eee.fff')), requestTokenDigest(request('ddd.eee.fff')), 'without a connection, per request');
  assert.deepEqual(requestTokenKey(request('aaa.bbb.ccc', connection)), tokenKey('aaa.bbb.ccc'));
});
