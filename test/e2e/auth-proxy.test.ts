// End to end: the authenticating proxy (--requestheader-*): a client certificate of the proxy CA with an allowed
// common name carries the user in X-Remote-User, groups in X-Remote-Group, extras in X-Remote-Extra-*; the same
// headers without the proxy's certificate (none, a user certificate, another proxy name) do not make anyone.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { issueCertificate, type PemPair } from '../../src/server/certificates.ts';
import type { TestServer } from './helpers.ts';
import { startTestServer } from './helpers.ts';

describe('authenticating proxy', () => {
  let server: TestServer;
  let dir: string;
  let proxy: PemPair;
  let otherProxy: PemPair;
  const headers = { 'X-Remote-User': 'mallory', 'X-Remote-Group': 'system:masters' };

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'capstan-proxy-'));
    const now = Date.now();
    const validity = { notBefore: new Date(now - 60_000), notAfter: new Date(now + 86_400_000) };
    const ca = await issueCertificate({ subject: { commonName: 'front-proxy-ca' }, isCa: true, ...validity });
    proxy = await issueCertificate({ subject: { commonName: 'front-proxy-client' }, isCa: false, usage: 'client', ...validity }, ca);
    otherProxy = await issueCertificate({ subject: { commonName: 'someone-else' }, isCa: false, usage: 'client', ...validity }, ca);
    await writeFile(join(dir, 'proxy-ca.pem'), ca.certPem);
    server = await startTestServer({
      authorizationMode: ['RBAC'],
      requestheaderClientCaFile: join(dir, 'proxy-ca.pem'),
      requestheaderAllowedNames: ['front-proxy-client'],
      requestheaderUsernameHeaders: ['X-Remote-User'],
      requestheaderGroupHeaders: ['X-Remote-Group'],
      requestheaderExtraHeadersPrefix: ['X-Remote-Extra-'],
    });
  });
  after(async () => {
    await server?.close();
    await rm(dir, { recursive: true, force: true });
  });

  const whoami = (opts: Parameters<TestServer['request']>[1]) =>
    server.request('/apis/authentication.k8s.io/v1/selfsubjectreviews', {
      method: 'POST',
      body: JSON.stringify({ apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' }),
      ...opts,
      headers: { 'content-type': 'application/json', ...opts?.headers },
    });

  test('the proxy\'s certificate makes the headers the identity: user, repeated groups, extras (keys unescaped)', async () => {
    const r = await whoami({
      clientCert: proxy.certPem,
      clientKey: proxy.keyPem,
      headers: { 'X-Remote-User': 'alice', 'X-Remote-Group': 'dev', 'X-Remote-Extra-Acme.com%2Fproject': 'p1', 'X-Remote-Extra-Scopes': 'a' },
    });
    assert.equal(r.status, 201, r.body);
    assert.deepEqual(JSON.parse(r.body).status.userInfo, { username: 'alice', groups: ['dev', 'system:authenticated'], extra: { 'acme.com/project': ['p1'], scopes: ['a'] } });
    const masters = await server.request('/api/v1/namespaces', { clientCert: proxy.certPem, clientKey: proxy.keyPem, headers });
    assert.equal(masters.status, 200, 'the proxy vouches for whatever groups it sends');
  });

  test('the same headers without the proxy\'s certificate are ignored (anonymous, a user certificate) or refused (another name)', async () => {
    const anon = await server.request('/api/v1/namespaces', { headers });
    assert.equal(anon.status, 403);
    assert.equal(JSON.parse(anon.body).message, 'namespaces is forbidden: User "system:anonymous" cannot list resource "namespaces" in API group "" at the cluster scope');
    const admin = await whoami({ clientCert: server.clientCert, clientKey: server.clientKey, headers });
    assert.equal(JSON.parse(admin.body).status.userInfo.username, 'capstan-admin');
    const other = await server.request('/api/v1/namespaces', { clientCert: otherProxy.certPem, clientKey: otherProxy.keyPem, headers });
    assert.equal(other.status, 401);
    // The proxy's certificate alone, without a user header, is no user certificate.
    const bare = await server.request('/api/v1/namespaces', { clientCert: proxy.certPem, clientKey: proxy.keyPem });
    assert.equal(bare.status, 401);
  });
});
