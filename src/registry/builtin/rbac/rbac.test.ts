import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../types.ts';
import { builtinTypeFacts } from '../index.ts';
import { createErrors, updateErrors } from '../test-context.ts';

// Sources: pkg/apis/rbac/validation/validation.go (kube 1.31).
const roleBindings = builtinTypeFacts('rbac.authorization.k8s.io', 'rolebindings');
const clusterRoleBindings = builtinTypeFacts('rbac.authorization.k8s.io', 'clusterrolebindings');
const clusterRoles = builtinTypeFacts('rbac.authorization.k8s.io', 'clusterroles');

const RBAC = 'rbac.authorization.k8s.io';
const binding = (extra: Record<string, unknown> = {}): KubeObject => ({ metadata: { name: 'b', namespace: 'default' }, roleRef: { apiGroup: RBAC, kind: 'Role', name: 'r' }, ...extra });

test('role bindings: the roleRef name is a path segment', () => {
  assert.deepEqual(createErrors(roleBindings, binding({ roleRef: { apiGroup: RBAC, kind: 'Role', name: 'a/b' } })), ["roleRef.name: Invalid value: \"a/b\": may not contain '/'"]);
});

test('role bindings: a service account subject name is a DNS subdomain', () => {
  assert.deepEqual(createErrors(roleBindings, binding({ subjects: [{ kind: 'ServiceAccount', name: 'Bad_Name', apiGroup: RBAC }] })), [
    "subjects[0].name: Invalid value: \"Bad_Name\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
    'subjects[0].apiGroup: Unsupported value: "rbac.authorization.k8s.io": supported values: ""',
  ]);
});

test('cluster role bindings: only ClusterRole, and a namespace for service accounts', () => {
  const crb: KubeObject = { metadata: { name: 'b' }, roleRef: { apiGroup: RBAC, kind: 'Role', name: 'r' }, subjects: [{ kind: 'ServiceAccount', name: 'default' }] };
  assert.deepEqual(createErrors(clusterRoleBindings, crb), ['roleRef.kind: Unsupported value: "Role": supported values: "ClusterRole"', 'subjects[0].namespace: Required value']);
});

test('role bindings: the roleRef may not change, printed as the Go struct', () => {
  const old = binding();
  createErrors(roleBindings, old);
  assert.deepEqual(updateErrors(roleBindings, binding({ roleRef: { apiGroup: RBAC, kind: 'ClusterRole', name: 'view' } }), old), [
    'roleRef: Invalid value: rbac.RoleRef{APIGroup:"rbac.authorization.k8s.io", Kind:"ClusterRole", Name:"view"}: cannot change roleRef',
  ]);
});

test('cluster roles: an empty aggregation rule and rules without resources', () => {
  const role: KubeObject = { metadata: { name: 'c' }, aggregationRule: { clusterRoleSelectors: [] }, rules: [{ verbs: ['get'], nonResourceURLs: ['/x'], resources: ['pods'] }] };
  assert.deepEqual(createErrors(clusterRoles, role), [
    'rules[0].nonResourceURLs: Invalid value: []string{"/x"}: rules cannot apply to both regular resources and non-resource URLs',
    'aggregationRule.clusterRoleSelectors: Required value: at least one clusterRoleSelector required if aggregationRule is non-nil',
  ]);
});
