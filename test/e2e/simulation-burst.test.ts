// A simulated cluster under a burst of work it can never finish, on a server of its own: a Deployment scaled to
// int32's maximum. kube's ReplicaSet controller makes at most 500 pods a sync (burstReplicas) and the API server
// answers throughout; here the controllers' queues yield to the event loop every few milliseconds, so requests are
// answered while the pods are made, and the ReplicaSet's status counts them as they come.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer, until } from './helpers.ts';

describe('simulated workloads under a burst', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer({ simulateWorkloads: { nodes: 2 } });
  });
  after(async () => s?.close());

  test('a Deployment of 2147483647 replicas: the server answers while its pods are made', { timeout: 60_000 }, async () => {
    const deployment = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'huge', namespace: 'default' }, spec: { replicas: 2147483647, selector: { matchLabels: { app: 'huge' } }, template: { metadata: { labels: { app: 'huge' } }, spec: { containers: [{ name: 'c', image: 'x' }] } } } };
    await s.kubectlOk(['create', '-f', '-'], { input: JSON.stringify(deployment) });
    const podCount = async () => (JSON.parse(await s.kubectlOk(['get', '--raw', '/api/v1/namespaces/default/pods?limit=1', '--request-timeout=10s'], { timeoutMs: 15_000 })) as { metadata: { remainingItemCount?: number } }).metadata.remainingItemCount ?? 0;
    const first = await until('the first pods', async () => {
      const n = await podCount();
      return n > 0 ? n : undefined;
    });
    for (let i = 0; i < 3; i++) {
      // Every call is a request kubectl gives up on after 10 s: before, the first one waited for good.
      assert.equal(await s.kubectlOk(['get', '--raw', '/readyz', '--request-timeout=10s'], { timeoutMs: 15_000 }), 'ok');
    }
    assert.ok((await podCount()) > first, 'pods are still being made');
    await s.kubectlOk(['delete', 'deployment', 'huge', '--cascade=orphan', '--wait=false', '--request-timeout=10s'], { timeoutMs: 15_000 });
  });
});
