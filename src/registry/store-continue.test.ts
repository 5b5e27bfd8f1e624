import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decodeContinue, encodeContinue } from './store-continue.ts';

test('tokens are the base64url JSON kube writes', () => {
  const token = encodeContinue('/registry/configmaps/default/b', '/registry/configmaps/', 12);
  assert.equal(Buffer.from(token, 'base64url').toString(), '{"v":"meta.k8s.io/v1","rv":12,"start":"default/b\\u0000"}');
  assert.ok(!token.includes('='), 'no padding');
  assert.deepEqual(decodeContinue(token, '/registry/configmaps/'), { startKey: '/registry/configmaps/default/b\u0000', revision: 12 });
});

test("a token made by kube decodes (Go's json escapes \\u0000 the same)", () => {
  const kube = Buffer.from('{"v":"meta.k8s.io/v1","rv":5,"start":"ns/x\\u0000"}').toString('base64url');
  assert.deepEqual(decodeContinue(kube, '/p/'), { startKey: '/p/ns/x\u0000', revision: 5 });
});

test('bad tokens are refused with kube messages', () => {
  const enc = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');
  assert.throws(() => decodeContinue('ab!!', '/p/'), { message: 'continue key is not valid: illegal base64 data at input byte 2' });
  assert.throws(() => decodeContinue('abcde', '/p/'), { message: 'continue key is not valid: illegal base64 data at input byte 4' });
  assert.throws(() => decodeContinue('YWJj', '/p/'), { message: "continue key is not valid: invalid character 'a' looking for beginning of value" });
  // Garbage decodes to bytes that are not UTF-8: Go names the byte itself (0x81 here), as a rune.
  assert.throws(() => decodeContinue('garbage', '/p/'), { message: "continue key is not valid: invalid character '\\u0081' looking for beginning of value" });
  // A UTF-8 character is named by its first byte (é is C3 A9).
  assert.throws(() => decodeContinue(Buffer.from('é').toString('base64url'), '/p/'), { message: "continue key is not valid: invalid character 'Ã' looking for beginning of value" });
  assert.throws(() => decodeContinue(enc([1]), '/p/'), { message: 'continue key is not valid: json: cannot unmarshal array into Go value of type storage.continueToken' });
  assert.throws(() => decodeContinue(enc({ v: 'meta.k8s.io/v1', rv: '3', start: 'a' }), '/p/'), {
    message: 'continue key is not valid: json: cannot unmarshal string into Go struct field continueToken.rv of type int64',
  });
  assert.throws(() => decodeContinue(enc({ v: 'x', rv: 1, start: 'a' }), '/p/'), { message: 'continue key is not valid: server does not recognize this encoded version "x"' });
  assert.throws(() => decodeContinue(enc({ v: 'meta.k8s.io/v1', rv: 0, start: 'a' }), '/p/'), {
    message: 'continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)',
  });
  assert.throws(() => decodeContinue(enc({ v: 'meta.k8s.io/v1', rv: 3, start: '' }), '/p/'), {
    message: 'continue key is not valid: encoded start key empty (version meta.k8s.io/v1)',
  });
  assert.throws(() => decodeContinue(enc({ v: 'meta.k8s.io/v1', rv: 3, start: '../secrets/x' }), '/p/'), { message: 'continue key is not valid: ../secrets/x' });
});

test('rv -1 (continue at the newest revision) round-trips', () => {
  const t = encodeContinue('/p/a', '/p/', -1);
  assert.equal(decodeContinue(t, '/p/').revision, -1);
});
