import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isStatusError, type StatusError } from '../../apis/errors.ts';
import { buildAuthenticator } from '../../auth/authn/build.ts';
import { parseTokenFile } from '../../auth/authn/token-file.ts';
import { buildAuthorizer, builtinAuthorizerFactories } from '../../auth/authz/modes.ts';
import type { UserInfo } from '../../auth/user.ts';
import { builtinDefinitions } from '../registry.ts';
import type { KubeObject, Registry, RequestContext, ResourceStore } from '../types.ts';
import { reviewStores, type ReviewOptions } from './index.ts';

const defs = builtinDefinitions('');
const admin: UserInfo = { name: 'capstan-admin', groups: ['system:masters', 'system:authenticated'] };
const alice: UserInfo = { name: 'alice', uid: 'u-1', groups: ['devs', 'system:authenticated'], extra: { scopes: ['a', 'b'] } };
const ctxFor = (user: UserInfo, namespace = ''): RequestContext => ({ user, namespace, dryRun: false, warnings: [] });

async function stores(modes: string[], extra: ReviewOptions = {}) {
  const authorizer = await buildAuthorizer(modes, builtinAuthorizerFactories, { registry: {} as Registry, rbacPolicy: () => assert.fail('no RBAC policy here') });
  const factories = reviewStores({ authorizer, now: () => new Date('2024-05-01T10:00:00.123Z'), ...extra });
  return (group: string, resource: string, version = 'v1'): ResourceStore => {
    const def = defs.find((d) => d.group === group && d.resource === resource && d.version === version);
    assert.ok(def, `${group}/${resource}`);
    return factories.get(`${group}/${resource}`)!(def);
  };
}

async function refusal(p: Promise<unknown>): Promise<StatusError> {
  try {
    await p;
  } catch (e) {
    if (isStatusError(e)) return e;
    throw e;
  }
  throw new Error('expected a refusal');
}

const review = (kind: string, spec: Record<string, unknown>, metadata: KubeObject['metadata'] = {}): KubeObject => ({
  apiVersion: 'authorization.k8s.io/v1',
  kind,
  metadata,
  spec,
});

test('SelfSubjectAccessReview asks the authorizer about the requester', async () => {
  const allow = await stores(['AlwaysAllow']);
  const ssar = allow('authorization.k8s.io', 'selfsubjectaccessreviews');
  const spec = { resourceAttributes: { namespace: 'default', verb: 'get', resource: 'pods' } };
  assert.deepEqual(await ssar.create(ctxFor(alice), review('SelfSubjectAccessReview', spec)), {
    kind: 'SelfSubjectAccessReview',
    apiVersion: 'authorization.k8s.io/v1',
    metadata: { creationTimestamp: null },
    spec,
    status: { allowed: true },
  });
  const deny = await stores(['AlwaysDeny']);
  const denied = await deny('authorization.k8s.io', 'selfsubjectaccessreviews').create(ctxFor(alice), review('SelfSubjectAccessReview', spec));
  // AlwaysDeny has no opinion (kube's): not allowed, not denied, with its reason.
  assert.deepEqual(denied.status, { allowed: false, reason: 'Everything is forbidden.' });
  const masters = await deny('authorization.k8s.io', 'selfsubjectaccessreviews').create(ctxFor(admin), review('SelfSubjectAccessReview', { nonResourceAttributes: { path: '/healthz', verb: 'get' } }));
  assert.deepEqual(masters.status, { allowed: true });
});

