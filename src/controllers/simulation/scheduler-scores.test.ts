import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseLabelSelector } from '../../apis/labels.ts';
import type { KubeObject } from '../../registry/types.ts';
import { aggregateRequests, podRequests } from './scheduler-filters.ts';
import {
  balancedAllocationScore,
  createBoundPods,
  defaultSelector,
  interPodAffinityScores,
  leastAllocatedScore,
  nodeAffinityScores,
  nonZeroRequests,
  NOTHING_REQUESTED,
  pluginScores,
  scoreNodes,
  selectHost,
  taintTolerationScores,
  topologySpreadScores,
  type ScoringCluster,
} from './scheduler-scores.ts';

const node = (name: string, labels: Record<string, string> = {}, spec: Record<string, unknown> = {}): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Node',
  metadata: { name, labels: { 'kubernetes.io/hostname': name, ...labels } },
  spec,
  status: { allocatable: { cpu: '4', memory: '8Gi', pods: '110' } },
});
const pod = (name: string, labels: Record<string, string> = {}, spec: Record<string, unknown> = {}, extra: Partial<KubeObject['metadata']> = {}): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace: 'default', labels, ...extra },
  spec: { containers: [{ name: 'c' }], ...spec },
});
const owned = (kind: string, name: string, apiVersion = 'apps/v1') => ({ ownerReferences: [{ apiVersion, kind, name, uid: `uid-${name}`, controller: true }] });

function cluster(bound: [KubeObject, string][], objects: { services?: KubeObject[]; controllers?: KubeObject[]; namespaces?: Record<string, Record<string, string>> } = {}): ScoringCluster {
  const index = createBoundPods();
  bound.forEach(([p, n], i) => index.set(`default/${p.metadata.name ?? i}`, p, n));
  return {
    bound: index,
    namespaceLabels: (name) => objects.namespaces?.[name],
    services: (namespace) => (objects.services ?? []).filter((s) => s.metadata.namespace === namespace),
    controller: (kind, namespace, name) => (objects.controllers ?? []).find((c) => c.kind === kind && c.metadata.namespace === namespace && c.metadata.name === name),
  };
}
const names = (nodes: KubeObject[]) => nodes.map((n) => n.metadata.name);
const byNode = (nodes: KubeObject[], scores: number[] | undefined) => (scores ? Object.fromEntries(names(nodes).map((n, i) => [n, scores[i]])) : undefined);

test('requests: sidecars run beside the containers; non-zero requests fill in 100m and 200Mi for a missing request only', () => {
  const sidecar = pod('s', {}, {
    containers: [{ name: 'c', resources: { requests: { cpu: '100m', memory: '1Mi' } } }],
    initContainers: [
      { name: 'proxy', restartPolicy: 'Always', resources: { requests: { cpu: '200m', memory: '1Mi' } } },
      { name: 'setup', resources: { requests: { cpu: '500m', memory: '1Mi' } } },
    ],
  });
  // Containers and sidecar: 300m; the init container runs beside the sidecar started before it: 700m.
  assert.deepEqual(podRequests(sidecar), { cpu: 700, memory: 2 * 1024 * 1024, pods: 1 });
  assert.deepEqual(nonZeroRequests(pod('bare')), { cpu: 100, memory: 200 * 1024 * 1024 });
  // An explicit zero is kept; only a missing request is defaulted, per container.
  const partial = pod('p', {}, { containers: [{ name: 'a', resources: { requests: { cpu: '0' } } }, { name: 'b', resources: { requests: { cpu: '1' } } }] });
  assert.deepEqual(nonZeroRequests(partial), { cpu: 1000, memory: 2 * 200 * 1024 * 1024 });
  assert.deepEqual(aggregateRequests(partial), { cpu: 1000, memory: 0 });
});

test('NodeResourcesFit LeastAllocated: the free share of each resource floored, then their mean floored', () => {
  // cpu (10000-3000)*100/10000 = 70, memory (20000-5000)*100/20000 = 75: (70+75)/2 = 72.
  assert.equal(leastAllocatedScore({ cpu: 3000, memory: 5000 }, NOTHING_REQUESTED, { cpu: 10000, memory: 20000 }), 72);
  // The node's non-zero requests count with the pod's; more than allocatable scores 0.
  assert.equal(leastAllocatedScore({ cpu: 1000, memory: 5000 }, { cpu: 0, memory: 0, nonZeroCpu: 2000, nonZeroMemory: 20000 }, { cpu: 10000, memory: 20000 }), 35);
  // A pod without requests on an empty node of 1 cpu and 2Gi: cpu (1000-100)/1000 = 90, memory 90.23 → 90.
  assert.equal(leastAllocatedScore(nonZeroRequests(pod('bare')), NOTHING_REQUESTED, { cpu: 1000, memory: 2 * 1024 ** 3 }), 90);
});

