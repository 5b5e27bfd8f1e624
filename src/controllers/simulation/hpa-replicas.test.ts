import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../registry/types.ts';
import {
  behaviorOf,
  combineMetrics,
  computeResourceMetric,
  formatMilli,
  newHistory,
  normalizeDesiredReplicas,
  recordInitialRecommendation,
  storeScaleEvent,
  type MetricContext,
  type MetricOutcome,
  type NormalizationArgs,
} from './hpa-replicas.ts';
import type { PodUsage } from './resource-usage.ts';

const NOW = Date.parse('2024-05-01T12:00:00Z');
const at = (ms: number): string => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
const MINUTE = 60_000;

interface PodOptions {
  phase?: string;
  /** When it started and, unless `readyAt` says otherwise, became Ready. */
  startedAt?: number;
  readyAt?: number;
  ready?: 'True' | 'False';
  deleting?: boolean;
  containers?: { name: string; requests?: Record<string, string> }[];
}

function pod(name: string, o: PodOptions = {}): KubeObject {
  const startedAt = o.startedAt ?? NOW - 10 * MINUTE;
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: 'default', labels: { app: 'web' }, ...(o.deleting ? { deletionTimestamp: at(NOW) } : {}) },
    spec: { containers: (o.containers ?? [{ name: 'app', requests: { cpu: '500m', memory: '100Mi' } }]).map((c) => ({ name: c.name, resources: c.requests ? { requests: c.requests } : {} })) },
    status: {
      phase: o.phase ?? 'Running',
      startTime: at(startedAt),
      conditions: [{ type: 'Ready', status: o.ready ?? 'True', lastTransitionTime: at(o.readyAt ?? startedAt) }],
    },
  };
}

const nanos = (milli: number): bigint => BigInt(milli) * 1_000_000n;
const MI = 1024n * 1024n * 1_000_000_000n;

/** Usage by pod name: each container's cpu (milli-cores) and memory (nano-bytes), taken at NOW. */
function usage(figures: Record<string, Record<string, { cpu?: number; memory?: bigint }>>): (p: KubeObject) => PodUsage | undefined {
  return (p) => {
    const byContainer = figures[p.metadata.name ?? ''];
    if (!byContainer) return undefined;
    const containers = Object.entries(byContainer).map(([name, u]) => ({ name, cpu: nanos(u.cpu ?? 0), memory: u.memory ?? 0n }));
    return { timestamp: new Date(NOW), windowMs: 15_000, containers };
  };
}

const cpuAt = (cpu: number) => ({ app: { cpu } });
const cpuUtilization = (averageUtilization: number) => ({ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization } } });

function ctx(currentReplicas: number, pods: KubeObject[], u: ReturnType<typeof usage>): MetricContext {
  return { currentReplicas, pods, usage: u, now: NOW };
}

function proposal(o: MetricOutcome): { replicas: number; metricName: string; status: unknown } {
  assert.ok(o.ok, o.ok ? '' : o.failure.error);
  return { replicas: o.replicas, metricName: o.metricName, status: o.status };
}

test('utilization: 3 pods at 400m of 500m (80%) for a 50% target -> ceil(1.6 x 3) = 5', () => {
  const pods = ['web-0', 'web-1', 'web-2'].map((n) => pod(n));
  const out = computeResourceMetric(cpuUtilization(50), ctx(3, pods, usage({ 'web-0': cpuAt(400), 'web-1': cpuAt(400), 'web-2': cpuAt(400) })));
  assert.deepEqual(proposal(out), {
    replicas: 5,
    metricName: 'cpu resource utilization (percentage of request)',
    status: { type: 'Resource', resource: { name: 'cpu', current: { averageValue: '400m', averageUtilization: 80 } } },
  });
});

