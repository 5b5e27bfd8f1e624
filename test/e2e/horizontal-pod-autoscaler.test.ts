// The horizontal pod autoscaler of the simulated cluster. Without the metrics API (as a kind cluster without
// metrics-server): `kubectl autoscale` keeps a Deployment within its min and max replicas, and reports the metrics it
// cannot fetch with kube's conditions and events; a missing target is FailedGetScale. With it (the default): the
// Deployment scales on the cpu usage the usage test control sets, up at once, down after kube's 5-minute
// stabilization window on the server clock.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer, until } from './helpers.ts';

type Obj = Record<string, any>;

const condition = (h: Obj, type: string) => (h.status?.conditions as Obj[] | undefined)?.find((c) => c.type === type);
const hpaOf = (s: TestServer) => async (name: string): Promise<Obj> => JSON.parse(await s.kubectlOk(['get', 'hpa.v2.autoscaling', name, '-o', 'json'])) as Obj;
const eventsOf = (s: TestServer) => async (name: string) =>
  (JSON.parse(await s.kubectlOk(['get', 'events', '--field-selector', `involvedObject.name=${name},involvedObject.kind=HorizontalPodAutoscaler`, '-o', 'json'])).items as Obj[]).map((e) => `${e.type} ${e.reason}: ${e.message}`);

