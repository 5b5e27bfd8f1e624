// spec.minReadySeconds in the simulated StatefulSet and DaemonSet controllers, as kube 1.31 has it: a ready pod is
// available only once its Ready condition has been True that long on the server's clock (frozen and moved here), so
// status.availableReplicas (StatefulSet) and numberAvailable/numberUnavailable (DaemonSet) lag numberReady; an
// OrderedReady StatefulSet makes and replaces its next pod only once the previous one is available, a Parallel one
// rolls on readiness alone (kube fixed that in 1.33); a DaemonSet's rolling update counts a new pod that is not yet
// available against maxUnavailable, and with maxSurge removes the old pod only once the new one is available; and
// `kubectl rollout status` waits for what it waits for on a cluster.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, until, type TestServer } from './helpers.ts';

let s: TestServer;
before(async () => {
  s = await startTestServer({ simulateWorkloads: { nodes: 2, podStartupMs: 20, podTerminationMs: 20 } });
});
after(async () => s?.close());

const get = (what: string, jsonpath: string): Promise<string> => s.kubectlOk(['get', what, '-o', `jsonpath=${jsonpath}`]);
/** Waits until `get` answers exactly `want`. */
const reaches = (what: string, jsonpath: string, want: string): Promise<true> =>
  until(`${what} ${jsonpath} = ${want}`, async () => ((await get(what, jsonpath)) === want ? true : undefined));
/** kubectl rollout status with a 1s timeout: its exit code and what it printed. */
async function rolloutStatus(what: string): Promise<[number, string]> {
  const r = await s.kubectl(['rollout', 'status', what, '--timeout=1s']);
  return [r.code, r.stdout.split('\n')[0]!];
}
/** Each pod of the selector: name=image, sorted by name. */
const podImages = (selector: string): Promise<string> =>
  s.kubectlOk(['get', 'pods', '-l', selector, '--sort-by=.metadata.name', '-o', 'jsonpath={range .items[*]}{.metadata.name}={.spec.containers[0].image} {end}']);
/** Each pod of the selector: node=image, sorted by node then creation. */
const daemonPods = async (selector: string): Promise<string> => {
  const out = await s.kubectlOk(['get', 'pods', '-l', selector, '-o', 'jsonpath={range .items[*]}{.spec.nodeName}={.spec.containers[0].image}/{.status.conditions[?(@.type=="Ready")].status}{"\\n"}{end}']);
  return out.split('\n').filter(Boolean).sort().join(' ');
};

function statefulSet(name: string, policy: 'OrderedReady' | 'Parallel'): string {
  return JSON.stringify({
    apiVersion: 'apps/v1',
    kind: 'StatefulSet',
    metadata: { name },
    spec: {
      serviceName: name,
      replicas: 2,
      minReadySeconds: 20,
      podManagementPolicy: policy,
      selector: { matchLabels: { app: name } },
      template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: 'busybox:1' }] } },
    },
  });
}

function daemonSet(name: string, rollingUpdate: Record<string, unknown>): string {
  return JSON.stringify({
    apiVersion: 'apps/v1',
    kind: 'DaemonSet',
    metadata: { name },
    spec: {
      minReadySeconds: 20,
      updateStrategy: { type: 'RollingUpdate', rollingUpdate },
      selector: { matchLabels: { app: name } },
      template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: 'agent:1' }] } },
    },
  });
}

const STS = '{.status.replicas} {.status.readyReplicas} {.status.availableReplicas} {.status.updatedReplicas}';

test('an OrderedReady StatefulSet makes and replaces the next pod only once the previous one is available', async () => {
  s.clock.freeze();
  try {
    await s.kubectlOk(['apply', '-f', '-'], { input: statefulSet('ordered', 'OrderedReady') });
    // ordered-0 is ready but not available: ordered-1 waits.
    await reaches('statefulset/ordered', STS, '1 1 0 1');
    assert.equal(await podImages('app=ordered'), 'ordered-0=busybox:1 ');
    assert.deepEqual(await rolloutStatus('statefulset/ordered'), [1, 'Waiting for 1 pods to be ready...']);

    s.clock.advance('21s');
    await reaches('statefulset/ordered', STS, '2 2 1 2');
    // kubectl reads readyReplicas: done although ordered-1 is not available yet.
    assert.deepEqual(await rolloutStatus('statefulset/ordered'), [0, 'partitioned roll out complete: 2 new pods have been updated...']);
    s.clock.advance('21s');
    await reaches('statefulset/ordered', STS, '2 2 2 2');

    // The update replaces ordered-1, then waits for it to be available before ordered-0.
    await s.kubectlOk(['set', 'image', 'statefulset/ordered', 'c=busybox:2']);
    await reaches('statefulset/ordered', STS, '2 2 1 1');
    assert.equal(await podImages('app=ordered'), 'ordered-0=busybox:1 ordered-1=busybox:2 ');
    assert.deepEqual(await rolloutStatus('statefulset/ordered'), [1, 'Waiting for partitioned roll out to finish: 1 out of 2 new pods have been updated...']);

    s.clock.advance('21s');
    await reaches('statefulset/ordered', STS, '2 2 1 2');
    assert.equal(await podImages('app=ordered'), 'ordered-0=busybox:2 ordered-1=busybox:2 ');
    assert.match(await get('statefulset/ordered', '{.status.currentRevision}={.status.updateRevision}'), /^(ordered-\w+)=\1$/);
    s.clock.advance('21s');
    await reaches('statefulset/ordered', STS, '2 2 2 2');
  } finally {
    s.clock.reset();
  }
});

