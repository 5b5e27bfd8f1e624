// The review kinds kube serves without storage, through kubectl and raw requests: `kubectl auth can-i`,
// `kubectl auth can-i --list`, `kubectl auth whoami`, SubjectAccessReview and TokenReview.

import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Authorizer } from '../../src/auth/authz/types.ts';
import { startTestServer } from './helpers.ts';
import type { TestServer } from './helpers.ts';

const TOKENS = 'alice-token,alice,uid-alice,"devs"\n';
const json = { 'content-type': 'application/json', accept: 'application/json' };

/**
 * What RBAC's system:basic-user and system:discovery grant everyone (discovery paths, self reviews), and no
 * opinion on the rest: with AlwaysDeny after it, a user may ask and gets "no".
 */
const basicUser: Authorizer = {
  authorize(a) {
    const self = a.isResourceRequest && a.verb === 'create' && ['selfsubjectaccessreviews', 'selfsubjectrulesreviews', 'selfsubjectreviews'].includes(a.resource);
    const discovery = !a.isResourceRequest && a.verb === 'get' && /^\/(api|apis|version|openapi)(\/|$)/.test(a.path);
    return self || discovery ? { decision: 'allow', reason: '' } : { decision: 'noopinion', reason: '' };
  },
  rulesFor: () => ({
    resourceRules: [{ verbs: ['create'], apiGroups: ['authorization.k8s.io'], resources: ['selfsubjectaccessreviews', 'selfsubjectrulesreviews'], resourceNames: [] }],
    nonResourceRules: [{ verbs: ['get'], nonResourceURLs: ['/api', '/api/*', '/apis', '/apis/*', '/version'] }],
    incomplete: false,
  }),
};

