// /metrics in Prometheus text format: every line parses as the exposition format, requests are counted with
// kube's labels (LIST for collections, APPLY for server-side apply, dry_run), storage objects are gauged. /metrics/slis:
// the health checks' last results and counts, per check and endpoint.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from './helpers.ts';

/** A minimal Prometheus text-format parser: sample name, labels and value per line; throws on a malformed line. */
function parseExposition(text: string): { name: string; labels: Record<string, string>; value: number }[] {
  const samples: { name: string; labels: Record<string, string>; value: number }[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('# HELP ') || line.startsWith('# TYPE ')) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})? (-?[0-9.e+-]+|NaN|\+Inf|-Inf)$/.exec(line);
    if (!m) throw new Error(`not an exposition line: ${line}`);
    const labels: Record<string, string> = {};
    for (const l of (m[3] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) labels[l[1]] = l[2];
    samples.push({ name: m[1], labels, value: Number(m[4]) });
  }
  return samples;
}

describe('/metrics', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer();
  });
  after(async () => s.close());

  test('requests and storage objects are counted with kube\'s metric names and labels', async () => {
    await s.kubectlOk(['create', 'configmap', 'm1']);
    await s.kubectlOk(['create', 'configmap', 'm2', '--dry-run=server']);
    await s.kubectlOk(['get', 'configmaps']);
    await s.kubectlOk(['apply', '--server-side', '-f', '-'], { input: 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: m3\n' });
    const r = await s.adminRequest('/metrics');
    assert.equal(r.status, 200);
    assert.equal(r.headers['content-type'], 'text/plain; version=0.0.4; charset=utf-8');
    const samples = parseExposition(r.body);
    const count = (labels: Record<string, string>) =>
      samples.filter((x) => x.name === 'apiserver_request_total' && Object.entries(labels).every(([k, v]) => x.labels[k] === v)).reduce((n, x) => n + x.value, 0);
    assert.equal(count({ verb: 'POST', resource: 'configmaps', code: '201', dry_run: '' }), 1);
    assert.equal(count({ verb: 'POST', resource: 'configmaps', code: '201', dry_run: 'All' }), 1);
    assert.ok(count({ verb: 'LIST', resource: 'configmaps', scope: 'namespace', code: '200' }) >= 1);
    assert.equal(count({ verb: 'APPLY', resource: 'configmaps', scope: 'resource', code: '201' }), 1);
    const stored = samples.find((x) => x.name === 'apiserver_storage_objects' && x.labels.resource === 'configmaps');
    // m1, m3, and kube-system's extension-apiserver-authentication and kube-apiserver-legacy-service-account-token-tracking.
    assert.equal(stored?.value, 4);
    assert.ok(samples.some((x) => x.name === 'apiserver_request_duration_seconds_bucket' && x.labels.le === '0.005'));
    assert.ok(samples.some((x) => x.name === 'process_resident_memory_bytes'));
    assert.ok(samples.some((x) => x.name === 'nodejs_eventloop_lag_seconds'));
    // kube's metrics registry marks each help text with the metric's stability level.
    const help = new Map(r.body.split('\n').filter((l) => l.startsWith('# HELP ')).map((l) => [l.split(' ')[2]!, l.slice(l.indexOf(' ', 7) + 1)] as const));
    assert.equal(help.get('apiserver_request_total'), '[STABLE] Counter of apiserver requests broken out for each verb, dry run value, group, version, resource, scope, component, and HTTP response code.');
    for (const name of ['apiserver_request_duration_seconds', 'apiserver_response_sizes', 'apiserver_current_inflight_requests', 'apiserver_longrunning_requests', 'apiserver_storage_objects', 'apiserver_requested_deprecated_apis']) {
      assert.match(help.get(name) ?? '', /^\[STABLE\] /, name);
    }
    assert.match(help.get('apiserver_authentication_config_controller_automatic_reloads_total') ?? '', /^\[ALPHA\] /);
  });

  test('/metrics/slis: each check a health endpoint runs, its last result and its count by status', async () => {
    const slis = async () => {
      const r = await s.adminRequest('/metrics/slis');
      assert.equal(r.status, 200);
      assert.equal(r.headers['content-type'], 'text/plain; version=0.0.4; charset=utf-8');
      return r.body;
    };
    const total = (text: string, labels: Record<string, string>) =>
      parseExposition(text).find((x) => x.name === 'kubernetes_healthchecks_total' && Object.entries(labels).every(([k, v]) => x.labels[k] === v))?.value ?? 0;
    const before = await slis();
    for (const path of ['/livez', '/livez', '/healthz?verbose', '/readyz?exclude=ping', '/livez/ping']) assert.equal((await s.adminRequest(path)).status, 200, path);
    const after = await slis();
    // The root endpoints record every check they run; an excluded check and a single check's path record nothing.
    assert.equal(total(after, { name: 'ping', type: 'livez', status: 'success' }) - total(before, { name: 'ping', type: 'livez', status: 'success' }), 2);
    assert.equal(total(after, { name: 'ping', type: 'healthz', status: 'success' }) - total(before, { name: 'ping', type: 'healthz', status: 'success' }), 1);
    assert.equal(total(after, { name: 'ping', type: 'readyz', status: 'success' }), total(before, { name: 'ping', type: 'readyz', status: 'success' }));
    assert.ok(total(after, { name: 'etcd', type: 'readyz', status: 'success' }) > total(before, { name: 'etcd', type: 'readyz', status: 'success' }));
    const lines = after.split('\n');
    assert.deepEqual(lines.filter((l) => l.startsWith('#')), [
      '# HELP kubernetes_healthcheck [STABLE] This metric records the result of a single healthcheck.',
      '# TYPE kubernetes_healthcheck gauge',
      '# HELP kubernetes_healthchecks_total [STABLE] This metric records the results of all healthcheck.',
      '# TYPE kubernetes_healthchecks_total counter',
    ]);
    assert.ok(lines.includes('kubernetes_healthcheck{name="ping",type="livez"} 1'), after);
    assert.ok(lines.includes('kubernetes_healthchecks_total{name="ping",status="success",type="healthz"} ' + total(after, { name: 'ping', type: 'healthz', status: 'success' })));
  });
});
