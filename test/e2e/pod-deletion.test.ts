// Pods' graceful deletion on a server without kubelets: a scheduled pod stays, marked with its deletion
// timestamp and grace period, until the period ends and then goes (what its kubelet would do); an unscheduled
// pod goes at once, as kube's pod strategy says.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from './helpers.ts';

const pod = (name: string, nodeName?: string) =>
  JSON.stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec: { ...(nodeName ? { nodeName } : {}), terminationGracePeriodSeconds: 1, containers: [{ name: 'c', image: 'busybox' }] } });

describe('pod graceful deletion', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer();
  });
  after(async () => s.close());

  test('a scheduled pod is shown terminating for its grace period, then removed', async () => {
    await s.kubectlOk(['create', '-f', '-'], { input: pod('graceful', 'node-1') });
    const started = Date.now();
    await s.kubectlOk(['delete', 'pod', 'graceful', '--wait=false']);
    const marked = JSON.parse(await s.kubectlOk(['get', 'pod', 'graceful', '-o', 'json']));
    assert.ok(marked.metadata.deletionTimestamp);
    assert.equal(marked.metadata.deletionGracePeriodSeconds, 1);
    await s.kubectlOk(['wait', '--for=delete', 'pod/graceful', '--timeout=10s']);
    assert.ok(Date.now() - started >= 900, 'the pod went before its grace period ended');
  });

  test('an unscheduled pod is deleted at once', async () => {
    await s.kubectlOk(['create', '-f', '-'], { input: pod('pending') });
    await s.kubectlOk(['delete', 'pod', 'pending', '--wait=false']);
    assert.equal((await s.kubectl(['get', 'pod', 'pending'])).code, 1);
  });
});
