// End to end: the ABAC mode (--authorization-policy-file) with kubectl: a readonly policy lets a user read one
// namespace; writes and other namespaces are 403 with ABAC's reason; a bad policy file stops the start.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, startCapstan } from '../../src/index.ts';
import type { TestServer } from './helpers.ts';
import { startTestServer } from './helpers.ts';

describe('ABAC', () => {
  let server: TestServer;
  let dir: string;
  let alice: string;

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'capstan-abac-'));
    await writeFile(join(dir, 'tokens.csv'), 'alice-token-0123456789,alice,u-a\n');
    await writeFile(
      join(dir, 'policy.jsonl'),
      '{"apiVersion": "abac.authorization.kubernetes.io/v1beta1", "kind": "Policy", "spec": {"user": "alice", "namespace": "default", "resource": "*", "apiGroup": "*", "readonly": true}}\n' +
        '{"apiVersion": "abac.authorization.kubernetes.io/v1beta1", "kind": "Policy", "spec": {"group": "system:authenticated", "nonResourcePath": "*", "readonly": true}}\n',
    );
    server = await startTestServer({ authorizationMode: ['ABAC'], authorizationPolicyFile: join(dir, 'policy.jsonl'), tokenAuthFile: join(dir, 'tokens.csv') });
    alice = await server.writeKubeconfig('alice', { token: 'alice-token-0123456789' });
  });
  after(async () => {
    await server?.close();
    await rm(dir, { recursive: true, force: true });
  });

  test('readonly in its namespace; writes and other namespaces refused with "No policy matched."', async () => {
    assert.equal((await server.kubectl(['get', 'configmaps', '-n', 'default'], { kubeconfig: alice })).code, 0);
    const write = await server.kubectl(['create', 'configmap', 'x', '-n', 'default'], { kubeconfig: alice });
    assert.equal(write.stderr.trim(), 'error: failed to create configmap: configmaps is forbidden: User "alice" cannot create resource "configmaps" in API group "" in the namespace "default": No policy matched.');
    const other = await server.kubectl(['get', 'pods', '-n', 'kube-system'], { kubeconfig: alice });
    assert.equal(other.stderr.trim(), 'Error from server (Forbidden): pods is forbidden: User "alice" cannot list resource "pods" in API group "" in the namespace "kube-system": No policy matched.');
    // A SelfSubjectAccessReview is a create: ABAC's readonly policy does not allow even asking.
    const canI = await server.kubectl(['auth', 'can-i', 'list', 'pods', '-n', 'default'], { kubeconfig: alice });
    assert.equal(canI.code, 1);
    assert.match(canI.stderr, /selfsubjectaccessreviews\.authorization\.k8s\.io is forbidden: User "alice" cannot create resource "selfsubjectaccessreviews" in API group "authorization\.k8s\.io" at the cluster scope: No policy matched\./);
  });

  test('kube\'s start-up errors for the policy file', async () => {
    await writeFile(join(dir, 'bad.jsonl'), '{"apiVersion": "abac.authorization.kubernetes.io/v1beta1", "kind": "Policy"}\nnot json\n');
    await assert.rejects(startCapstan({ authorizationMode: ['ABAC'], authorizationPolicyFile: join(dir, 'bad.jsonl') }), (e: unknown) => e instanceof ConfigError && /line 2/.test(e.message));
    await assert.rejects(startCapstan({ authorizationMode: ['ABAC'] }), (e: unknown) => e instanceof ConfigError && e.message === "authorization-mode ABAC's authorization policy file not passed");
  });
});
