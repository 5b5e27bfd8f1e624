// pods/binding and pods/eviction: a scheduler's Binding assigns a pod once (a second is kube's 409), an Eviction
// deletes a pod, and a PodDisruptionBudget no controller has processed yet refuses it with kube's 429. The streaming
// subresources answer as kube does when no kubelet can be reached, and the pod, service and node proxies as kube's
// do when nothing listens at the address they find.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from './helpers.ts';

const podPath = (name: string, sub = '') => `/api/v1/namespaces/default/pods/${name}${sub ? `/${sub}` : ''}`;

describe('pod subresources', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer();
  });
  after(async () => s.close());

  const post = (path: string, body: unknown) => s.adminRequest(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const createPod = (name: string, labels: Record<string, string> = {}) =>
    s.kubectlOk(['create', '-f', '-'], { input: JSON.stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { name, labels }, spec: { containers: [{ name: 'c', image: 'busybox' }] } }) });

  test('a Binding assigns the node and the PodScheduled condition; a second Binding is 409', async () => {
    await createPod('bound');
    const r = await post(podPath('bound', 'binding'), { apiVersion: 'v1', kind: 'Binding', metadata: { name: 'bound', annotations: { 'scheduled-by': 'test' } }, target: { kind: 'Node', name: 'node-1' } });
    assert.equal(r.status, 201, r.body);
    assert.deepEqual(JSON.parse(r.body), { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 });
    const pod = JSON.parse(await s.kubectlOk(['get', 'pod', 'bound', '-o', 'json']));
    assert.equal(pod.spec.nodeName, 'node-1');
    assert.equal(pod.metadata.annotations['scheduled-by'], 'test');
    assert.ok(pod.status.conditions.some((c: { type: string; status: string }) => c.type === 'PodScheduled' && c.status === 'True'));
    const again = await post(podPath('bound', 'binding'), { apiVersion: 'v1', kind: 'Binding', metadata: { name: 'bound' }, target: { kind: 'Node', name: 'node-2' } });
    assert.equal(again.status, 409);
    assert.equal(JSON.parse(again.body).message, 'Operation cannot be fulfilled on pods/binding "bound": pod bound is already assigned to node "node-1"');
    const wrong = await post(podPath('bound', 'binding'), { apiVersion: 'v1', kind: 'Binding', metadata: { name: 'other' }, target: { name: 'n' } });
    assert.equal(wrong.status, 400);
    assert.equal(JSON.parse(wrong.body).message, 'name in URL does not match name in Binding object');
  });

  test('an Eviction deletes the pod; a pending pod goes whatever its budget; a running one its budget does not allow stays (429)', async () => {
    await createPod('evicted');
    const r = await post(podPath('evicted', 'eviction'), { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: 'evicted' } });
    assert.equal(r.status, 201, r.body);
    assert.equal((await s.kubectl(['get', 'pod', 'evicted'])).code, 1);
    await s.kubectlOk(['create', 'poddisruptionbudget', 'db', '--selector=app=db', '--min-available=1']);
    // A pod not started yet is deleted without asking its budget (kube's eviction shortcut for Pending pods).
    await createPod('waiting', { app: 'db' });
    assert.equal((await post(podPath('waiting', 'eviction'), { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: 'waiting' } })).status, 201);
    await createPod('guarded', { app: 'db' });
    await s.kubectlOk(['patch', 'pod', 'guarded', '--subresource=status', '--type=merge', '-p', '{"status":{"phase":"Running"}}']);
    // The disruption controller has counted it: running but not Ready, so none of the one healthy pod needed.
    for (let i = 0; i < 100 && !(await s.kubectlOk(['get', 'pdb', 'db', '-o', 'jsonpath={.status.expectedPods}'])).startsWith('1'); i++) await new Promise((res) => setTimeout(res, 50));
    const refused = await post(podPath('guarded', 'eviction'), { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: 'guarded' } });
    assert.equal(refused.status, 429);
    const status = JSON.parse(refused.body);
    assert.equal(status.message, "Cannot evict pod as it would violate the pod's disruption budget.");
    assert.deepEqual(status.details.causes, [{ reason: 'DisruptionBudget', message: 'The disruption budget db needs 1 healthy pods and has 0 currently' }]);
    assert.equal((await s.kubectl(['get', 'pod', 'guarded'])).code, 0);
  });

  test('exec, attach, port-forward and logs: a node that does not exist is 404; one no kubelet serves is 500', async () => {
    await createPod('unplaced');
    const unplaced = await s.kubectl(['exec', 'unplaced', '--', 'ls']);
    assert.equal(unplaced.code, 1);
    assert.match(unplaced.stderr, /pod unplaced does not have a host assigned/);
    assert.equal(await s.kubectlOk(['logs', 'unplaced']), '');
    for (const [pod, node] of [['on-missing', 'node-missing'], ['on-existing', 'node-existing']]) {
      await createPod(pod!);
      const r = await post(podPath(pod!, 'binding'), { apiVersion: 'v1', kind: 'Binding', metadata: { name: pod }, target: { kind: 'Node', name: node } });
      assert.equal(r.status, 201, r.body);
    }
    await s.kubectlOk(['create', '-f', '-'], { input: JSON.stringify({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'node-existing' } }) });
    // kube reads the node before it dials the kubelet: NotFound for the node, then the dial's error (500, no reason).
    const missing = await s.kubectl(['exec', 'on-missing', '--', 'ls']);
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /Error from server \(NotFound\): nodes "node-missing" not found/);
    for (const args of [['exec', 'on-existing', '--', 'ls'], ['attach', 'on-existing'], ['logs', 'on-existing']]) {
      const r = await s.kubectl(args);
      assert.equal(r.code, 1, args.join(' '));
      assert.match(r.stderr, /error dialing backend: no kubelet serves node "node-existing"/, args.join(' '));
    }
    // kubectl port-forward stops at a pod that is not Running; the request itself gets the same answer when it asks
    // for an upgrade, and kube's UpgradeAwareHandler's 400 when it does not (before any dial: tools probe exec
    // permission with it).
    for (const sub of ['exec?command=ls&stdout=true', 'attach?stdout=true', 'portforward?ports=80']) {
      const upgrading = await s.adminRequest(podPath('on-existing', sub), { method: 'POST', headers: { connection: 'Upgrade', upgrade: 'SPDY/3.1', 'x-stream-protocol-version': 'v4.channel.k8s.io' } });
      assert.equal(upgrading.status, 500, sub);
      assert.deepEqual(JSON.parse(upgrading.body), { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'error dialing backend: no kubelet serves node "node-existing"', code: 500 });
      const plain = await s.adminRequest(podPath('on-existing', sub), { method: 'POST' });
      assert.equal(plain.status, 400, sub);
      assert.deepEqual(JSON.parse(plain.body), { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'Upgrade request required', reason: 'BadRequest', code: 400 });
    }
  });

  test('log options are decoded and checked as kube does before the pod is read: 400 for a malformed one, 422 PodLogOptions', async () => {
    await createPod('quiet');
    const log = async (query: string, pod = 'quiet') => {
      const r = await s.adminRequest(`${podPath(pod, 'log')}?${query}`);
      return r.status === 200 ? [200, r.body] : [r.status, JSON.parse(r.body).message];
    };
    assert.deepEqual(await log('tailLines=10&limitBytes=1&sinceSeconds=5&follow=maybe&timestamps'), [200, '']);
    assert.deepEqual(await log('tailLines=-1'), [422, 'PodLogOptions "quiet" is invalid: tailLines: Invalid value: -1: must be greater than or equal to 0']);
    assert.deepEqual(await log('limitBytes=0&sinceSeconds=0'), [422, 'PodLogOptions "quiet" is invalid: [limitBytes: Invalid value: 0: must be greater than 0, sinceSeconds: Invalid value: 0: must be greater than 0]']);
    assert.deepEqual(await log('sinceSeconds=5&sinceTime=2020-01-01T00:00:00Z'), [422, 'PodLogOptions "quiet" is invalid: : Forbidden: at most one of `sinceTime` or `sinceSeconds` may be specified']);
    assert.deepEqual(await log('tailLines=ten'), [400, 'strconv.ParseInt: parsing "ten": invalid syntax']);
    assert.deepEqual(await log('sinceTime=yesterday'), [400, 'parsing time "yesterday" as "2006-01-02T15:04:05Z07:00": cannot parse "yesterday" as "2006"']);
    // The options come first: a missing pod with bad options is the options' 422.
    assert.deepEqual(await log('tailLines=-1', 'nobody'), [422, 'PodLogOptions "nobody" is invalid: tailLines: Invalid value: -1: must be greater than or equal to 0']);
  });

  test('pod, service and node proxies: kube\'s lookups, then the refused dial its proxy transport reports (503)', async () => {
    const status = async (path: string, method = 'GET') => {
      const r = await s.adminRequest(path, { method });
      const body = JSON.parse(r.body) as { code: number; reason?: string; message: string };
      return [r.status, body.reason ?? '', body.message];
    };
    // A pod proxy goes to the pod's IP: none yet is "address not allowed"; then the first declared container port.
    await s.kubectlOk(['create', '-f', '-'], { input: JSON.stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web', labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'nginx', ports: [{ containerPort: 8080 }] }] } }) });
    assert.deepEqual(await status(podPath('web', 'proxy/')), [400, 'BadRequest', 'address not allowed']);
    await s.kubectlOk(['patch', 'pod', 'web', '--subresource=status', '--type=merge', '-p', '{"status":{"phase":"Running","podIP":"10.244.0.7","podIPs":[{"ip":"10.244.0.7"}]}}']);
    const refused = (target: string) => [503, 'ServiceUnavailable', `error trying to reach service: dial tcp ${target}: connect: connection refused`];
    assert.deepEqual(await status(podPath('web', 'proxy/healthz')), refused('10.244.0.7:8080'));
    assert.deepEqual(await status(podPath('https:web:8443', 'proxy/'), 'POST'), refused('10.244.0.7:8443'));
    assert.deepEqual(await status(podPath('a:b:c:d', 'proxy/')), [400, 'BadRequest', 'invalid pod request "a:b:c:d"']);
    const get = await s.kubectl(['get', '--raw', `${podPath('web:9090', 'proxy')}/metrics`]);
    assert.equal(get.stderr, 'Error from server (ServiceUnavailable): error trying to reach service: dial tcp 10.244.0.7:9090: connect: connection refused\n');

    // A service proxy: a port number names the service's port, then the endpoints' ready address on that port.
    const svc = '/api/v1/namespaces/default/services';
    await s.kubectlOk(['create', 'service', 'clusterip', 'web', '--tcp=80:8080']);
    assert.deepEqual(await status(`${svc}/web:81/proxy/`), [503, 'ServiceUnavailable', 'no service port 81 found for service "web"']);
    assert.deepEqual(await status(`${svc}/web:80/proxy/`), [404, 'NotFound', 'endpoints "web" not found']);
    await s.kubectlOk(['create', '-f', '-'], { input: JSON.stringify({ apiVersion: 'v1', kind: 'Endpoints', metadata: { name: 'web' } }) });
    assert.deepEqual(await status(`${svc}/web:80/proxy/`), [503, 'ServiceUnavailable', 'no endpoints available for service "web"']);
    await s.kubectlOk(['apply', '-f', '-'], { input: JSON.stringify({ apiVersion: 'v1', kind: 'Endpoints', metadata: { name: 'web' }, subsets: [{ addresses: [{ ip: '10.244.0.7' }], ports: [{ name: '80-8080', port: 8080 }] }] }) });
    assert.deepEqual(await status(`${svc}/web:80/proxy/index.html`), refused('10.244.0.7:8080'));
    assert.deepEqual(await status(`${svc}/web:http/proxy/`), [503, 'ServiceUnavailable', 'no endpoints available for service "web:http"']);
    // strconv.ParseInt's numbers: a sign is one, a port beyond int64 is a name.
    assert.deepEqual(await status(`${svc}/web:+80/proxy/`), refused('10.244.0.7:8080'));
    assert.deepEqual(await status(`${svc}/web:99999999999999999999/proxy/`), [503, 'ServiceUnavailable', 'no endpoints available for service "web:99999999999999999999"']);
    assert.deepEqual(await status(`${svc}/nothing:80/proxy/`), [404, 'NotFound', 'services "nothing" not found']);

    // A node proxy goes to the kubelet at the node's preferred address and kubelet port, or to the port named.
    await s.kubectlOk(['create', '-f', '-'], { input: JSON.stringify({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'worker' } }) });
    assert.deepEqual(await status('/api/v1/nodes/worker/proxy/healthz'), [500, '', 'no preferred addresses found; known addresses: []']);
    await s.kubectlOk(['patch', 'node', 'worker', '--subresource=status', '--type=merge', '-p', '{"status":{"addresses":[{"type":"InternalIP","address":"172.18.0.3"}],"daemonEndpoints":{"kubeletEndpoint":{"Port":10250}}}}']);
    assert.deepEqual(await status('/api/v1/nodes/worker/proxy/healthz'), refused('172.18.0.3:10250'));
    assert.deepEqual(await status('/api/v1/nodes/worker:9100/proxy/metrics'), refused('172.18.0.3:9100'));
    assert.deepEqual(await status('/api/v1/nodes/gone/proxy/'), [404, 'NotFound', 'nodes "gone" not found']);

    // A GET or HEAD of a proxy's root without its trailing slash is redirected to it, once the target is found.
    for (const path of [podPath('web', 'proxy'), `${svc}/web:80/proxy?x=1`, '/api/v1/nodes/worker/proxy']) {
      const r = await s.adminRequest(path, { method: 'HEAD' });
      assert.deepEqual([r.status, r.headers.location], [301, path.replace(/proxy(\?|$)/, 'proxy/$1')], path);
    }
    assert.deepEqual(await status(`${podPath('web', 'proxy')}`, 'POST'), refused('10.244.0.7:8080'));
    assert.deepEqual(await status(`${svc}/nothing:80/proxy`), [404, 'NotFound', 'services "nothing" not found']);
    assert.deepEqual(await status(`${podPath('web', 'proxy/a/web')}/proxy`), refused('10.244.0.7:8080'));

    // Discovery lists the three proxies, as kube's /api/v1 does.
    const resources = (JSON.parse(await s.kubectlOk(['get', '--raw', '/api/v1'])) as { resources: { name: string; kind: string }[] }).resources;
    assert.deepEqual(resources.filter((r) => r.name.endsWith('/proxy')).map((r) => `${r.name} ${r.kind}`), ['nodes/proxy NodeProxyOptions', 'pods/proxy PodProxyOptions', 'services/proxy ServiceProxyOptions']);
  });
});
