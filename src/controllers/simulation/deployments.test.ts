import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../registry/types.ts';
import { proportionalSizes } from './deployments.ts';

const rs = (name: string, replicas: number, created: string, maxReplicas?: number): KubeObject => ({
  metadata: { name, creationTimestamp: created, annotations: maxReplicas === undefined ? {} : { 'deployment.kubernetes.io/max-replicas': String(maxReplicas) } },
  spec: { replicas },
});
const deployment = (statusReplicas: number): KubeObject => ({ metadata: { name: 'd' }, status: { replicas: statusReplicas } });
const sizes = (out: [KubeObject, number][]) => out.map(([r, n]) => `${r.metadata.name}=${n}`);

test('scale() shares a paused rollout\'s size change by each ReplicaSet\'s last max-replicas, the leftover to the largest', () => {
  // 10 replicas (surge 3: max-replicas 13) paused mid-rollout at 6 old + 5 new, scaled to 15 (surge 4: 19 allowed).
  const old = rs('old', 6, '2026-01-01T00:00:00Z', 13);
  const fresh = rs('new', 5, '2026-01-02T00:00:00Z', 13);
  assert.deepEqual(sizes(proportionalSizes([fresh, old], deployment(11), 15, 4)), ['old=12', 'new=7']);
  // Down to 5 (surge 2: 7 allowed): old's share is -3 (round(6 x 7 / 13) = 3), new's is what remains of -4.
  assert.deepEqual(sizes(proportionalSizes([old, fresh], deployment(11), 5, 2)), ['old=3', 'new=4']);
  const a = rs('a', 4, '2026-01-01T00:00:00Z', 13);
  const b = rs('b', 4, '2026-01-02T00:00:00Z', 13);
  // Growing, equal sizes go newer first, and the first takes the leftover: +4 each, then b the remaining 9.
  assert.deepEqual(sizes(proportionalSizes([a, b], deployment(8), 20, 5)), ['b=17', 'a=8']);
  // To zero: every ReplicaSet gives up its whole size.
  assert.deepEqual(sizes(proportionalSizes([old, fresh], deployment(11), 0, 0)), ['old=0', 'new=0']);
  // Without the annotation, the Deployment's status.replicas stands for the size before.
  assert.deepEqual(sizes(proportionalSizes([rs('x', 3, '2026-01-01T00:00:00Z'), rs('y', 3, '2026-01-02T00:00:00Z')], deployment(6), 12, 0)), ['y=6', 'x=6']);
});
