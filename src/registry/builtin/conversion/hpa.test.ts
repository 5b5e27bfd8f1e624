import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  BEHAVIOR_ANNOTATION,
  CONDITIONS_ANNOTATION,
  convertHorizontalPodAutoscaler,
  METRIC_SPECS_ANNOTATION,
  METRIC_STATUSES_ANNOTATION,
} from './hpa.ts';
import type { KubeObject } from '../../types.ts';

const meta = { name: 'web', namespace: 'default', uid: 'u1', creationTimestamp: '2024-01-01T00:00:00Z' };
const ref = { kind: 'Deployment', name: 'web', apiVersion: 'apps/v1' };

test('v1 targetCPUUtilizationPercentage becomes a v2 cpu Resource metric with a Utilization target', () => {
  const v1: KubeObject = {
    kind: 'HorizontalPodAutoscaler',
    apiVersion: 'autoscaling/v1',
    metadata: meta,
    spec: { scaleTargetRef: ref, minReplicas: 1, maxReplicas: 5, targetCPUUtilizationPercentage: 60 },
    status: { currentReplicas: 2, desiredReplicas: 3, currentCPUUtilizationPercentage: 45, lastScaleTime: '2024-01-01T00:05:00Z', observedGeneration: 1 },
  };
  const v2 = convertHorizontalPodAutoscaler(v1, 'autoscaling/v2');
  assert.deepEqual(v2, {
    kind: 'HorizontalPodAutoscaler',
    apiVersion: 'autoscaling/v2',
    metadata: meta,
    spec: { scaleTargetRef: ref, minReplicas: 1, maxReplicas: 5, metrics: [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 60 } } }] },
    status: {
      observedGeneration: 1,
      lastScaleTime: '2024-01-01T00:05:00Z',
      currentReplicas: 2,
      desiredReplicas: 3,
      currentMetrics: [{ type: 'Resource', resource: { name: 'cpu', current: { averageUtilization: 45 } } }],
    },
  });
  // Back to v1: the same object, plus the raw current metrics kept in their annotation.
  const back = convertHorizontalPodAutoscaler(v2, 'autoscaling/v1');
  assert.deepEqual(back.spec, v1.spec);
  assert.deepEqual(back.status, { observedGeneration: 1, lastScaleTime: '2024-01-01T00:05:00Z', currentReplicas: 2, desiredReplicas: 3, currentCPUUtilizationPercentage: 45 });
  assert.deepEqual(back.metadata.annotations, {
    [METRIC_STATUSES_ANNOTATION]: '[{"type":"Resource","resource":{"name":"cpu","currentAverageUtilization":45,"currentAverageValue":"0"}}]',
  });
});

test('a v1 HPA without a CPU target gets the 80% default v1 implied', () => {
  const v1: KubeObject = { kind: 'HorizontalPodAutoscaler', apiVersion: 'autoscaling/v1', metadata: meta, spec: { scaleTargetRef: ref, maxReplicas: 3 }, status: { currentReplicas: 0, desiredReplicas: 0 } };
  const v2 = convertHorizontalPodAutoscaler(v1, 'autoscaling/v2');
  assert.deepEqual(v2.spec, { scaleTargetRef: ref, maxReplicas: 3, metrics: [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 80 } } }] });
  assert.deepEqual(v2.status, { desiredReplicas: 0 });
  assert.equal(v2.metadata.annotations, undefined);
  const back = convertHorizontalPodAutoscaler(v2, 'autoscaling/v1');
  assert.deepEqual(back.spec, { scaleTargetRef: ref, maxReplicas: 3, targetCPUUtilizationPercentage: 80 });
  assert.deepEqual(back.status, { currentReplicas: 0, desiredReplicas: 0 });
  assert.equal(back.metadata.annotations, undefined);
});

const fullV2: KubeObject = {
  kind: 'HorizontalPodAutoscaler',
  apiVersion: 'autoscaling/v2',
  metadata: { ...meta, annotations: { team: 'a' } },
  spec: {
    scaleTargetRef: ref,
    minReplicas: 2,
    maxReplicas: 10,
    metrics: [
      { type: 'Pods', pods: { metric: { name: 'qps', selector: { matchLabels: { a: 'b' } } }, target: { type: 'AverageValue', averageValue: '10' } } },
      { type: 'Object', object: { describedObject: { kind: 'Service', name: 'web', apiVersion: 'v1' }, target: { type: 'Value', value: '5' }, metric: { name: 'hits' } } },
      { type: 'External', external: { metric: { name: 'queue' }, target: { type: 'AverageValue', averageValue: '30' } } },
      { type: 'Resource', resource: { name: 'memory', target: { type: 'AverageValue', averageValue: '500Mi' } } },
      { type: 'ContainerResource', containerResource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 50 }, container: 'app' } },
      { type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 70 } } },
    ],
    behavior: {
      scaleUp: { stabilizationWindowSeconds: 0, selectPolicy: 'Max', policies: [{ type: 'Pods', value: 4, periodSeconds: 15 }, { type: 'Percent', value: 100, periodSeconds: 15 }] },
      scaleDown: { policies: [{ type: 'Percent', value: 10, periodSeconds: 60 }] },
    },
  },
  status: {
    observedGeneration: 3,
    currentReplicas: 4,
    desiredReplicas: 4,
    currentMetrics: [
      { type: 'Pods', pods: { metric: { name: 'qps' }, current: { averageValue: '9' } } },
      { type: 'Resource', resource: { name: 'cpu', current: { averageValue: '120m', averageUtilization: 65 } } },
    ],
    conditions: [{ type: 'AbleToScale', status: 'True', lastTransitionTime: '2024-01-01T00:00:00Z', reason: 'ReadyForNewScale', message: 'ok' }],
  },
};