test('access review validation answers with kube\'s 422', async () => {
  const s = await stores(['AlwaysAllow']);
  const ssar = s('authorization.k8s.io', 'selfsubjectaccessreviews');
  const neither = await refusal(ssar.create(ctxFor(alice), review('SelfSubjectAccessReview', {})));
  assert.equal(neither.code, 422);
  assert.equal(neither.message, '.authorization.k8s.io "" is invalid: spec.resourceAttributes: Invalid value: "null": exactly one of nonResourceAttributes or resourceAttributes must be specified');
  assert.deepEqual(neither.toStatus().details, {
    group: 'authorization.k8s.io',
    causes: [{ reason: 'FieldValueInvalid', message: 'Invalid value: "null": exactly one of nonResourceAttributes or resourceAttributes must be specified', field: 'spec.resourceAttributes' }],
  });
  const both = await refusal(ssar.create(ctxFor(alice), review('SelfSubjectAccessReview', { resourceAttributes: { verb: 'get' }, nonResourceAttributes: { path: '/api', verb: 'get' } })));
  assert.equal(
    both.message,
    '.authorization.k8s.io "" is invalid: spec.nonResourceAttributes: Invalid value: authorization.NonResourceAttributes{Path:"/api", Verb:"get"}: cannot be specified in combination with resourceAttributes',
  );
  const sar = s('authorization.k8s.io', 'subjectaccessreviews');
  const nobody = await refusal(sar.create(ctxFor(admin), review('SubjectAccessReview', {})));
  assert.equal(
    nobody.message,
    '.authorization.k8s.io "" is invalid: [spec.resourceAttributes: Invalid value: "null": exactly one of nonResourceAttributes or resourceAttributes must be specified, spec.user: Invalid value: "": at least one of user or group must be specified]',
  );
  const named = await refusal(sar.create(ctxFor(admin), review('SubjectAccessReview', { user: 'bob', resourceAttributes: { verb: 'get' } }, { name: 'x', creationTimestamp: null })));
  assert.match(named.message, /^\.authorization\.k8s\.io "" is invalid: metadata: Invalid value: &ObjectMeta\{Name:x,GenerateName:,.*\}: must be empty$/);
});

test('SubjectAccessReview checks the subject of its spec, as given', async () => {
  const seen: unknown[] = [];
  const s = await stores(['AlwaysAllow'], {
    authorizer: {
      authorize: (attrs) => {
        seen.push(attrs);
        return { decision: 'deny', reason: 'nope', error: 'partial' };
      },
    },
  });
  const out = await s('authorization.k8s.io', 'subjectaccessreviews').create(
    ctxFor(admin),
    review('SubjectAccessReview', { user: 'bob', groups: ['g'], uid: '7', extra: { k: ['v'] }, resourceAttributes: { namespace: 'ns', verb: 'create', group: 'apps', resource: 'deployments', subresource: 'scale', name: 'd' } }),
  );
  assert.deepEqual(out.status, { allowed: false, denied: true, reason: 'nope', evaluationError: 'partial' });
  assert.deepEqual(seen, [
    {
      user: { name: 'bob', uid: '7', groups: ['g'], extra: { k: ['v'] } },
      verb: 'create',
      isResourceRequest: true,
      path: '',
      namespace: 'ns',
      apiGroup: 'apps',
      apiVersion: '*',
      resource: 'deployments',
      subresource: 'scale',
      name: 'd',
    },
  ]);
});

test('LocalSubjectAccessReview must stay in the namespace of its path', async () => {
  const s = await stores(['AlwaysAllow']);
  const lsar = s('authorization.k8s.io', 'localsubjectaccessreviews');
  const ok = await lsar.create(ctxFor(admin, 'ns1'), review('LocalSubjectAccessReview', { user: 'bob', resourceAttributes: { namespace: 'ns1', verb: 'get', resource: 'pods' } }, { namespace: 'ns1' }));
  assert.deepEqual(ok.metadata, { namespace: 'ns1', creationTimestamp: null });
  assert.deepEqual(ok.status, { allowed: true });
  const other = await refusal(lsar.create(ctxFor(admin, 'ns1'), review('LocalSubjectAccessReview', { user: 'bob', resourceAttributes: { namespace: 'ns2', verb: 'get' } }, { namespace: 'ns1' })));
  assert.equal(other.message, '.authorization.k8s.io "" is invalid: spec.resourceAttributes.namespace: Invalid value: "ns2": must match metadata.namespace');
  const path = await refusal(lsar.create(ctxFor(admin, 'ns1'), review('LocalSubjectAccessReview', { user: 'bob', nonResourceAttributes: { path: '/x', verb: 'get' } }, { namespace: 'ns1' })));
  assert.equal(path.message, '.authorization.k8s.io "" is invalid: spec.nonResourceAttributes: Invalid value: authorization.NonResourceAttributes{Path:"/x", Verb:"get"}: disallowed on this kind of request');
});

