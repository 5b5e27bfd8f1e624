// The simulated scheduler places pods as kube-scheduler's default scoring does (weighted score plugins), not on the
// least loaded node: preferred node affinity, PreferNoSchedule taints, topology spreading of a Deployment and
// preferred pod (anti-)affinity, each driven with kubectl on 3 simulated nodes (8 cpu, 32Gi each). Each placement
// asserted here is one the old least-loaded rule (fewest pods, first node among equals) gets wrong.

import { after, afterEach, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from './helpers.ts';

type Pod = { metadata: { name: string; labels?: Record<string, string> }; spec: { nodeName?: string } };

describe('simulated scheduler scoring', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer({ simulateWorkloads: { nodes: 3, podStartupMs: 20 } });
  });
  after(async () => s.close());
  afterEach(async () => {
    // Foreground: the ReplicaSet is gone (with its pods) before the bare pods are deleted, and makes no more.
    await s.kubectlOk(['delete', 'deployments', '--all', '--cascade=foreground']);
    await s.kubectlOk(['delete', 'pods', '--all', '--now']);
    for (const n of [1, 2, 3]) {
      await s.kubectl(['label', 'node', `capstan-node-${n}`, 'disk-', 'rack-']);
      await s.kubectl(['taint', 'node', `capstan-node-${n}`, 'spot-']);
    }
  });

  const apply = (obj: unknown) => s.kubectlOk(['apply', '-f', '-'], { input: JSON.stringify(obj) });
  /** A bare pod; `nodeName` binds it without the scheduler. */
  const pod = (name: string, opts: { labels?: Record<string, string>; cpu?: string; nodeName?: string; spec?: Record<string, unknown> } = {}) => ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, labels: opts.labels ?? { app: name } },
    spec: { ...(opts.nodeName ? { nodeName: opts.nodeName } : {}), containers: [{ name: 'app', image: 'nginx', resources: opts.cpu ? { requests: { cpu: opts.cpu, memory: '1Gi' } } : {} }], ...opts.spec },
  });
  const placed = async (name: string): Promise<string> => {
    await s.kubectlOk(['wait', '--for=condition=PodScheduled', `pod/${name}`, '--timeout=20s']);
    return s.kubectlOk(['get', 'pod', name, '-o', 'jsonpath={.spec.nodeName}']);
  };
  const pods = async (selector: string): Promise<Pod[]> => JSON.parse(await s.kubectlOk(['get', 'pods', '-l', selector, '-o', 'json'])).items;
  const perNode = (list: Pod[]) => {
    const counts: Record<string, number> = {};
    for (const p of list) counts[p.spec.nodeName ?? ''] = (counts[p.spec.nodeName ?? ''] ?? 0) + 1;
    return counts;
  };

  test('a pod preferring a node label lands on the node that has it, though that node is the busiest', async () => {
    await s.kubectlOk(['label', 'node', 'capstan-node-1', 'disk=ssd']);
    // Two pods of 1 cpu and 1Gi on node-1: it scores 15 lower for resources, 10 for balance; the preference is
    // worth 2 x 100.
    await apply(pod('busy-1', { cpu: '1', nodeName: 'capstan-node-1' }));
    await apply(pod('busy-2', { cpu: '1', nodeName: 'capstan-node-1' }));
    const preference = { nodeAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 1, preference: { matchExpressions: [{ key: 'disk', operator: 'In', values: ['ssd'] }] } }] } };
    await apply(pod('picky', { spec: { affinity: preference } }));
    assert.equal(await placed('picky'), 'capstan-node-1');
    // Without the preference, the same pod goes to the least requested node, the first in name order among equals.
    await apply(pod('plain'));
    assert.equal(await placed('plain'), 'capstan-node-2');
  });

  test('a node with a PreferNoSchedule taint is avoided while another node fits, and taken when none does', async () => {
    // node-1 is the emptiest node, but tainted.
    await apply(pod('load-2', { cpu: '1', nodeName: 'capstan-node-2' }));
    await apply(pod('load-3', { cpu: '1', nodeName: 'capstan-node-3' }));
    await s.kubectlOk(['taint', 'node', 'capstan-node-1', 'spot=true:PreferNoSchedule']);
    await apply(pod('avoider'));
    assert.equal(await placed('avoider'), 'capstan-node-2');
    // A pod that tolerates the taint goes by resources: the empty node-1.
    await apply(pod('tolerant', { spec: { tolerations: [{ key: 'spot', operator: 'Exists', effect: 'PreferNoSchedule' }] } }));
    assert.equal(await placed('tolerant'), 'capstan-node-1');
    // 7.5 cpu fits only on node-1 (node-2 and node-3 have 1 cpu requested): PreferNoSchedule does not refuse it.
    await apply(pod('big', { cpu: '7500m' }));
    assert.equal(await placed('big'), 'capstan-node-1');
  });

  test("a Deployment's replicas spread across the nodes by hostname, whatever else the nodes run; preferred anti-affinity to them picks the zone-like rack with fewest", async () => {
    // Three unrelated pods on node-3: the old rule filled node-1 and node-2 first (3, 3, 0). kube's default
    // spreading (hostname, maxSkew 3) counts only the Deployment's own pods and outweighs node-3's load.
    for (const i of [1, 2, 3]) await apply(pod(`other-${i}`, { labels: { app: 'other' }, nodeName: 'capstan-node-3' }));
    await s.kubectlOk(['create', 'deployment', 'web', '--image=nginx', '--replicas=6']);
    await s.kubectlOk(['rollout', 'status', 'deployment/web', '--timeout=30s']);
    assert.deepEqual(perNode(await pods('app=web')), { 'capstan-node-1': 2, 'capstan-node-2': 2, 'capstan-node-3': 2 });

    // Racks: node-1 and node-2 in a (4 web pods), node-3 in b (2). Avoiding web per rack, node-3 scores 100 and the
    // others 0, though node-3 holds the most pods.
    await s.kubectlOk(['label', 'node', 'capstan-node-1', 'capstan-node-2', 'rack=a']);
    await s.kubectlOk(['label', 'node', 'capstan-node-3', 'rack=b']);
    const avoidWeb = { podAntiAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 100, podAffinityTerm: { labelSelector: { matchLabels: { app: 'web' } }, topologyKey: 'rack' } }] } };
    await apply(pod('loner', { spec: { affinity: avoidWeb } }));
    assert.equal(await placed('loner'), 'capstan-node-3');
  });

  test('a pod with preferred pod affinity lands on the node of the pod it prefers; a pod that an existing pod requires follows it too', async () => {
    await apply(pod('cache', { nodeName: 'capstan-node-3' }));
    const nearCache = { podAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 50, podAffinityTerm: { labelSelector: { matchLabels: { app: 'cache' } }, topologyKey: 'kubernetes.io/hostname' } }] } };
    await apply(pod('client', { spec: { affinity: nearCache } }));
    assert.equal(await placed('client'), 'capstan-node-3');
    // Symmetry: an existing pod's required affinity toward the incoming pod's labels weighs 1 for it.
    const needsWorker = { podAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ labelSelector: { matchLabels: { app: 'worker' } }, topologyKey: 'kubernetes.io/hostname' }] } };
    await apply(pod('boss', { nodeName: 'capstan-node-2', spec: { affinity: needsWorker } }));
    await apply(pod('worker'));
    assert.equal(await placed('worker'), 'capstan-node-2');
  });
});
