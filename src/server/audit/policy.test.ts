import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { AuthzAttributes } from '../../auth/authz/types.ts';
import { evaluatePolicy, parsePolicy } from './policy.ts';

const attrs = (o: Partial<AuthzAttributes>): AuthzAttributes => ({
  user: { name: 'alice', groups: ['dev', 'system:authenticated'] },
  verb: 'get',
  isResourceRequest: true,
  path: '/api/v1/namespaces/a/pods/p',
  namespace: 'a',
  apiGroup: '',
  apiVersion: 'v1',
  resource: 'pods',
  subresource: '',
  name: 'p',
  ...o,
});

const policy = parsePolicy(`apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: [RequestReceived]
omitManagedFields: true
rules:
- level: None
  users: [bob]
- level: RequestResponse
  resources: [{group: "", resources: ["pods/log"]}]
- level: Request
  resources: [{group: "", resources: ["*/status"]}]
- level: Metadata
  resources: [{group: "apps", resources: ["deployments/*"]}]
- level: Request
  userGroups: [ops]
  verbs: [delete]
  omitStages: [ResponseStarted]
  omitManagedFields: false
- level: Metadata
  nonResourceURLs: ["/api*", "/version"]
- level: None
  namespaces: [quiet]
- level: Metadata
  resources: [{group: "", resources: ["configmaps"], resourceNames: [controller-leader]}]
- level: Request
`, 'policy.yaml');

test('the first matching rule decides; users, groups, verbs, resources, subresources, names, namespaces, URLs', () => {
  assert.equal(evaluatePolicy(policy, attrs({ user: { name: 'bob', groups: [] } })).level, 'None');
  assert.equal(evaluatePolicy(policy, attrs({ subresource: 'log' })).level, 'RequestResponse');
  assert.equal(evaluatePolicy(policy, attrs({ resource: 'nodes', subresource: 'status' })).level, 'Request');
  assert.equal(evaluatePolicy(policy, attrs({ apiGroup: 'apps', resource: 'deployments', subresource: 'scale' })).level, 'Metadata');
  assert.equal(evaluatePolicy(policy, attrs({ apiGroup: 'apps', resource: 'deployments', namespace: 'quiet' })).level, 'Metadata');
  const del = evaluatePolicy(policy, attrs({ verb: 'delete', user: { name: 'carol', groups: ['ops'] } }));
  assert.deepEqual(del, { level: 'Request', omitStages: ['RequestReceived', 'ResponseStarted'], omitManagedFields: false });
  assert.equal(evaluatePolicy(policy, attrs({ isResourceRequest: false, path: '/apis', verb: 'get' })).level, 'Metadata');
  assert.equal(evaluatePolicy(policy, attrs({ isResourceRequest: false, path: '/healthz', verb: 'get' })).level, 'Request');
  assert.equal(evaluatePolicy(policy, attrs({ namespace: 'quiet' })).level, 'None');
  assert.equal(evaluatePolicy(policy, attrs({ resource: 'configmaps', name: 'controller-leader' })).level, 'Metadata');
  assert.deepEqual(evaluatePolicy(policy, attrs({ resource: 'configmaps', name: 'other' })), { level: 'Request', omitStages: ['RequestReceived'], omitManagedFields: true });
});

test('invalid policies are refused with kube\'s messages', () => {
  assert.throws(() => parsePolicy('apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: Everything\n', 'p'), {
    message: 'policy file p is invalid: rules[0].level: Unsupported value: "Everything": supported values: "None", "Metadata", "Request", "RequestResponse"',
  });
  assert.throws(() => parsePolicy('apiVersion: audit.k8s.io/v1\nkind: Policy\nrules: []\n', 'p'), { message: 'loaded illegal policy with 0 rules from file p' });
  assert.throws(() => parsePolicy('apiVersion: audit.k8s.io/v1beta1\nkind: Policy\nrules:\n- level: None\n', 'p'), /unknown group version field "audit.k8s.io\/v1beta1"/);
  assert.throws(() => parsePolicy('apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: None\n  omitStages: [Later]\n', 'p'), /rules\[0\]\.omitStages\[0\]: Unsupported value: "Later"/);
  assert.throws(() => parsePolicy('apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: None\n  nonResourceURLs: ["/x"]\n  namespaces: [a]\n', 'p'), /rules cannot apply to both regular resources and non-resource URLs/);
});
