// The horizontal pod autoscaler on custom and external metrics: a metrics adapter this test runs on loopback (HTTPS,
// as prometheus-adapter or KEDA serve custom.metrics.k8s.io and external.metrics.k8s.io) is registered with
// APIServices; the simulated autoscaler reads its Pods and External metrics through the aggregation layer, as the
// autoscaler's service account, and scales the Deployments as kube's replica calculator says.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:https';
import { once } from 'node:events';
import { issueCertificate } from '../../src/server/certificates.ts';
import { startTestServer, type TestServer, until } from './helpers.ts';

type Obj = Record<string, any>;

interface Adapter {
  port: number;
  seen: { path: string; user: string }[];
  /** What each pod of the app reports for requests_per_second. */
  perPod: number;
  close(): Promise<void>;
}

async function startAdapter(podsOf: (selector: string) => Promise<string[]>): Promise<Adapter> {
  const now = Date.now();
  const validity = { notBefore: new Date(now - 60_000), notAfter: new Date(now + 3_600_000) };
  const ca = await issueCertificate({ subject: { commonName: 'adapter-ca' }, isCa: true, ...validity });
  const serving = await issueCertificate({ subject: { commonName: 'adapter' }, isCa: false, usage: 'server', altNames: ['metrics-adapter.custom-metrics.svc'], ...validity }, ca);
  const adapter: Adapter = { port: 0, seen: [], perPod: 30, close: async () => {} };
  const json = (res: import('node:http').ServerResponse, code: number, body: unknown) => {
    res.writeHead(code, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };
  const server: Server = createServer({ cert: serving.certPem, key: serving.keyPem }, (req, res) => {
    const url = new URL(req.url ?? '/', 'https://adapter');
    adapter.seen.push({ path: `${url.pathname}${url.search}`, user: String(req.headers['x-remote-user'] ?? '') });
    const timestamp = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
    const path = url.pathname;
    if (path === '/apis/custom.metrics.k8s.io/v1beta2' || path === '/apis/external.metrics.k8s.io/v1beta1') {
      return json(res, 200, { kind: 'APIResourceList', apiVersion: 'v1', groupVersion: path.slice(6), resources: [] });
    }
    if (path === '/apis/custom.metrics.k8s.io/v1beta2/namespaces/default/pods/*/requests_per_second') {
      void podsOf(url.searchParams.get('labelSelector') ?? '').then((names) =>
        json(res, 200, {
          kind: 'MetricValueList',
          apiVersion: 'custom.metrics.k8s.io/v1beta2',
          metadata: {},
          items: names.map((name) => ({ describedObject: { kind: 'Pod', namespace: 'default', name, apiVersion: '/v1' }, metric: { name: 'requests_per_second', selector: null }, timestamp, windowSeconds: 60, value: String(adapter.perPod) })),
        }),
      );
      return;
    }
    if (path === '/apis/external.metrics.k8s.io/v1beta1/namespaces/default/queue_messages_ready') {
      return json(res, 200, {
        kind: 'ExternalMetricValueList',
        apiVersion: 'external.metrics.k8s.io/v1beta1',
        metadata: {},
        items: [
          { metricName: 'queue_messages_ready', metricLabels: { queue: 'worker', shard: '0' }, timestamp, value: '50' },
          { metricName: 'queue_messages_ready', metricLabels: { queue: 'worker', shard: '1' }, timestamp, value: '40' },
        ],
      });
    }
    json(res, 404, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: `the server could not find the metric ${path.split('/').pop()} for pods`, reason: 'NotFound', code: 404 });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  adapter.port = (server.address() as { port: number }).port;
  adapter.close = () => new Promise((r) => server.close(() => r()));
  return adapter;
}

describe('the horizontal pod autoscaler on custom and external metrics (simulated cluster)', () => {
  let s: TestServer;
  let adapter: Adapter;
  before(async () => {
    s = await startTestServer({ simulateWorkloads: { nodes: 1, podStartupMs: 20 }, aggregatorResyncMs: 1000 });
    adapter = await startAdapter(async (selector) => {
      const list = JSON.parse((await s.adminRequest(`/api/v1/namespaces/default/pods?labelSelector=${encodeURIComponent(selector)}`)).body) as { items: Obj[] };
      return list.items.map((p) => p.metadata.name as string);
    });
    await s.kubectlOk(['create', 'namespace', 'custom-metrics']);
    await s.kubectlOk(['create', 'service', 'externalname', 'metrics-adapter', '-n', 'custom-metrics', '--external-name', 'localhost']);
    const apiService = (group: string, version: string) => ({
      apiVersion: 'apiregistration.k8s.io/v1',
      kind: 'APIService',
      metadata: { name: `${version}.${group}` },
      spec: { group, version, service: { namespace: 'custom-metrics', name: 'metrics-adapter', port: adapter.port }, insecureSkipTLSVerify: true, groupPriorityMinimum: 100, versionPriority: 100 },
    });
    await s.kubectlOk(['apply', '-f', '-'], { input: JSON.stringify({ apiVersion: 'v1', kind: 'List', items: [apiService('custom.metrics.k8s.io', 'v1beta2'), apiService('external.metrics.k8s.io', 'v1beta1')] }) });
    await s.kubectlOk(['wait', '--for=condition=Available', 'apiservice/v1beta2.custom.metrics.k8s.io', 'apiservice/v1beta1.external.metrics.k8s.io', '--timeout=20s']);
  });
  after(async () => {
    await s?.close();
    await adapter?.close();
  });

  const hpaOf = async (name: string): Promise<Obj> => JSON.parse(await s.kubectlOk(['get', 'hpa', name, '-o', 'json'])) as Obj;
  const replicasOf = async (name: string): Promise<number> => JSON.parse(await s.kubectlOk(['get', 'deployment', name, '-o', 'json'])).spec.replicas as number;
  /** A Deployment rolled out, and an HPA of at most 10 replicas on these metrics. */
  const autoscaled = async (name: string, replicas: number, metrics: Obj[]) => {
    await s.kubectlOk(['create', 'deployment', name, '--image=nginx', `--replicas=${replicas}`]);
    await s.kubectlOk(['rollout', 'status', `deployment/${name}`, '--timeout=20s']);
    const spec = { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name }, maxReplicas: 10, metrics };
    await s.kubectlOk(['apply', '-f', '-'], { input: JSON.stringify({ apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscaler', metadata: { name, namespace: 'default' }, spec }) });
  };

  test('a Pods metric: the pods\' average against the target, read as the autoscaler\'s service account', async () => {
    await autoscaled('web', 2, [{ type: 'Pods', pods: { metric: { name: 'requests_per_second' }, target: { type: 'AverageValue', averageValue: '10' } } }]);
    // 30 per pod against 10: three times the pods, but a scale-up without behavior goes to max(2 x 2, 4) at most.
    await until('the scale-up', async () => ((await replicasOf('web')) === 4 ? true : undefined), { timeoutMs: 20_000 });
    const hpa = await until('the status', async () => {
      const h = await hpaOf('web');
      return h.status.currentMetrics?.[0]?.pods ? h : undefined;
    }, { timeoutMs: 20_000 });
    assert.deepEqual(hpa.status.currentMetrics, [{ type: 'Pods', pods: { metric: { name: 'requests_per_second' }, current: { averageValue: '30' } } }]);
    const active = hpa.status.conditions.find((c: Obj) => c.type === 'ScalingActive');
    assert.deepEqual([active.status, active.reason, active.message], ['True', 'ValidMetricFound', 'the HPA was able to successfully calculate a replica count from pods metric requests_per_second']);
    const asked = adapter.seen.find((r) => r.path.startsWith('/apis/custom.metrics.k8s.io/v1beta2/namespaces/default/pods/*/requests_per_second'));
    assert.deepEqual(asked, { path: '/apis/custom.metrics.k8s.io/v1beta2/namespaces/default/pods/*/requests_per_second?labelSelector=app%3Dweb', user: 'system:serviceaccount:kube-system:horizontal-pod-autoscaler' });
    assert.match(await s.kubectlOk(['get', 'hpa', 'web']), /\nweb\s+Deployment\/web\s+30\/10\s+1\s+10\s+\d+\s+/);
    await s.kubectlOk(['delete', 'hpa', 'web']);
  });

  test('an External metric: the sum of its series against a value target; a metric the adapter does not have fails as kube reports it', async () => {
    await autoscaled('worker', 1, [
      { type: 'External', external: { metric: { name: 'queue_messages_ready', selector: { matchLabels: { queue: 'worker' } } }, target: { type: 'Value', value: '30' } } },
      { type: 'Pods', pods: { metric: { name: 'not_exported' }, target: { type: 'AverageValue', averageValue: '1' } } },
    ]);
    // 50 + 40 = 90 against 30: three times the one ready pod.
    await until('the scale-up', async () => ((await replicasOf('worker')) === 3 ? true : undefined), { timeoutMs: 20_000 });
    const hpa = await until('the status', async () => {
      const h = await hpaOf('worker');
      return h.status.currentMetrics?.[0]?.external ? h : undefined;
    }, { timeoutMs: 20_000 });
    assert.deepEqual(hpa.status.currentMetrics, [{ type: 'External', external: { metric: { name: 'queue_messages_ready', selector: { matchLabels: { queue: 'worker' } } }, current: { value: '90' } } }, { type: '' }]);
    assert.ok(adapter.seen.some((r) => r.path === '/apis/external.metrics.k8s.io/v1beta1/namespaces/default/queue_messages_ready?labelSelector=queue%3Dworker'));
    const events = await s.kubectlOk(['get', 'events', '--field-selector', 'involvedObject.name=worker,reason=FailedGetPodsMetric', '-o', 'jsonpath={.items[0].message}']);
    assert.equal(events, 'unable to get metric not_exported: unable to fetch metrics from custom metrics API: the server could not find the metric not_exported for pods');
    await s.kubectlOk(['delete', 'hpa', 'worker']);
  });
});