test('SelfSubjectRulesReview lists what the authorizers can enumerate', async () => {
  const allow = await stores(['AlwaysAllow']);
  const rules = await allow('authorization.k8s.io', 'selfsubjectrulesreviews').create(ctxFor(alice), review('SelfSubjectRulesReview', { namespace: 'default' }));
  assert.deepEqual(rules, {
    kind: 'SelfSubjectRulesReview',
    apiVersion: 'authorization.k8s.io/v1',
    metadata: { creationTimestamp: null },
    spec: {},
    status: {
      resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }],
      nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }],
      incomplete: false,
    },
  });
  const deny = await stores(['AlwaysDeny']);
  const none = await deny('authorization.k8s.io', 'selfsubjectrulesreviews').create(ctxFor(admin), review('SelfSubjectRulesReview', { namespace: 'default' }));
  assert.deepEqual(none.status, { resourceRules: [], nonResourceRules: [], incomplete: false });
  const noNamespace = await refusal(deny('authorization.k8s.io', 'selfsubjectrulesreviews').create(ctxFor(admin), review('SelfSubjectRulesReview', {})));
  assert.equal(noNamespace.code, 400);
  assert.equal(noNamespace.message, 'no namespace on request');
  const opaque = await stores(['AlwaysAllow'], { authorizer: { authorize: () => ({ decision: 'noopinion', reason: '' }) } });
  const unknown = await opaque('authorization.k8s.io', 'selfsubjectrulesreviews').create(ctxFor(admin), review('SelfSubjectRulesReview', { namespace: 'x' }));
  assert.deepEqual(unknown.status, { resourceRules: [], nonResourceRules: [], incomplete: true });
});

test('SelfSubjectReview returns the requester', async () => {
  const s = await stores(['AlwaysAllow']);
  const out = await s('authentication.k8s.io', 'selfsubjectreviews').create(ctxFor(alice), { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview', metadata: {} });
  assert.deepEqual(out, {
    kind: 'SelfSubjectReview',
    apiVersion: 'authentication.k8s.io/v1',
    metadata: { creationTimestamp: '2024-05-01T10:00:00Z' },
    status: { userInfo: { username: 'alice', uid: 'u-1', groups: ['devs', 'system:authenticated'], extra: { scopes: ['a', 'b'] } } },
  });
});

test('TokenReview authenticates the token with the token authenticators', async () => {
  const tokenFile = parseTokenFile('good-token,bob,uid-bob,"team,ops"\n', 'tokens.csv');
  const tokenAuthenticator = buildAuthenticator({ clientCertificates: false, tokenFile, anonymous: false });
  const s = await stores(['AlwaysAllow'], { tokenAuthenticator });
  const tr = s('authentication.k8s.io', 'tokenreviews');
  const tokenReview = (spec: Record<string, unknown>): KubeObject => ({ apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', metadata: {}, spec });
  assert.deepEqual(await tr.create(ctxFor(admin), tokenReview({ token: 'good-token' })), {
    kind: 'TokenReview',
    apiVersion: 'authentication.k8s.io/v1',
    metadata: { creationTimestamp: null },
    spec: { token: 'good-token' },
    status: {
      authenticated: true,
      user: { username: 'bob', uid: 'uid-bob', groups: ['team', 'ops', 'system:authenticated'] },
      audiences: ['https://kubernetes.default.svc.cluster.local'],
    },
  });
  assert.deepEqual((await tr.create(ctxFor(admin), tokenReview({ token: 'bogus' }))).status, { user: {}, error: 'invalid bearer token' });
  // Static tokens are good for the API audiences only.
  assert.deepEqual((await tr.create(ctxFor(admin), tokenReview({ token: 'good-token', audiences: ['vault'] }))).status, { user: {}, error: 'invalid bearer token' });
  const both = await tr.create(ctxFor(admin), tokenReview({ token: 'good-token', audiences: ['vault', 'https://kubernetes.default.svc.cluster.local'] }));
  assert.deepEqual((both.status as { audiences: string[] }).audiences, ['https://kubernetes.default.svc.cluster.local']);
  const empty = await refusal(tr.create(ctxFor(admin), tokenReview({})));
  assert.equal(empty.code, 400);
  assert.equal(empty.message, 'token is required for TokenReview in authentication');
});

test('review stores only create', async () => {
  const s = await stores(['AlwaysAllow']);
  const ssar = s('authorization.k8s.io', 'selfsubjectaccessreviews');
  const err = await refusal(ssar.list(ctxFor(admin)));
  assert.equal(err.code, 405);
  assert.equal(err.message, 'list is not supported on resources of kind "selfsubjectaccessreviews.authorization.k8s.io"');
});