test('utilization within the 0.1 tolerance keeps the current count', () => {
  const pods = ['web-0', 'web-1', 'web-2'].map((n) => pod(n));
  // 260m of 500m is 52%: a ratio of 1.04.
  const out = computeResourceMetric(cpuUtilization(50), ctx(3, pods, usage({ 'web-0': cpuAt(260), 'web-1': cpuAt(260), 'web-2': cpuAt(260) })));
  assert.equal(proposal(out).replicas, 3);
  // 280m is 56%: 1.12 is out of it, ceil(1.12 x 3) = 4.
  assert.equal(proposal(computeResourceMetric(cpuUtilization(50), ctx(3, pods, usage({ 'web-0': cpuAt(280), 'web-1': cpuAt(280), 'web-2': cpuAt(280) })))).replicas, 4);
});

test('a container without the request: kube\'s error, reason and wrapping', () => {
  const pods = [pod('web-0'), pod('web-1', { containers: [{ name: 'app', requests: { cpu: '500m' } }, { name: 'proxy' }] })];
  const out = computeResourceMetric(cpuUtilization(50), ctx(2, pods, usage({ 'web-0': cpuAt(100), 'web-1': { app: { cpu: 100 }, proxy: { cpu: 10 } } })));
  assert.deepEqual(out, {
    ok: false,
    failure: {
      reason: 'FailedGetResourceMetric',
      error: 'failed to get cpu utilization: missing request for cpu in container proxy of Pod web-1',
      wrapped: 'failed to get cpu resource metric value: failed to get cpu utilization: missing request for cpu in container proxy of Pod web-1',
    },
  });
});

test('no metrics at all, and only unready pods: the metrics client\'s and the calculator\'s messages', () => {
  const pending = [pod('web-0', { phase: 'Pending' })];
  assert.deepEqual(computeResourceMetric(cpuUtilization(50), ctx(1, pending, usage({}))), {
    ok: false,
    failure: {
      reason: 'FailedGetResourceMetric',
      error: 'failed to get cpu utilization: unable to get metrics for resource cpu: no metrics returned from resource metrics API',
      wrapped: 'failed to get cpu resource metric value: failed to get cpu utilization: unable to get metrics for resource cpu: no metrics returned from resource metrics API',
    },
  });
  // Ready 5 s before the figures were taken: less than one metric window since the transition.
  const fresh = [pod('web-0', { startedAt: NOW - MINUTE, readyAt: NOW - 5_000 })];
  const out = computeResourceMetric(cpuUtilization(50), ctx(1, fresh, usage({ 'web-0': cpuAt(500) })));
  assert.equal(out.ok ? '' : out.failure.error, 'failed to get cpu utilization: did not receive metrics for targeted pods (pods might be unready)');
});

test('unready pods on a scale-up count as using nothing', () => {
  const pods = [
    pod('web-0'),
    pod('web-1'),
    // Started a minute ago, not Ready yet.
    pod('web-2', { startedAt: NOW - MINUTE, readyAt: NOW - 50_000, ready: 'False' }),
  ];
  const u = usage({ 'web-0': cpuAt(500), 'web-1': cpuAt(500), 'web-2': cpuAt(500) });
  // The ready ones are at 100% of a 50% target (ratio 2); with web-2 at 0: 1000m of 1500m, 66%, ratio 1.32 -> ceil(3.96) = 4.
  assert.deepEqual(proposal(computeResourceMetric(cpuUtilization(50), ctx(3, pods, u))), {
    replicas: 4,
    metricName: 'cpu resource utilization (percentage of request)',
    status: { type: 'Resource', resource: { name: 'cpu', current: { averageValue: '500m', averageUtilization: 100 } } },
  });
  // Only cpu cares about readiness: on memory web-2 counts.
  const memory = { type: 'Resource', resource: { name: 'memory', target: { type: 'Utilization', averageUtilization: 50 } } };
  const mem = usage({ 'web-0': { app: { memory: 100n * MI } }, 'web-1': { app: { memory: 100n * MI } }, 'web-2': { app: { memory: 100n * MI } } });
  assert.equal(proposal(computeResourceMetric(memory, ctx(3, pods, mem))).replicas, 6);
});