test('a Parallel StatefulSet makes its pods at once and, as in kube 1.31, rolls on readiness alone', async () => {
  s.clock.freeze();
  try {
    await s.kubectlOk(['apply', '-f', '-'], { input: statefulSet('parallel', 'Parallel') });
    await reaches('statefulset/parallel', STS, '2 2 0 2');
    const before = await get('statefulset/parallel', '{.status.currentRevision}');
    await s.kubectlOk(['set', 'image', 'statefulset/parallel', 'c=busybox:2']);
    const rolled = await until('the rolled set', async () => {
      const [counts, revisions] = (await get('statefulset/parallel', `${STS}|{.status.currentRevision} {.status.updateRevision}`)).split('|');
      return counts === '2 2 0 2' && !revisions!.includes(before) ? revisions : undefined;
    });
    assert.match(rolled, /^(parallel-\w+) \1$/);
    assert.equal(await podImages('app=parallel'), 'parallel-0=busybox:2 parallel-1=busybox:2 ');
    s.clock.advance('21s');
    await reaches('statefulset/parallel', STS, '2 2 2 2');
  } finally {
    s.clock.reset();
  }
});

const DS = '{.status.desiredNumberScheduled} {.status.currentNumberScheduled} {.status.numberReady} {.status.numberAvailable}/{.status.numberUnavailable} {.status.updatedNumberScheduled}';

test('a DaemonSet counts pods available after minReadySeconds and rolls one unavailable node at a time', async () => {
  s.clock.freeze();
  try {
    await s.kubectlOk(['apply', '-f', '-'], { input: daemonSet('agent', { maxUnavailable: 1 }) });
    await reaches('daemonset/agent', DS, '2 2 2 /2 2');
    assert.deepEqual(await rolloutStatus('daemonset/agent'), [1, 'Waiting for daemon set "agent" rollout to finish: 0 of 2 updated pods are available...']);
    s.clock.advance('21s');
    await reaches('daemonset/agent', DS, '2 2 2 2/ 2');
    assert.deepEqual(await rolloutStatus('daemonset/agent'), [0, 'daemon set "agent" successfully rolled out']);

    // One node is replaced; its new pod, ready but not available, holds the other back (maxUnavailable 1).
    await s.kubectlOk(['set', 'image', 'daemonset/agent', 'c=agent:2']);
    await reaches('daemonset/agent', DS, '2 2 2 1/1 1');
    assert.deepEqual((await daemonPods('app=agent')).split(' ').map((p) => p.split('=')[1]).sort(), ['agent:1/True', 'agent:2/True']);
    assert.deepEqual(await rolloutStatus('daemonset/agent'), [1, 'Waiting for daemon set "agent" rollout to finish: 1 out of 2 new pods have been updated...']);

    s.clock.advance('21s');
    await reaches('daemonset/agent', DS, '2 2 2 1/1 2');
    assert.deepEqual(await rolloutStatus('daemonset/agent'), [1, 'Waiting for daemon set "agent" rollout to finish: 1 of 2 updated pods are available...']);
    s.clock.advance('21s');
    await reaches('daemonset/agent', DS, '2 2 2 2/ 2');
    assert.deepEqual(await rolloutStatus('daemonset/agent'), [0, 'daemon set "agent" successfully rolled out']);
  } finally {
    s.clock.reset();
  }
});

test('a surging DaemonSet removes an old pod only once its replacement is available', async () => {
  s.clock.freeze();
  try {
    await s.kubectlOk(['apply', '-f', '-'], { input: daemonSet('surge', { maxSurge: 1, maxUnavailable: 0 }) });
    await reaches('daemonset/surge', DS, '2 2 2 /2 2');
    s.clock.advance('21s');
    await reaches('daemonset/surge', DS, '2 2 2 2/ 2');

    // One node gets its new pod beside the old one; the old one, its first pod, is what the status counts.
    await s.kubectlOk(['set', 'image', 'daemonset/surge', 'c=agent:2']);
    const surged = await until('a ready surge pod', async () => {
      const pods = await daemonPods('app=surge');
      return pods.split(' ').length === 3 && pods.includes('=agent:2/True') ? pods : undefined;
    });
    await reaches('daemonset/surge', DS, '2 2 2 2/ ');
    const node = surged.split(' ').find((p) => p.includes('=agent:2/'))!.split('=')[0]!;
    assert.deepEqual(surged.split(' ').filter((p) => p.startsWith(`${node}=`)), [`${node}=agent:1/True`, `${node}=agent:2/True`]);

    // Available: the old pod goes, and the other node surges.
    s.clock.advance('21s');
    await until('the second surge', async () => {
      const pods = (await daemonPods('app=surge')).split(' ');
      return pods.length === 3 && pods.filter((p) => p.includes('=agent:2/True')).length === 2 && !pods.includes(`${node}=agent:1/True`) ? true : undefined;
    });
    await reaches('daemonset/surge', DS, '2 2 2 2/ 1');
    s.clock.advance('21s');
    await until('the last old pod gone', async () => ((await daemonPods('app=surge')) === 'capstan-node-1=agent:2/True capstan-node-2=agent:2/True' ? true : undefined));
    await reaches('daemonset/surge', DS, '2 2 2 2/ 2');
    assert.deepEqual(await rolloutStatus('daemonset/surge'), [0, 'daemon set "surge" successfully rolled out']);
  } finally {
    s.clock.reset();
  }
});
