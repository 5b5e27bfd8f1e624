import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject, ResourceDefinition } from '../../registry/types.ts';
import { computeCustomMetric, goLabelSelector, type CustomMetricContext } from './hpa-custom-metrics.ts';

type Obj = Record<string, any>;

const readyPod = (name: string, ready = true, phase = 'Running'): KubeObject =>
  ({ metadata: { name, namespace: 'default', labels: { app: 'web' } }, status: { phase, conditions: [{ type: 'Ready', status: ready ? 'True' : 'False' }] } }) as KubeObject;

/** A context whose aggregated APIs answer from `answers` (path -> body, or [status, body]); other group-versions are not served. */
function context(answers: Record<string, unknown>, o: Partial<CustomMetricContext> = {}): CustomMetricContext & { asked: string[] } {
  const asked: string[] = [];
  return {
    namespace: 'default',
    currentReplicas: 2,
    statusReplicas: 2,
    pods: [readyPod('a'), readyPod('b')],
    selector: 'app=web',
    now: Date.parse('2026-11-30T12:00:00Z'),
    resourceFor: (apiVersion, kind) => (kind === 'Service' ? ({ group: '', resource: 'services' } as ResourceDefinition) : kind === 'Deployment' ? ({ group: 'apps', resource: 'deployments' } as ResourceDefinition) : undefined),
    get: async (group, version, path) => {
      if (group === 'custom.metrics.k8s.io' && version !== 'v1beta2') return undefined;
      asked.push(path);
      const a = answers[path];
      if (a === undefined) return { status: 404, body: JSON.stringify({ kind: 'Status', message: 'the server could not find the requested resource' }) };
      return Array.isArray(a) ? { status: a[0] as number, body: String(a[1]) } : { status: 200, body: JSON.stringify(a) };
    },
    asked,
    ...o,
  };
}

const items = (...values: string[]) => ({ items: values.map((value) => ({ value, timestamp: '2026-11-30T11:59:50Z' })) });

test('Object metrics: a value target scales the ready pods by the ratio; an average value target divides by the status replicas', async () => {
  const metric = (target: Obj, kind = 'Service', apiVersion = 'v1') => ({ type: 'Object', object: { describedObject: { apiVersion, kind, name: 'web' }, metric: { name: 'requests_total' }, target } });
  const ctx = context({ '/apis/custom.metrics.k8s.io/v1beta2/namespaces/default/services/web/requests_total': items('300'), '/apis/custom.metrics.k8s.io/v1beta2/namespaces/default/deployments.apps/web/requests_total': items('300') });
  const value = await computeCustomMetric(metric({ type: 'Value', value: '100' }), ctx);
  assert.deepEqual(value, { ok: true, replicas: 6, metricName: 'Service metric requests_total', status: { type: 'Object', object: { metric: { name: 'requests_total' }, current: { value: '300' }, describedObject: { apiVersion: 'v1', kind: 'Service', name: 'web' } } }, timestamp: Date.parse('2026-11-30T11:59:50Z') });
  // 300 over 2 replicas against 100 each: 3 replicas, 150 per pod.
  const average = await computeCustomMetric(metric({ type: 'AverageValue', averageValue: '100' }, 'Deployment', 'apps/v1'), ctx);
  assert.deepEqual(average?.ok && [average.replicas, (average.status as Obj).object.current], [3, { averageValue: '150' }]);
  assert.deepEqual(ctx.asked, ['/apis/custom.metrics.k8s.io/v1beta2/namespaces/default/services/web/requests_total', '/apis/custom.metrics.k8s.io/v1beta2/namespaces/default/deployments.apps/web/requests_total']);
  // Within the tolerance: the current count.
  const close = await computeCustomMetric(metric({ type: 'Value', value: '290' }), ctx);
  assert.equal(close?.ok && close.replicas, 2);
  const failed = await computeCustomMetric(metric({ type: 'Value', value: '100' }, 'Service', 'v1'), context({}));
  assert.deepEqual(failed, {
    ok: false,
    failure: {
      reason: 'FailedGetObjectMetric',
      error: 'unable to get metric requests_total: Service on default web/unable to fetch metrics from custom metrics API: the server could not find the requested resource',
      wrapped: 'failed to get object metric value: unable to get metric requests_total: Service on default web/unable to fetch metrics from custom metrics API: the server could not find the requested resource',
    },
  });
});

test('External metrics: summed series, average value targets per status replica; kube\'s selector printing', async () => {
  const metric = { type: 'External', external: { metric: { name: 'lag', selector: { matchLabels: { topic: 'orders', group: 'billing' } } }, target: { type: 'AverageValue', averageValue: '20' } } };
  const ctx = context({ '/apis/external.metrics.k8s.io/v1beta1/namespaces/default/lag?labelSelector=group%3Dbilling%2Ctopic%3Dorders': items('70', '30') });
  const r = await computeCustomMetric(metric, ctx);
  assert.deepEqual(r?.ok && [r.replicas, r.status, r.metricName], [
    5,
    { type: 'External', external: { metric: { name: 'lag', selector: { matchLabels: { topic: 'orders', group: 'billing' } } }, current: { averageValue: '50' } } },
    'external metric lag(&LabelSelector{MatchLabels:map[string]string{group: billing,topic: orders,},MatchExpressions:[]LabelSelectorRequirement{},})',
  ]);
  const empty = await computeCustomMetric(metric, context({ '/apis/external.metrics.k8s.io/v1beta1/namespaces/default/lag?labelSelector=group%3Dbilling%2Ctopic%3Dorders': { items: [] } }));
  assert.equal(!empty?.ok && empty?.failure.error, 'unable to get external metric default/lag/&LabelSelector{MatchLabels:map[string]string{group: billing,topic: orders,},MatchExpressions:[]LabelSelectorRequirement{},}: no metrics returned from external metrics API');
  assert.equal(goLabelSelector(undefined), '<nil>');
  assert.equal(goLabelSelector({ matchExpressions: [{ key: 'tier', operator: 'In', values: ['a', 'b'] }] }), '&LabelSelector{MatchLabels:map[string]string{},MatchExpressions:[]LabelSelectorRequirement{LabelSelectorRequirement{Key:tier,Operator:In,Values:[a b],},},}');
});

test('Pods metrics: unready pods left out on a scale-up; without an APIService the caller falls back to its failure', async () => {
  const metric = { type: 'Pods', pods: { metric: { name: 'rps' }, target: { type: 'AverageValue', averageValue: '10' } } };
  const list = (values: Record<string, string>) => ({ items: Object.entries(values).map(([name, value]) => ({ describedObject: { kind: 'Pod', name }, value, timestamp: '2026-11-30T11:59:50Z', windowSeconds: 60 })) });
  const ctx = context({ '/apis/custom.metrics.k8s.io/v1beta2/namespaces/default/pods/*/rps?labelSelector=app%3Dweb': list({ a: '30', b: '30', c: '0' }) }, { pods: [readyPod('a'), readyPod('b'), readyPod('c', false, 'Pending')], currentReplicas: 3 });
  const r = await computeCustomMetric(metric, ctx);
  // a and b average 30 (c, Pending, is unready and left out): 3x; re-run with c at 0: 20 over 3 pods -> ceil(2 x 3) = 6.
  assert.deepEqual(r?.ok && [r.replicas, (r.status as Obj).pods.current], [6, { averageValue: '30' }]);
  assert.equal(await computeCustomMetric(metric, { ...ctx, get: async () => undefined }), undefined);
});
