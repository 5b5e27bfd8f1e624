// pods/binding and pods/eviction: a scheduler's Binding assigns a pod once (a second is kube's 409), an Eviction
// deletes a pod, and a PodDisruptionBudget no controller has processed yet refuses it with kube's 429.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from './helpers.ts';

const podPath = (name: string, sub = '') => `/api/v1/namespaces/default/pods/${name}${sub ? `/${sub}` : ''}`;

describe('pod subresources', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer();
  });
  after(async () => s.close());

  const post = (path: string, body: unknown) => s.adminRequest(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const createPod = (name: string, labels: Record<string, string> = {}) =>
    s.kubectlOk(['create', '-f', '-'], { input: JSON.stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { name, labels }, spec: { containers: [{ name: 'c', image: 'busybox' }] } }) });

  test('a Binding assigns the node and the PodScheduled condition; a second Binding is 409', async () => {
    await createPod('bound');
    const r = await post(podPath('bound', 'binding'), { apiVersion: 'v1', kind: 'Binding', metadata: { name: 'bound', annotations: { 'scheduled-by': 'test' } }, target: { kind: 'Node', name: 'node-1' } });
    assert.equal(r.status, 201, r.body);
    assert.deepEqual(JSON.parse(r.body), { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 });
    const pod = JSON.parse(await s.kubectlOk(['get', 'pod', 'bound', '-o', 'json']));
    assert.equal(pod.spec.nodeName, 'node-1');
    assert.equal(pod.metadata.annotations['scheduled-by'], 'test');
    assert.ok(pod.status.conditions.some((c: { type: string; status: string }) => c.type === 'PodScheduled' && c.status === 'True'));
    const again = await post(podPath('bound', 'binding'), { apiVersion: 'v1', kind: 'Binding', metadata: { name: 'bound' }, target: { kind: 'Node', name: 'node-2' } });
    assert.equal(again.status, 409);
    assert.equal(JSON.parse(again.body).message, 'Operation cannot be fulfilled on pods/binding "bound": pod bound is already assigned to node "node-1"');
    const wrong = await post(podPath('bound', 'binding'), { apiVersion: 'v1', kind: 'Binding', metadata: { name: 'other' }, target: { name: 'n' } });
    assert.equal(wrong.status, 400);
    assert.equal(JSON.parse(wrong.body).message, 'name in URL does not match name in Binding object');
  });

  test('an Eviction deletes the pod; a budget no controller has processed refuses it (429)', async () => {
    await createPod('evicted');
    const r = await post(podPath('evicted', 'eviction'), { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: 'evicted' } });
    assert.equal(r.status, 201, r.body);
    assert.equal((await s.kubectl(['get', 'pod', 'evicted'])).code, 1);
    await createPod('guarded', { app: 'db' });
    await s.kubectlOk(['create', 'poddisruptionbudget', 'db', '--selector=app=db', '--min-available=1']);
    const refused = await post(podPath('guarded', 'eviction'), { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: 'guarded' } });
    assert.equal(refused.status, 429);
    const status = JSON.parse(refused.body);
    assert.equal(status.message, "Cannot evict pod as it would violate the pod's disruption budget.");
    assert.deepEqual(status.details.causes, [{ reason: 'DisruptionBudget', message: 'The disruption budget db is still being processed by the server.' }]);
    assert.equal((await s.kubectl(['get', 'pod', 'guarded'])).code, 0);
  });
});
