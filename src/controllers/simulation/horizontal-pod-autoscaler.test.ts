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

test("two HPAs whose targets' selectors pick the same pods: ScalingActive False AmbiguousSelector, no scaling, until one goes", async () => {
  const registry = await startWithControlPlane({ bootstrap: false });
  const informers = createInformers(registry);
  const seen: string[] = [];
  const sink: EventSink = { recorder: () => ({ event: (obj, type, reason, message) => void seen.push(`${obj.metadata.name} ${type} ${reason}: ${message}`) }), stop: async () => undefined };
  const usage = createResourceUsage(() => true);
  const hpa = startHorizontalPodAutoscaler(informers, sink, usage);
  try {
    const container = { name: 'app', image: 'nginx', resources: { requests: { cpu: '500m' } } };
    // The canary's pods carry the stable Deployment's label too: its broad selector picks them.
    const deployment = (name: string, labels: Record<string, string>) => ({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name, namespace: NS },
      spec: { replicas: 1, selector: { matchLabels: labels }, template: { metadata: { labels }, spec: { containers: [container] } } },
    });
    await informers.of(DEPLOYMENTS).create(NS, deployment('api', { app: 'api' }));
    await informers.of(DEPLOYMENTS).create(NS, deployment('api-canary', { app: 'api', track: 'canary' }));
    await informers.of(PODS).create(NS, { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'api-canary-0', namespace: NS, labels: { app: 'api', track: 'canary' } }, spec: { containers: [container] } });
    const autoscaler = (name: string) => ({
      apiVersion: 'autoscaling/v2',
      kind: 'HorizontalPodAutoscaler',
      metadata: { name, namespace: NS },
      spec: { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name }, minReplicas: 1, maxReplicas: 5, metrics: [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 50 } } }] },
    });
    await informers.of(HPAS).create(NS, autoscaler('api'));
    await informers.of(HPAS).create(NS, autoscaler('api-canary'));
    const condition = (name: string) => ((asObj(informers.of(HPAS).get(NS, name)?.status).conditions as Obj[] | undefined) ?? []).find((c) => c.type === 'ScalingActive');
    // Each HPA sees the other's selector once both have had a pass: clock moves bring the next passes.
    const ambiguous = async (name: string, selector: string) => {
      const message = `pods by selector ${selector} are controlled by multiple HPAs: [default/api default/api-canary]`;
      await until(`${name} to be ambiguous`, () => {
        clock.advance(15_000);
        return condition(name)?.reason === 'AmbiguousSelector' ? true : undefined;
      });
      assert.deepEqual([condition(name)?.status, condition(name)?.message], ['False', message]);
      assert.ok(seen.includes(`${name} Warning AmbiguousSelector: ${message}`), seen.join('\n'));
      assert.ok(seen.includes(`${name} Warning FailedComputeMetricsReplicas: ${message}`), seen.join('\n'));
    };
    await ambiguous('api', 'app=api');
    await ambiguous('api-canary', 'app=api,track=canary');
    // No metrics read: Go writes the nil list without omitempty as null.
    assert.equal(asObj(informers.of(HPAS).get(NS, 'api')?.status).currentMetrics, null);
    // The canary's HPA goes: the stable one's pods are its own again, and it goes on to their metrics (none yet:
    // the pod does not run).
    await informers.of(HPAS).delete(NS, 'api-canary');
    await until('the stable HPA to read its metrics', () => {
      clock.advance(15_000);
      return condition('api')?.reason === 'FailedGetResourceMetric' ? true : undefined;
    });
  } finally {
    await hpa.stop();
    await informers.stop();
    await registry.close();
    clock.reset();
  }
});
