// The simulated DaemonSet controller's finished pods, through a real server: a failed daemon pod is deleted with
// kube's FailedDaemonPod event and made again, at most once per backoff (1 s, doubling) on the server clock; a
// succeeded one is deleted too; a node's new pod waits for the old one to be gone.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer, until } from '../../../test/e2e/helpers.ts';

type Json = Record<string, any>;

describe('simulated DaemonSet controller: finished pods', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer({ simulateWorkloads: { nodes: 1, podStartupMs: 10, podTerminationMs: 20 } });
  });
  after(async () => {
    s.clock?.reset();
    await s.close();
  });

  async function ok(path: string, method = 'GET', body?: unknown): Promise<Json> {
    const text = body === undefined ? undefined : JSON.stringify(body);
    const contentType = method === 'PATCH' ? 'application/merge-patch+json' : 'application/json';
    const r = await s.adminRequest(path, { method, body: text, headers: text === undefined ? {} : { 'content-type': contentType } });
    assert.ok(r.status < 300, `${method} ${path}: ${r.status} ${r.body}`);
    return JSON.parse(r.body) as Json;
  }
  const pods = async (ns: string) => ((await ok(`/api/v1/namespaces/${ns}/pods?labelSelector=app%3Dagent`)).items as Json[]).filter((p) => !p.metadata.deletionTimestamp);
  const runningPod = (ns: string, not: readonly string[]) =>
    until('a running daemon pod', async () => (await pods(ns)).find((p) => p.status?.phase === 'Running' && !not.includes(p.metadata.uid)));
  const finish = (ns: string, pod: Json, phase: string) => ok(`/api/v1/namespaces/${ns}/pods/${pod.metadata.name}/status`, 'PATCH', { status: { phase } });
  const failedEvents = async (ns: string) =>
    ((await ok(`/api/v1/namespaces/${ns}/events`)).items as Json[]).filter((e) => e.reason === 'FailedDaemonPod').map((e) => [e.type, e.involvedObject.kind, e.message] as string[]);
  const gone = (ns: string, pod: Json) =>
    until(`${pod.metadata.name} gone`, async () => ((await s.adminRequest(`/api/v1/namespaces/${ns}/pods/${pod.metadata.name}`)).status === 404 ? true : undefined));

  test('a failed pod is deleted with FailedDaemonPod and made again, once per backoff on the server clock', async () => {
    await ok('/api/v1/namespaces', 'POST', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'ds' } });
    s.clock!.freeze();
    await ok('/apis/apps/v1/namespaces/ds/daemonsets', 'POST', {
      apiVersion: 'apps/v1',
      kind: 'DaemonSet',
      metadata: { name: 'agent' },
      spec: { selector: { matchLabels: { app: 'agent' } }, template: { metadata: { labels: { app: 'agent' } }, spec: { containers: [{ name: 'a', image: 'agent' }] } } },
    });
    const first = await runningPod('ds', []);
    const node = first.spec.nodeName as string;
    await finish('ds', first, 'Failed');
    await gone('ds', first);
    const second = await runningPod('ds', [first.metadata.uid]);
    await until('the first FailedDaemonPod event', async () => ((await failedEvents('ds')).length === 1 ? true : undefined));
    assert.deepEqual(await failedEvents('ds'), [['Warning', 'DaemonSet', `Found failed daemon pod ds/${first.metadata.name} on node ${node}, will try to kill it`]]);

    // Failed again within the second: the pass that sees it (numberReady 0) leaves it until the backoff has passed.
    const numberReady = async () => (await ok('/apis/apps/v1/namespaces/ds/daemonsets/agent')).status?.numberReady as number;
    await until('the second pod counted ready', async () => ((await numberReady()) === 1 ? true : undefined));
    await finish('ds', second, 'Failed');
    await until('a status without the failed pod', async () => ((await numberReady()) === 0 ? true : undefined));
    const kept = (await pods('ds')).map((p) => [p.metadata.uid, p.status.phase]);
    assert.deepEqual(kept, [[second.metadata.uid, 'Failed']]);
    s.clock!.advance('2s');
    await gone('ds', second);
    await runningPod('ds', [first.metadata.uid, second.metadata.uid]);
    await until('the second FailedDaemonPod event', async () => ((await failedEvents('ds')).length === 2 ? true : undefined));
  });

  test('a succeeded pod is deleted, without an event, and made again', async () => {
    const before = (await failedEvents('ds')).length;
    const [pod] = await pods('ds');
    await finish('ds', pod!, 'Succeeded');
    await gone('ds', pod!);
    await runningPod('ds', [pod!.metadata.uid]);
    assert.equal((await failedEvents('ds')).length, before);
  });
});
