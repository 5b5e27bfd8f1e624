import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../registry/types.ts';
import { interPodFilters, type ClusterView } from './scheduler-inter-pod.ts';

const node = (name: string, labels: Record<string, string> = {}): KubeObject => ({ apiVersion: 'v1', kind: 'Node', metadata: { name, labels: { 'kubernetes.io/hostname': name, ...labels } }, spec: {}, status: {} });
const pod = (name: string, labels: Record<string, string>, spec: Record<string, unknown> = {}, namespace = 'default'): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace, labels },
  spec: { containers: [{ name: 'c' }], ...spec },
});
const on = (p: KubeObject, nodeName: string): KubeObject => ({ ...p, spec: { ...(p.spec as object), nodeName } });
const view = (nodes: KubeObject[], bound: KubeObject[], nsLabels: Record<string, Record<string, string>> = {}): ClusterView => ({ nodes, bound, namespaceLabels: (n) => nsLabels[n] });
/** Each node's reasons ('' when it passes), from NodePorts, then PodTopologySpread and InterPodAffinity. */
const verdicts = (p: KubeObject, v: ClusterView) => {
  const f = interPodFilters(p, v);
  return Object.fromEntries(v.nodes.map((n) => [n.metadata.name, (f.ports(n) ?? f.spreadAndAffinity(n))?.reasons.join(', ') ?? '']));
};
const zones = [node('n1', { zone: 'a' }), node('n2', { zone: 'a' }), node('n3', { zone: 'b' })];

test('NodePorts: a host port in use on the node, same protocol and an overlapping address', () => {
  const web = (port: number, protocol = 'TCP', hostIP?: string) => pod('w', {}, { containers: [{ name: 'c', ports: [{ containerPort: 80, hostPort: port, protocol, ...(hostIP ? { hostIP } : {}) }] }] });
  const bound = [on(web(8080), 'n1'), on(web(9090, 'TCP', '10.0.0.1'), 'n2')];
  const v = view(zones, bound);
  const busy = "node(s) didn't have free ports for the requested pod ports";
  assert.deepEqual(verdicts(web(8080), v), { n1: busy, n2: '', n3: '' });
  assert.deepEqual(verdicts(web(8080, 'UDP'), v), { n1: '', n2: '', n3: '' });
  assert.deepEqual(verdicts(web(9090, 'TCP', '10.0.0.2'), v), { n1: '', n2: '', n3: '' });
  assert.deepEqual(verdicts(web(9090), v), { n1: '', n2: busy, n3: '' });
});

test('pod anti-affinity: the incoming pod’s terms, and the terms of the pods already bound', () => {
  const antiWeb = (key: string) => ({ affinity: { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ labelSelector: { matchLabels: { app: 'web' } }, topologyKey: key }] } } });
  assert.deepEqual(verdicts(pod('w2', { app: 'web' }, antiWeb('kubernetes.io/hostname')), view(zones, [on(pod('w1', { app: 'web' }), 'n1')])), {
    n1: "node(s) didn't match pod anti-affinity rules",
    n2: '',
    n3: '',
  });
  // A pod of another namespace is not in the term's namespaces (by default the owner's).
  assert.deepEqual(verdicts(pod('w2', { app: 'web' }, antiWeb('kubernetes.io/hostname')), view(zones, [on(pod('w1', { app: 'web' }, {}, 'other'), 'n1')])), { n1: '', n2: '', n3: '' });
  const existing = "node(s) didn't satisfy existing pods anti-affinity rules";
  assert.deepEqual(verdicts(pod('w', { app: 'web' }), view(zones, [on(pod('guard', { app: 'guard' }, antiWeb('zone')), 'n1')])), { n1: existing, n2: existing, n3: '' });
});

test('pod affinity: a matching pod in the node’s domain, or the first pod of a group that names itself', () => {
  const nearDb = (labels: Record<string, string>) => pod('app', labels, { affinity: { podAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ labelSelector: { matchLabels: { app: 'db' } }, topologyKey: 'zone' }] } } });
  const miss = "node(s) didn't match pod affinity rules";
  assert.deepEqual(verdicts(nearDb({ app: 'api' }), view(zones, [on(pod('db', { app: 'db' }), 'n1')])), { n1: '', n2: '', n3: miss });
  assert.deepEqual(verdicts(nearDb({ app: 'api' }), view(zones, [])), { n1: miss, n2: miss, n3: miss });
  assert.deepEqual(verdicts(nearDb({ app: 'db' }), view([...zones, node('bare')], [])), { n1: '', n2: '', n3: '', bare: miss });
  // namespaceSelector: the namespaces whose labels it selects ({} selects them all).
  const elsewhere = (namespaceSelector: unknown) =>
    pod('app', { app: 'api' }, { affinity: { podAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ labelSelector: { matchLabels: { app: 'db' } }, namespaceSelector, topologyKey: 'zone' }] } } });
  const v = view(zones, [on(pod('db', { app: 'db' }, {}, 'data'), 'n3')], { data: { team: 'storage' } });
  assert.deepEqual(verdicts(elsewhere({ matchLabels: { team: 'storage' } }), v), { n1: miss, n2: miss, n3: '' });
  assert.deepEqual(verdicts(elsewhere({}), v), { n1: miss, n2: miss, n3: '' });
  assert.deepEqual(verdicts(elsewhere({ matchLabels: { team: 'web' } }), v), { n1: miss, n2: miss, n3: miss });
});

test('topology spread (DoNotSchedule): the skew over the domains of the nodes that carry the key', () => {
  const spread = (maxSkew: number) => pod('s', { app: 's' }, { topologySpreadConstraints: [{ maxSkew, topologyKey: 'zone', whenUnsatisfiable: 'DoNotSchedule', labelSelector: { matchLabels: { app: 's' } } }] });
  const v = view([...zones, node('bare')], [on(pod('s1', { app: 's' }), 'n1'), on(pod('s2', { app: 's' }), 'n2'), on(pod('other', { app: 'x' }), 'n3')]);
  const skewed = "node(s) didn't match pod topology spread constraints";
  const unlabeled = `${skewed} (missing required label)`;
  assert.deepEqual(verdicts(spread(1), v), { n1: skewed, n2: skewed, n3: '', bare: unlabeled });
  // Two matching pods in zone a, none in b: a third in a is a skew of 3.
  assert.deepEqual(verdicts(spread(3), v), { n1: '', n2: '', n3: '', bare: unlabeled });
  // ScheduleAnyway constraints are scores, not filters.
  const soft = pod('s', { app: 's' }, { topologySpreadConstraints: [{ maxSkew: 1, topologyKey: 'zone', whenUnsatisfiable: 'ScheduleAnyway', labelSelector: { matchLabels: { app: 's' } } }] });
  assert.deepEqual(verdicts(soft, v), { n1: '', n2: '', n3: '', bare: '' });
});
