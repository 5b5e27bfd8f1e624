// Simulated workloads on two Capstan instances sharing one etcd: the simulation runs where kube-controller-manager's
// loops run, on the instance that holds the controller-manager Lease, and moves with it.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { type TestServer } from './helpers.ts';
import { startHaPair, type HaPair } from './ha-pair.ts';

let pair: HaPair;
let a: TestServer;
let b: TestServer;

before(async () => {
  pair = await startHaPair({ simulateWorkloads: { nodes: 2 } });
  ({ a, b } = pair);
});

after(() => pair?.close());

interface Deployment {
  status?: { availableReplicas?: number };
}

async function json<T>(server: TestServer, path: string): Promise<T> {
  const r = await server.adminRequest(path);
  assert.equal(r.status, 200, r.body);
  return JSON.parse(r.body) as T;
}

async function available(server: TestServer, name: string, replicas: number): Promise<void> {
  for (let i = 0; i < 200; i++) {
    const d = await json<Deployment>(server, `/apis/apps/v1/namespaces/default/deployments/${name}`);
    if (d.status?.availableReplicas === replicas) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  assert.fail(`deployment ${name} never had ${replicas} available replicas`);
}

const podNames = async (server: TestServer): Promise<string[]> =>
  (await json<{ items: { metadata: { name: string } }[] }>(server, '/api/v1/namespaces/default/pods?labelSelector=app%3Dweb')).items.map((p) => p.metadata.name).sort();

test('one instance runs the simulation: a Deployment gets its replicas once, not once per instance', async () => {
  const from = (await json<{ metadata: { resourceVersion: string } }>(b, '/api/v1/namespaces/default/pods')).metadata.resourceVersion;
  const made = await a.adminRequest('/apis/apps/v1/namespaces/default/deployments', {
    method: 'POST',
    body: JSON.stringify({
      metadata: { name: 'web' },
      spec: { replicas: 6, selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image: 'nginx' }] } } },
    }),
  });
  assert.equal(made.status, 201, made.body);
  await available(b, 'web', 6);
  // Two sets of controllers would each have made pods for the ReplicaSet, and deleted the surplus: every pod ever
  // made since, from the watch's history, is one of the six.
  const history = await b.adminRequest(`/api/v1/namespaces/default/pods?watch=1&resourceVersion=${from}&timeoutSeconds=1`);
  assert.equal(history.status, 200, history.body);
  const added = history.body.trim().split('\n').map((l) => JSON.parse(l) as { type: string; object: { metadata: { name: string } } }).filter((e) => e.type === 'ADDED');
  assert.deepEqual(added.map((e) => e.object.metadata.name).sort(), await podNames(b));
  assert.equal(added.length, 6);
  const nodes = await json<{ items: { metadata: { name: string } }[] }>(a, '/api/v1/nodes');
  assert.deepEqual(nodes.items.map((n) => n.metadata.name).sort(), ['capstan-node-1', 'capstan-node-2']);
});

test('when the leading instance stops, the other takes the simulation over', async () => {
  // a started first, and took the Lease before b started (start-up waits for the first election round).
  const holder = async (server: TestServer) => (await json<{ spec: { holderIdentity?: string } }>(server, '/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/kube-controller-manager')).spec.holderIdentity ?? '';
  const first = await holder(a);
  const [leader, survivor] = [a, b];
  const before = await podNames(survivor);
  await leader.close();
  const scaled = await survivor.adminRequest('/apis/apps/v1/namespaces/default/deployments/web/scale', {
    method: 'PATCH',
    headers: { 'content-type': 'application/merge-patch+json' },
    body: JSON.stringify({ spec: { replicas: 8 } }),
  });
  assert.equal(scaled.status, 200, scaled.body);
  await available(survivor, 'web', 8);
  const next = await holder(survivor);
  assert.ok(next !== '' && next !== first, `the survivor holds the Lease (${next})`);
  const now = await podNames(survivor);
  assert.equal(now.length, 8);
  for (const name of before) assert.ok(now.includes(name), `pod ${name} was replaced`);
});