describe('horizontal pod autoscaler (simulated cluster, no metrics API)', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer({ simulateWorkloads: { nodes: 1, podStartupMs: 20, metricsApi: false } });
  });
  after(async () => {
    s.clock.reset();
    await s.close();
  });

  const hpa = async (name: string) => hpaOf(s)(name);
  const events = async (name: string) => eventsOf(s)(name);

  test('kubectl autoscale keeps a Deployment within min and max; cpu metrics cannot be fetched, as kube reports it', async () => {
    await s.kubectlOk(['create', 'deployment', 'web', '--image=nginx', '--replicas=1']);
    await s.kubectlOk(['autoscale', 'deployment', 'web', '--min=3', '--max=5', '--cpu-percent=50']);
    await until('the Deployment at 3', async () => ((await s.kubectlOk(['get', 'deployment', 'web', '-o', 'jsonpath={.spec.replicas}'])) === '3' ? true : undefined));
    await s.kubectlOk(['rollout', 'status', 'deployment/web', '--timeout=30s']);
    let h = await hpa('web');
    assert.deepEqual([condition(h, 'AbleToScale')?.status, condition(h, 'AbleToScale')?.reason, condition(h, 'AbleToScale')?.message], ['True', 'SucceededRescale', 'the HPA controller was able to update the target scale to 3']);
    assert.equal(h.status.desiredReplicas, 3);
    assert.equal(h.status.currentReplicas, 1);
    assert.match(h.status.lastScaleTime, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    assert.ok((await events('web')).includes('Normal SuccessfulRescale: New size: 3; reason: Current number of replicas below Spec.MinReplicas'));

    // The next sync (every 15 s; moving the server clock brings it on): within range, so the metrics are asked for.
    s.clock.advance('15s');
    const fetch = 'unable to get metrics for resource cpu: unable to fetch metrics from resource metrics API: the server could not find the requested resource (get pods.metrics.k8s.io)';
    h = await until('ScalingActive', async () => {
      const x = await hpa('web');
      return condition(x, 'ScalingActive') ? x : undefined;
    });
    assert.deepEqual(condition(h, 'ScalingActive'), { ...condition(h, 'ScalingActive'), status: 'False', reason: 'FailedGetResourceMetric', message: `the HPA was unable to compute the replica count: failed to get cpu utilization: ${fetch}` });
    assert.deepEqual([condition(h, 'AbleToScale')?.reason], ['SucceededGetScale']);
    assert.deepEqual(h.status.currentMetrics, [{ type: '' }]);
    assert.equal(h.status.currentReplicas, 3);
    await until('the metric events', async () => {
      const e = await events('web');
      return e.includes(`Warning FailedGetResourceMetric: failed to get cpu utilization: ${fetch}`) &&
        e.includes(`Warning FailedComputeMetricsReplicas: invalid metrics (1 invalid out of 1), first error is: failed to get cpu resource metric value: failed to get cpu utilization: ${fetch}`)
        ? true
        : undefined;
    });
    assert.match(await s.kubectlOk(['get', 'hpa', 'web']), /^web\s+Deployment\/web\s+cpu: <unknown>\/50%\s+3\s+5\s+3\s+\d+s$/m);

    // Scaled past the maximum by hand: the next sync brings it back.
    await s.kubectlOk(['scale', 'deployment', 'web', '--replicas=8']);
    s.clock.advance('15s');
    await until('the Deployment at 5', async () => ((await s.kubectlOk(['get', 'deployment', 'web', '-o', 'jsonpath={.spec.replicas}'])) === '5' ? true : undefined));
    await until('the rescale event', async () => ((await events('web')).includes('Normal SuccessfulRescale: New size: 5; reason: Current number of replicas above Spec.MaxReplicas') ? true : undefined));
  });

  test("two HPAs over the same pods: ScalingActive False AmbiguousSelector, as kubectl describe shows it", async () => {
    const labels = { app: 'api', track: 'canary' };
    await s.kubectlOk(['create', 'deployment', 'api', '--image=nginx']);
    // The canary's pods carry the stable Deployment's label: the stable HPA's selector picks them too.
    await s.kubectlOk(['create', '-f', '-'], {
      input: JSON.stringify({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'api-canary', namespace: 'default' }, spec: { selector: { matchLabels: labels }, template: { metadata: { labels }, spec: { containers: [{ name: 'nginx', image: 'nginx' }] } } } }),
    });
    await s.kubectlOk(['rollout', 'status', 'deployment/api-canary', '--timeout=30s']);
    await s.kubectlOk(['autoscale', 'deployment', 'api', '--min=1', '--max=3', '--cpu-percent=50']);
    await s.kubectlOk(['autoscale', 'deployment', 'api-canary', '--min=1', '--max=3', '--cpu-percent=50']);
    const message = 'pods by selector app=api,track=canary are controlled by multiple HPAs: [default/api default/api-canary]';
    const h = await until('the canary HPA to be ambiguous', async () => {
      s.clock.advance('15s');
      const x = await hpa('api-canary');
      return condition(x, 'ScalingActive')?.reason === 'AmbiguousSelector' ? x : undefined;
    });
    assert.deepEqual([condition(h, 'ScalingActive')?.status, condition(h, 'ScalingActive')?.message], ['False', message]);
    // As kube writes it: no metrics read, the list without omitempty null.
    assert.equal(h.status.currentMetrics, null);
    await until('the events', async () => {
      const e = await events('api-canary');
      return e.includes(`Warning AmbiguousSelector: ${message}`) && e.includes(`Warning FailedComputeMetricsReplicas: ${message}`) ? true : undefined;
    });
    assert.match(await s.kubectlOk(['describe', 'hpa', 'api-canary']), /ScalingActive\s+False\s+AmbiguousSelector\s+pods by selector app=api,track=canary are controlled by multiple HPAs: \[default\/api default\/api-canary\]/);
    await s.kubectlOk(['delete', 'hpa', 'api', 'api-canary']);
    await s.kubectlOk(['delete', 'deployment', 'api', 'api-canary']);
  });

  test('a missing target: AbleToScale False FailedGetScale with the get\'s error', async () => {
    await s.kubectlOk(['create', '-f', '-'], {
      input: JSON.stringify({ apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscaler', metadata: { name: 'nope', namespace: 'default' }, spec: { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'nope' }, minReplicas: 1, maxReplicas: 2 } }),
    });
    const h = await until('FailedGetScale', async () => {
      const x = await hpa('nope');
      return condition(x, 'AbleToScale') ? x : undefined;
    });
    const able = condition(h, 'AbleToScale')!;
    assert.deepEqual([able.status, able.reason, able.message], ['False', 'FailedGetScale', 'the HPA controller was unable to get the target\'s current scale: deployments.apps "nope" not found']);
    await until('the FailedGetScale event', async () => ((await events('nope')).includes('Warning FailedGetScale: deployments.apps "nope" not found') ? true : undefined));
  });
});

