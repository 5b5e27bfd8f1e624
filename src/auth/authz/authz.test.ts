import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseRequestInfo } from '../../endpoints/request-info.ts';
import type { UserInfo } from '../user.ts';
import { forbiddenError, forbiddenMessage, goQuote } from './forbidden.ts';
import { buildAuthorizer, builtinAuthorizerFactories, validateAuthorizationModes } from './modes.ts';
import type { Authorizer, AuthzAttributes } from './types.ts';
import { attributesFor } from './types.ts';
import { unionAuthorizer } from './union.ts';
import type { Registry } from '../../registry/types.ts';

const anon: UserInfo = { name: 'system:anonymous', groups: ['system:unauthenticated'] };
const admin: UserInfo = { name: 'capstan-admin', groups: ['system:masters', 'system:authenticated'] };

function attrs(user: UserInfo, method: string, path: string): AuthzAttributes {
  const [p, q] = path.split('?');
  return attributesFor(user, parseRequestInfo(method, p, new URLSearchParams(q ?? '')));
}

const ctx = { registry: {} as Registry, rbacPolicy: () => assert.fail('AlwaysAllow and AlwaysDeny read no RBAC policy') };

test('mode validation uses kube-apiserver\'s messages', () => {
  const impl = Object.keys(builtinAuthorizerFactories);
  assert.deepEqual(validateAuthorizationModes(['AlwaysAllow'], impl), []);
  assert.deepEqual(validateAuthorizationModes(['Foo'], impl), ['authorization-mode "Foo" is not a valid mode']);
  assert.deepEqual(validateAuthorizationModes(['RBAC', 'Node'], impl), []);
  assert.deepEqual(validateAuthorizationModes(['RBAC'], ['AlwaysAllow']), ['authorization-mode "RBAC" is not supported by Capstan yet']);
  assert.deepEqual(validateAuthorizationModes(['AlwaysDeny', 'AlwaysDeny'], impl), ['authorization-mode ["AlwaysDeny" "AlwaysDeny"] has mode specified more than once']);
  assert.deepEqual(validateAuthorizationModes([], impl), ['at least one authorization-mode must be passed']);
  assert.deepEqual(validateAuthorizationModes(['ABAC', 'Webhook'], impl), []);
});

test('AlwaysAllow allows; AlwaysDeny leaves no opinion with its reason; system:masters always allowed', async () => {
  const allow = await buildAuthorizer(['AlwaysAllow'], builtinAuthorizerFactories, ctx);
  assert.deepEqual(await allow.authorize(attrs(anon, 'GET', '/healthz')), { decision: 'allow', reason: '' });
  const deny = await buildAuthorizer(['AlwaysDeny'], builtinAuthorizerFactories, ctx);
  assert.deepEqual(await deny.authorize(attrs(anon, 'GET', '/healthz')), { decision: 'noopinion', reason: 'Everything is forbidden.' });
  assert.deepEqual(await deny.authorize(attrs(admin, 'DELETE', '/api/v1/namespaces/x')), { decision: 'allow', reason: '' });
  const denyThenAllow = await buildAuthorizer(['AlwaysDeny', 'AlwaysAllow'], builtinAuthorizerFactories, ctx);
  assert.equal((await denyThenAllow.authorize(attrs(anon, 'GET', '/healthz'))).decision, 'allow');
});

test('union: first allow/deny wins, reasons joined, errors carried', async () => {
  const fixed = (decision: 'allow' | 'deny' | 'noopinion', reason: string, error?: string): Authorizer => ({ authorize: () => ({ decision, reason, error }) });
  const a = attrs(anon, 'GET', '/x');
  assert.deepEqual(await unionAuthorizer([fixed('noopinion', 'r1'), fixed('noopinion', ''), fixed('noopinion', 'r2')]).authorize(a), { decision: 'noopinion', reason: 'r1\nr2' });
  assert.deepEqual(await unionAuthorizer([fixed('deny', 'no'), fixed('allow', '')]).authorize(a), { decision: 'deny', reason: 'no', error: undefined });
  assert.deepEqual(await unionAuthorizer([fixed('noopinion', '', 'boom')]).authorize(a), { decision: 'noopinion', reason: '', error: 'boom' });
});

test('forbidden messages for paths, namespaced, cluster-scoped and subresource requests', () => {
  assert.equal(forbiddenMessage(attrs(anon, 'GET', '/healthz')), 'User "system:anonymous" cannot get path "/healthz"');
  assert.equal(forbiddenMessage(attrs(anon, 'POST', '/logs')), 'User "system:anonymous" cannot post path "/logs"');
  assert.equal(
    forbiddenMessage(attrs(anon, 'GET', '/api/v1/namespaces/ns1/pods/p/log')),
    'User "system:anonymous" cannot get resource "pods/log" in API group "" in the namespace "ns1"',
  );
  assert.equal(
    forbiddenMessage(attrs(anon, 'GET', '/apis/rbac.authorization.k8s.io/v1/clusterroles?watch=1')),
    'User "system:anonymous" cannot watch resource "clusterroles" in API group "rbac.authorization.k8s.io" at the cluster scope',
  );
});

test('forbidden Status: resource, name and group in message and details; non-resource as "forbidden:"', () => {
  const e = forbiddenError(attrs(anon, 'PUT', '/apis/apps/v1/namespaces/d/deployments/web'), 'Everything is forbidden.');
  assert.equal(e.code, 403);
  assert.equal(e.reason, 'Forbidden');
  assert.equal(e.message, 'deployments.apps "web" is forbidden: User "system:anonymous" cannot update resource "deployments" in API group "apps" in the namespace "d": Everything is forbidden.');
  assert.deepEqual(e.details, { name: 'web', group: 'apps', kind: 'deployments' });
  const p = forbiddenError(attrs({ name: 'a<b>&c', groups: [] }, 'GET', '/metrics'), '');
  assert.equal(p.message, 'forbidden: User "a&lt;b&gt;&amp;c" cannot get path "/metrics"');
  assert.deepEqual(p.details, {});
});

test('goQuote escapes like Go\'s %q', () => {
  assert.equal(goQuote('plain'), '"plain"');
  assert.equal(goQuote('a"b\\c\n\t\x01'), '"a\\"b\\\\c\\n\\t\\x01"');
  assert.equal(goQuote('héllo'), '"héllo"');
});