test('v2 -> v1 keeps cpu utilization in the spec and the rest in kube\'s round-trip annotations', () => {
  const v1 = convertHorizontalPodAutoscaler(fullV2, 'autoscaling/v1');
  assert.deepEqual(v1.spec, { scaleTargetRef: ref, minReplicas: 2, maxReplicas: 10, targetCPUUtilizationPercentage: 70 });
  assert.deepEqual(v1.status, { observedGeneration: 3, currentReplicas: 4, desiredReplicas: 4, currentCPUUtilizationPercentage: 65 });
  const a = v1.metadata.annotations ?? {};
  assert.equal(a.team, 'a');
  assert.equal(
    a[METRIC_SPECS_ANNOTATION],
    '[{"type":"Pods","pods":{"metricName":"qps","targetAverageValue":"10","selector":{"matchLabels":{"a":"b"}}}},' +
      '{"type":"Object","object":{"target":{"kind":"Service","name":"web","apiVersion":"v1"},"metricName":"hits","targetValue":"5"}},' +
      '{"type":"External","external":{"metricName":"queue","targetAverageValue":"30"}},' +
      '{"type":"Resource","resource":{"name":"memory","targetAverageValue":"500Mi"}},' +
      '{"type":"ContainerResource","containerResource":{"name":"cpu","targetAverageUtilization":50,"container":"app"}}]',
  );
  assert.equal(
    a[METRIC_STATUSES_ANNOTATION],
    '[{"type":"Pods","pods":{"metricName":"qps","currentAverageValue":"9"}},{"type":"Resource","resource":{"name":"cpu","currentAverageUtilization":65,"currentAverageValue":"120m"}}]',
  );
  assert.equal(
    a[BEHAVIOR_ANNOTATION],
    '{"ScaleUp":{"StabilizationWindowSeconds":0,"SelectPolicy":"Max","Policies":[{"Type":"Pods","Value":4,"PeriodSeconds":15},{"Type":"Percent","Value":100,"PeriodSeconds":15}]},' +
      '"ScaleDown":{"StabilizationWindowSeconds":null,"SelectPolicy":null,"Policies":[{"Type":"Percent","Value":10,"PeriodSeconds":60}]}}',
  );
  assert.equal(a[CONDITIONS_ANNOTATION], JSON.stringify((fullV2.status as { conditions: unknown }).conditions));
});

test('v2 -> v1 -> v2 keeps every field (cpu utilization last, as kube orders it)', () => {
  const back = convertHorizontalPodAutoscaler(convertHorizontalPodAutoscaler(fullV2, 'autoscaling/v1'), 'autoscaling/v2');
  assert.deepEqual(back, fullV2);
});

test('v2 -> v1 replaces stale round-trip annotations; v1 -> v2 drops them', () => {
  const stale: KubeObject = {
    ...fullV2,
    metadata: { ...meta, annotations: { [METRIC_SPECS_ANNOTATION]: '[]', [BEHAVIOR_ANNOTATION]: '{}' } },
    spec: { scaleTargetRef: ref, maxReplicas: 2, metrics: [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 50 } } }] },
    status: { desiredReplicas: 0 },
  };
  const v1 = convertHorizontalPodAutoscaler(stale, 'autoscaling/v1');
  assert.equal(v1.metadata.annotations, undefined);
  const v1WithAnnotations: KubeObject = { ...v1, metadata: { ...meta, annotations: { keep: 'x', [CONDITIONS_ANNOTATION]: 'not json' } } };
  const v2 = convertHorizontalPodAutoscaler(v1WithAnnotations, 'autoscaling/v2');
  assert.deepEqual(v2.metadata.annotations, { keep: 'x' });
  assert.deepEqual(v2.status, { desiredReplicas: 0 });
});

test('v1 writers can set other metrics through the annotation', () => {
  const v1: KubeObject = {
    kind: 'HorizontalPodAutoscaler',
    apiVersion: 'autoscaling/v1',
    metadata: { ...meta, annotations: { [METRIC_SPECS_ANNOTATION]: '[{"type":"Resource","resource":{"name":"memory","targetAverageUtilization":70}}]' } },
    spec: { scaleTargetRef: ref, maxReplicas: 4, targetCPUUtilizationPercentage: 50 },
  };
  const v2 = convertHorizontalPodAutoscaler(v1, 'autoscaling/v2');
  assert.deepEqual((v2.spec as { metrics: unknown }).metrics, [
    { type: 'Resource', resource: { name: 'memory', target: { type: 'Utilization', averageUtilization: 70 } } },
    { type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 50 } } },
  ]);
  assert.equal(v2.metadata.annotations, undefined);
});
