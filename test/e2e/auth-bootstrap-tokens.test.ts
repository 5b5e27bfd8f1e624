// End to end: bootstrap tokens (--enable-bootstrap-token-auth): a token Secret in kube-system authenticates as
// system:bootstrap:<id> with its groups; wrong shapes, wrong secrets, expired or non-authentication tokens and bad
// extra groups are 401; the cleaner deletes expired tokens; cluster-info in kube-public is signed per token and
// readable without credentials.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { compactVerify } from 'jose';
import type { TestServer } from './helpers.ts';
import { startTestServer, until } from './helpers.ts';

function tokenSecret(id: string, secret: string, extra: Record<string, string> = {}) {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: `bootstrap-token-${id}`, namespace: 'kube-system' },
    type: 'bootstrap.kubernetes.io/token',
    stringData: { 'token-id': id, 'token-secret': secret, 'usage-bootstrap-authentication': 'true', 'usage-bootstrap-signing': 'true', ...extra },
  };
}

describe('bootstrap tokens', () => {
  let server: TestServer;
  const whoami = async (token: string) => server.request('/apis/authentication.k8s.io/v1/selfsubjectreviews', {
    method: 'POST',
    token,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' }),
  });

  before(async () => {
    server = await startTestServer({ authorizationMode: ['Node', 'RBAC'], enableBootstrapTokenAuth: true });
    const apply = (obj: unknown) => server.kubectlOk(['create', '-f', '-'], { input: JSON.stringify(obj) });
    await apply(tokenSecret('abcdef', '0123456789abcdef', { 'auth-extra-groups': 'system:bootstrappers:worker,system:bootstrappers:kubeadm:default-node-token' }));
    await apply(tokenSecret('signon', 'aaaaaaaaaaaaaaaa', { 'usage-bootstrap-authentication': 'false' }));
    await apply(tokenSecret('badgrp', 'bbbbbbbbbbbbbbbb', { 'auth-extra-groups': 'system:masters' }));
    await apply(tokenSecret('nosign', 'eeeeeeeeeeeeeeee', { 'usage-bootstrap-signing': 'false' }));
    await apply(tokenSecret('future', 'cccccccccccccccc', { expiration: new Date(Date.now() + 3_600_000).toISOString().replace(/\.\d+Z$/, 'Z') }));
  });
  after(async () => {
    await server?.close();
  });

  test('a valid token is system:bootstrap:<id> in system:bootstrappers and its extra groups (sorted)', async () => {
    for (const token of ['abcdef.0123456789abcdef', 'future.cccccccccccccccc']) {
      const r = await whoami(token);
      assert.equal(r.status, 201, r.body);
      const id = token.slice(0, 6);
      const groups = id === 'abcdef' ? ['system:bootstrappers', 'system:bootstrappers:kubeadm:default-node-token', 'system:bootstrappers:worker', 'system:authenticated'] : ['system:bootstrappers', 'system:authenticated'];
      assert.deepEqual(JSON.parse(r.body).status.userInfo, { username: `system:bootstrap:${id}`, groups });
    }
  });

  test('wrong shape, wrong secret, no authentication usage, an extra group outside system:bootstrappers: 401', async () => {
    for (const token of ['abcdef.0123456789abcdeX', 'ABCDEF.0123456789abcdef', 'abcdef.0123456789abcde', 'abcdef:0123456789abcdef', 'nosuch.0123456789abcdef', 'abcdef.ffffffffffffffff', 'signon.aaaaaaaaaaaaaaaa', 'badgrp.bbbbbbbbbbbbbbbb']) {
      const r = await server.request('/version', { token });
      assert.equal(r.status, 401, token);
      assert.equal(JSON.parse(r.body).message, 'Unauthorized');
    }
  });

  test('the token cleaner deletes an expired token, which then no longer authenticates', async () => {
    await server.kubectlOk(['create', '-f', '-'], { input: JSON.stringify(tokenSecret('old123', 'dddddddddddddddd', { expiration: '2020-01-01T00:00:00Z' })) });
    assert.equal((await server.request('/version', { token: 'old123.dddddddddddddddd' })).status, 401);
    await until('expired token deleted', async () => (await server.kubectl(['get', 'secret', 'bootstrap-token-old123', '-n', 'kube-system'])).code === 1);
  });

  test('cluster-info is signed with each signing token (detached HS256 JWS) and readable without credentials', async () => {
    await until('cluster-info signed for abcdef and future', async () => {
      const r = await server.request('/api/v1/namespaces/kube-public/configmaps/cluster-info');
      if (r.status !== 200) return false;
      const data = JSON.parse(r.body).data as Record<string, string>;
      return 'jws-kubeconfig-abcdef' in data && 'jws-kubeconfig-future' in data;
    });
    const r = await server.request('/api/v1/namespaces/kube-public/configmaps/cluster-info');
    const data = JSON.parse(r.body).data as Record<string, string>;
    // Signing is its own usage: a token that may not authenticate still signs; one without the usage does not.
    assert.ok('jws-kubeconfig-signon' in data);
    assert.ok(!('jws-kubeconfig-nosign' in data));
    assert.match(data.kubeconfig, new RegExp(`server: ${server.url.replace(/\./g, '\\.')}`));
    assert.match(data.kubeconfig, /certificate-authority-data: /);
    const [header, empty, signature] = data['jws-kubeconfig-abcdef'].split('.');
    assert.equal(empty, '');
    assert.deepEqual(JSON.parse(Buffer.from(header, 'base64url').toString()), { alg: 'HS256', kid: 'abcdef' });
    const full = `${header}.${Buffer.from(data.kubeconfig).toString('base64url')}.${signature}`;
    const verified = await compactVerify(full, new TextEncoder().encode('0123456789abcdef'));
    assert.equal(new TextDecoder().decode(verified.payload), data.kubeconfig);
    // Deleting a token takes its signature away.
    await server.kubectlOk(['delete', 'secret', 'bootstrap-token-future', '-n', 'kube-system']);
    await until('signature of future removed', async () => !('jws-kubeconfig-future' in JSON.parse((await server.request('/api/v1/namespaces/kube-public/configmaps/cluster-info')).body).data));
    // Other configmaps stay private.
    assert.equal((await server.request('/api/v1/namespaces/kube-public/configmaps/kube-root-ca.crt')).status, 403);
  });
});
