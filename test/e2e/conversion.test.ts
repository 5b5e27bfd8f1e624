// Versions that share storage convert both ways: events.k8s.io/v1 Events are core v1 Events, and
// autoscaling/v1 HPAs are autoscaling/v2 HPAs (stored as v2), whichever API wrote them.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestServer } from './helpers.ts';
import type { TestServer } from './helpers.ts';

describe('conversion between versions sharing storage', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer();
  });
  after(async () => {
    await s?.close();
  });

  const ok = (args: string[], input?: string) => s.kubectlOk(args, { input });

  async function post(path: string, body: unknown): Promise<Record<string, unknown>> {
    const r = await s.adminRequest(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    assert.equal(r.status, 201, r.body);
    return JSON.parse(r.body) as Record<string, unknown>;
  }

  async function get(path: string): Promise<Record<string, unknown>> {
    const r = await s.adminRequest(path);
    assert.equal(r.status, 200, r.body);
    return JSON.parse(r.body) as Record<string, unknown>;
  }

  test('an events.k8s.io/v1 Event is listed by kubectl get events (core v1)', async () => {
    await post('/apis/events.k8s.io/v1/namespaces/default/events', {
      apiVersion: 'events.k8s.io/v1',
      kind: 'Event',
      metadata: { name: 'web.scaled' },
      eventTime: new Date().toISOString().replace('Z', '000Z'),
      reportingController: 'example.com/scaler',
      reportingInstance: 'scaler-1',
      action: 'Scale',
      reason: 'ScaledUp',
      regarding: { kind: 'Deployment', namespace: 'default', name: 'web', apiVersion: 'apps/v1' },
      note: 'scaled web to 3 replicas',
      type: 'Normal',
    });
    const out = await ok(['get', 'events', '-n', 'default']);
    const header = out.split('\n')[0];
    assert.match(header, /^LAST SEEN\s+TYPE\s+REASON\s+OBJECT\s+MESSAGE$/);
    assert.match(out, /\s+Normal\s+ScaledUp\s+deployment\/web\s+scaled web to 3 replicas\n/);

    const core = await get('/api/v1/namespaces/default/events/web.scaled');
    assert.equal(core.apiVersion, 'v1');
    assert.equal(core.message, 'scaled web to 3 replicas');
    assert.equal(core.reportingComponent, 'example.com/scaler');
    assert.deepEqual(core.source, {});
    assert.equal((core.involvedObject as { name: string }).name, 'web');

    // And a core Event reads through events.k8s.io, where field selectors use the new names.
    await ok(['create', '-f', '-'], JSON.stringify({ apiVersion: 'v1', kind: 'Event', metadata: { name: 'p.pulled', namespace: 'default' }, involvedObject: { kind: 'Pod', namespace: 'default', name: 'p' }, reason: 'Pulled', message: 'image pulled', type: 'Normal', source: { component: 'kubelet' } }));
    const list = await get('/apis/events.k8s.io/v1/namespaces/default/events?fieldSelector=regarding.kind%3DPod');
    const items = list.items as Record<string, unknown>[];
    assert.deepEqual(items.map((e) => [(e.metadata as { name: string }).name, e.note, (e.deprecatedSource as { component: string }).component]), [['p.pulled', 'image pulled', 'kubelet']]);
    const yaml = await ok(['get', 'events.v1.events.k8s.io', 'web.scaled', '-n', 'default', '-o', 'jsonpath={.note}|{.regarding.kind}']);
    assert.equal(yaml, 'scaled web to 3 replicas|Deployment');
  });

  test('an HPA written as autoscaling/v1 reads back as v2 and the other way round', async () => {
    await ok(['create', 'deployment', 'web', '--image=nginx']);
    // kubectl 1.32 writes autoscaling/v2.
    await ok(['autoscale', 'deployment', 'web', '--cpu-percent=60', '--min=1', '--max=5']);
    const v1 = await get('/apis/autoscaling/v1/namespaces/default/horizontalpodautoscalers/web');
    assert.equal(v1.apiVersion, 'autoscaling/v1');
    assert.deepEqual(v1.spec, { scaleTargetRef: { kind: 'Deployment', name: 'web', apiVersion: 'apps/v1' }, minReplicas: 1, maxReplicas: 5, targetCPUUtilizationPercentage: 60 });
    const table = await ok(['get', 'hpa', 'web']);
    assert.match(table, /^web\s+Deployment\/web\s+cpu: <unknown>\/60%\s+1\s+5\s+0\s+/m);

    // A raw autoscaling/v1 object, read through v2 (what kubectl get uses).
    await post('/apis/autoscaling/v1/namespaces/default/horizontalpodautoscalers', {
      apiVersion: 'autoscaling/v1',
      kind: 'HorizontalPodAutoscaler',
      metadata: { name: 'api' },
      spec: { scaleTargetRef: { kind: 'Deployment', name: 'api', apiVersion: 'apps/v1' }, minReplicas: 2, maxReplicas: 4, targetCPUUtilizationPercentage: 70 },
    });
    const v2 = await get('/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers/api');
    assert.equal(v2.apiVersion, 'autoscaling/v2');
    assert.deepEqual((v2.spec as { metrics: unknown }).metrics, [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 70 } } }]);
    const metrics = await ok(['get', 'hpa', 'api', '-o', 'jsonpath={.apiVersion} {.spec.metrics[0].resource.target.averageUtilization} {.spec.minReplicas}']);
    assert.equal(metrics, 'autoscaling/v2 70 2');

    // v2-only settings survive a v1 round trip through their annotation.
    await ok(['patch', 'hpa', 'api', '--type=merge', '-p', '{"spec":{"behavior":{"scaleDown":{"stabilizationWindowSeconds":120}}}}']);
    const viaV1 = await get('/apis/autoscaling/v1/namespaces/default/horizontalpodautoscalers/api');
    const annotations = (viaV1.metadata as { annotations?: Record<string, string> }).annotations ?? {};
    assert.match(annotations['autoscaling.alpha.kubernetes.io/behavior'] ?? '', /"StabilizationWindowSeconds":120/);
    const put = await s.adminRequest('/apis/autoscaling/v1/namespaces/default/horizontalpodautoscalers/api', {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ...viaV1, spec: { ...(viaV1.spec as object), maxReplicas: 6 } }),
    });
    assert.equal(put.status, 200, put.body);
    const after = await get('/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers/api');
    assert.equal((after.spec as { maxReplicas: number }).maxReplicas, 6);
    assert.equal((after.spec as { behavior: { scaleDown: { stabilizationWindowSeconds: number } } }).behavior.scaleDown.stabilizationWindowSeconds, 120);
    assert.equal((after.metadata as { annotations?: unknown }).annotations, undefined);
  });
});
