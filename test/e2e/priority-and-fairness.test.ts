// API Priority and Fairness: the bootstrap configuration, classification headers, a flood from one user answered
// 429 (with Retry-After) while another user's requests pass, system:masters exempt.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestServer, type TestServer } from './helpers.ts';

type Obj = { metadata: { name: string; uid: string; annotations?: Record<string, string> }; spec: Record<string, unknown>; status?: { conditions?: { type: string; status: string; reason: string; message: string }[] } };

describe('API Priority and Fairness', () => {
  let s: TestServer;
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'capstan-apf-'));
    const tokens = join(dir, 'tokens.csv');
    await writeFile(tokens, 'alice-token,alice,1\nbob-token,bob,2\n');
    // One seat per level; a queued request waits at most a quarter of the 4 s request timeout.
    s = await startTestServer({ tokenAuthFile: tokens, maxRequestsInflight: 1, maxMutatingRequestsInflight: 0, requestTimeoutSeconds: 4 });
  });
  after(async () => {
    await s.close();
    await rm(dir, { recursive: true, force: true });
  });

  const list = async (resource: string): Promise<Obj[]> => (JSON.parse((await s.adminRequest(`/apis/flowcontrol.apiserver.k8s.io/v1/${resource}`)).body) as { items: Obj[] }).items;

  test('the mandatory and suggested objects exist, with the autoupdate annotation and Dangling conditions', async () => {
    const levels = (await list('prioritylevelconfigurations')).map((p) => p.metadata.name).sort();
    assert.deepEqual(levels, ['catch-all', 'exempt', 'global-default', 'leader-election', 'node-high', 'system', 'workload-high', 'workload-low']);
    const schemas = await list('flowschemas');
    assert.deepEqual(schemas.map((f) => f.metadata.name).sort(), ['catch-all', 'endpoint-controller', 'exempt', 'global-default', 'kube-controller-manager', 'kube-scheduler', 'kube-system-service-accounts', 'probes', 'service-accounts', 'system-leader-election', 'system-node-high', 'system-nodes', 'workload-leader-election']);
    const exempt = schemas.find((f) => f.metadata.name === 'exempt')!;
    assert.equal(exempt.metadata.annotations?.['apf.kubernetes.io/autoupdate-spec'], 'true');
    assert.equal(exempt.spec.matchingPrecedence, 1);
    const waitForCondition = async (): Promise<Obj> => {
      for (let i = 0; i < 100; i++) {
        const fs = (await list('flowschemas')).find((f) => f.metadata.name === 'global-default')!;
        if (fs.status?.conditions?.length) return fs;
        await new Promise((r) => setTimeout(r, 20));
      }
      throw new Error('no Dangling condition');
    };
    const gd = await waitForCondition();
    assert.deepEqual(gd.status!.conditions!.map((c) => [c.type, c.status, c.reason, c.message]), [['Dangling', 'False', 'Found', 'This FlowSchema references the PriorityLevelConfiguration object named "global-default" and it exists']]);
    const table = await s.kubectlOk(['get', 'flowschemas', 'exempt']);
    assert.match(table, /^NAME\s+PRIORITYLEVEL\s+MATCHINGPRECEDENCE\s+DISTINGUISHERMETHOD\s+AGE\s+MISSINGPL\nexempt\s+exempt\s+1\s+<none>\s+\S+\s+False\n$/);
  });

  test('responses name the FlowSchema and priority level that classified them', async () => {
    const schemas = await list('flowschemas');
    const levels = await list('prioritylevelconfigurations');
    const uid = (items: Obj[], name: string) => items.find((i) => i.metadata.name === name)!.metadata.uid;
    const admin = await s.adminRequest('/api/v1/namespaces/default/configmaps');
    assert.equal(admin.headers['x-kubernetes-pf-flowschema-uid'], uid(schemas, 'exempt'));
    assert.equal(admin.headers['x-kubernetes-pf-prioritylevel-uid'], uid(levels, 'exempt'));
    const bob = await s.request('/api/v1/namespaces/default/configmaps', { token: 'bob-token' });
    assert.equal(bob.status, 200);
    assert.equal(bob.headers['x-kubernetes-pf-flowschema-uid'], uid(schemas, 'global-default'));
    assert.equal(bob.headers['x-kubernetes-pf-prioritylevel-uid'], uid(levels, 'global-default'));
    const probe = await s.request('/healthz', { token: 'bob-token' });
    assert.equal(probe.headers['x-kubernetes-pf-flowschema-uid'], uid(schemas, 'probes'));
  });

  test('a flood from one user is answered 429 while another user\'s requests pass', async () => {
    // Alice gets a level of her own: one seat, one queue of two.
    const create = (resource: string, body: unknown) => s.adminRequest(`/apis/flowcontrol.apiserver.k8s.io/v1/${resource}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    assert.equal((await create('prioritylevelconfigurations', { apiVersion: 'flowcontrol.apiserver.k8s.io/v1', kind: 'PriorityLevelConfiguration', metadata: { name: 'alice' }, spec: { type: 'Limited', limited: { nominalConcurrencyShares: 1, limitResponse: { type: 'Queue', queuing: { queues: 1, handSize: 1, queueLengthLimit: 2 } } } } })).status, 201);
    assert.equal((await create('flowschemas', { apiVersion: 'flowcontrol.apiserver.k8s.io/v1', kind: 'FlowSchema', metadata: { name: 'alice' }, spec: { priorityLevelConfiguration: { name: 'alice' }, matchingPrecedence: 500, distinguisherMethod: { type: 'ByUser' }, rules: [{ subjects: [{ kind: 'User', user: { name: 'alice' } }], resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'], namespaces: ['*'], clusterScope: true }] }] } })).status, 201);
    // The configuration reaches the filter through informers: wait until Alice is classified by it.
    const fsUid = JSON.parse((await s.adminRequest('/apis/flowcontrol.apiserver.k8s.io/v1/flowschemas/alice')).body).metadata.uid as string;
    for (let i = 0; ; i++) {
      const r = await s.request('/api/v1/namespaces/default/configmaps', { token: 'alice-token' });
      if (r.headers['x-kubernetes-pf-flowschema-uid'] === fsUid) break;
      if (i > 100) throw new Error('alice is not classified by her FlowSchema');
      await new Promise((r) => setTimeout(r, 20));
    }
    // Each of Alice's reads waits for a resourceVersion that never comes (3 s), holding her only seat.
    const slow = '/api/v1/namespaces/default/configmaps?resourceVersion=999999999&resourceVersionMatch=NotOlderThan';
    const flood = Array.from({ length: 10 }, () => s.request(slow, { token: 'alice-token' }));
    const bobs = [];
    for (let i = 0; i < 5; i++) bobs.push(await s.request('/api/v1/namespaces/default/configmaps', { token: 'bob-token' }));
    const masters = await Promise.all(Array.from({ length: 5 }, () => s.adminRequest('/api/v1/namespaces/default/configmaps')));
    const results = await Promise.all(flood);
    assert.deepEqual(bobs.map((r) => r.status), [200, 200, 200, 200, 200]);
    assert.deepEqual(masters.map((r) => r.status), [200, 200, 200, 200, 200]);
    const rejected = results.filter((r) => r.status === 429);
    // One runs, two wait in the queue (and give up after a quarter of the request timeout), seven are refused at once.
    assert.ok(rejected.length >= 7, results.map((r) => r.status).join(','));
    assert.equal(results.filter((r) => r.status === 504).length, 1, results.map((r) => r.status).join(','));
    for (const r of rejected) {
      assert.equal(r.headers['retry-after'], '1');
      assert.equal(r.headers['content-type'], 'text/plain; charset=utf-8');
      assert.equal(r.body, 'Too many requests, please try again later.\n');
      assert.equal(r.headers['x-kubernetes-pf-flowschema-uid'], fsUid);
    }
  });
});