test('NodeResourcesBalancedAllocation: (1 - half the difference of the cpu and memory fractions) x 100, truncated', () => {
  const has = { cpu: 4000, memory: 8000 };
  assert.equal(balancedAllocationScore({ cpu: 1000, memory: 1000 }, { cpu: 1000, memory: 3000, nonZeroCpu: 0, nonZeroMemory: 0 }, has), 100);
  // 0.75 and 0.125: std 0.3125, score 68.75 → 68.
  assert.equal(balancedAllocationScore({ cpu: 3000, memory: 1000 }, NOTHING_REQUESTED, has), 68);
  // A fraction above 1 counts as 1: 1 and 0 → 50.
  assert.equal(balancedAllocationScore({ cpu: 5000, memory: 0 }, NOTHING_REQUESTED, has), 50);
  // The actual requests, not the non-zero ones: a pod without requests on an empty node is balanced.
  assert.equal(balancedAllocationScore(aggregateRequests(pod('bare')), NOTHING_REQUESTED, has), 100);
});

test('NodeAffinity: the weights of the preferred terms a node matches, normalized to the highest', () => {
  const nodes = [node('n1', { zone: 'a' }), node('n2', { disk: 'ssd' }), node('n3', { zone: 'a', disk: 'ssd' }), node('n4')];
  const preferring = pod('p', {}, {
    affinity: {
      nodeAffinity: {
        preferredDuringSchedulingIgnoredDuringExecution: [
          { weight: 2, preference: { matchExpressions: [{ key: 'zone', operator: 'In', values: ['a'] }] } },
          { weight: 5, preference: { matchExpressions: [{ key: 'disk', operator: 'Exists' }] } },
        ],
      },
    },
  });
  // 2, 5, 7, 0 → 100*2/7 = 28, 100*5/7 = 71, 100, 0.
  assert.deepEqual(byNode(nodes, nodeAffinityScores(preferring, nodes)), { n1: 28, n2: 71, n3: 100, n4: 0 });
  assert.deepEqual(nodeAffinityScores(pod('plain'), nodes), [0, 0, 0, 0]);
});

test('TaintToleration: untolerated PreferNoSchedule taints counted, reverse-normalized', () => {
  const soft = (key: string) => ({ key, effect: 'PreferNoSchedule' });
  const nodes = [
    node('n1'),
    node('n2', {}, { taints: [soft('a')] }),
    node('n3', {}, { taints: [soft('a'), soft('b')] }),
    node('n4', {}, { taints: [soft('tolerated'), { key: 'hard', effect: 'NoSchedule' }] }),
    node('n5', {}, { taints: [soft('x')] }),
  ];
  // A toleration for another effect does not tolerate a PreferNoSchedule taint.
  const p = pod('p', {}, { tolerations: [{ key: 'tolerated', operator: 'Exists', effect: 'PreferNoSchedule' }, { key: 'x', operator: 'Exists', effect: 'NoSchedule' }] });
  // 0, 1, 2, 0, 1 → 100 - 100*count/2.
  assert.deepEqual(byNode(nodes, taintTolerationScores(p, nodes)), { n1: 100, n2: 50, n3: 0, n4: 100, n5: 50 });
  assert.deepEqual(taintTolerationScores(p, [node('n1'), node('n4', {}, { taints: [soft('tolerated')] })]), [100, 100]);
});

