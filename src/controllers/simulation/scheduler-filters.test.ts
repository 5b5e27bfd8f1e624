import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../registry/types.ts';
import { dryRun, fitErrorMessage, podRequests, refusal, type Resources } from './scheduler-filters.ts';

const ready = [{ type: 'Ready', status: 'True' }];
const node = (name: string, extra: { labels?: Record<string, string>; spec?: Record<string, unknown>; conditions?: unknown[] } = {}): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Node',
  metadata: { name, labels: extra.labels ?? {} },
  spec: extra.spec ?? {},
  status: { allocatable: { cpu: '2', memory: '4Gi', pods: '3' }, conditions: extra.conditions ?? ready },
});
const pod = (spec: Record<string, unknown> = {}, requests: Record<string, string> = {}): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'p', namespace: 'default' },
  spec: { containers: [{ name: 'a', resources: { requests } }], ...spec },
});
const idle: Resources = { cpu: 0, memory: 0, pods: 0 };
const reasonsOf = (p: KubeObject, n: KubeObject, used = idle) => refusal(p, podRequests(p), n, used)?.reasons ?? [];

test('requests: containers summed, at least the largest init container, plus overhead; rounded up as kube rounds', () => {
  const p = pod({ initContainers: [{ name: 'i', resources: { requests: { cpu: '1500m', memory: '1' } } }], overhead: { cpu: '0.5m' } }, { cpu: '250m', memory: '1Ki' });
  assert.deepEqual(podRequests(p), { cpu: 1501, memory: 1024, pods: 1 });
});

test('filters answer in kube-scheduler order, the first failing one for the node', () => {
  const everything = node('n', { labels: {}, spec: { unschedulable: true, taints: [{ key: 'k', value: 'v', effect: 'NoSchedule' }] } });
  assert.deepEqual(reasonsOf(pod({ nodeSelector: { a: 'b' } }), everything), ['node(s) were unschedulable']);
  const tolerant = pod({ nodeSelector: { a: 'b' }, tolerations: [{ key: 'node.kubernetes.io/unschedulable', operator: 'Exists', effect: 'NoSchedule' }] });
  assert.deepEqual(reasonsOf(tolerant, everything), ['node(s) had untolerated taint {k: v}']);
  // PreferNoSchedule never refuses; a NoExecute taint does; an empty-key Exists toleration tolerates everything.
  assert.deepEqual(reasonsOf(pod(), node('n', { spec: { taints: [{ key: 'soft', effect: 'PreferNoSchedule' }, { key: 'hard', effect: 'NoExecute' }] } })), ['node(s) had untolerated taint {hard: }']);
  assert.deepEqual(reasonsOf(pod({ tolerations: [{ operator: 'Exists' }] }), node('n', { spec: { taints: [{ key: 'hard', effect: 'NoExecute' }] } })), []);
  // A node that is not Ready carries kube's not-ready taint.
  assert.deepEqual(reasonsOf(pod(), node('n', { conditions: [{ type: 'Ready', status: 'Unknown' }] })), ['node(s) had untolerated taint {node.kubernetes.io/not-ready: }']);
  assert.deepEqual(reasonsOf(pod({ nodeSelector: { a: 'b' } }), node('n')), ["node(s) didn't match Pod's node affinity/selector"]);
  assert.deepEqual(reasonsOf(pod({}, { cpu: '3', memory: '5Gi' }), node('n'), { cpu: 0, memory: 0, pods: 3 }), ['Too many pods', 'Insufficient cpu', 'Insufficient memory']);
});

test('required node affinity: terms ORed, requirements ANDed, every operator, matchFields on the name', () => {
  const affinity = (terms: unknown[]) => pod({ affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: terms } } } });
  const n = node('n1', { labels: { zone: 'a', gen: '5' } });
  const fits = (terms: unknown[]) => reasonsOf(affinity(terms), n).length === 0;
  assert.equal(fits([{ matchExpressions: [{ key: 'zone', operator: 'In', values: ['a', 'b'] }, { key: 'gen', operator: 'Gt', values: ['4'] }] }]), true);
  assert.equal(fits([{ matchExpressions: [{ key: 'zone', operator: 'In', values: ['a'] }, { key: 'gen', operator: 'Lt', values: ['5'] }] }]), false);
  assert.equal(fits([{ matchExpressions: [{ key: 'zone', operator: 'NotIn', values: ['a'] }] }, { matchExpressions: [{ key: 'ssd', operator: 'DoesNotExist' }] }]), true);
  assert.equal(fits([{ matchExpressions: [{ key: 'ssd', operator: 'Exists' }] }]), false);
  assert.equal(fits([{ matchExpressions: [{ key: 'gen', operator: 'Gt', values: ['x'] }] }]), false);
  assert.equal(fits([{ matchFields: [{ key: 'metadata.name', operator: 'In', values: ['n1'] }] }]), true);
  assert.equal(fits([{ matchFields: [{ key: 'metadata.name', operator: 'NotIn', values: ['n1'] }] }]), false);
  // An empty term matches no node.
  assert.equal(fits([{}]), false);
});

test("FitError's message: reasons counted and sorted, DefaultPreemption's part after it, kube's doubled period", () => {
  const p = pod({}, { cpu: '1' });
  const cpu = { reasons: ['Insufficient cpu'], resolvable: true };
  const cordoned = { reasons: ['node(s) were unschedulable'], resolvable: false };
  const n = node('n');
  assert.equal(
    fitErrorMessage(p, [{ refusal: cpu, dryRun: dryRun(podRequests(p), n, { cpu: 2000, memory: 0, pods: 2 }, idle) }, { refusal: cordoned }, { refusal: cordoned }]),
    '0/3 nodes are available: 1 Insufficient cpu, 2 node(s) were unschedulable. preemption: 0/3 nodes are available: 1 No preemption victims found for incoming pod, 2 Preemption is not helpful for scheduling..',
  );
  // Lower-priority pods that would not make room: the reasons with them gone; ones that would: no preemption part.
  const used = { cpu: 2000, memory: 0, pods: 2 };
  assert.deepEqual(dryRun({ cpu: 3000, memory: 0, pods: 1 }, n, used, { cpu: 500, memory: 0, pods: 1 }), ['Insufficient cpu']);
  assert.equal(dryRun(podRequests(p), n, used, { cpu: 1000, memory: 0, pods: 1 }), undefined);
  assert.equal(fitErrorMessage(p, [{ refusal: cpu, dryRun: undefined }, { refusal: cordoned }]), '0/2 nodes are available: 1 Insufficient cpu, 1 node(s) were unschedulable.');
  assert.equal(fitErrorMessage(pod({ preemptionPolicy: 'Never' }), [{ refusal: cpu, dryRun: undefined }]), '0/1 nodes are available: 1 Insufficient cpu. preemption: not eligible due to preemptionPolicy=Never..');
});