describe('review kinds', () => {
  let dir: string;
  let tokenFile: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'capstan-reviews-'));
    tokenFile = join(dir, 'tokens.csv');
    await writeFile(tokenFile, TOKENS);
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  describe('under AlwaysAllow', () => {
    let s: TestServer;
    before(async () => {
      s = await startTestServer({ tokenAuthFile: tokenFile });
    });
    after(async () => {
      await s?.close();
    });

    test('kubectl auth can-i says yes', async () => {
      const r = await s.kubectl(['auth', 'can-i', 'get', 'pods']);
      assert.equal(r.code, 0, r.stderr);
      assert.equal(r.stdout, 'yes\n');
      const all = await s.kubectl(['auth', 'can-i', 'delete', 'nodes', '--all-namespaces']);
      assert.equal(all.stdout, 'yes\n');
    });

    test('kubectl auth can-i --list prints what AlwaysAllow enumerates', async () => {
      const r = await s.kubectl(['auth', 'can-i', '--list']);
      assert.equal(r.code, 0, r.stderr);
      const lines = r.stdout.trimEnd().split('\n').map((l) => l.trim().split(/\s+/));
      assert.deepEqual(lines, [
        ['Resources', 'Non-Resource', 'URLs', 'Resource', 'Names', 'Verbs'],
        ['*.*', '[]', '[]', '[*]'],
        ['[*]', '[]', '[*]'],
      ]);
    });

    test('kubectl auth whoami prints the admin', async () => {
      const r = await s.kubectl(['auth', 'whoami']);
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, /^ATTRIBUTE\s+VALUE\nUsername\s+capstan-admin\nGroups\s+\[system:masters system:authenticated\]\n$/);
      const alice = await s.writeKubeconfig('alice', { token: 'alice-token' });
      const who = await s.kubectl(['auth', 'whoami', '-o', 'json'], { kubeconfig: alice });
      assert.equal(who.code, 0, who.stderr);
      const review = JSON.parse(who.stdout) as { kind: string; metadata: { creationTimestamp: string }; status: unknown };
      assert.equal(review.kind, 'SelfSubjectReview');
      assert.match(review.metadata.creationTimestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
      assert.deepEqual(review.status, { userInfo: { username: 'alice', uid: 'uid-alice', groups: ['devs', 'system:authenticated'] } });
    });

    test('TokenReview authenticates a token of the token file, and not a bogus one', async () => {
      const post = (token: string) =>
        s.adminRequest('/apis/authentication.k8s.io/v1/tokenreviews', {
          method: 'POST',
          headers: json,
          body: JSON.stringify({ apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec: { token } }),
        });
      const good = await post('alice-token');
      assert.equal(good.status, 201, good.body);
      const review = JSON.parse(good.body) as { kind: string; spec: unknown; status: unknown };
      assert.equal(review.kind, 'TokenReview');
      assert.deepEqual(review.spec, { token: 'alice-token' });
      assert.deepEqual(review.status, {
        authenticated: true,
        user: { username: 'alice', uid: 'uid-alice', groups: ['devs', 'system:authenticated'] },
        audiences: ['https://kubernetes.default.svc.cluster.local'],
      });
      const bogus = await post('not-a-token');
      assert.equal(bogus.status, 201, bogus.body);
      assert.deepEqual((JSON.parse(bogus.body) as { status: unknown }).status, { user: {}, error: 'invalid bearer token' });
      const empty = await post('');
      assert.equal(empty.status, 400);
      assert.equal((JSON.parse(empty.body) as { message: string }).message, 'token is required for TokenReview in authentication');
    });

    test('reviews are created (201), never stored, and only created', async () => {
      const body = JSON.stringify({ apiVersion: 'authorization.k8s.io/v1', kind: 'SubjectAccessReview', spec: { user: 'bob', nonResourceAttributes: { path: '/healthz', verb: 'get' } } });
      const r = await s.adminRequest('/apis/authorization.k8s.io/v1/subjectaccessreviews?dryRun=All', { method: 'POST', headers: json, body });
      assert.equal(r.status, 201, r.body);
      assert.deepEqual((JSON.parse(r.body) as { status: unknown }).status, { allowed: true });
      const list = await s.adminRequest('/apis/authorization.k8s.io/v1/subjectaccessreviews');
      assert.equal(list.status, 405);
      assert.equal((JSON.parse(list.body) as { message: string }).message, 'the server does not allow this method on the requested resource');
      const one = await s.adminRequest('/apis/authorization.k8s.io/v1/subjectaccessreviews/x');
      assert.equal(one.status, 404);
    });

    test('validation errors come back as kube words them', async () => {
      const post = (path: string, obj: unknown) => s.adminRequest(path, { method: 'POST', headers: json, body: JSON.stringify(obj) });
      const sar = await post('/apis/authorization.k8s.io/v1/subjectaccessreviews', { apiVersion: 'authorization.k8s.io/v1', kind: 'SubjectAccessReview', spec: {} });
      assert.equal(sar.status, 422);
      const status = JSON.parse(sar.body) as { reason: string; message: string; details: unknown };
      assert.equal(status.reason, 'Invalid');
      assert.equal(
        status.message,
        '.authorization.k8s.io "" is invalid: [spec.resourceAttributes: Invalid value: "null": exactly one of nonResourceAttributes or resourceAttributes must be specified, spec.user: Invalid value: "": at least one of user or group must be specified]',
      );
      const lsar = { apiVersion: 'authorization.k8s.io/v1', kind: 'LocalSubjectAccessReview', spec: { user: 'bob', resourceAttributes: { namespace: 'other', verb: 'get', resource: 'pods' } } };
      const mismatch = await post('/apis/authorization.k8s.io/v1/namespaces/default/localsubjectaccessreviews', lsar);
      assert.equal(mismatch.status, 422);
      assert.equal((JSON.parse(mismatch.body) as { message: string }).message, '.authorization.k8s.io "" is invalid: spec.resourceAttributes.namespace: Invalid value: "other": must match metadata.namespace');
      const wrongPath = await post('/apis/authorization.k8s.io/v1/namespaces/default/localsubjectaccessreviews', { ...lsar, metadata: { namespace: 'other' } });
      assert.equal(wrongPath.status, 400);
      assert.equal((JSON.parse(wrongPath.body) as { message: string }).message, 'the namespace of the provided object does not match the namespace sent on the request');
      const fine = await post('/apis/authorization.k8s.io/v1/namespaces/other/localsubjectaccessreviews', lsar);
      assert.equal(fine.status, 201, fine.body);
      assert.deepEqual((JSON.parse(fine.body) as { status: unknown }).status, { allowed: true });
    });
  });

  describe('under AlwaysDeny', () => {
    let s: TestServer;
    let alice: string;
    before(async () => {
      s = await startTestServer({ tokenAuthFile: tokenFile, authorizationMode: ['BasicUser', 'AlwaysDeny'], authorizers: { BasicUser: () => basicUser } });
      alice = await s.writeKubeconfig('alice', { token: 'alice-token' });
    });
    after(async () => {
      await s?.close();
    });

    test('kubectl auth can-i says no, with AlwaysDeny\'s reason, and exits 1', async () => {
      const r = await s.kubectl(['auth', 'can-i', 'get', 'pods'], { kubeconfig: alice });
      assert.equal(r.code, 1, r.stderr);
      assert.equal(r.stdout, 'no - Everything is forbidden.\n');
      const admin = await s.kubectl(['auth', 'can-i', 'get', 'pods']);
      assert.equal(admin.stdout, 'yes\n');
    });

    test('kubectl auth can-i --list shows only the rules the authorizers grant', async () => {
      const r = await s.kubectl(['auth', 'can-i', '--list'], { kubeconfig: alice });
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, /^selfsubjectaccessreviews\.authorization\.k8s\.io\s+\[\]\s+\[\]\s+\[create\]$/m);
      assert.match(r.stdout, /^\s+\[\/api\]\s+\[\]\s+\[get\]$/m);
      assert.doesNotMatch(r.stdout, /\*\.\*/);
    });

    test('a SubjectAccessReview about the token user is not allowed', async () => {
      const sar = JSON.stringify({ apiVersion: 'authorization.k8s.io/v1', kind: 'SubjectAccessReview', spec: { user: 'alice', groups: ['devs'], resourceAttributes: { namespace: 'default', verb: 'get', resource: 'pods' } } });
      const r = await s.kubectl(['create', '-f', '-', '-o', 'jsonpath={.status}'], { input: sar });
      assert.equal(r.code, 0, r.stderr);
      assert.deepEqual(JSON.parse(r.stdout), { allowed: false, reason: 'Everything is forbidden.' });
    });
  });

  test('with AlwaysDeny alone a token user may not even ask (kube\'s 403)', async () => {
    const s = await startTestServer({ tokenAuthFile: tokenFile, authorizationMode: ['AlwaysDeny'] });
    try {
      const alice = await s.writeKubeconfig('alice', { token: 'alice-token' });
      const r = await s.kubectl(['auth', 'can-i', 'get', 'pods'], { kubeconfig: alice });
      assert.equal(r.code, 1);
      assert.match(
        r.stderr,
        /Error from server \(Forbidden\): selfsubjectaccessreviews\.authorization\.k8s\.io is forbidden: User "alice" cannot create resource "selfsubjectaccessreviews" in API group "authorization\.k8s\.io" at the cluster scope: Everything is forbidden\./,
      );
    } finally {
      await s.close();
    }
  });
});