test('PodTopologySpread: system default spreading by hostname from the owner ReplicaSet and the Services selecting the pod', () => {
  const nodes = [node('n1'), node('n2'), node('n3')];
  const rs = { apiVersion: 'apps/v1', kind: 'ReplicaSet', metadata: { name: 'web-abc', namespace: 'default' }, spec: { selector: { matchLabels: { app: 'web', 'pod-template-hash': 'abc' } } } };
  const web = (name: string, hash = 'abc') => pod(name, { app: 'web', 'pod-template-hash': hash }, {}, owned('ReplicaSet', `web-${hash}`));
  const bound: [KubeObject, string][] = [
    [web('a'), 'n1'],
    [web('b'), 'n1'],
    [web('c'), 'n2'],
    [web('old', 'xyz'), 'n2'],
    [pod('other', { app: 'web', 'pod-template-hash': 'abc' }, {}, { namespace: 'elsewhere' }), 'n3'],
  ];
  // Hostname, maxSkew 3, over 3 nodes: count x ln(5) + 2, rounded: 5, 4, 2; normalized 100*(max+min-s)/max.
  assert.deepEqual(byNode(nodes, topologySpreadScores(web('new'), nodes, nodes, cluster(bound, { controllers: [rs] }))), { n1: 40, n2: 60, n3: 100 });
  // A Service selecting app=web widens the selector's merge: only what both select counts (the ReplicaSet's
  // requirements are added to the Service's).
  const svc = { apiVersion: 'v1', kind: 'Service', metadata: { name: 'web', namespace: 'default' }, spec: { selector: { app: 'web' } } };
  assert.deepEqual(defaultSelector(web('new'), cluster([], { services: [svc], controllers: [rs] })).requirements.map((r) => `${r.key}=${r.values.join()}`), ['app=web', 'app=web', 'pod-template-hash=abc']);
  // A bare pod a Service selects spreads by the Service's selector: both hashes count.
  const bare = pod('bare', { app: 'web' });
  assert.deepEqual(byNode(nodes, topologySpreadScores(bare, nodes, nodes, cluster(bound, { services: [svc] }))), { n1: 40, n2: 40, n3: 100 });
  // No Service, no owner: nothing to spread (the plugin skips).
  assert.equal(topologySpreadScores(pod('lonely', { app: 'web' }), nodes, nodes, cluster(bound)), undefined);

  // With zones, the zone constraint (maxSkew 5, ln(2 domains + 2)) adds the zone's count: 13.38, 11.77, 6 → 13, 12, 6.
  const zoned = [node('n1', { 'topology.kubernetes.io/zone': 'a' }), node('n2', { 'topology.kubernetes.io/zone': 'a' }), node('n3', { 'topology.kubernetes.io/zone': 'b' })];
  assert.deepEqual(byNode(zoned, topologySpreadScores(web('new'), zoned, zoned, cluster(bound, { controllers: [rs] }))), { n1: 46, n2: 53, n3: 100 });
  // Pods on a node that failed the filters still count in its zone; the hostname weight is of the 2 feasible nodes:
  // n2 1 x ln(4) + 2 + 3 x ln(4) + 4 = 11.55 → 12, n3 6.
  assert.deepEqual(byNode(zoned.slice(1), topologySpreadScores(web('new'), zoned.slice(1), zoned, cluster(bound, { controllers: [rs] }))), { n2: 50, n3: 100 });
});

test("PodTopologySpread: a pod's own ScheduleAnyway constraints; a node without the key is left out", () => {
  const nodes = [node('n1', { rack: 'r1' }), node('n2', { rack: 'r1' }), node('n3', { rack: 'r2' }), node('n4')];
  const spreading = (name: string) =>
    pod(name, { app: 'db' }, {
      topologySpreadConstraints: [
        { maxSkew: 1, topologyKey: 'rack', whenUnsatisfiable: 'ScheduleAnyway', labelSelector: { matchLabels: { app: 'db' } } },
        { maxSkew: 1, topologyKey: 'kubernetes.io/hostname', whenUnsatisfiable: 'DoNotSchedule', labelSelector: { matchLabels: { app: 'db' } } },
      ],
    });
  const c = cluster([[spreading('a'), 'n1'], [spreading('b'), 'n4']]);
  // Racks r1 (1 pod) and r2 (0): ln(4) and 0, rounded 1 and 0; n4 has no rack: 0. 100*(1+0-s)/1.
  assert.deepEqual(byNode(nodes, topologySpreadScores(spreading('new'), nodes, nodes, c)), { n1: 0, n2: 0, n3: 100, n4: 0 });
  // Only DoNotSchedule constraints: the system defaults do not apply either.
  const hard = pod('h', { app: 'db' }, { topologySpreadConstraints: [{ maxSkew: 1, topologyKey: 'rack', whenUnsatisfiable: 'DoNotSchedule', labelSelector: {} }] }, owned('ReplicaSet', 'x'));
  assert.equal(topologySpreadScores(hard, nodes, nodes, c), undefined);
});

