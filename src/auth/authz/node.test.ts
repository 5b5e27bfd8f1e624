import { test } from 'node:test';
import assert from 'node:assert/strict';
import { nodeAuthorizer } from './node.ts';
import type { AuthzAttributes } from './types.ts';

const node1 = { name: 'system:node:n1', groups: ['system:nodes', 'system:authenticated'] };
const attrs = (user: AuthzAttributes['user'], verb: string, group: string, resource: string, name = '', namespace = ''): AuthzAttributes => ({
  user, verb, isResourceRequest: true, path: '', namespace, apiGroup: group, apiVersion: 'v1', resource, subresource: '', name,
});

test('Node: node identities only; the system:node rules; own lease and CSINode; graph-decided objects left to others', async () => {
  const a = nodeAuthorizer();
  const decide = async (x: AuthzAttributes) => (await a.authorize(x)).decision;
  assert.equal(await decide(attrs({ name: 'alice', groups: ['system:nodes'] }, 'get', '', 'nodes')), 'noopinion');
  assert.equal(await decide(attrs({ name: 'system:node:n1', groups: [] }, 'get', '', 'nodes')), 'noopinion');
  assert.equal(await decide(attrs(node1, 'list', '', 'nodes')), 'allow');
  assert.equal(await decide(attrs(node1, 'watch', '', 'services')), 'allow');
  assert.equal(await decide(attrs(node1, 'delete', '', 'services')), 'noopinion');
  assert.equal(await decide(attrs(node1, 'update', 'coordination.k8s.io', 'leases', 'n1', 'kube-node-lease')), 'allow');
  assert.deepEqual(await a.authorize(attrs(node1, 'update', 'coordination.k8s.io', 'leases', 'n2', 'kube-node-lease')), {
    decision: 'noopinion',
    reason: 'can only access node lease with the same name as the requesting node',
  });
  assert.equal(await decide(attrs(node1, 'get', 'storage.k8s.io', 'csinodes', 'n1')), 'allow');
  assert.deepEqual(await a.authorize(attrs(node1, 'get', '', 'secrets', 's', 'default')), { decision: 'noopinion', reason: "no relationship found between node 'n1' and this object" });
  assert.deepEqual(await a.authorize(attrs({ name: 'system:node:', groups: ['system:nodes'] }, 'get', '', 'nodes')), { decision: 'noopinion', reason: 'unknown node for user "system:node:"' });
});
