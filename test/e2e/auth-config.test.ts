// End to end: the structured configuration files. --authentication-config with a JWT authenticator for the test's
// own issuer (HTTPS on loopback, discovery + JWKS): CEL claim mappings, claim and user validation rules, reload
// while the server runs (a new prefix takes over; an invalid file keeps the old config, logs, counts a failure).
// --authorization-config: a Webhook (the test's own, on loopback) behind a CEL matchCondition, then RBAC.
// And kube's start-up errors, word for word.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SignJWT, exportJWK, importPKCS8 } from 'jose';
import { issueCertificate } from '../../src/server/certificates.ts';
import { createLogger } from '../../src/server/log.ts';
import { ConfigError, startCapstan } from '../../src/index.ts';
import type { TestServer } from './helpers.ts';
import { startTestServer } from './helpers.ts';

type Obj = Record<string, any>;

const authenticationConfig = (issuer: string, caPem: string, usernameExpression: string) => `apiVersion: apiserver.config.k8s.io/v1beta1
kind: AuthenticationConfiguration
jwt:
- issuer:
    url: ${issuer}
    certificateAuthority: ${JSON.stringify(caPem)}
    audiences: [capstan, other-audience]
    audienceMatchPolicy: MatchAny
  claimValidationRules:
  - expression: "claims.hd == 'example.com'"
    message: the hd claim must be example.com
  claimMappings:
    username:
      expression: ${JSON.stringify(usernameExpression)}
    groups:
      expression: "claims.roles.map(r, 'role:' + r)"
    uid:
      claim: sub
    extra:
    - key: example.com/tenant
      valueExpression: claims.tenant
  userValidationRules:
  - expression: "!user.username.startsWith('oidc:system')"
    message: no system-like users
`;

const authorizationConfig = (kubeconfig: string, namespace: string) => `apiVersion: apiserver.config.k8s.io/v1beta1
kind: AuthorizationConfiguration
authorizers:
- type: Webhook
  name: team-hook
  webhook:
    timeout: 3s
    subjectAccessReviewVersion: v1
    matchConditionSubjectAccessReviewVersion: v1
    failurePolicy: Deny
    authorizedTTL: 1m
    unauthorizedTTL: 10s
    connectionInfo:
      type: KubeConfigFile
      kubeConfigFile: ${kubeconfig}
    matchConditions:
    - expression: "has(request.resourceAttributes) && request.resourceAttributes.namespace == '${namespace}'"
- type: RBAC
  name: rbac
`;