test('readiness past the cpu initialization period: only a pod unready since it started is left out', () => {
  const u = usage({ 'web-0': cpuAt(500), 'web-1': cpuAt(500) });
  // Unready, but it was ready after starting (its transition is long after the start): its figures count.
  const wasReady = [pod('web-0'), pod('web-1', { readyAt: NOW - 2 * MINUTE, ready: 'False' })];
  assert.equal(proposal(computeResourceMetric(cpuUtilization(50), ctx(2, wasReady, u))).replicas, 4);
  // Unready since 10 s after its start (within the 30 s initial readiness delay): left out, then counted at 0 on the
  // scale-up: 500m of 1000m is 50%, ratio 1.0 -> the current count.
  const neverReady = [pod('web-0'), pod('web-1', { startedAt: NOW - 10 * MINUTE, readyAt: NOW - 10 * MINUTE + 10_000, ready: 'False' })];
  assert.equal(proposal(computeResourceMetric(cpuUtilization(50), ctx(2, neverReady, u))).replicas, 2);
});

test('missing pods: counted at their request on a scale-down, at nothing on a scale-up; ignored pods left out', () => {
  const pods = [pod('web-0'), pod('web-1'), pod('web-2'), pod('web-3'), pod('web-4', { phase: 'Failed' }), pod('web-5', { deleting: true })];
  // web-3 has no figures yet. Down: 50m of 500m (10%) for 50% (0.2); web-3 at its request: 650m of 2000m, 32%, 0.64 -> 3.
  const down = usage({ 'web-0': cpuAt(50), 'web-1': cpuAt(50), 'web-2': cpuAt(50), 'web-4': cpuAt(50), 'web-5': cpuAt(50) });
  assert.deepEqual(proposal(computeResourceMetric(cpuUtilization(50), ctx(4, pods, down))), {
    replicas: 3,
    metricName: 'cpu resource utilization (percentage of request)',
    status: { type: 'Resource', resource: { name: 'cpu', current: { averageValue: '50m', averageUtilization: 10 } } },
  });
  // Up: 100% (2.0); web-3 at 0: 1500m of 2000m, 75%, 1.5 -> 6.
  const up = usage({ 'web-0': cpuAt(500), 'web-1': cpuAt(500), 'web-2': cpuAt(500) });
  assert.equal(proposal(computeResourceMetric(cpuUtilization(50), ctx(4, pods, up))).replicas, 6);
  // A target above 100%: the missing pod counts at that target on a scale-down (300%: 1500m), 1650m of 2000m,
  // 82%, 0.2733 -> ceil(1.093) = 2.
  assert.equal(proposal(computeResourceMetric(cpuUtilization(300), ctx(4, pods, down))).replicas, 2);
});

test('averageValue targets: the mean usage against the value, rendered as kube renders milli-quantities', () => {
  const pods = [pod('web-0'), pod('web-1')];
  const memory = { type: 'Resource', resource: { name: 'memory', target: { type: 'AverageValue', averageValue: '100Mi' } } };
  const u = usage({ 'web-0': { app: { memory: 150n * MI } }, 'web-1': { app: { memory: 150n * MI } } });
  assert.deepEqual(proposal(computeResourceMetric(memory, ctx(2, pods, u))), {
    replicas: 3,
    metricName: 'memory resource',
    status: { type: 'Resource', resource: { name: 'memory', current: { averageValue: '157286400' } } },
  });
  const cpu = { type: 'Resource', resource: { name: 'cpu', target: { type: 'AverageValue', averageValue: '250m' } } };
  assert.deepEqual(proposal(computeResourceMetric(cpu, ctx(2, pods, usage({ 'web-0': cpuAt(500), 'web-1': cpuAt(1000) })))), {
    replicas: 6,
    metricName: 'cpu resource',
    status: { type: 'Resource', resource: { name: 'cpu', current: { averageValue: '750m' } } },
  });
  // A missing pod on a scale-down counts at the target value: (100m + 100m + 250m) / 3 = 150m, 0.6 -> ceil(1.8) = 2.
  const three = [pod('web-0'), pod('web-1'), pod('web-2')];
  assert.equal(proposal(computeResourceMetric(cpu, ctx(3, three, usage({ 'web-0': cpuAt(100), 'web-1': cpuAt(100) })))).replicas, 2);
  assert.deepEqual([formatMilli(1500n), formatMilli(1000n), formatMilli(100_000_000n), formatMilli(0n)], ['1500m', '1', '100k', '0']);
});

