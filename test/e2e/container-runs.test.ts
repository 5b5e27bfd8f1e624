// The containers test control on a simulated cluster: containers that exit with a code after a time, restarted as
// their pod's restartPolicy says with the kubelet's crash loop backoff (CrashLoopBackOff in kubectl, the backoff
// skipped by moving the server clock), Jobs that fail on their containers' exits and restarts, and what the
// containers print through kubectl logs, with the kubelet's answers when there is no such run.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer, until } from './helpers.ts';

type Obj = Record<string, any>;

describe('scripted container runs (simulated cluster)', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer({ simulateWorkloads: { nodes: 1, podStartupMs: 20, jobPodRunMs: 50 } });
  });
  after(async () => {
    s.clock.reset();
    await s.close();
  });

  const getJson = async (args: string[]): Promise<Obj> => JSON.parse(await s.kubectlOk([...args, '-o', 'json'])) as Obj;
  const podsOf = async (selector: string): Promise<Obj[]> => (await getJson(['get', 'pods', '-l', selector])).items as Obj[];
  const apply = (manifest: Obj) => s.kubectlOk(['apply', '-f', '-'], { input: JSON.stringify(manifest) });

  test('a crashing Deployment: CrashLoopBackOff with the exit kept, logs of this run and the previous, restarts after the backoff', async () => {
    s.containers.add({ selector: 'app=crasher', exitCode: 1, after: '200ms', logs: 'loading config\npanic: no config\n' });
    await s.kubectlOk(['create', 'deployment', 'crasher', '--image=busybox']);
    // The first exit restarts it at once; the second waits the kubelet's first backoff, 10 s.
    const crashLooping = (p: Obj) => p.status.containerStatuses?.[0]?.state.waiting?.reason === 'CrashLoopBackOff';
    const [pod] = await until('the pod to crash twice', async () => {
      const pods = await podsOf('app=crasher');
      return pods.length === 1 && crashLooping(pods[0]!) ? pods : undefined;
    }, { timeoutMs: 20_000 });
    const name = pod!.metadata.name as string;
    const status = pod!.status.containerStatuses[0];
    assert.deepEqual(status.state.waiting, { reason: 'CrashLoopBackOff', message: `back-off 10s restarting failed container=busybox pod=${name}_default(${pod!.metadata.uid})` });
    assert.deepEqual([status.restartCount, status.ready, status.started, status.lastState.terminated.exitCode, status.lastState.terminated.reason], [1, false, false, 1, 'Error']);
    assert.deepEqual(pod!.status.conditions.filter((c: Obj) => c.type === 'Ready' || c.type === 'ContainersReady').map((c: Obj) => [c.type, c.status, c.reason, c.message]), [
      ['Ready', 'False', 'ContainersNotReady', 'containers with unready status: [busybox]'],
      ['ContainersReady', 'False', 'ContainersNotReady', 'containers with unready status: [busybox]'],
    ]);
    assert.equal(pod!.status.phase, 'Running');
    const row = (await s.kubectlOk(['get', 'pod', name, '--no-headers'])).trim().split(/\s+/);
    assert.deepEqual(row.slice(1, 4), ['0/1', 'CrashLoopBackOff', '1']);
    assert.match(row[4]!, /^\(\d+s$/);
    // While it waits, the log is the last run's; --previous reads it too.
    assert.equal(await s.kubectlOk(['logs', `deploy/crasher`]), 'loading config\npanic: no config\n');
    assert.equal(await s.kubectlOk(['logs', name, '--previous', '--tail=1']), 'panic: no config\n');
    const described = await s.kubectlOk(['describe', 'pod', name]);
    assert.match(described, /State:\s+Waiting\n\s+Reason:\s+CrashLoopBackOff\n\s+Last State:\s+Terminated\n\s+Reason:\s+Error\n\s+Exit Code:\s+1\n/);
    assert.match(described, /Warning\s+BackOff\s+\S+\s+kubelet\s+Back-off restarting failed container busybox in pod /);
    // The backoff runs on the server clock: moving it restarts the container; its next exit waits twice as long.
    s.clock.advance('10s');
    const [again] = await until('the second restart and the next backoff', async () => {
      const pods = await podsOf('app=crasher');
      return pods[0]?.status.containerStatuses?.[0]?.restartCount === 2 && crashLooping(pods[0]) ? pods : undefined;
    }, { timeoutMs: 20_000 });
    assert.match(again!.status.containerStatuses[0].state.waiting.message, /^back-off 20s restarting failed container=busybox /);
    await s.kubectlOk(['delete', 'deployment', 'crasher']);
  });

  test('a Job whose OnFailure pod keeps restarting fails at its backoff limit', async () => {
    s.containers.add({ selector: 'job-name=flaky', exitCode: 2, after: '100ms' });
    await apply({ apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'flaky', namespace: 'default' }, spec: { backoffLimit: 2, template: { spec: { restartPolicy: 'OnFailure', containers: [{ name: 'main', image: 'busybox' }] } } } });
    await until('the first restart', async () => ((await podsOf('job-name=flaky'))[0]?.status.containerStatuses?.[0]?.restartCount === 1 ? true : undefined), { timeoutMs: 20_000 });
    assert.equal((await getJson(['get', 'job', 'flaky'])).status.failed, undefined);
    s.clock.advance('10s');
    await s.kubectlOk(['wait', '--for=condition=Failed', 'job/flaky', '--timeout=20s']);
    const job = await getJson(['get', 'job', 'flaky']);
    assert.deepEqual(job.status.conditions.map((c: Obj) => [c.type, c.reason, c.message]), [
      ['FailureTarget', 'BackoffLimitExceeded', 'Job has reached the specified backoff limit'],
      ['Failed', 'BackoffLimitExceeded', 'Job has reached the specified backoff limit'],
    ]);
  });

  test("a Never pod's exit code meets the Job's pod failure policy", async () => {
    s.containers.add({ selector: 'job-name=strict', exitCode: 42, logs: 'exit 42\n' });
    await apply({
      apiVersion: 'batch/v1',
      kind: 'Job',
      metadata: { name: 'strict', namespace: 'default' },
      spec: { backoffLimit: 6, podFailurePolicy: { rules: [{ action: 'FailJob', onExitCodes: { operator: 'In', values: [42] } }] }, template: { spec: { restartPolicy: 'Never', containers: [{ name: 'main', image: 'busybox' }] } } },
    });
    await s.kubectlOk(['wait', '--for=condition=Failed', 'job/strict', '--timeout=20s']);
    const [pod] = await podsOf('job-name=strict');
    const job = await getJson(['get', 'job', 'strict']);
    assert.deepEqual(job.status.conditions.at(-1).reason, 'PodFailurePolicy');
    assert.equal(job.status.conditions.at(-1).message, `Container main for pod default/${pod!.metadata.name} failed with exit code 42 matching FailJob rule at index 0`);
    assert.deepEqual([pod!.status.phase, pod!.status.containerStatuses[0].state.terminated.exitCode, pod!.status.containerStatuses[0].state.terminated.reason], ['Failed', 42, 'Error']);
    assert.equal((await s.kubectlOk(['get', 'pod', pod!.metadata.name, '--no-headers'])).trim().split(/\s+/)[2], 'Error');
    assert.equal(await s.kubectlOk(['logs', 'job/strict']), 'exit 42\n');
  });

  test("kubectl logs: what a container printed, and the kubelet's 400s", async () => {
    s.containers.add({ pod: 'talker', logs: 'hello\nworld\n' });
    await s.kubectlOk(['run', 'talker', '--image=busybox']);
    await s.kubectlOk(['wait', '--for=condition=Ready', 'pod/talker', '--timeout=20s']);
    assert.equal(await s.kubectlOk(['logs', 'talker']), 'hello\nworld\n');
    const stamped = await s.kubectlOk(['logs', 'talker', '--timestamps', '--tail=1']);
    const pod = await getJson(['get', 'pod', 'talker']);
    assert.equal(stamped, `${pod.status.containerStatuses[0].state.running.startedAt} world\n`);
    assert.equal(await s.kubectlOk(['logs', 'talker', '--limit-bytes=3']), 'hel');
    const previous = await s.kubectl(['logs', 'talker', '--previous']);
    assert.equal(previous.code, 1);
    assert.equal(previous.stderr.trim(), 'Error from server (BadRequest): previous terminated container "talker" in pod "talker" not found');
    // A pod that runs to completion without a script exits 0 and prints nothing.
    await s.kubectlOk(['run', 'quiet', '--image=busybox', '--restart=Never']);
    await s.kubectlOk(['wait', '--for=jsonpath={.status.phase}=Succeeded', 'pod/quiet', '--timeout=20s']);
    assert.equal(await s.kubectlOk(['logs', 'quiet']), '');
  });

  test('kubectl logs -f stays open while the container runs and ends when it exits', async () => {
    s.clock.freeze();
    try {
      s.containers.add({ pod: 'follower', after: '1h', logs: 'working\n' });
      await s.kubectlOk(['run', 'follower', '--image=busybox', '--restart=Never']);
      await s.kubectlOk(['wait', '--for=condition=Ready', 'pod/follower', '--timeout=20s']);
      let ended = false;
      const following = s.kubectl(['logs', '-f', 'follower']).then((r) => {
        ended = true;
        return r;
      });
      await new Promise((r) => setTimeout(r, 1500));
      assert.equal(ended, false, 'the followed log ended while its container runs');
      // The run ends an hour later on the server clock.
      s.clock.advance('1h');
      const r = await following;
      assert.deepEqual([r.code, r.stdout], [0, 'working\n']);
      assert.equal((await getJson(['get', 'pod', 'follower'])).status.phase, 'Succeeded');
    } finally {
      s.clock.resume();
    }
  });

  test("readiness: a probe's initialDelaySeconds on the server clock, a failing probe keeps a pod out of its Service's endpoints", async () => {
    await apply({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'probed', namespace: 'default' },
      spec: {
        selector: { matchLabels: { app: 'probed' } },
        template: { metadata: { labels: { app: 'probed' } }, spec: { containers: [{ name: 'web', image: 'nginx', ports: [{ containerPort: 80 }], readinessProbe: { initialDelaySeconds: 30, httpGet: { path: '/', port: 80 } } }] } },
      },
    });
    await s.kubectlOk(['expose', 'deployment', 'probed', '--port=80']);
    const [pod] = await until('the pod to run', async () => {
      const pods = await podsOf('app=probed');
      return pods[0]?.status.phase === 'Running' ? pods : undefined;
    }, { timeoutMs: 20_000 });
    const status = pod!.status.containerStatuses[0];
    assert.deepEqual([status.ready, status.started], [false, true]);
    assert.deepEqual(pod!.status.conditions.find((c: Obj) => c.type === 'Ready'), { type: 'Ready', status: 'False', lastProbeTime: null, lastTransitionTime: pod!.status.startTime, reason: 'ContainersNotReady', message: 'containers with unready status: [web]' });
    const endpoints = async () => (await getJson(['get', 'endpoints', 'probed'])).subsets?.[0] ?? {};
    await until('the unready address', async () => ((await endpoints()).notReadyAddresses?.length === 1 ? true : undefined), { timeoutMs: 20_000 });
    s.clock.advance('30s');
    await s.kubectlOk(['rollout', 'status', 'deployment/probed', '--timeout=20s']);
    await until('the ready address', async () => ((await endpoints()).addresses?.length === 1 ? true : undefined), { timeoutMs: 20_000 });
    // A failing probe: the pod leaves the endpoints, with the kubelet's Unhealthy event; passing again, it is back.
    const rule = s.containers.add({ selector: 'app=probed', ready: false });
    await until('the pod to fail its probe', async () => ((await endpoints()).notReadyAddresses?.length === 1 ? true : undefined), { timeoutMs: 20_000 });
    const events = await s.kubectlOk(['get', 'events', '--field-selector', `involvedObject.name=${pod!.metadata.name},reason=Unhealthy`, '-o', 'jsonpath={.items[*].message}']);
    assert.equal(events, 'Readiness probe failed: HTTP probe failed with statuscode: 503');
    s.containers.remove(rule.id);
    await until('the pod to pass again', async () => ((await endpoints()).addresses?.length === 1 ? true : undefined), { timeoutMs: 20_000 });
    await s.kubectlOk(['delete', 'deployment,service', 'probed']);
  });

  test('the HTTP door: rules added, listed, refused, removed; reset clears them', async () => {
    const control = async (path: string, method = 'GET', body?: unknown) => {
      const r = await s.adminRequest(`/capstan/v1${path}`, { method, body: body === undefined ? undefined : JSON.stringify(body), headers: { 'content-type': 'application/json' } });
      return { status: r.status, body: JSON.parse(r.body) as Obj };
    };
    const added = await control('/containers', 'POST', { namespace: 'default', container: 'main', exitCode: 137, reason: 'OOMKilled', after: '1m' });
    assert.equal(added.status, 201);
    assert.deepEqual(added.body.rule, { namespace: 'default', container: 'main', exitCode: 137, after: '1m', reason: 'OOMKilled' });
    assert.ok((await control('/containers')).body.items.some((r: Obj) => r.id === added.body.id));
    const bad = await control('/containers', 'POST', { exitCode: -1 });
    assert.deepEqual([bad.status, bad.body.reason, bad.body.message], [400, 'BadRequest', 'containers: "exitCode" must be an integer from 0 to 255']);
    assert.deepEqual(await control(`/containers/${added.body.id}`, 'DELETE'), { status: 200, body: { deleted: added.body.id } });
    assert.equal((await control(`/containers/${added.body.id}`, 'DELETE')).status, 404);
    s.containers.add({ exitCode: 1 });
    await s.reset();
    assert.deepEqual(s.containers.list(), []);
  });
});
