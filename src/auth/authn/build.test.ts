import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildAuthenticator } from './build.ts';
import { parseTokenFile } from './token-file.ts';
import type { ClientCertificate } from './types.ts';

const tokenFile = parseTokenFile('good,alice,u1,devs\n', 'f');
const adminCert: ClientCertificate = { verified: true, commonName: 'capstan-admin', organizations: ['system:masters'] };
const strangerCert: ClientCertificate = { verified: false, verifyError: 'unable to verify the first certificate', commonName: 'mallory', organizations: ['system:masters'] };

test('no credentials: anonymous when enabled, no opinion (401) when not', async () => {
  const on = buildAuthenticator({ clientCertificates: true, tokenFile, anonymous: true });
  assert.deepEqual(await on.authenticate({ headers: {} }), { kind: 'authenticated', user: { name: 'system:anonymous', groups: ['system:unauthenticated'] } });
  const off = buildAuthenticator({ clientCertificates: true, tokenFile, anonymous: false });
  assert.deepEqual(await off.authenticate({ headers: {} }), { kind: 'none' });
});

test('a bad token fails even with anonymous enabled', async () => {
  const a = buildAuthenticator({ clientCertificates: true, tokenFile, anonymous: true });
  assert.deepEqual(await a.authenticate({ headers: { authorization: 'Bearer bad' } }), { kind: 'error', error: 'invalid bearer token' });
});

test('a verified client certificate names user and groups, plus system:authenticated', async () => {
  const a = buildAuthenticator({ clientCertificates: true, anonymous: true });
  assert.deepEqual(await a.authenticate({ headers: {}, clientCertificate: adminCert }), {
    kind: 'authenticated',
    user: { name: 'capstan-admin', groups: ['system:masters', 'system:authenticated'] },
  });
});

test('an unverified certificate fails, unless a token authenticates the request', async () => {
  const a = buildAuthenticator({ clientCertificates: true, tokenFile, anonymous: true });
  const r = await a.authenticate({ headers: {}, clientCertificate: strangerCert });
  assert.deepEqual(r, { kind: 'error', error: 'verifying client certificate failed: unable to verify the first certificate' });
  assert.deepEqual(await a.authenticate({ headers: { authorization: 'Bearer good' }, clientCertificate: strangerCert }), {
    kind: 'authenticated',
    user: { name: 'alice', uid: 'u1', groups: ['devs', 'system:authenticated'] },
  });
});

test('both failing: the errors are aggregated', async () => {
  const a = buildAuthenticator({ clientCertificates: true, tokenFile, anonymous: false });
  assert.deepEqual(await a.authenticate({ headers: { authorization: 'Bearer bad' }, clientCertificate: strangerCert }), {
    kind: 'error',
    error: '[verifying client certificate failed: unable to verify the first certificate, invalid bearer token]',
  });
});

test('system:authenticated is not added twice, nor to users in system:unauthenticated', async () => {
  const f = parseTokenFile('t1,svc,u,"system:authenticated,x"\nt2,odd,u,system:unauthenticated\n', 'f');
  const a = buildAuthenticator({ clientCertificates: false, tokenFile: f, anonymous: false });
  const r1 = await a.authenticate({ headers: { authorization: 'Bearer t1' } });
  assert.deepEqual(r1.kind === 'authenticated' && r1.user.groups, ['system:authenticated', 'x']);
  const r2 = await a.authenticate({ headers: { authorization: 'Bearer t2' } });
  assert.deepEqual(r2.kind === 'authenticated' && r2.user.groups, ['system:unauthenticated']);
});

test('a certificate without a common name is no opinion (falls to anonymous)', async () => {
  const a = buildAuthenticator({ clientCertificates: true, anonymous: true });
  const r = await a.authenticate({ headers: {}, clientCertificate: { verified: true, commonName: '', organizations: ['g'] } });
  assert.deepEqual(r.kind === 'authenticated' && r.user.name, 'system:anonymous');
});