test('ContainerResource: one container\'s usage against its own request', () => {
  const containers = [
    { name: 'app', requests: { cpu: '500m' } },
    { name: 'proxy', requests: { cpu: '100m' } },
  ];
  const pods = [pod('web-0', { containers }), pod('web-1', { containers })];
  const u = usage({ 'web-0': { app: { cpu: 400 }, proxy: { cpu: 100 } }, 'web-1': { app: { cpu: 400 }, proxy: { cpu: 100 } } });
  const metric = (container: string) => ({ type: 'ContainerResource', containerResource: { name: 'cpu', container, target: { type: 'Utilization', averageUtilization: 50 } } });
  // app: 80% of its request, 1.6 -> ceil(3.2) = 4 (the whole pod would be 500m of 600m, 83%).
  assert.deepEqual(proposal(computeResourceMetric(metric('app'), ctx(2, pods, u))), {
    replicas: 4,
    metricName: 'cpu container resource utilization (percentage of request)',
    status: { type: 'ContainerResource', containerResource: { name: 'cpu', container: 'app', current: { averageValue: '400m', averageUtilization: 80 } } },
  });
  const fetch = 'unable to get metrics for resource cpu: failed to get container metrics: container nope not present in metrics for pod default/web-0';
  assert.deepEqual(computeResourceMetric(metric('nope'), ctx(2, pods, u)), {
    ok: false,
    failure: { reason: 'FailedGetContainerResourceMetric', error: `failed to get cpu utilization: ${fetch}`, wrapped: `failed to get nope container metric value: failed to get cpu utilization: ${fetch}` },
  });
});

test('several metrics: the highest proposal; failures scale up with the others but never down', () => {
  const ok = (replicas: number, metricName: string): MetricOutcome => ({ ok: true, replicas, metricName, status: { type: 'Resource', resource: { name: metricName } }, timestamp: NOW });
  const bad: MetricOutcome = { ok: false, failure: { reason: 'FailedGetPodsMetric', error: 'e', wrapped: 'failed to get pods metric value: e' } };
  const pods = ['web-0', 'web-1'].map((n) => pod(n));
  const u = usage({ 'web-0': { app: { cpu: 400, memory: 60n * MI } }, 'web-1': { app: { cpu: 400, memory: 60n * MI } } });
  const memory = { type: 'Resource', resource: { name: 'memory', target: { type: 'Utilization', averageUtilization: 50 } } };
  // cpu: 80% of 50%, ceil(1.6 x 2) = 4; memory: 60% of 50%, ceil(1.2 x 2) = 3.
  const both = combineMetrics([computeResourceMetric(memory, ctx(2, pods, u)), computeResourceMetric(cpuUtilization(50), ctx(2, pods, u))], 2);
  assert.deepEqual([both.replicas, both.metricName, both.failures, both.error], [4, 'cpu resource utilization (percentage of request)', [], undefined]);
  assert.deepEqual(
    both.statuses.map((s) => (s.resource as { current: unknown }).current),
    [{ averageValue: '62914560', averageUtilization: 60 }, { averageValue: '400m', averageUtilization: 80 }],
  );

  const someUp = combineMetrics([bad, ok(5, 'cpu')], 3);
  assert.deepEqual([someUp.replicas, someUp.metricName, someUp.statuses[0], someUp.error], [5, 'cpu', { type: '' }, 'invalid metrics (1 invalid out of 2), first error is: failed to get pods metric value: e']);
  assert.equal(combineMetrics([ok(2, 'cpu'), bad], 3).replicas, -1);
  const none = combineMetrics([bad, bad], 3);
  assert.deepEqual([none.replicas, none.failures.length, none.error], [-1, 2, 'invalid metrics (2 invalid out of 2), first error is: failed to get pods metric value: e']);
});