describe('--authentication-config and --authorization-config', () => {
  let server: TestServer;
  let issuerServer: Server;
  let hooks: Server;
  let issuer: string;
  let dir: string;
  let caPem: string;
  let signingPem: string;
  const logLines: string[] = [];
  const sars: Obj[] = [];

  const sign = async (claims: Record<string, unknown>, aud = 'capstan') =>
    new SignJWT(claims)
      .setProtectedHeader({ alg: 'RS256', kid: 'k1' })
      .setIssuer(issuer)
      .setAudience(aud)
      .setIssuedAt()
      .setExpirationTime(Math.floor(Date.now() / 1000) + 600)
      .sign(await importPKCS8(signingPem, 'RS256'));
  const alice = { sub: 'u-123', preferred_username: 'alice', hd: 'example.com', roles: ['dev', 'ops'], tenant: 't1' };
  const whoami = async (token: string) => {
    const r = await server.request('/apis/authentication.k8s.io/v1/selfsubjectreviews', {
      method: 'POST',
      token,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' }),
    });
    return { status: r.status, userInfo: r.status === 201 ? JSON.parse(r.body).status.userInfo : undefined };
  };
  const reloads = async (status: string, config = 'authentication'): Promise<number> => {
    const text = (await server.adminRequest('/metrics')).body;
    const m = new RegExp(`^apiserver_${config}_config_controller_automatic_reloads_total\\{status="${status}",apiserver_id_hash="sha256:[0-9a-f]{64}"\\} (\\d+)$`, 'm').exec(text);
    return m ? Number(m[1]) : 0;
  };
  const until = async (what: string, cond: () => Promise<boolean>) => {
    for (let i = 0; i < 300; i++) {
      if (await cond()) return;
      await new Promise((r) => setTimeout(r, 20));
    }
    assert.fail(`never: ${what}`);
  };

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'capstan-authconfig-'));
    const now = Date.now();
    const validity = { notBefore: new Date(now - 60_000), notAfter: new Date(now + 86_400_000) };
    const ca = await issueCertificate({ subject: { commonName: 'test-ca' }, isCa: true, ...validity });
    caPem = ca.certPem;
    const serving = await issueCertificate({ subject: { commonName: 'loopback' }, isCa: false, usage: 'server', altNames: ['127.0.0.1'], ...validity }, ca);
    const key = generateKeyPairSync('rsa', { modulusLength: 2048 });
    signingPem = key.privateKey.export({ format: 'pem', type: 'pkcs8' }) as string;
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
    hooks = createServer({ cert: serving.certPem, key: serving.keyPem }, (req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        const review = JSON.parse(body) as Obj;
        sars.push(review);
        const allowed = (review.spec.groups ?? []).includes('role:dev');
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify({ apiVersion: review.apiVersion, kind: review.kind, status: { allowed, reason: allowed ? 'dev role' : '' } }));
      });
    });
    await new Promise<void>((r) => hooks.listen(0, '127.0.0.1', r));
    const hookPort = (hooks.address() as { port: number }).port;
    await writeFile(
      join(dir, 'authz.kubeconfig'),
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'Config',
        clusters: [{ name: 'hook', cluster: { server: `https://127.0.0.1:${hookPort}/authorize`, 'certificate-authority-data': Buffer.from(caPem).toString('base64') } }],
        users: [{ name: 'apiserver', user: {} }],
        contexts: [{ name: 'hook', context: { cluster: 'hook', user: 'apiserver' } }],
        'current-context': 'hook',
      }),
    );
    await writeFile(join(dir, 'authn.yaml'), authenticationConfig(issuer, caPem, "'oidc:' + claims.preferred_username"));
    await writeFile(join(dir, 'authz.yaml'), authorizationConfig(join(dir, 'authz.kubeconfig'), 'hooked'));
    server = await startTestServer({
      authenticationConfigFile: join(dir, 'authn.yaml'),
      authorizationConfigFile: join(dir, 'authz.yaml'),
      authConfigCheckIntervalMs: 50,
      logger: createLogger({ verbosity: 0, write: (line) => void logLines.push(line) }),
    });
  });
  after(async () => {
    await server?.close();
    await new Promise((r) => issuerServer?.close(r));
    await new Promise((r) => hooks?.close(r));
    await rm(dir, { recursive: true, force: true });
  });

  test('claim mappings by CEL: username, groups, uid from a claim, extra; any listed audience is accepted', async () => {
    const expected = { username: 'oidc:alice', uid: 'u-123', groups: ['role:dev', 'role:ops', 'system:authenticated'], extra: { 'example.com/tenant': ['t1'] } };
    assert.deepEqual(await whoami(await sign(alice)), { status: 201, userInfo: expected });
    assert.deepEqual(await whoami(await sign(alice, 'other-audience')), { status: 201, userInfo: expected });
    const kc = await server.writeKubeconfig('jwt', { token: await sign(alice) });
    const who = JSON.parse(await server.kubectlOk(['auth', 'whoami', '-o', 'json'], { kubeconfig: kc })) as { status: { userInfo: unknown } };
    assert.deepEqual(who.status.userInfo, expected);
  });

  test('refused with 401: a claim validation rule, a user validation rule, an unlisted audience', async () => {
    const refused = {
      claimRule: await sign({ ...alice, hd: 'evil.com' }),
      userRule: await sign({ ...alice, preferred_username: 'system-admin' }),
      audience: await sign(alice, 'someone-else'),
    };
    for (const [what, token] of Object.entries(refused)) {
      const r = await server.request('/version', { token });
      assert.equal(r.status, 401, what);
      assert.equal(JSON.parse(r.body).message, 'Unauthorized', what);
    }
  });

  test('matchConditions: the webhook is asked only for namespace "hooked"; elsewhere RBAC answers alone', async () => {
    const token = await sign(alice);
    const before = sars.length;
    const hooked = await server.request('/api/v1/namespaces/hooked/configmaps', { token });
    assert.equal(hooked.status, 200, hooked.body);
    assert.equal(sars.length, before + 1);
    assert.deepEqual(sars.at(-1), {
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SubjectAccessReview',
      spec: {
        resourceAttributes: { namespace: 'hooked', verb: 'list', group: '', version: 'v1', resource: 'configmaps', subresource: '', name: '' },
        user: 'oidc:alice',
        uid: 'u-123',
        groups: ['role:dev', 'role:ops', 'system:authenticated'],
        extra: { 'example.com/tenant': ['t1'] },
      },
    });
    const elsewhere = await server.request('/api/v1/namespaces/default/configmaps', { token });
    assert.equal(elsewhere.status, 403);
    assert.equal(JSON.parse(elsewhere.body).message, 'configmaps is forbidden: User "oidc:alice" cannot list resource "configmaps" in API group "" in the namespace "default"');
    assert.equal(sars.length, before + 1, 'the webhook was not asked');
  });

  test('authorization reload: the matchCondition now names another namespace', async () => {
    const token = await sign(alice);
    await writeFile(join(dir, 'authz.yaml'), authorizationConfig(join(dir, 'authz.kubeconfig'), 'hooked-too'));
    await until('the new condition is in force', async () => (await server.request('/api/v1/namespaces/hooked-too/configmaps', { token })).status === 200);
    assert.equal((await server.request('/api/v1/namespaces/hooked/configmaps', { token })).status, 403);
    assert.equal(await reloads('success', 'authorization'), 1);
  });

  test('reload: a new username prefix takes over while the server runs; an invalid file keeps it, is logged and counted', async () => {
    const token = await sign(alice);
    assert.equal((await whoami(token)).userInfo.username, 'oidc:alice');
    await writeFile(join(dir, 'authn.yaml'), authenticationConfig(issuer, caPem, "'sso:' + claims.preferred_username"));
    await until('the new prefix is in force', async () => (await whoami(token)).userInfo?.username === 'sso:alice');
    assert.equal(await reloads('success'), 1);
    assert.ok(logLines.some((l) => l.includes('reloaded the authentication configuration')));

    await writeFile(join(dir, 'authn.yaml'), authenticationConfig(issuer, caPem, "'sso:' + claims.preferred_username +"));
    await until('the invalid file was seen', async () => (await reloads('failure')) === 1);
    assert.equal((await whoami(token)).userInfo.username, 'sso:alice');
    const logged = logLines.find((l) => l.includes('the authentication configuration could not be reloaded'));
    assert.ok(logged);
    assert.match(JSON.parse(logged).error, /^jwt\[0\]\.claimMappings\.username\.expression: Invalid value: "'sso:' \+ claims\.preferred_username \+": compilation failed: ERROR: <input>:1:/);
    assert.ok(!logLines.some((l) => l.includes(token)), 'no token in any log line');
    const metrics = (await server.adminRequest('/metrics')).body;
    assert.match(metrics, /^apiserver_authentication_config_controller_automatic_reload_last_timestamp_seconds\{status="failure",apiserver_id_hash="sha256:[0-9a-f]{64}"\} \d+(\.\d+)?$/m);
  });

  test("kube's start-up errors, word for word", async () => {
    const authn = join(dir, 'authn-start.yaml');
    await writeFile(authn, authenticationConfig(issuer, caPem, "'oidc:' + claims.preferred_username"));
    const authz = join(dir, 'authz.yaml');
    const refuses = (options: Parameters<typeof startCapstan>[0], message: string) =>
      assert.rejects(startCapstan(options), (e: unknown) => e instanceof ConfigError && e.message === message);
    await refuses({ authenticationConfigFile: authn, oidcIssuerUrl: issuer, oidcClientId: 'capstan' }, 'authentication-config file and oidc-* flags are mutually exclusive');
    await refuses({ authorizationConfigFile: authz, authorizationMode: ['RBAC'] }, '--authorization-config can not be specified when --authorization-mode or --authorization-webhook-* flags are defined');
    const badAuthn = join(dir, 'authn-bad.yaml');
    await writeFile(
      badAuthn,
      `apiVersion: apiserver.config.k8s.io/v1beta1
kind: AuthenticationConfiguration
jwt:
- issuer: {url: "http://127.0.0.1:1", audiences: [a, b]}
  claimMappings:
    username: {claim: email}
`,
    );
    await refuses(
      { authenticationConfigFile: badAuthn },
      '[jwt[0].issuer.url: Invalid value: "http://127.0.0.1:1": URL scheme must be https, jwt[0].issuer.audienceMatchPolicy: Invalid value: "": audienceMatchPolicy must be MatchAny for multiple audiences, jwt[0].claimMappings.username.prefix: Required value: prefix is required when claim is set. It can be set to an empty string to disable prefixing]',
    );
    const badAuthz = join(dir, 'authz-bad.yaml');
    await writeFile(
      badAuthz,
      `apiVersion: apiserver.config.k8s.io/v1beta1
kind: AuthorizationConfiguration
authorizers:
- type: Webhook
  name: slow
  webhook:
    timeout: 45s
    subjectAccessReviewVersion: v2
    failurePolicy: Maybe
    connectionInfo: {type: InClusterConfig}
    matchConditions: [{expression: "request.user == 'x'"}]
- {type: RBAC, name: rbac}
- {type: RBAC, name: rbac2}
`,
    );
    await refuses(
      { authorizationConfigFile: badAuthz },
      '[authorizers[0].webhook.timeout: Invalid value: "45s": must be > 0s and <= 30s, authorizers[0].webhook.subjectAccessReviewVersion: Unsupported value: "v2": supported values: "v1", "v1beta1", authorizers[0].webhook.matchConditionSubjectAccessReviewVersion: Required value: required if match conditions are specified, authorizers[0].webhook.failurePolicy: Unsupported value: "Maybe": supported values: "NoOpinion", "Deny", authorizers[2].type: Duplicate value: "RBAC"]',
    );
  });
});
