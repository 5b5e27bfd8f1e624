// The simulated cluster's resource metrics API (metrics.k8s.io/v1beta1, as metrics-server serves it) and the usage
// test control that sets what the simulated containers use: kubectl top, kubectl get podmetrics, the raw objects,
// metrics-server's errors, and a server without the API.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer, until } from './helpers.ts';

type Obj = Record<string, any>;

describe('resource metrics API (simulated cluster)', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer({ simulateWorkloads: { nodes: 1, podStartupMs: 20 }, authorizationMode: ['Node', 'RBAC'] });
  });
  after(async () => {
    await s.close();
  });

  const control = async (path: string, method = 'POST', body?: unknown) => {
    const r = await s.adminRequest(`/capstan/v1${path}`, { method, body: body === undefined ? undefined : JSON.stringify(body), headers: { 'content-type': 'application/json' } });
    return { status: r.status, body: JSON.parse(r.body) as Obj };
  };
  const raw = async (path: string) => {
    const r = await s.adminRequest(path);
    return { status: r.status, body: JSON.parse(r.body) as Obj };
  };
  const lines = (out: string) => out.trim().split('\n').map((l) => l.trim().split(/\s+/).join(' '));

  test('discovery lists NodeMetrics and PodMetrics, get and list only', async () => {
    assert.deepEqual(lines(await s.kubectlOk(['api-resources', '--api-group=metrics.k8s.io', '-o', 'wide'])), [
      'NAME SHORTNAMES APIVERSION NAMESPACED KIND VERBS CATEGORIES',
      'nodes metrics.k8s.io/v1beta1 false NodeMetrics get,list',
      'pods metrics.k8s.io/v1beta1 true PodMetrics get,list',
    ]);
    const { body } = await raw('/apis/metrics.k8s.io/v1beta1');
    assert.deepEqual(body.resources.map((r: Obj) => [r.name, r.singularName, r.kind, r.verbs]), [
      ['nodes', '', 'NodeMetrics', ['get', 'list']],
      ['pods', '', 'PodMetrics', ['get', 'list']],
    ]);
    // Placed as metrics-server's APIService (group priority 100): after the groups of custom resources (1000).
    await s.installCRDs([{
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'widgets.example.com' },
      spec: { group: 'example.com', scope: 'Namespaced', names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' }, versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }] },
    }]);
    const groups = ((await raw('/apis')).body.groups as Obj[]).map((g) => g.name);
    assert.deepEqual(groups.slice(-2), ['example.com', 'metrics.k8s.io']);
    // metrics-server's APIService, local here: Available, so setup scripts that wait for it go on.
    assert.equal((await s.kubectlOk(['wait', '--for=condition=Available', 'apiservice/v1beta1.metrics.k8s.io', '--timeout=10s'])).trim(), 'apiservice.apiregistration.k8s.io/v1beta1.metrics.k8s.io condition met');
    const service = JSON.parse(await s.kubectlOk(['get', 'apiservice', 'v1beta1.metrics.k8s.io', '-o', 'json'])) as Obj;
    assert.deepEqual(service.spec, { group: 'metrics.k8s.io', version: 'v1beta1', groupPriorityMinimum: 100, versionPriority: 100 });
    assert.deepEqual(service.status.conditions.map((c: Obj) => [c.type, c.status, c.reason, c.message]), [['Available', 'True', 'Local', 'Local APIServices are always available']]);
    // The group is still this server's: discovery lists its resources, not an aggregated backend's.
    assert.equal((await raw('/apis/metrics.k8s.io/v1beta1/nodes')).body.kind, 'NodeMetricsList');
  });

  test("metrics-server's system:aggregated-metrics-reader role: the view role reads metrics", async () => {
    const role = JSON.parse(await s.kubectlOk(['get', 'clusterrole', 'system:aggregated-metrics-reader', '-o', 'json'])) as Obj;
    assert.deepEqual(role.rules, [{ apiGroups: ['metrics.k8s.io'], resources: ['pods', 'nodes'], verbs: ['get', 'list', 'watch'] }]);
    await s.kubectlOk(['create', 'serviceaccount', 'viewer']);
    await s.kubectlOk(['create', 'rolebinding', 'viewer', '--clusterrole=view', '--serviceaccount=default:viewer']);
    const canI = async () => (await s.kubectl(['auth', 'can-i', 'list', 'pods.metrics.k8s.io', '--as=system:serviceaccount:default:viewer'])).stdout.trim();
    await until('view aggregates the metrics reader', async () => ((await canI()) === 'yes' ? true : undefined));
    assert.equal((await s.kubectl(['auth', 'can-i', 'list', 'pods.metrics.k8s.io', '--as=system:serviceaccount:default:nobody'])).stdout.trim(), 'no');
  });

  test('kubectl top shows the usage the test control sets; the last matching rule wins per resource and container', async () => {
    await s.kubectlOk(['create', 'deployment', 'web', '--image=nginx', '--replicas=2']);
    await s.kubectlOk(['set', 'resources', 'deployment', 'web', '--requests=cpu=500m,memory=128Mi']);
    await s.kubectlOk(['rollout', 'status', 'deployment/web', '--timeout=30s']);
    const names = (await s.kubectlOk(['get', 'pods', '-l', 'app=web', '-o', 'jsonpath={.items[*].metadata.name}'])).split(' ').sort();
    assert.equal(names.length, 2);

    // Simulated containers use nothing until a test says otherwise.
    assert.deepEqual(lines(await s.kubectlOk(['top', 'pods', '-l', 'app=web'])), ['NAME CPU(cores) MEMORY(bytes)', ...names.map((n) => `${n} 0m 0Mi`)]);

    const added = await control('/usage', 'POST', { selector: 'app=web', cpu: '250m', memory: '100Mi' });
    assert.deepEqual(added, { status: 201, body: { id: added.body.id, rule: { selector: 'app=web', cpu: '250m', memory: '100Mi' } } });
    const first = s.usage.add({ namespace: 'default', pod: names[0], container: 'nginx', cpu: '1500m' });
    assert.deepEqual(first.rule, { namespace: 'default', pod: names[0], container: 'nginx', cpu: '1500m' });
    assert.deepEqual(lines(await s.kubectlOk(['top', 'pods', '-l', 'app=web'])), ['NAME CPU(cores) MEMORY(bytes)', `${names[0]} 1500m 100Mi`, `${names[1]} 250m 100Mi`]);
    assert.deepEqual(lines(await s.kubectlOk(['top', 'pod', names[1], '--containers'])), ['POD NAME CPU(cores) MEMORY(bytes)', `${names[1]} nginx 250m 100Mi`]);
    // kubectl top node: the node's usage is the sum of its pods', against its allocatable (8 cpu, 32Gi).
    assert.deepEqual(lines(await s.kubectlOk(['top', 'node'])), ['NAME CPU(cores) CPU% MEMORY(bytes) MEMORY%', 'capstan-node-1 1750m 21% 200Mi 0%']);
    assert.deepEqual(lines(await s.kubectlOk(['get', 'podmetrics', '-l', 'app=web'])), ['NAME CPU MEMORY WINDOW', `${names[0]} 1500m 100Mi 15s`, `${names[1]} 250m 100Mi 15s`]);

    // The objects as metrics-server shapes them.
    const pm = await raw(`/apis/metrics.k8s.io/v1beta1/namespaces/default/pods/${names[1]}`);
    assert.equal(pm.status, 200);
    const podLabels = JSON.parse(await s.kubectlOk(['get', 'pod', names[1], '-o', 'jsonpath={.metadata.labels}'])) as Obj;
    assert.deepEqual(pm.body, {
      kind: 'PodMetrics',
      apiVersion: 'metrics.k8s.io/v1beta1',
      metadata: { name: names[1], namespace: 'default', creationTimestamp: pm.body.metadata.creationTimestamp, labels: podLabels },
      timestamp: pm.body.timestamp,
      window: '15s',
      containers: [{ name: 'nginx', usage: { cpu: '250m', memory: '100Mi' } }],
    });
    assert.match(pm.body.timestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    const nm = await raw('/apis/metrics.k8s.io/v1beta1/nodes');
    assert.deepEqual([nm.body.kind, nm.body.items.map((n: Obj) => [n.metadata.name, n.usage, n.window])], ['NodeMetricsList', [['capstan-node-1', { cpu: '1750m', memory: '200Mi' }, '15s']]]);
    // Across namespaces, sorted by namespace and name; selectors as on any list.
    const all = await raw('/apis/metrics.k8s.io/v1beta1/pods');
    assert.deepEqual(all.body.items.map((p: Obj) => p.metadata.name), names);
    const one = await raw(`/apis/metrics.k8s.io/v1beta1/namespaces/default/pods?fieldSelector=metadata.name%3D${names[1]}`);
    assert.deepEqual(one.body.items.map((p: Obj) => p.metadata.name), [names[1]]);

    // Rules listed, removed one by one or all at once.
    assert.deepEqual((await control('/usage', 'GET')).body.items.map((r: Obj) => r.id), [added.body.id, first.id]);
    assert.deepEqual(await control(`/usage/${first.id}`, 'DELETE'), { status: 200, body: { deleted: first.id } });
    assert.equal((await control(`/usage/${first.id}`, 'DELETE')).status, 404);
    assert.deepEqual(lines(await s.kubectlOk(['top', 'pod', names[0]])), ['NAME CPU(cores) MEMORY(bytes)', `${names[0]} 250m 100Mi`]);
    assert.deepEqual(await control('/usage', 'DELETE'), { status: 200, body: { cleared: true } });
    assert.deepEqual(s.usage.list(), []);
    assert.deepEqual(lines(await s.kubectlOk(['top', 'pod', names[0]])), ['NAME CPU(cores) MEMORY(bytes)', `${names[0]} 0m 0Mi`]);
  });

  test("metrics-server's errors: unknown pod or node, a pod not running, a stopped kubelet, verbs it does not serve", async () => {
    const missing = await raw('/apis/metrics.k8s.io/v1beta1/namespaces/default/pods/nope');
    assert.deepEqual([missing.status, missing.body.reason, missing.body.message], [404, 'NotFound', 'pod "nope" not found']);
    const noNode = await raw('/apis/metrics.k8s.io/v1beta1/nodes/nope');
    assert.deepEqual([noNode.status, noNode.body.message], [404, 'node "nope" not found']);

    // Bound to a node no kubelet serves: Pending, so no metrics.
    await s.kubectlOk(['run', 'stuck', '--image=nginx', '--overrides={"spec":{"nodeName":"ghost"}}']);
    const stuck = await s.kubectl(['top', 'pod', 'stuck']);
    assert.equal(stuck.code, 1);
    assert.equal(stuck.stderr.trim(), 'Error from server (NotFound): podmetrics.metrics.k8s.io "default/stuck" not found');

    // A stopped kubelet is not scraped: neither its node nor its pods have metrics.
    await s.kubectlOk(['run', 'solo', '--image=nginx']);
    await until('solo running', async () => ((await s.kubectlOk(['get', 'pod', 'solo', '-o', 'jsonpath={.status.phase}'])) === 'Running' ? true : undefined));
    await s.kubelets.stop('capstan-node-1');
    try {
      const node = await raw('/apis/metrics.k8s.io/v1beta1/nodes/capstan-node-1');
      assert.deepEqual([node.status, node.body.message], [404, 'nodemetrics.metrics.k8s.io "capstan-node-1" not found']);
      assert.deepEqual((await raw('/apis/metrics.k8s.io/v1beta1/nodes')).body.items, []);
      assert.equal((await raw('/apis/metrics.k8s.io/v1beta1/namespaces/default/pods/solo')).status, 404);
    } finally {
      await s.kubelets.start('capstan-node-1');
    }
    assert.equal((await raw('/apis/metrics.k8s.io/v1beta1/namespaces/default/pods/solo')).status, 200);

    for (const [method, path] of [['DELETE', '/apis/metrics.k8s.io/v1beta1/namespaces/default/pods/solo'], ['POST', '/apis/metrics.k8s.io/v1beta1/namespaces/default/pods']]) {
      const r = await s.adminRequest(path, { method, body: method === 'POST' ? '{}' : undefined, headers: { 'content-type': 'application/json' } });
      assert.deepEqual([r.status, (JSON.parse(r.body) as Obj).reason], [405, 'MethodNotAllowed'], `${method} ${path}`);
    }
  });

  test('bad usage rules are 400 with the reason; reset() clears the rules', async () => {
    const bad = async (rule: unknown) => (await control('/usage', 'POST', rule)).body.message as string;
    assert.equal(await bad({ selector: 'app=web' }), 'usage: a rule sets "cpu", "memory" or both');
    assert.equal(await bad({ cpu: '-1' }), 'usage: "cpu" must not be negative');
    assert.equal(await bad({ cpu: 'lots' }), `usage: "cpu": quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'`);
    assert.equal(await bad({ cpu: 1 }), 'usage: "cpu" must be a quantity string such as "250m"');
    assert.equal(await bad({ cpu: '1', pods: 'x' }), 'usage: unknown field "pods" (known: namespace, selector, pod, container, cpu, memory)');
    assert.match(await bad({ cpu: '1', selector: 'a in (' }), /^usage: "selector": /);
    assert.equal((await control('/usage', 'PUT', {})).status, 405);
    assert.throws(() => s.usage.add({ memory: 'x' }), /usage: "memory": quantities must match/);

    s.usage.add({ cpu: '100m' });
    await s.reset();
    assert.deepEqual(s.usage.list(), []);
  });

  test('without the metrics API (as kind without metrics-server) the group is not served and the usage control is 404', async () => {
    const plain = await startTestServer({ simulateWorkloads: { nodes: 1, metricsApi: false } });
    try {
      assert.equal((await plain.adminRequest('/apis/metrics.k8s.io/v1beta1')).status, 404);
      assert.equal((await plain.adminRequest('/apis/apiregistration.k8s.io/v1/apiservices/v1beta1.metrics.k8s.io')).status, 404);
      const top = await plain.kubectl(['top', 'pods']);
      assert.equal(top.code, 1);
      assert.equal(top.stderr.trim(), 'error: Metrics API not available');
      const r = await plain.adminRequest('/capstan/v1/usage');
      assert.deepEqual([r.status, (JSON.parse(r.body) as Obj).message], [404, 'no simulated metrics API runs on this server (start it with --simulate-workloads and the metrics API on; with several instances, it runs on the one that leads)']);
    } finally {
      await plain.close();
    }
  });
});