const args = (o: Partial<NormalizationArgs>): NormalizationArgs => ({ behavior: undefined, currentReplicas: 4, desiredReplicas: 4, minReplicas: 1, maxReplicas: 10, now: NOW, ...o });

test('no spec.behavior: a scale-down waits out the 300 s of higher recommendations, then applies', () => {
  const h = newHistory();
  recordInitialRecommendation(h, 4, NOW);
  const held = normalizeDesiredReplicas(h, args({ desiredReplicas: 2 }));
  assert.deepEqual(held, {
    replicas: 4,
    ableToScale: { reason: 'ScaleDownStabilized', message: 'recent recommendations were higher than current one, applying the highest recent recommendation' },
    scalingLimited: { status: 'False', reason: 'DesiredWithinRange', message: 'the desired count is within the acceptable range' },
  });
  assert.equal(normalizeDesiredReplicas(h, args({ desiredReplicas: 2, now: NOW + 150_000 })).replicas, 4);
  assert.equal(normalizeDesiredReplicas(h, args({ desiredReplicas: 2, now: NOW + 300_000 })).replicas, 4);
  const applied = normalizeDesiredReplicas(h, args({ desiredReplicas: 2, now: NOW + 315_000 }));
  assert.deepEqual([applied.replicas, applied.ableToScale.reason, applied.ableToScale.message], [2, 'ReadyForNewScale', 'recommended size matches current size']);
});

test('no spec.behavior: a scale-up of at most max(2 x current, 4) a pass; min and max', () => {
  const h = newHistory();
  recordInitialRecommendation(h, 1, NOW);
  assert.deepEqual(normalizeDesiredReplicas(h, args({ currentReplicas: 1, desiredReplicas: 9 })), {
    replicas: 4,
    ableToScale: { reason: 'ReadyForNewScale', message: 'recommended size matches current size' },
    scalingLimited: { status: 'True', reason: 'ScaleUpLimit', message: 'the desired replica count is increasing faster than the maximum scale rate' },
  });
  const h2 = newHistory();
  recordInitialRecommendation(h2, 4, NOW);
  assert.deepEqual(normalizeDesiredReplicas(h2, args({ currentReplicas: 4, desiredReplicas: 8, maxReplicas: 6 })).scalingLimited, {
    status: 'True',
    reason: 'TooManyReplicas',
    message: 'the desired replica count is more than the maximum replica count',
  });
  assert.equal(normalizeDesiredReplicas(h2, args({ currentReplicas: 4, desiredReplicas: 8, maxReplicas: 6 })).replicas, 6);
});

test('default behavior: 1 -> 5 in one step (max of 4 pods and 100% per 15 s), then nothing more within the period', () => {
  const behavior = behaviorOf({});
  assert.deepEqual(behavior, {
    scaleUp: { stabilizationWindowSeconds: 0, selectPolicy: 'Max', policies: [{ type: 'Pods', value: 4, periodSeconds: 15 }, { type: 'Percent', value: 100, periodSeconds: 15 }] },
    scaleDown: { stabilizationWindowSeconds: 300, selectPolicy: 'Max', policies: [{ type: 'Percent', value: 100, periodSeconds: 15 }] },
  });
  assert.equal(behaviorOf(undefined), undefined);
  const h = newHistory();
  recordInitialRecommendation(h, 1, NOW);
  const first = normalizeDesiredReplicas(h, args({ behavior, currentReplicas: 1, desiredReplicas: 20, maxReplicas: 20 }));
  assert.deepEqual([first.replicas, first.scalingLimited], [5, { status: 'True', reason: 'ScaleUpLimit', message: 'the desired replica count is increasing faster than the maximum scale rate' }]);
  storeScaleEvent(h, behavior, 1, 5, NOW);
  // 5 s later the period still holds the +4: its start was 1.
  assert.equal(normalizeDesiredReplicas(h, args({ behavior, currentReplicas: 5, desiredReplicas: 20, maxReplicas: 20, now: NOW + 5_000 })).replicas, 5);
  // 15 s later it starts at 5: max(5 + 4, 2 x 5) = 10.
  assert.equal(normalizeDesiredReplicas(h, args({ behavior, currentReplicas: 5, desiredReplicas: 20, maxReplicas: 20, now: NOW + 15_000 })).replicas, 10);
});

