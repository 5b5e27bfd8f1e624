import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { looksLikeJwt, tokenDigest, tokenKey } from './token-key.ts';

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
