import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseTokenFile, tokenFileAuthenticator } from './token-file.ts';
import { bearerToken } from './token-key.ts';

const FILE = 'tok-1,alice,uid-a,"g1,g2"\ntok-2,bob,uid-b\n,empty,uid-e\ntok-1,alice2,uid-a2\n';

test('parses users, uids and groups; warns about empty and duplicate tokens without showing them', () => {
  const f = parseTokenFile(FILE, '/etc/tokens.csv');
  assert.equal(f.entries.length, 3);
  assert.deepEqual(f.entries.map((e) => e.user), [
    { name: 'alice', uid: 'uid-a', groups: ['g1', 'g2'] },
    { name: 'bob', uid: 'uid-b', groups: [] },
    { name: 'alice2', uid: 'uid-a2', groups: [] },
  ]);
  assert.deepEqual(f.warnings, [
    "empty token has been found in token file '/etc/tokens.csv', record number '3'",
    "duplicate token has been found in token file '/etc/tokens.csv', record number '4'",
  ]);
  assert.ok(f.warnings.every((w) => !w.includes('tok-')));
});

test('fewer than three columns is an error naming the file, not the token', () => {
  assert.throws(() => parseTokenFile('secret-token,bob\n', 'f.csv'), {
    message: "token file 'f.csv' must have at least 3 columns (token, user name, user uid), found 2",
  });
  assert.throws(() => parseTokenFile('sec"ret,bob,1\n', 'f.csv'), { message: `token file 'f.csv': parse error on line 1, column 4: bare " in non-quoted-field` });
});

test('bearer token parsing follows kube: scheme case-insensitive, empty token ignored', () => {
  assert.equal(bearerToken('Bearer abc'), 'abc');
  assert.equal(bearerToken('  bearer abc  '), 'abc');
  assert.equal(bearerToken('Bearer abc extra'), 'abc');
  assert.equal(bearerToken('Basic Zm9vOmJhcg=='), undefined);
  assert.equal(bearerToken('Bearer'), undefined);
  assert.equal(bearerToken('Bearer  abc'), undefined);
  assert.equal(bearerToken(undefined), undefined);
});

test('authenticates a known token (last duplicate wins), fails an unknown one, ignores requests without one', async () => {
  const a = tokenFileAuthenticator(parseTokenFile(FILE, 'f'));
  assert.deepEqual(await a.authenticate({ headers: { authorization: 'Bearer tok-2' } }), {
    kind: 'authenticated',
    user: { name: 'bob', uid: 'uid-b', groups: [] },
  });
  assert.deepEqual(await a.authenticate({ headers: { authorization: 'Bearer tok-1' } }), {
    kind: 'authenticated',
    user: { name: 'alice2', uid: 'uid-a2', groups: [] },
  });
  assert.deepEqual(await a.authenticate({ headers: { authorization: 'Bearer nope' } }), { kind: 'error', error: 'invalid bearer token' });
  assert.deepEqual(await a.authenticate({ headers: {} }), { kind: 'none' });
  assert.deepEqual(await a.authenticate({ headers: { authorization: 'Basic xyz' } }), { kind: 'none' });
});

test("a token's requests get one answer object again, so what is kept per answer downstream is found again", async () => {
  const a = tokenFileAuthenticator(parseTokenFile(FILE, 'f'));
  const first = await a.authenticate({ headers: { authorization: 'Bearer tok-2' } });
  assert.equal(await a.authenticate({ headers: { authorization: 'Bearer tok-2' } }), first);
  assert.notEqual(await a.authenticate({ headers: { authorization: 'Bearer tok-1' } }), first);
});