test('behavior: stabilization windows, Disabled, scale-down policies and minReplicas', () => {
  // The default scale-down window holds the highest recommendation of the last 300 s.
  const behavior = behaviorOf({ scaleUp: { stabilizationWindowSeconds: 60 } });
  const h = newHistory();
  recordInitialRecommendation(h, 4, NOW);
  const held = normalizeDesiredReplicas(h, args({ behavior, desiredReplicas: 2 }));
  assert.deepEqual([held.replicas, held.ableToScale.reason], [4, 'ScaleDownStabilized']);
  // A 60 s scale-up window: the lowest recommendation of the last minute (2, just recorded) caps at the current 4.
  const up = normalizeDesiredReplicas(h, args({ behavior, desiredReplicas: 8, now: NOW + 30_000 }));
  assert.deepEqual([up.replicas, up.ableToScale], [4, { reason: 'ScaleUpStabilized', message: 'recent recommendations were lower than current one, applying the lowest recent recommendation' }]);
  // The 8 of 30 s in holds the scale-down 300 s longer than the first 4 does.
  assert.equal(normalizeDesiredReplicas(h, args({ behavior, desiredReplicas: 2, now: NOW + 301_000 })).replicas, 4);
  assert.equal(normalizeDesiredReplicas(h, args({ behavior, desiredReplicas: 2, now: NOW + 331_000 })).replicas, 2);

  const disabled = behaviorOf({ scaleDown: { stabilizationWindowSeconds: 0, selectPolicy: 'Disabled' } });
  const hd = newHistory();
  recordInitialRecommendation(hd, 4, NOW);
  assert.deepEqual(normalizeDesiredReplicas(hd, args({ behavior: disabled, desiredReplicas: 1 })), {
    replicas: 4,
    ableToScale: { reason: 'ReadyForNewScale', message: 'recommended size matches current size' },
    scalingLimited: { status: 'True', reason: 'ScaleDownLimit', message: 'the desired replica count is decreasing faster than the maximum scale rate' },
  });

  // At most 1 pod or 10% per minute, the smaller change (Min): 10 -> 9, then no more within the minute.
  const slow = behaviorOf({ scaleDown: { stabilizationWindowSeconds: 0, selectPolicy: 'Min', policies: [{ type: 'Pods', value: 1, periodSeconds: 60 }, { type: 'Percent', value: 10, periodSeconds: 60 }] } });
  const hs = newHistory();
  recordInitialRecommendation(hs, 10, NOW);
  assert.equal(normalizeDesiredReplicas(hs, args({ behavior: slow, currentReplicas: 10, desiredReplicas: 2 })).replicas, 9);
  storeScaleEvent(hs, slow, 10, 9, NOW);
  assert.equal(normalizeDesiredReplicas(hs, args({ behavior: slow, currentReplicas: 9, desiredReplicas: 2, now: NOW + 30_000 })).replicas, 9);
  assert.equal(normalizeDesiredReplicas(hs, args({ behavior: slow, currentReplicas: 9, desiredReplicas: 2, now: NOW + 60_000 })).replicas, 8);

  const fast = behaviorOf({ scaleDown: { stabilizationWindowSeconds: 0 } });
  const hf = newHistory();
  recordInitialRecommendation(hf, 4, NOW);
  assert.deepEqual(normalizeDesiredReplicas(hf, args({ behavior: fast, desiredReplicas: 1, minReplicas: 2 })), {
    replicas: 2,
    ableToScale: { reason: 'ReadyForNewScale', message: 'recommended size matches current size' },
    scalingLimited: { status: 'True', reason: 'TooFewReplicas', message: 'the desired replica count is less than the minimum replica count' },
  });
});
