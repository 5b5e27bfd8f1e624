import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseRequestInfo } from '../../endpoints/request-info.ts';
import { MANDATORY_FLOW_SCHEMAS, MANDATORY_PRIORITY_LEVELS, SUGGESTED_FLOW_SCHEMAS, SUGGESTED_PRIORITY_LEVELS } from './bootstrap.ts';
import { createFlowControl, type Admission } from './dispatcher.ts';
import type { FlowSchema, PriorityLevelConfiguration } from './types.ts';

const schemas: FlowSchema[] = Object.entries({ ...MANDATORY_FLOW_SCHEMAS, ...SUGGESTED_FLOW_SCHEMAS }).map(([name, spec]) => ({ metadata: { name, uid: `fs-${name}` }, spec }));
const levels: PriorityLevelConfiguration[] = Object.entries({ ...MANDATORY_PRIORITY_LEVELS, ...SUGGESTED_PRIORITY_LEVELS }).map(([name, spec]) => ({ metadata: { name, uid: `pl-${name}` }, spec }));
const info = (path: string, method = 'GET') => parseRequestInfo(method, path, new URLSearchParams());
const user = (name: string, ...groups: string[]) => ({ name, groups: [...groups, 'system:authenticated'] });

test('requests are classified by the bootstrap FlowSchemas as kube-apiserver classifies them', () => {
  const fc = createFlowControl({ config: { version: () => 1, flowSchemas: () => schemas, priorityLevels: () => levels }, serverConcurrencyLimit: 600, queueWaitMs: 1000 });
  const at = (u: ReturnType<typeof user>, path: string, method?: string) => fc.classify(u, info(path, method))?.flowSchema;
  assert.equal(at(user('admin', 'system:masters'), '/api/v1/pods'), 'exempt');
  assert.equal(at(user('someone'), '/healthz'), 'probes');
  assert.equal(at(user('someone'), '/api/v1/namespaces/a/pods'), 'global-default');
  assert.equal(at(user('system:node:n1', 'system:nodes'), '/api/v1/nodes/n1/status', 'PUT'), 'system-node-high');
  assert.equal(at(user('system:node:n1', 'system:nodes'), '/api/v1/namespaces/a/pods'), 'system-nodes');
  assert.equal(at(user('system:kube-controller-manager'), '/api/v1/namespaces/kube-system/endpoints/x'), 'system-leader-election');
  assert.equal(at(user('system:kube-controller-manager'), '/api/v1/namespaces/a/pods'), 'kube-controller-manager');
  assert.equal(at(user('system:serviceaccount:kube-system:foo', 'system:serviceaccounts'), '/api/v1/namespaces/a/pods'), 'kube-system-service-accounts');
  assert.equal(at(user('system:serviceaccount:app:foo', 'system:serviceaccounts'), '/api/v1/namespaces/a/pods'), 'service-accounts');
  assert.equal(fc.classify(user('admin', 'system:masters'), info('/api'))!.exempt, true);
  // Limited levels share 600 seats by their shares (5+30+40+10+40+100+20 = 245).
  const byName = new Map(fc.levels().map((l) => [l.name, l.concurrencyLimit]));
  assert.equal(byName.get('global-default'), Math.ceil((600 * 20) / 245));
  assert.equal(byName.get('workload-low'), Math.ceil((600 * 100) / 245));
});

test('a full level queues in order and rejects past the queue length limit', async () => {
  const pl: PriorityLevelConfiguration = { metadata: { name: 'tiny', uid: 'pl' }, spec: { type: 'Limited', limited: { nominalConcurrencyShares: 1, limitResponse: { type: 'Queue', queuing: { queues: 2, handSize: 1, queueLengthLimit: 2 } } } } };
  const fs: FlowSchema = { metadata: { name: 'all', uid: 'fs' }, spec: { priorityLevelConfiguration: { name: 'tiny' }, matchingPrecedence: 1, distinguisherMethod: { type: 'ByUser' }, rules: [{ subjects: [{ kind: 'Group', group: { name: 'system:authenticated' } }], resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'], namespaces: ['*'], clusterScope: true }] }] } };
  const fc = createFlowControl({ config: { version: () => 1, flowSchemas: () => [fs], priorityLevels: () => [pl] }, serverConcurrencyLimit: 1, queueWaitMs: 60_000 });
  const c = (name: string) => fc.classify(user(name), info('/api/v1/namespaces/a/pods'))!;
  const first = await fc.admit(c('u0'));
  assert.equal(first.admitted, true);
  const order: string[] = [];
  const wait = (name: string) => Promise.resolve(fc.admit(c(name))).then((a: Admission) => (order.push(name), a));
  const a1 = wait('u0');
  const a2 = wait('u0');
  const rejected = await fc.admit(c('u0'));
  assert.equal(rejected.admitted, false, 'the flow\'s queue is full');
  assert.deepEqual(fc.levels().find((l) => l.name === 'tiny'), { name: 'tiny', concurrencyLimit: 1, executing: 1, waiting: 2 });
  (first as { release(): void }).release();
  const s1 = await a1;
  assert.equal(s1.admitted, true);
  (s1 as { release(): void }).release();
  const s2 = await a2;
  assert.equal(s2.admitted, true);
  (s2 as { release(): void }).release();
  assert.deepEqual(order, ['u0', 'u0']);
  assert.deepEqual(fc.levels().find((l) => l.name === 'tiny'), { name: 'tiny', concurrencyLimit: 1, executing: 0, waiting: 0 });
});
