import { test } from 'node:test';
import assert from 'node:assert/strict';
import { abacAuthorizer, parseAbacPolicies } from './abac.ts';
import type { AuthzAttributes } from './types.ts';

const FILE = [
  '# comment, then an empty line',
  '',
  '{"apiVersion": "abac.authorization.kubernetes.io/v1beta1", "kind": "Policy", "spec": {"user": "alice", "namespace": "team", "resource": "*", "apiGroup": "*", "readonly": true}}',
  '{"apiVersion": "abac.authorization.kubernetes.io/v1beta1", "kind": "Policy", "spec": {"group": "admins", "namespace": "*", "resource": "*", "apiGroup": "*"}}',
  '{"apiVersion": "abac.authorization.kubernetes.io/v1beta1", "kind": "Policy", "spec": {"user": "*", "nonResourcePath": "/version*", "readonly": true}}',
  '{"user": "legacy", "resource": "pods"}',
].join('\n');

const attrs = (name: string, groups: string[], verb: string, resource: string, namespace = 'team', group = ''): AuthzAttributes => ({
  user: { name, groups }, verb, isResourceRequest: resource !== '', path: resource === '' ? namespace : '', namespace: resource === '' ? '' : namespace, apiGroup: group, apiVersion: 'v1', resource, subresource: '', name: '',
});

test('ABAC: v1beta1 and v0 lines, readonly, namespaces, groups, "*" users, non-resource paths with a trailing *', async () => {
  const a = abacAuthorizer(parseAbacPolicies(FILE, 'policy.jsonl'));
  const d = async (x: AuthzAttributes) => (await a.authorize(x)).decision;
  assert.equal(await d(attrs('alice', [], 'list', 'pods')), 'allow');
  assert.equal(await d(attrs('alice', [], 'create', 'pods')), 'noopinion');
  assert.equal(await d(attrs('alice', [], 'get', 'pods', 'other')), 'noopinion');
  assert.equal(await d(attrs('bob', ['admins'], 'delete', 'deployments', 'x', 'apps')), 'allow');
  assert.equal(await d(attrs('carol', ['system:authenticated'], 'get', '', '/version/')), 'allow');
  assert.equal(await d(attrs('carol', ['system:unauthenticated'], 'get', '', '/version')), 'noopinion');
  assert.equal(await d(attrs('legacy', [], 'create', 'pods', 'anywhere')), 'allow');
  assert.equal(await d(attrs('legacy', [], 'create', 'secrets', 'anywhere')), 'noopinion');
  assert.deepEqual(await a.authorize(attrs('dave', [], 'get', 'pods')), { decision: 'noopinion', reason: 'No policy matched.' });
  assert.throws(() => parseAbacPolicies('{"apiVersion": "v9", "kind": "Policy"}\n', 'p.jsonl'), /error reading policy file p\.jsonl, line 1: .*unknown policy "v9"/);
  assert.throws(() => parseAbacPolicies('\n{not json', 'p.jsonl'), /error reading policy file p\.jsonl, line 2/);
});