test('InterPodAffinity: preferred terms of the pod and of the existing pods, required affinity of existing pods weighing 1, min-max normalized', () => {
  const nodes = [node('n1'), node('n2'), node('n3')];
  const host = 'kubernetes.io/hostname';
  const p = pod('new', { app: 'new' }, {
    affinity: {
      podAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 10, podAffinityTerm: { labelSelector: { matchLabels: { app: 'db' } }, topologyKey: host } }] },
      podAntiAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 5, podAffinityTerm: { labelSelector: { matchLabels: { app: 'web' } }, topologyKey: host } }] },
    },
  });
  const c = cluster([[pod('db', { app: 'db' }), 'n1'], [pod('web', { app: 'web' }), 'n2']]);
  // 10, -5, 0: (s+5)/15 x 100, truncated.
  assert.deepEqual(byNode(nodes, interPodAffinityScores(p, nodes, nodes, c)), { n1: 100, n2: 0, n3: 33 });

  // The existing pods' terms toward a pod without terms of its own.
  const wantsNew = pod('friend', { app: 'friend' }, { affinity: { podAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ labelSelector: { matchLabels: { app: 'new' } }, topologyKey: host }] } } });
  const avoidsNew = pod('foe', { app: 'foe' }, { affinity: { podAntiAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 3, podAffinityTerm: { labelSelector: { matchLabels: { app: 'new' } }, topologyKey: host } }] } } });
  const plain = pod('new', { app: 'new' });
  // 1, -3, 0: (s+3)/4 x 100.
  assert.deepEqual(byNode(nodes, interPodAffinityScores(plain, nodes, nodes, cluster([[wantsNew, 'n1'], [avoidsNew, 'n2']]))), { n1: 100, n2: 0, n3: 75 });
  // Another namespace's pod matches only through the term's namespaces or namespaceSelector.
  const elsewhere = pod('db2', { app: 'db' }, {}, { namespace: 'other' });
  assert.equal(interPodAffinityScores(p, nodes, nodes, cluster([[elsewhere, 'n1']])), undefined);
  // Nothing to weigh: no terms, no existing pod with affinity.
  assert.equal(interPodAffinityScores(plain, nodes, nodes, cluster([[pod('db', { app: 'db' }), 'n1']])), undefined);
});

test('the bound pods index counts a selector from its rarest label, or every pod of the namespace without an equality', () => {
  const index = createBoundPods();
  index.set('default/a', pod('a', { app: 'web', tier: 'x' }), 'n1');
  index.set('default/b', pod('b', { app: 'web' }), 'n2');
  index.set('default/c', pod('c', { app: 'db', tier: 'x' }), 'n2');
  assert.deepEqual([...index.countMatching('default', parseLabelSelector('app=web,tier=x'))], [['n1', 1]]);
  assert.deepEqual([...index.countMatching('default', parseLabelSelector('tier'))], [['n1', 1], ['n2', 1]]);
  assert.deepEqual([...index.countMatching('default', parseLabelSelector(''))], []);
  // A pod relabelled or moved is counted as it is now.
  index.set('default/b', pod('b', { app: 'db', tier: 'x' }), 'n3');
  index.delete('default/a');
  assert.deepEqual([...index.countMatching('default', parseLabelSelector('tier=x'))].sort(), [['n2', 1], ['n3', 1]]);
  assert.deepEqual([...index.countMatching('other', parseLabelSelector('tier=x'))], []);
  // The same pod again, its labels unchanged: still counted once, its affinity taken in.
  index.set('default/c', pod('c', { tier: 'x', app: 'db' }, { affinity: { podAffinity: {} } }), 'n2');
  assert.deepEqual([...index.countMatching('default', parseLabelSelector('tier=x'))].sort(), [['n2', 1], ['n3', 1]]);
  assert.deepEqual([index.withAffinity, [...index.pods(true)].map(([p, n]) => `${p.metadata.name}@${n}`)], [1, ['c@n2']]);
});

test('the weighted sum, and the host: the highest total, the first in name order among equals', () => {
  const nodes = [node('n1', {}, { taints: [{ key: 'a', effect: 'PreferNoSchedule' }] }), node('n2')];
  const feasible = nodes.map((n) => ({ node: n, requested: NOTHING_REQUESTED }));
  const p = pod('p', {}, { containers: [{ name: 'c', resources: { requests: { cpu: '1', memory: '2Gi' } } }] });
  const scores = pluginScores(p, feasible, nodes, cluster([]));
  assert.deepEqual(scores, {
    TaintToleration: [0, 100],
    NodeAffinity: [0, 0],
    PodTopologySpread: [0, 0],
    InterPodAffinity: [0, 0],
    // cpu 75, memory 75; fractions 0.25 and 0.25.
    NodeResourcesFit: [75, 75],
    NodeResourcesBalancedAllocation: [100, 100],
    ImageLocality: [0, 0],
  });
  assert.deepEqual(scoreNodes(p, feasible, nodes, cluster([])), [175, 475]);
  assert.equal(selectHost(['n2', 'n1', 'n3'], [5, 5, 3]), 1);
  assert.equal(selectHost(['n2', 'n1', 'n3'], [5, 5, 6]), 2);
});
