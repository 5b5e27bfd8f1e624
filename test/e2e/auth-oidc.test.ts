// End to end: OpenID Connect tokens (--oidc-*) from an issuer the test serves on loopback (HTTPS with its own CA,
// discovery document and JWKS), used with raw requests and kubectl; bad tokens are 401.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SignJWT, exportJWK, importPKCS8 } from 'jose';
import { issueCertificate } from '../../src/server/certificates.ts';
import type { TestServer } from './helpers.ts';
import { startTestServer } from './helpers.ts';

describe('OIDC (--oidc-issuer-url with the test\'s own issuer)', () => {
  let server: TestServer;
  let issuerServer: Server;
  let issuer: string;
  let dir: string;
  let signingPem: string;
  let otherPem: string;

  const sign = async (claims: Record<string, unknown>, opts: { pem?: string; aud?: string; exp?: number; iss?: string } = {}) =>
    new SignJWT(claims)
      .setProtectedHeader({ alg: 'RS256', kid: 'k1' })
      .setIssuer(opts.iss ?? issuer)
      .setAudience(opts.aud ?? 'capstan')
      .setIssuedAt()
      .setExpirationTime(opts.exp ?? Math.floor(Date.now() / 1000) + 600)
      .sign(await importPKCS8(opts.pem ?? signingPem, 'RS256'));

  const alice = { sub: 'u-123', email: 'alice@example.com', email_verified: true, groups: ['dev', 'ops'], hd: 'example.com' };

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'capstan-oidc-'));
    const now = Date.now();
    const validity = { notBefore: new Date(now - 60_000), notAfter: new Date(now + 86_400_000) };
    const ca = await issueCertificate({ subject: { commonName: 'oidc-ca' }, isCa: true, ...validity });
    const serving = await issueCertificate({ subject: { commonName: 'issuer' }, isCa: false, usage: 'server', altNames: ['127.0.0.1'], ...validity }, ca);
    const pair = () => generateKeyPairSync('rsa', { modulusLength: 2048 });
    const key = pair();
    signingPem = key.privateKey.export({ format: 'pem', type: 'pkcs8' }) as string;
    otherPem = pair().privateKey.export({ format: 'pem', type: 'pkcs8' }) as string;
    const jwk = { ...(await exportJWK(key.publicKey)), kid: 'k1', alg: 'RS256', use: 'sig' };
    issuerServer = createServer({ cert: serving.certPem, key: serving.keyPem }, (req, res) => {
      res.setHeader('content-type', 'application/json');
      if (req.url === '/.well-known/openid-configuration') res.end(JSON.stringify({ issuer, jwks_uri: `${issuer}/keys` }));
      else if (req.url === '/keys') res.end(JSON.stringify({ keys: [jwk] }));
      else {
        res.statusCode = 404;
        res.end('{}');
      }
    });
    await new Promise<void>((r) => issuerServer.listen(0, '127.0.0.1', r));
    issuer = `https://127.0.0.1:${(issuerServer.address() as { port: number }).port}`;
    await writeFile(join(dir, 'oidc-ca.pem'), ca.certPem);
    server = await startTestServer({
      authorizationMode: ['RBAC'],
      oidcIssuerUrl: issuer,
      oidcClientId: 'capstan',
      oidcCaFile: join(dir, 'oidc-ca.pem'),
      oidcUsernameClaim: 'email',
      oidcGroupsClaim: 'groups',
      oidcGroupsPrefix: 'oidc:',
      oidcRequiredClaims: { hd: 'example.com' },
    });
  });
  after(async () => {
    await server?.close();
    await new Promise((r) => issuerServer?.close(r));
    await rm(dir, { recursive: true, force: true });
  });

  test('a token of the issuer is its email user with prefixed groups, for raw requests and kubectl', async () => {
    const token = await sign(alice);
    const kc = await server.writeKubeconfig('oidc', { token });
    const who = JSON.parse(await server.kubectlOk(['auth', 'whoami', '-o', 'json'], { kubeconfig: kc })) as { status: { userInfo: unknown } };
    assert.deepEqual(who.status.userInfo, { username: 'alice@example.com', groups: ['oidc:dev', 'oidc:ops', 'system:authenticated'] });
    const denied = await server.kubectl(['get', 'pods'], { kubeconfig: kc });
    assert.equal(denied.stderr.trim(), 'Error from server (Forbidden): pods is forbidden: User "alice@example.com" cannot list resource "pods" in API group "" in the namespace "default"');
    await server.kubectlOk(['create', '-f', '-'], {
      input: JSON.stringify({
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'RoleBinding',
        metadata: { name: 'oidc-dev-view', namespace: 'default' },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view' },
        subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: 'oidc:dev' }],
      }),
    });
    for (let i = 0; i < 250 && (await server.kubectl(['get', 'pods'], { kubeconfig: kc })).code !== 0; i++) await new Promise((r) => setTimeout(r, 20));
    assert.equal((await server.kubectl(['get', 'pods'], { kubeconfig: kc })).code, 0);
  });

  test('refused: wrong signature, audience or issuer, expired, email not verified, a required claim missing', async () => {
    const now = Math.floor(Date.now() / 1000);
    const bad: Record<string, string> = {
      wrongSignature: await sign(alice, { pem: otherPem }),
      wrongAudience: await sign(alice, { aud: 'someone-else' }),
      expired: await sign(alice, { exp: now - 3600 }),
      emailNotVerified: await sign({ ...alice, email_verified: false }),
      requiredClaimMissing: await sign({ ...alice, hd: 'other.com' }),
      noEmail: await sign({ sub: 'x', hd: 'example.com' }),
      otherIssuer: await sign(alice, { iss: 'https://issuer.example' }),
    };
    for (const [what, token] of Object.entries(bad)) {
      const r = await server.request('/version', { token });
      assert.equal(r.status, 401, what);
      assert.equal(JSON.parse(r.body).message, 'Unauthorized', what);
    }
  });
});