describe('horizontal pod autoscaler (simulated cluster with the metrics API)', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer({ simulateWorkloads: { nodes: 1, podStartupMs: 20 } });
  });
  after(async () => {
    s.clock.reset();
    await s.close();
  });

  const hpa = async (name: string) => hpaOf(s)(name);
  const events = async (name: string) => eventsOf(s)(name);
  const replicas = async () => s.kubectlOk(['get', 'deployment', 'web', '-o', 'jsonpath={.spec.replicas}']);

  test('scales a Deployment on cpu utilization: up at once, down after the 5-minute stabilization window', async () => {
    await s.kubectlOk(['create', 'deployment', 'web', '--image=nginx', '--replicas=1']);
    await s.kubectlOk(['set', 'resources', 'deployment', 'web', '--requests=cpu=200m']);
    await s.kubectlOk(['rollout', 'status', 'deployment/web', '--timeout=30s']);
    // Pods that became Ready within the last metrics window do not count for cpu yet (kube's readiness rule).
    s.clock.advance('30s');
    await s.kubectlOk(['autoscale', 'deployment', 'web', '--min=1', '--max=10', '--cpu-percent=50']);

    // Idle (the simulated containers use nothing until told): utilization 0%, already at the minimum.
    let h = await until('a valid metric', async () => {
      const x = await hpa('web');
      return condition(x, 'ScalingActive')?.status === 'True' ? x : undefined;
    });
    assert.deepEqual(condition(h, 'ScalingActive'), { ...condition(h, 'ScalingActive'), status: 'True', reason: 'ValidMetricFound', message: 'the HPA was able to successfully calculate a replica count from cpu resource utilization (percentage of request)' });
    assert.deepEqual(h.status.currentMetrics, [{ type: 'Resource', resource: { name: 'cpu', current: { averageUtilization: 0, averageValue: '0' } } }]);
    assert.match(await s.kubectlOk(['get', 'hpa', 'web']), /^web\s+Deployment\/web\s+cpu: 0%\/50%\s+1\s+10\s+1\s+\d+s$/m);

    // 200m of a 200m request: 100% against 50%, twice the pods.
    s.usage.add({ selector: 'app=web', cpu: '200m' });
    await until('the Deployment at 2', async () => ((await replicas()) === '2' ? true : undefined));
    await until('the rescale event', async () => ((await events('web')).includes('Normal SuccessfulRescale: New size: 2; reason: cpu resource utilization (percentage of request) above target') ? true : undefined));
    h = await hpa('web');
    assert.deepEqual([condition(h, 'AbleToScale')?.reason, condition(h, 'AbleToScale')?.message], ['SucceededRescale', 'the HPA controller was able to update the target scale to 2']);
    assert.deepEqual(h.status.currentMetrics, [{ type: 'Resource', resource: { name: 'cpu', current: { averageUtilization: 100, averageValue: '200m' } } }]);
    assert.equal(h.status.desiredReplicas, 2);
    await s.kubectlOk(['rollout', 'status', 'deployment/web', '--timeout=30s']);

    // The autoscaler now owns spec.replicas through the scale subresource, as kube records it: an apply that sets
    // another count conflicts with it.
    const deployment = JSON.parse(await s.kubectlOk(['get', 'deployment', 'web', '-o', 'json', '--show-managed-fields'])) as Obj;
    const owners = (deployment.metadata.managedFields as Obj[]).filter((m) => m.fieldsV1?.['f:spec']?.['f:replicas']).map((m) => [m.manager, m.operation, m.subresource, m.apiVersion]);
    assert.deepEqual(owners, [['kube-controller-manager', 'Update', 'scale', 'apps/v1']]);
    const applied = JSON.stringify({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', namespace: 'default' }, spec: { replicas: 5, selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'nginx', image: 'nginx' }] } } } });
    const conflict = await s.kubectl(['apply', '--server-side', '--field-manager=my-operator', '-f', '-'], { input: applied });
    assert.equal(conflict.code, 1);
    assert.match(conflict.stderr, /Apply failed with 1 conflict: conflict with "kube-controller-manager" with subresource "scale" using apps\/v1: \.spec\.replicas/);

    // Nearly idle again: the recommendation drops to 1, but the last 5 minutes' highest one (2) holds.
    s.clock.advance('30s');
    s.usage.clear();
    s.usage.add({ selector: 'app=web', cpu: '10m' });
    h = await until('ScaleDownStabilized', async () => {
      const x = await hpa('web');
      return condition(x, 'AbleToScale')?.reason === 'ScaleDownStabilized' ? x : undefined;
    });
    assert.equal(condition(h, 'AbleToScale')?.message, 'recent recommendations were higher than current one, applying the highest recent recommendation');
    assert.deepEqual(h.status.currentMetrics, [{ type: 'Resource', resource: { name: 'cpu', current: { averageUtilization: 5, averageValue: '10m' } } }]);
    assert.equal(await replicas(), '2');

    // Past the window: down to the recommendation.
    s.clock.advance('301s');
    await until('the Deployment at 1', async () => ((await replicas()) === '1' ? true : undefined));
    await until('the scale-down event', async () => ((await events('web')).includes('Normal SuccessfulRescale: New size: 1; reason: All metrics below target') ? true : undefined));
  });

  test('a target whose pods have no cpu request: ScalingActive False with kube\'s message', async () => {
    await s.kubectlOk(['create', 'deployment', 'bare', '--image=nginx', '--replicas=1']);
    await s.kubectlOk(['rollout', 'status', 'deployment/bare', '--timeout=30s']);
    // Just Ready, its cpu does not count yet (kube checks that before the requests).
    await s.kubectlOk(['autoscale', 'deployment', 'bare', '--min=1', '--max=3', '--cpu-percent=50', '--name=early']);
    const early = await until('ScalingActive', async () => {
      const x = await hpa('early');
      return condition(x, 'ScalingActive') ? x : undefined;
    });
    assert.equal(condition(early, 'ScalingActive')?.message, 'the HPA was unable to compute the replica count: failed to get cpu utilization: did not receive metrics for targeted pods (pods might be unready)');
    await s.kubectlOk(['delete', 'hpa', 'early']);
    s.clock.advance('30s');
    await s.kubectlOk(['autoscale', 'deployment', 'bare', '--min=1', '--max=3', '--cpu-percent=50']);
    const pod = (await s.kubectlOk(['get', 'pods', '-l', 'app=bare', '-o', 'jsonpath={.items[0].metadata.name}'])).trim();
    const h = await until('ScalingActive', async () => {
      const x = await hpa('bare');
      return condition(x, 'ScalingActive') ? x : undefined;
    });
    const error = `failed to get cpu utilization: missing request for cpu in container nginx of Pod ${pod}`;
    assert.deepEqual([condition(h, 'ScalingActive')?.status, condition(h, 'ScalingActive')?.reason, condition(h, 'ScalingActive')?.message], ['False', 'FailedGetResourceMetric', `the HPA was unable to compute the replica count: ${error}`]);
    await until('the metric events', async () => {
      const e = await events('bare');
      return e.includes(`Warning FailedGetResourceMetric: ${error}`) && e.includes(`Warning FailedComputeMetricsReplicas: invalid metrics (1 invalid out of 1), first error is: failed to get cpu resource metric value: ${error}`) ? true : undefined;
    });
  });
});
