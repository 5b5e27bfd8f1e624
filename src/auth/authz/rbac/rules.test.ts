import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { AuthzAttributes } from '../types.ts';
import { compactRules, compactString, covers, policyRuleOf, ruleAllows, subjectAppliesTo } from './rules.ts';

const user = { name: 'alice', groups: ['dev', 'system:authenticated'] };
const res = (verb: string, group: string, resource: string, subresource = '', name = '', namespace = 'ns'): AuthzAttributes => ({
  user, verb, isResourceRequest: true, path: '', namespace, apiGroup: group, apiVersion: 'v1', resource, subresource, name,
});
const url = (verb: string, path: string): AuthzAttributes => ({ user, verb, isResourceRequest: false, path, namespace: '', apiGroup: '', apiVersion: '', resource: '', subresource: '', name: '' });

test('RuleAllows: verbs, groups, resources, subresources, */sub, resourceNames, non-resource URLs with trailing *', () => {
  const cases: [Record<string, unknown>, AuthzAttributes, boolean][] = [
    [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }, res('get', '', 'pods'), true],
    [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }, res('list', '', 'pods'), false],
    [{ verbs: ['*'], apiGroups: [''], resources: ['pods'] }, res('delete', '', 'pods'), true],
    [{ verbs: ['get'], apiGroups: ['apps'], resources: ['pods'] }, res('get', '', 'pods'), false],
    [{ verbs: ['get'], apiGroups: ['*'], resources: ['*'] }, res('get', 'apps', 'deployments', 'scale'), true],
    [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }, res('get', '', 'pods', 'log'), false],
    [{ verbs: ['get'], apiGroups: [''], resources: ['pods/log'] }, res('get', '', 'pods', 'log'), true],
    [{ verbs: ['get'], apiGroups: [''], resources: ['pods/log'] }, res('get', '', 'pods'), false],
    [{ verbs: ['get'], apiGroups: ['*'], resources: ['*/scale'] }, res('get', 'apps', 'deployments', 'scale'), true],
    [{ verbs: ['get'], apiGroups: ['*'], resources: ['*/scale'] }, res('get', 'apps', 'deployments', 'status'), false],
    [{ verbs: ['get'], apiGroups: [''], resources: ['configmaps'], resourceNames: ['a'] }, res('get', '', 'configmaps', '', 'a'), true],
    [{ verbs: ['get'], apiGroups: [''], resources: ['configmaps'], resourceNames: ['a'] }, res('get', '', 'configmaps', '', 'b'), false],
    [{ verbs: ['list'], apiGroups: [''], resources: ['configmaps'], resourceNames: ['a'] }, res('list', '', 'configmaps'), false],
    [{ verbs: ['get'], nonResourceURLs: ['/healthz'] }, url('get', '/healthz'), true],
    [{ verbs: ['get'], nonResourceURLs: ['/healthz'] }, url('get', '/healthz/etcd'), false],
    [{ verbs: ['get'], nonResourceURLs: ['/healthz/*'] }, url('get', '/healthz/etcd'), true],
    [{ verbs: ['get'], nonResourceURLs: ['/api*'] }, url('get', '/apis/apps'), true],
    [{ verbs: ['get'], nonResourceURLs: ['*'] }, url('get', '/anything'), true],
    [{ verbs: ['post'], nonResourceURLs: ['*'] }, url('get', '/anything'), false],
    [{ verbs: ['get'], apiGroups: ['*'], resources: ['*'] }, url('get', '/api'), false],
  ];
  for (const [rule, attrs, want] of cases) assert.equal(ruleAllows(attrs, policyRuleOf(rule)), want, `${JSON.stringify(rule)} ${attrs.verb} ${attrs.resource || attrs.path}/${attrs.subresource}`);
});

test('subjects: users, groups, service accounts (namespace defaulted from a RoleBinding, required in a ClusterRoleBinding)', () => {
  const sa = { name: 'system:serviceaccount:ns:robot', groups: ['system:serviceaccounts'] };
  assert.equal(subjectAppliesTo(user, { kind: 'User', name: 'alice' }, ''), true);
  assert.equal(subjectAppliesTo(user, { kind: 'Group', name: 'dev' }, ''), true);
  assert.equal(subjectAppliesTo(user, { kind: 'Group', name: 'ops' }, ''), false);
  assert.equal(subjectAppliesTo(sa, { kind: 'ServiceAccount', name: 'robot' }, 'ns'), true);
  assert.equal(subjectAppliesTo(sa, { kind: 'ServiceAccount', name: 'robot' }, ''), false);
  assert.equal(subjectAppliesTo(sa, { kind: 'ServiceAccount', name: 'robot', namespace: 'ns' }, ''), true);
  assert.equal(subjectAppliesTo(sa, { kind: 'ServiceAccount', name: 'robot', namespace: 'other' }, 'ns'), false);
});

test('covers, compactRules and CompactString word a missing right as kube does', () => {
  const owner = [policyRuleOf({ verbs: ['get', 'list'], apiGroups: [''], resources: ['pods', 'pods/log'] }), policyRuleOf({ verbs: ['get'], nonResourceURLs: ['/healthz/*'] })];
  assert.equal(covers(owner, [policyRuleOf({ verbs: ['get'], apiGroups: [''], resources: ['pods'], resourceNames: ['x'] })]).covered, true);
  assert.equal(covers(owner, [policyRuleOf({ verbs: ['get'], nonResourceURLs: ['/healthz/etcd'] })]).covered, true);
  const { covered, missing } = covers(owner, [policyRuleOf({ verbs: ['get', 'delete', 'watch'], apiGroups: [''], resources: ['pods', 'secrets'] })]);
  assert.equal(covered, false);
  assert.deepEqual(
    compactRules(missing).map(compactString).sort(),
    ['{APIGroups:[""], Resources:["pods"], Verbs:["delete" "watch"]}', '{APIGroups:[""], Resources:["secrets"], Verbs:["get" "delete" "watch"]}'],
  );
  assert.equal(compactString(policyRuleOf({ verbs: ['get'], nonResourceURLs: ['/x'] })), '{NonResourceURLs:["/x"], Verbs:["get"]}');
  assert.equal(compactString(policyRuleOf({ verbs: ['get'], apiGroups: [''], resources: ['cm'], resourceNames: ['a'] })), '{APIGroups:[""], Resources:["cm"], ResourceNames:["a"], Verbs:["get"]}');
  // */scale in the owner's rules covers any resource's scale.
  assert.equal(covers([policyRuleOf({ verbs: ['get'], apiGroups: ['*'], resources: ['*/scale'] })], [policyRuleOf({ verbs: ['get'], apiGroups: ['apps'], resources: ['deployments/scale'] })]).covered, true);
});

test('covers: an equal owner rule covers the whole rule, except the URLs of a rule that also names resources', () => {
  const rule = { verbs: ['get', 'list'], apiGroups: ['', 'apps'], resources: ['pods', 'deployments/scale'], resourceNames: ['a', 'b'] };
  assert.deepEqual(covers([policyRuleOf(rule)], [policyRuleOf(rule)]), { covered: true, missing: [] });
  // Kube breaks the URLs out into rules without names, which an owner rule with names does not cover.
  const mixed = { verbs: ['get'], apiGroups: [''], resources: ['pods'], resourceNames: ['a'], nonResourceURLs: ['/healthz'] };
  const { missing } = covers([policyRuleOf(mixed)], [policyRuleOf(mixed)]);
  assert.deepEqual(missing, [policyRuleOf({ verbs: ['get'], nonResourceURLs: ['/healthz'] })]);
});
