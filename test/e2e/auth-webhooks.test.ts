// End to end: the token webhook (--authentication-token-webhook-config-file) and the Webhook authorization mode
// (--authorization-webhook-config-file), against webhook servers the test runs on loopback with their own CA.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { issueCertificate } from '../../src/server/certificates.ts';
import { ConfigError, startCapstan } from '../../src/index.ts';
import type { TestServer } from './helpers.ts';
import { startTestServer } from './helpers.ts';

type Obj = Record<string, any>;

describe('token and authorization webhooks', () => {
  let server: TestServer;
  let hooks: Server;
  let dir: string;
  const received: Obj[] = [];

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'capstan-webhooks-'));
    const now = Date.now();
    const validity = { notBefore: new Date(now - 60_000), notAfter: new Date(now + 86_400_000) };
    const ca = await issueCertificate({ subject: { commonName: 'webhook-ca' }, isCa: true, ...validity });
    const serving = await issueCertificate({ subject: { commonName: 'webhook' }, isCa: false, usage: 'server', altNames: ['127.0.0.1'], ...validity }, ca);
    hooks = createServer({ cert: serving.certPem, key: serving.keyPem }, (req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        const review = JSON.parse(body) as Obj;
        received.push(review);
        let status: Obj;
        if (req.url === '/authn') {
          status = review.spec.token === 'hook-token-123' ? { authenticated: true, user: { username: 'hook-user', uid: 'h-1', groups: ['hook-group'], extra: { team: ['a'] } } } : { authenticated: false, error: 'unknown token' };
          // groups as a string: client-go's decoder refuses the answer, so nobody is authenticated
          if (review.spec.token === 'mistyped-token-123') status = { authenticated: true, user: { username: 'sneaky', groups: 'system:masters' } };
        } else {
          const spec = review.spec;
          const ra = spec.resourceAttributes ?? {};
          if (spec.user === 'denied-user') status = { allowed: false, denied: true, reason: 'denied by the test webhook' };
          else if ((spec.group ?? []).includes('hook-group') && ra.resource === 'pods' && ra.verb === 'list') status = { allowed: true, reason: 'hook says yes' };
          // allowed, with a denied that does not decode: the webhook failed, which is no opinion
          else if ((spec.group ?? []).includes('hook-group') && ra.resource === 'configmaps') status = { allowed: true, denied: 'no' };
          else status = { allowed: false };
        }
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify({ apiVersion: review.apiVersion, kind: review.kind, status }));
      });
    });
    await new Promise<void>((r) => hooks.listen(0, '127.0.0.1', r));
    const port = (hooks.address() as { port: number }).port;
    const kubeconfig = (path: string) =>
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'Config',
        clusters: [{ name: 'hook', cluster: { server: `https://127.0.0.1:${port}${path}`, 'certificate-authority-data': Buffer.from(ca.certPem).toString('base64') } }],
        users: [{ name: 'apiserver', user: {} }],
        contexts: [{ name: 'hook', context: { cluster: 'hook', user: 'apiserver' } }],
        'current-context': 'hook',
      });
    await writeFile(join(dir, 'authn.kubeconfig'), kubeconfig('/authn'));
    await writeFile(join(dir, 'authz.kubeconfig'), kubeconfig('/authz'));
    await writeFile(join(dir, 'tokens.csv'), 'denied-token-123,denied-user,u-d,"hook-group"\n');
    server = await startTestServer({
      authorizationMode: ['Node', 'RBAC', 'Webhook'],
      tokenAuthFile: join(dir, 'tokens.csv'),
      authenticationTokenWebhookConfigFile: join(dir, 'authn.kubeconfig'),
      authorizationWebhookConfigFile: join(dir, 'authz.kubeconfig'),
    });
  });
  after(async () => {
    await server?.close();
    await new Promise((r) => hooks?.close(r));
    await rm(dir, { recursive: true, force: true });
  });

  test('a token the webhook vouches for is its user; a token it refuses is 401; answers are cached', async () => {
    const r = await server.request('/apis/authentication.k8s.io/v1/selfsubjectreviews', {
      method: 'POST',
      token: 'hook-token-123',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' }),
    });
    assert.equal(r.status, 201, r.body);
    assert.deepEqual(JSON.parse(r.body).status.userInfo, { username: 'hook-user', uid: 'h-1', groups: ['hook-group', 'system:authenticated'], extra: { team: ['a'] } });
    const tokenReview = received.find((x) => x.kind === 'TokenReview')!;
    assert.deepEqual(tokenReview, { apiVersion: 'authentication.k8s.io/v1beta1', kind: 'TokenReview', spec: { token: 'hook-token-123' } });
    const before = received.filter((x) => x.kind === 'TokenReview').length;
    await server.request('/version', { token: 'hook-token-123' });
    assert.equal(received.filter((x) => x.kind === 'TokenReview').length, before, 'cached');
    assert.equal((await server.request('/version', { token: 'not-a-hook-token' })).status, 401);
    assert.equal((await server.request('/version', { token: 'mistyped-token-123' })).status, 401);
  });

  test('Webhook mode: asked after Node and RBAC with a v1beta1 SubjectAccessReview; allow, deny (403 with its reason), no opinion', async () => {
    const ok = await server.request('/api/v1/namespaces/default/pods', { token: 'hook-token-123' });
    assert.equal(ok.status, 200, ok.body);
    const sar = received.find((x) => x.kind === 'SubjectAccessReview' && x.spec.user === 'hook-user' && x.spec.resourceAttributes?.resource === 'pods')!;
    assert.deepEqual(sar, {
      apiVersion: 'authorization.k8s.io/v1beta1',
      kind: 'SubjectAccessReview',
      spec: {
        resourceAttributes: { namespace: 'default', verb: 'list', group: '', version: 'v1', resource: 'pods', subresource: '', name: '' },
        user: 'hook-user',
        uid: 'h-1',
        group: ['hook-group', 'system:authenticated'],
        extra: { team: ['a'] },
      },
    });
    const no = await server.request('/api/v1/namespaces/default/secrets', { token: 'hook-token-123' });
    assert.equal(no.status, 403);
    assert.equal(JSON.parse(no.body).message, 'secrets is forbidden: User "hook-user" cannot list resource "secrets" in API group "" in the namespace "default"');
    const denied = await server.request('/api/v1/namespaces/default/pods', { token: 'denied-token-123' });
    assert.equal(denied.status, 403);
    assert.equal(JSON.parse(denied.body).message, 'pods is forbidden: User "denied-user" cannot list resource "pods" in API group "" in the namespace "default": denied by the test webhook');
    // An answer client-go cannot decode is the webhook's error, which kube's authorization filter answers with a 500.
    const undecodable = await server.request('/api/v1/namespaces/default/configmaps', { token: 'hook-token-123' });
    assert.equal(undecodable.status, 500);
    assert.equal(JSON.parse(undecodable.body).message, 'Internal error occurred: json: cannot unmarshal string into Go struct field SubjectAccessReviewStatus.status.denied of type bool');
    // RBAC answers first: the basic-user role lets everyone review themselves without asking the webhook.
    assert.equal((await server.kubectl(['auth', 'can-i', 'list', 'pods'], { kubeconfig: await server.writeKubeconfig('hook', { token: 'hook-token-123' }) })).stdout.trim(), 'yes');
  });

  test('a rules review says the webhook cannot enumerate its policy, as kube does', async () => {
    const list = await server.kubectl(['auth', 'can-i', '--list'], { kubeconfig: await server.writeKubeconfig('hook', { token: 'hook-token-123' }) });
    assert.equal(list.code, 0, list.stderr);
    assert.equal(list.stderr, 'Warning: the list may be incomplete: webhook authorizer does not support user rule resolution\n');
    assert.match(list.stdout, /^selfsubjectrulesreviews\.authorization\.k8s\.io\s+\[\]\s+\[\]\s+\[create\]$/m);
  });

  test('kube\'s start-up errors: Webhook mode without its file, a file without the mode', async () => {
    await assert.rejects(startCapstan({ authorizationMode: ['Webhook'] }), (e: unknown) => e instanceof ConfigError && e.message === "authorization-mode Webhook's authorization config file not passed");
    await assert.rejects(startCapstan({ authorizationWebhookConfigFile: join(dir, 'authz.kubeconfig') }), (e: unknown) => e instanceof ConfigError && e.message === 'cannot specify --authorization-webhook-config-file without mode Webhook');
  });
});
