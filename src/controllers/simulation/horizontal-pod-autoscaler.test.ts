import { test } from 'node:test';
import assert from 'node:assert/strict';
import { metricFailure } from './horizontal-pod-autoscaler.ts';

test('metricFailure: what each metric type reports without a metrics API, as kube words it', () => {
  const fetch = 'unable to get metrics for resource memory: unable to fetch metrics from resource metrics API: the server could not find the requested resource (get pods.metrics.k8s.io)';
  assert.deepEqual(metricFailure({ type: 'Resource', resource: { name: 'memory', target: { type: 'AverageValue', averageValue: '100Mi' } } }), {
    reason: 'FailedGetResourceMetric',
    error: `failed to get memory usage: ${fetch}`,
    wrapped: `failed to get memory resource metric value: failed to get memory usage: ${fetch}`,
  });
  const container = metricFailure({ type: 'ContainerResource', containerResource: { name: 'memory', container: 'app', target: { type: 'Utilization', averageUtilization: 60 } } });
  assert.deepEqual(container, { reason: 'FailedGetContainerResourceMetric', error: `failed to get memory utilization: ${fetch}`, wrapped: `failed to get app container metric value: failed to get memory utilization: ${fetch}` });
  assert.equal(metricFailure({ type: 'Pods', pods: { metric: { name: 'qps' } } }).reason, 'FailedGetPodsMetric');
  assert.equal(metricFailure({ type: 'External', external: { metric: { name: 'queue' } } }).reason, 'FailedGetExternalMetric');
  assert.deepEqual(metricFailure({ type: 'Bogus' }), { reason: 'InvalidMetricSourceType', error: 'unknown metric source type "Bogus"', wrapped: 'unknown metric source type "Bogus"' });
});
