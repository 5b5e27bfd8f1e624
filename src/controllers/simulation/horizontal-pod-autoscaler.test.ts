import { test } from 'node:test';
import assert from 'node:assert/strict';
import { clock, clockDate } from '../../apis/clock.ts';
import { rfc3339 } from '../../registry/store-codec.ts';
import type { EventSink } from '../events.ts';
import { createInformers } from '../informers.ts';
import { startWithControlPlane } from '../testing.ts';
import { metricFailure, startHorizontalPodAutoscaler } from './horizontal-pod-autoscaler.ts';
import { createResourceUsage } from './resource-usage.ts';
import { asObj, PODS, type Obj } from './shared.ts';
import { until } from '../../../test/e2e/helpers.ts';

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

const NS = 'default';
const DEPLOYMENTS = { group: 'apps', version: 'v1', resource: 'deployments' };
const HPAS = { group: 'autoscaling', version: 'v2', resource: 'horizontalpodautoscalers' };

test('with a metrics API: scales a Deployment on cpu utilization, then down once the 300 s window has passed', async () => {
  clock.freeze(Date.parse('2024-05-01T12:00:00Z'));
  const registry = await startWithControlPlane({ bootstrap: false });
  const informers = createInformers(registry);
  const seen: string[] = [];
  const sink: EventSink = { recorder: () => ({ event: (_obj, type, reason, message) => void seen.push(`${type} ${reason}: ${message}`) }), stop: async () => undefined };
  const usage = createResourceUsage(() => true);
  const hpa = startHorizontalPodAutoscaler(informers, sink, usage);
  try {
    const labels = { app: 'web' };
    const container = { name: 'app', image: 'nginx', resources: { requests: { cpu: '500m' } } };
    await informers.of(DEPLOYMENTS).create(NS, {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web', namespace: NS },
      spec: { replicas: 2, selector: { matchLabels: labels }, template: { metadata: { labels }, spec: { containers: [container] } } },
    });
    const started = rfc3339(new Date(clockDate().getTime() - 600_000));
    for (const name of ['web-0', 'web-1']) {
      await informers.of(PODS).create(NS, { apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: NS, labels }, spec: { containers: [container] } });
      await informers.of(PODS).update(NS, name, (cur) => ({ ...cur!, status: { ...asObj(cur!.status), phase: 'Running', startTime: started, conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: started }] } }), { subresource: 'status' });
    }
    usage.add({ selector: 'app=web', cpu: '400m' });
    await informers.of(HPAS).create(NS, {
      apiVersion: 'autoscaling/v2',
      kind: 'HorizontalPodAutoscaler',
      metadata: { name: 'web', namespace: NS },
      spec: { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' }, minReplicas: 1, maxReplicas: 10, metrics: [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 50 } } }] },
    });
    const replicas = () => asObj(informers.of(DEPLOYMENTS).get(NS, 'web')?.spec).replicas;
    const status = () => asObj(informers.of(HPAS).get(NS, 'web')?.status);
    const condition = (type: string) => ((status().conditions as Obj[] | undefined) ?? []).find((c) => c.type === type);

    // 400m of 500m is 80% of a 50% target: ceil(1.6 x 2) = 4.
    await until('the scale-up', () => (replicas() === 4 && status().desiredReplicas === 4 ? true : undefined));
    assert.ok(seen.includes('Normal SuccessfulRescale: New size: 4; reason: cpu resource utilization (percentage of request) above target'), seen.join('\n'));
    assert.deepEqual(status().currentMetrics, [{ type: 'Resource', resource: { name: 'cpu', current: { averageValue: '400m', averageUtilization: 80 } } }]);
    assert.deepEqual([condition('ScalingActive')?.reason, condition('ScalingActive')?.message], ['ValidMetricFound', 'the HPA was able to successfully calculate a replica count from cpu resource utilization (percentage of request)']);
    assert.deepEqual([condition('ScalingLimited')?.status, condition('ScalingLimited')?.reason], ['False', 'DesiredWithinRange']);

    // 100m is 20%: ceil(0.4 x 2) = 1, held by the recommendations of the last 300 s.
    usage.clear();
    usage.add({ selector: 'app=web', cpu: '100m' });
    await until('the held scale-down', () => (condition('AbleToScale')?.reason === 'ScaleDownStabilized' ? true : undefined));
    assert.deepEqual([replicas(), status().desiredReplicas, (status().currentMetrics as Obj[])[0]], [4, 4, { type: 'Resource', resource: { name: 'cpu', current: { averageValue: '100m', averageUtilization: 20 } } }]);
    clock.advance(301_000);
    await until('the scale-down', () => (replicas() === 1 ? true : undefined));
    assert.ok(seen.includes('Normal SuccessfulRescale: New size: 1; reason: All metrics below target'), seen.join('\n'));
  } finally {
    await hpa.stop();
    await informers.stop();
    await registry.close();
    clock.reset();
  }
});
