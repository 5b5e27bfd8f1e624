// The objects kube-apiserver makes for itself at start, seen through kubectl: the `kubernetes` Service with its
// Endpoints and EndpointSlice, the system PriorityClasses, and cluster IPs that never clash with them.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestServer } from './helpers.ts';
import type { TestServer } from './helpers.ts';

describe('bootstrap objects', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer();
  });
  after(async () => {
    await s?.close();
  });

  const ok = (args: string[]) => s.kubectlOk(args);

  test('kubectl get svc kubernetes', async () => {
    const table = await ok(['get', 'svc', 'kubernetes']);
    assert.match(table, /^NAME\s+TYPE\s+CLUSTER-IP\s+EXTERNAL-IP\s+PORT\(S\)\s+AGE\nkubernetes\s+ClusterIP\s+10\.96\.0\.1\s+<none>\s+443\/TCP\s+\d+s\n$/);
    const svc = JSON.parse(await ok(['get', 'svc', 'kubernetes', '-o', 'json'])) as { metadata: { labels: unknown }; spec: unknown };
    assert.deepEqual(svc.metadata.labels, { component: 'apiserver', provider: 'kubernetes' });
    assert.deepEqual(svc.spec, {
      clusterIP: '10.96.0.1',
      clusterIPs: ['10.96.0.1'],
      internalTrafficPolicy: 'Cluster',
      ipFamilies: ['IPv4'],
      ipFamilyPolicy: 'SingleStack',
      ports: [{ name: 'https', port: 443, protocol: 'TCP', targetPort: 6443 }],
      sessionAffinity: 'None',
      type: 'ClusterIP',
    });
  });

  test('on a loopback address the kubernetes Service has no Endpoints or EndpointSlice, as kube-apiserver (its Endpoints validation refuses loopback)', async () => {
    assert.match(await ok(['get', 'service', 'kubernetes']), /^kubernetes\s+ClusterIP\s+10\.96\.0\.1\s/m);
    const eps = await s.kubectl(['get', 'endpoints', 'kubernetes']);
    assert.equal(eps.stderr, 'Error from server (NotFound): endpoints "kubernetes" not found\n');
    const slices = await s.kubectl(['get', 'endpointslices', 'kubernetes']);
    assert.equal(slices.stderr, 'Error from server (NotFound): endpointslices.discovery.k8s.io "kubernetes" not found\n');
  });

  test('kubectl get priorityclasses', async () => {
    const out = await ok(['get', 'priorityclasses']);
    assert.match(out, /^NAME\s+VALUE\s+GLOBAL-DEFAULT\s+AGE\s+PREEMPTIONPOLICY\n/);
    assert.match(out, /^system-cluster-critical\s+2000000000\s+false\s+\d+s\s+PreemptLowerPriority$/m);
    assert.match(out, /^system-node-critical\s+2000001000\s+false\s+\d+s\s+PreemptLowerPriority$/m);
  });

  test('kubectl create service clusterip never hands out a used IP', async () => {
    await ok(['create', 'service', 'clusterip', 'one', '--tcp=80:8080']);
    await ok(['create', 'service', 'clusterip', 'two', '--tcp=80:8080']);
    const ips = (await ok(['get', 'svc', '-o', 'jsonpath={range .items[*]}{.spec.clusterIP}{"\\n"}{end}'])).trim().split('\n');
    assert.equal(ips.length, 3);
    assert.equal(new Set(ips).size, 3);
    const taken = await s.kubectl(['create', 'service', 'clusterip', 'three', '--tcp=80:8080', '--clusterip=10.96.0.1']);
    assert.equal(taken.code, 1);
    assert.match(
      taken.stderr,
      /^error: failed to create ClusterIP service: Service "three" is invalid: spec\.clusterIPs: Invalid value: \[\]string\{"10\.96\.0\.1"\}: failed to allocate IP 10\.96\.0\.1: provided IP is already allocated\n$/,
    );
  });
});
