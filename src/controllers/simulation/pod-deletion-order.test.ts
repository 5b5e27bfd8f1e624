import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../registry/types.ts';
import { activePodsOrder, podsToDelete } from './pod-deletion-order.ts';

const NOW = Date.parse('2026-03-01T12:00:00Z');
const ago = (seconds: number) => new Date(NOW - seconds * 1000).toISOString().replace(/\.\d+Z$/, 'Z');

interface PodShape {
  node?: string;
  phase?: string;
  ready?: boolean;
  readySecondsAgo?: number;
  createdSecondsAgo?: number;
  restarts?: number;
  cost?: string;
}

function pod(name: string, p: PodShape = {}): KubeObject {
  const ready = p.ready ?? true;
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, uid: `uid-${name}`, creationTimestamp: ago(p.createdSecondsAgo ?? 100), ...(p.cost !== undefined ? { annotations: { 'controller.kubernetes.io/pod-deletion-cost': p.cost } } : {}) },
    spec: { nodeName: p.node ?? 'n1', containers: [{ name: 'c', image: 'x' }] },
    status: {
      phase: p.phase ?? 'Running',
      conditions: [{ type: 'Ready', status: ready ? 'True' : 'False', lastTransitionTime: ago(p.readySecondsAgo ?? 90) }],
      containerStatuses: [{ name: 'c', restartCount: p.restarts ?? 0 }],
    },
  };
}

const names = (pods: KubeObject[]) => pods.map((p) => p.metadata.name);
const first = (pods: KubeObject[], related: KubeObject[] = pods) => names(podsToDelete(pods, related, 1, NOW))[0];

test('unassigned, then pending, then not ready pods go first', () => {
  assert.equal(first([pod('a'), pod('b', { node: '' })]), 'b');
  assert.equal(first([pod('a'), pod('b', { phase: 'Pending' })]), 'b');
  assert.equal(first([pod('a'), pod('b', { ready: false })]), 'b');
});

test('a lower pod-deletion-cost goes first; a cost that is not an int32 counts as 0', () => {
  assert.equal(first([pod('a', { cost: '10' }), pod('b', { cost: '-5' })]), 'b');
  assert.equal(first([pod('a', { cost: '1' }), pod('b', { cost: 'lots' })]), 'b');
  assert.equal(first([pod('a', { cost: '1' }), pod('b', { cost: '4294967296' })]), 'b');
});

test('a pod doubled up on a node with more related active pods goes first, whatever its age', () => {
  const a = pod('a', { node: 'n1', readySecondsAgo: 5, createdSecondsAgo: 6 });
  const b = pod('b', { node: 'n2', readySecondsAgo: 1000, createdSecondsAgo: 1000 });
  const c = pod('c', { node: 'n2', readySecondsAgo: 2000, createdSecondsAgo: 2000 });
  assert.deepEqual(names(podsToDelete([a, b, c], [a, b, c], 1, NOW)), ['b']);
  // Without related pods (a set without a controller) the ranks are all 0: the newest ready goes.
  assert.deepEqual(names(podsToDelete([a, b, c], [], 1, NOW)), ['a']);
  // Inactive related pods do not count.
  const gone = { ...pod('d', { node: 'n1' }), status: { phase: 'Succeeded' } };
  assert.deepEqual(names(podsToDelete([a, b, c], [a, b, c, gone, { ...pod('e', { node: 'n1' }), status: { phase: 'Failed' } }], 1, NOW)), ['b']);
});

test('ready for less time goes first, compared by powers of two of the time: within one the uid decides', () => {
  assert.equal(first([pod('a', { readySecondsAgo: 100 }), pod('b', { readySecondsAgo: 10 })]), 'b');
  // 5 s and 7 s ago are both within 2^32 ns: the smaller uid goes first.
  assert.equal(first([pod('b', { readySecondsAgo: 5 }), pod('a', { readySecondsAgo: 7 })]), 'a');
});

test('then more restarts, then the newer pod (by powers of two of its age)', () => {
  assert.equal(first([pod('a', { restarts: 1 }), pod('b', { restarts: 3 })]), 'b');
  assert.equal(first([pod('a', { createdSecondsAgo: 5000 }), pod('b', { createdSecondsAgo: 200 })]), 'b');
  // Equal in every way: the order given is kept.
  assert.equal(first([pod('a'), pod('b')]), 'a');
});

test('asking for all of them (or more) deletes all, in the order given', () => {
  const pods = [pod('a'), pod('b', { node: '' })];
  assert.deepEqual(names(podsToDelete(pods, pods, 2, NOW)), ['a', 'b']);
});

test("the Job controller's ActivePods order: no deletion cost or ranks, times compared as they are", () => {
  const order = (...pods: KubeObject[]) => names([...pods].sort(activePodsOrder));
  assert.deepEqual(order(pod('a', { readySecondsAgo: 7 }), pod('b', { readySecondsAgo: 5 })), ['b', 'a']);
  assert.deepEqual(order(pod('a', { cost: '-100' }), pod('b', { createdSecondsAgo: 10 })), ['b', 'a']);
  assert.deepEqual(order(pod('a'), pod('b', { ready: false }), pod('c', { node: '' })), ['c', 'b', 'a']);
});
