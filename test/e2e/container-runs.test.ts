// The containers test control on a simulated cluster: containers that exit with a code after a time, restarted as
// their pod's restartPolicy says with the kubelet's crash loop backoff (CrashLoopBackOff in kubectl, the backoff
// skipped by moving the server clock), Jobs that fail on their containers' exits and restarts, and what the
// containers print through kubectl logs, with the kubelet's answers when there is no such run, and what commands run
// in them answer through kubectl exec and client-node's Exec.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import http2 from 'node:http2';
import https from 'node:https';
import net from 'node:net';
import { Writable, type Duplex } from 'node:stream';
import * as k8s from '@kubernetes/client-node';
import { runCommand, startTestServer, type TestServer, until } from './helpers.ts';

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
    // Each failed run, periodSeconds (10 s) apart on the server clock, counts on the same event.
    const count = async () => Number(await s.kubectlOk(['get', 'events', '--field-selector', `involvedObject.name=${pod!.metadata.name},reason=Unhealthy`, '-o', 'jsonpath={.items[0].count}']));
    assert.equal(await count(), 1);
    s.clock.advance('10s');
    await until('the next failure to be counted', async () => ((await count()) === 2 ? true : undefined), { timeoutMs: 20_000 });
    s.containers.remove(rule.id);
    await until('the pod to pass again', async () => ((await endpoints()).addresses?.length === 1 ? true : undefined), { timeoutMs: 20_000 });
    await s.kubectlOk(['delete', 'deployment,service', 'probed']);
  });

  test('liveness and startup: a failing probe gets the container killed (exit 137) and restarted as the pod says, with the kubelet\'s events', async () => {
    s.containers.add({ pod: 'hung', live: false });
    // A Never pod's container runs to completion: an hour, unless the startup probe's failures end it first.
    s.containers.add({ pod: 'never-up', started: false, after: '1h' });
    const pod = (name: string, restartPolicy: string, probes: Obj) => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'default' }, spec: { restartPolicy, containers: [{ name: 'app', image: 'nginx', ports: [{ name: 'db', containerPort: 5432 }], ...probes }] } });
    await apply({
      apiVersion: 'v1',
      kind: 'List',
      items: [
        // Failing at 0, 10 and 20 s on the server clock: killed at 20 s.
        pod('hung', 'Always', { livenessProbe: { httpGet: { path: '/healthz', port: 8080 }, periodSeconds: 10, failureThreshold: 3 } }),
        pod('never-up', 'Never', { startupProbe: { tcpSocket: { port: 'db' }, initialDelaySeconds: 5, periodSeconds: 5, failureThreshold: 2 } }),
      ],
    });
    const statusOf = async (name: string) => (await getJson(['get', 'pod', name])).status as Obj;
    await until('both pods to run', async () => ((await statusOf('hung')).phase === 'Running' && (await statusOf('never-up')).phase === 'Running' ? true : undefined), { timeoutMs: 20_000 });
    const unstarted = (await statusOf('never-up')).containerStatuses[0];
    assert.deepEqual([unstarted.started, unstarted.ready, unstarted.restartCount], [false, false, 0]);
    s.clock.advance('20s');
    const hung = await until('the liveness kill and restart', async () => {
      const st = await statusOf('hung');
      return st.containerStatuses[0].restartCount === 1 ? st : undefined;
    }, { timeoutMs: 20_000 });
    const c = hung.containerStatuses[0];
    assert.deepEqual([c.lastState.terminated.exitCode, c.lastState.terminated.reason, Object.keys(c.state), c.ready], [137, 'Error', ['running'], true]);
    const eventsOf = (name: string) => s.kubectlOk(['get', 'events', '--field-selector', `involvedObject.name=${name}`, '--sort-by=.metadata.creationTimestamp', '-o', 'jsonpath={range .items[?(@.type=="Warning")]}{.reason}: {.message}{"\\n"}{end}{range .items[?(@.reason=="Killing")]}{.reason}: {.message}{"\\n"}{end}']);
    assert.equal(await eventsOf('hung'), 'Unhealthy: Liveness probe failed: HTTP probe failed with statuscode: 503\nKilling: Container app failed liveness probe, will be restarted\n');
    assert.match(await s.kubectlOk(['describe', 'pod', 'hung']), /Last State:\s+Terminated\n\s+Reason:\s+Error\n\s+Exit Code:\s+137\n/);
    // The startup probe failed at 5 and 10 s: killed, and with restartPolicy Never the pod fails.
    const down = await until('the startup kill', async () => {
      const st = await statusOf('never-up');
      return st.phase === 'Failed' ? st : undefined;
    }, { timeoutMs: 20_000 });
    assert.deepEqual([down.containerStatuses[0].state.terminated.exitCode, down.containerStatuses[0].restartCount], [137, 0]);
    assert.equal(await eventsOf('never-up'), 'Unhealthy: Startup probe failed: dial tcp ' + down.podIP + ':5432: connect: connection refused\nKilling: Container app failed startup probe\n');
    assert.deepEqual((await s.kubectlOk(['get', 'pod', 'never-up', '--no-headers'])).trim().split(/\s+/).slice(1, 4), ['0/1', 'Error', '0']);
    // An exec probe runs its command against the rules' exec answers, as kubectl exec does.
    const answer = s.containers.add({ pod: 'pg', exec: { command: ['pg_isready'], stdout: 'localhost:5432 - no response\n', exitCode: 2 } });
    await apply(pod('pg', 'Always', { readinessProbe: { exec: { command: ['pg_isready', '-h', 'localhost'] } } }));
    await until('the pod to run unready', async () => ((await statusOf('pg')).containerStatuses?.[0]?.started === true ? true : undefined), { timeoutMs: 20_000 });
    assert.equal((await statusOf('pg')).containerStatuses[0].ready, false);
    const exec = await s.kubectl(['exec', 'pg', '--', 'pg_isready']);
    assert.deepEqual([exec.code, exec.stdout], [2, 'localhost:5432 - no response\n']);
    s.containers.remove(answer.id);
    await until('the probe to pass', async () => ((await statusOf('pg')).containerStatuses[0].ready === true ? true : undefined), { timeoutMs: 20_000 });
    await s.kubectlOk(['delete', 'pod', 'hung', 'never-up', 'pg', '--wait=false']);
  });

  test("probes to ports the rules map to the test's servers run for real: HTTP readiness, gRPC liveness, a TCP startup probe that waits for its server", async () => {
    let healthz = 200;
    let loginFirst = false;
    let probeHeaders: http.IncomingHttpHeaders = {};
    const web = http.createServer((req, res) => {
      probeHeaders = req.headers;
      if (loginFirst) res.writeHead(302, { location: 'https://login.example/' }).end('log in first');
      else res.writeHead(req.url === '/healthz' ? healthz : 404).end();
    });
    let serving = 1;
    const grpc = http2.createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        res.addTrailers({ 'grpc-status': '0' });
        res.writeHead(200, { 'content-type': 'application/grpc' }).end(Buffer.from([0, 0, 0, 0, 2, 0x08, serving]));
      });
    });
    const db = net.createServer((socket) => socket.destroy());
    const listen = async (server: http.Server | http2.Http2Server | net.Server, port = 0): Promise<number> => {
      await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
      return (server.address() as net.AddressInfo).port;
    };
    const webPort = await listen(web);
    const grpcPort = await listen(grpc);
    // A port for the database that nothing serves yet.
    const dbPort = await listen(db);
    await new Promise((r) => db.close(r));
    const rule = s.containers.add({ selector: 'app=probed', ports: { 8080: webPort, 9090: grpcPort, 5432: dbPort } });
    try {
      const container = {
        name: 'app',
        image: 'nginx',
        ports: [{ name: 'http', containerPort: 8080 }],
        readinessProbe: { httpGet: { path: '/healthz', port: 'http', httpHeaders: [{ name: 'X-Probe', value: 'ready' }] }, periodSeconds: 1, failureThreshold: 1 },
        livenessProbe: { grpc: { port: 9090 }, periodSeconds: 1, failureThreshold: 2 },
      };
      await apply({
        apiVersion: 'v1',
        kind: 'List',
        items: [
          { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'probed', namespace: 'default' }, spec: { selector: { matchLabels: { app: 'probed' } }, template: { metadata: { labels: { app: 'probed' } }, spec: { containers: [container] } } } },
          { apiVersion: 'v1', kind: 'Service', metadata: { name: 'probed', namespace: 'default' }, spec: { selector: { app: 'probed' }, ports: [{ port: 80, targetPort: 8080 }] } },
        ],
      });
      await s.kubectlOk(['rollout', 'status', 'deployment/probed', '--timeout=30s']);
      const [pod] = await podsOf('app=probed');
      const name = pod!.metadata.name as string;
      assert.deepEqual([probeHeaders['user-agent'], probeHeaders.host, probeHeaders['x-probe']], ['kube-probe/1.31', `${pod!.status.podIP}:8080`, 'ready']);
      const readyOf = async () => ((await getJson(['get', 'pod', name])).status.containerStatuses[0].ready as boolean);
      const endpoints = async () => {
        const subset = ((await getJson(['get', 'endpoints', 'probed'])).subsets ?? [])[0] ?? {};
        return [(subset.addresses ?? []).length, (subset.notReadyAddresses ?? []).length];
      };
      assert.deepEqual(await endpoints(), [1, 0]);

      // The server answers 503: the next probe fails the pod's readiness, and the Service's address is not ready.
      healthz = 503;
      await until('the pod to turn unready', async () => ((await readyOf()) === false ? true : undefined), { timeoutMs: 10_000 });
      await until('the endpoint to turn not ready', async () => (JSON.stringify(await endpoints()) === '[0,1]' ? true : undefined), { timeoutMs: 10_000 });
      const warnings = () => s.kubectlOk(['get', 'events', '--field-selector', `involvedObject.name=${name},type=Warning`, '--sort-by=.metadata.creationTimestamp', '-o', 'jsonpath={range .items[*]}{.reason}: {.message}{"\\n"}{end}']);
      assert.equal(await warnings(), 'Unhealthy: Readiness probe failed: HTTP probe failed with statuscode: 503\n');
      // Each failed probe is an Unhealthy event, counted on the one written before, as kubectl describe shows it.
      const unhealthyCount = async () => ((await getJson(['get', 'events', '--field-selector', `involvedObject.name=${name},reason=Unhealthy`])).items[0]?.count as number) ?? 0;
      await until('the failures to be counted', async () => ((await unhealthyCount()) >= 2 ? true : undefined), { timeoutMs: 10_000 });
      healthz = 200;
      await until('the pod to be ready again', async () => ((await readyOf()) ? true : undefined), { timeoutMs: 10_000 });
      // A redirect to another host ends the probe with a warning: it passes, and the kubelet says so each time.
      loginFirst = true;
      await until('a probe warning', async () => ((await warnings()).includes('ProbeWarning') ? true : undefined), { timeoutMs: 10_000 });
      loginFirst = false;
      assert.match(await warnings(), /\nProbeWarning: Readiness probe warning: Probe terminated redirects, Response body: log in first\n/);
      assert.equal(await readyOf(), true);

      // The gRPC health service says NOT_SERVING: two failures a second apart, and the kubelet kills the container.
      serving = 2;
      const restarted = await until('the liveness kill and restart', async () => {
        const st = (await getJson(['get', 'pod', name])).status.containerStatuses[0];
        return st.restartCount === 1 ? st : undefined;
      }, { timeoutMs: 15_000 });
      serving = 1;
      assert.deepEqual([restarted.lastState.terminated.exitCode, restarted.lastState.terminated.reason], [137, 'Error']);
      assert.match(await warnings(), /\nUnhealthy: Liveness probe failed: service unhealthy \(responded with "NOT_SERVING"\)\n/);
      // The restarted container's readiness probe runs again from its start: ready once it passes.
      await until('the restarted container to be ready', async () => ((await readyOf()) ? true : undefined), { timeoutMs: 10_000 });

      // A startup probe holds the container unstarted until its server listens, then it starts and is ready.
      await apply({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'db-client', namespace: 'default', labels: { app: 'probed' } }, spec: { containers: [{ name: 'app', image: 'nginx', startupProbe: { tcpSocket: { port: 5432 }, periodSeconds: 1, failureThreshold: 60 } }] } });
      const started = async () => (await getJson(['get', 'pod', 'db-client'])).status.containerStatuses?.[0];
      await until('the pod to run', async () => ((await started())?.state?.running ? true : undefined), { timeoutMs: 10_000 });
      await new Promise((r) => setTimeout(r, 1500));
      assert.deepEqual([(await started()).started, (await started()).ready], [false, false]);
      await listen(db, dbPort);
      await until('the container to start', async () => ((await started()).started && (await started()).ready ? true : undefined), { timeoutMs: 10_000 });
      assert.equal((await started()).restartCount, 0);
    } finally {
      s.containers.remove(rule.id);
      await s.kubectl(['delete', 'deployment/probed', 'service/probed', 'pod/db-client', '--wait=false']);
      for (const server of [web, grpc, db]) server.close();
    }
  });

  test('sidecars: a startup probe holds the containers after them, their readiness counts for the pod, a failing liveness probe restarts them whatever the pod says', async () => {
    const probe = (extra: Obj) => ({ httpGet: { path: '/healthz/ready', port: 15021 }, ...extra });
    // A Never pod whose container runs for an hour (on the server clock).
    const app = s.containers.add({ pod: 'meshed', container: 'app', after: '1h' });
    await apply({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'meshed', namespace: 'default' },
      spec: {
        restartPolicy: 'Never',
        initContainers: [
          { name: 'proxy', image: 'envoy', restartPolicy: 'Always', startupProbe: probe({ initialDelaySeconds: 10, periodSeconds: 5 }), readinessProbe: probe({ periodSeconds: 2 }), livenessProbe: probe({ periodSeconds: 10, failureThreshold: 3 }) },
          { name: 'setup', image: 'busybox' },
        ],
        containers: [{ name: 'app', image: 'nginx' }],
      },
    });
    const pod = async () => getJson(['get', 'pod', 'meshed']);
    const row = async () => (await s.kubectlOk(['get', 'pod', 'meshed', '--no-headers'])).trim().split(/\s+/).slice(1, 4);
    // The sidecar runs, not started for its startup probe's 10 s: the init container after it waits.
    const waiting = await until('the sidecar to run', async () => {
      const p = await pod();
      return p.status.initContainerStatuses?.[0]?.state.running ? p : undefined;
    }, { timeoutMs: 20_000 });
    assert.equal(waiting.status.phase, 'Pending');
    assert.deepEqual(waiting.status.initContainerStatuses.map((c: Obj) => [c.name, Object.keys(c.state)[0], c.started, c.ready]), [['proxy', 'running', false, false], ['setup', 'waiting', false, false]]);
    assert.deepEqual(await row(), ['0/2', 'Init:0/2', '0']);
    await new Promise((r) => setTimeout(r, 300));
    assert.equal((await pod()).status.initContainerStatuses[1].state.waiting?.reason, 'PodInitializing');
    // Started once the probe's delay has passed on the server clock: the init container runs, then the pod.
    s.clock.advance('10s');
    await s.kubectlOk(['wait', '--for=condition=Ready', 'pod/meshed', '--timeout=20s']);
    const ran = await pod();
    assert.deepEqual(ran.status.initContainerStatuses.map((c: Obj) => [c.name, Object.keys(c.state)[0], c.started, c.ready]), [['proxy', 'running', true, true], ['setup', 'terminated', false, false]]);
    assert.deepEqual(await row(), ['2/2', 'Running', '0']);

    // Its readiness probe fails: the pod is not ready, with the kubelet's event on the sidecar.
    const unready = s.containers.add({ pod: 'meshed', container: 'proxy', ready: false });
    const conditionsOf = async () => (await pod()).status.conditions.filter((c: Obj) => c.type === 'Ready' || c.type === 'ContainersReady').map((c: Obj) => [c.type, c.status, c.reason, c.message]);
    await until('the pod to turn unready', async () => ((await pod()).status.initContainerStatuses[0].ready === false ? true : undefined), { timeoutMs: 10_000 });
    assert.deepEqual(await conditionsOf(), [
      ['Ready', 'False', 'ContainersNotReady', 'containers with unready status: [proxy]'],
      ['ContainersReady', 'False', 'ContainersNotReady', 'containers with unready status: [proxy]'],
    ]);
    assert.deepEqual(await row(), ['1/2', 'Running', '0']);
    const eventsOf = (reason: string) => s.kubectlOk(['get', 'events', '--field-selector', `involvedObject.name=meshed,reason=${reason}`, '-o', 'jsonpath={range .items[*]}{.involvedObject.fieldPath} {.message}{"\\n"}{end}']);
    assert.equal(await eventsOf('Unhealthy'), 'spec.initContainers{proxy} Readiness probe failed: HTTP probe failed with statuscode: 503\n');
    s.containers.remove(unready.id);
    await s.kubectlOk(['wait', '--for=condition=Ready', 'pod/meshed', '--timeout=20s']);

    // Its liveness probe fails 3 times, 10 s apart: killed and restarted, though the pod's restartPolicy is Never.
    const dead = s.containers.add({ pod: 'meshed', container: 'proxy', live: false });
    s.clock.advance('20s');
    const restarted = await until('the sidecar to restart', async () => {
      const p = await pod();
      return p.status.initContainerStatuses[0].restartCount === 1 ? p : undefined;
    }, { timeoutMs: 20_000 });
    s.containers.remove(dead.id);
    const proxy = restarted.status.initContainerStatuses[0];
    assert.deepEqual([Object.keys(proxy.state), proxy.lastState.terminated.exitCode, proxy.lastState.terminated.reason, proxy.started, proxy.ready], [['running'], 137, 'Error', false, false]);
    assert.deepEqual([restarted.status.phase, restarted.status.containerStatuses[0].restartCount, restarted.status.containerStatuses[0].state.running !== undefined], ['Running', 0, true]);
    assert.equal(await eventsOf('Killing'), 'spec.initContainers{proxy} Container proxy failed liveness probe, will be restarted\n');
    // Its startup probe runs again from the new start; meanwhile kubectl's printer reads an unstarted sidecar as
    // initializing, though the pod stays Initialized.
    assert.deepEqual(await row(), ['1/2', 'Init:0/2', '1']);
    assert.equal(restarted.status.conditions.find((c: Obj) => c.type === 'Initialized').status, 'True');
    s.clock.advance('10s');
    await s.kubectlOk(['wait', '--for=condition=Ready', 'pod/meshed', '--timeout=20s']);
    s.containers.remove(app.id);
    await s.kubectlOk(['delete', 'pod', 'meshed', '--wait=false']);
  });

  test("a sidecar's startup probe to a port the rules map waits for the test's server, the pod initializing meanwhile", async () => {
    const db = net.createServer((socket) => socket.destroy());
    await new Promise<void>((resolve) => db.listen(0, '127.0.0.1', resolve));
    const dbPort = (db.address() as net.AddressInfo).port;
    await new Promise((r) => db.close(r));
    const rule = s.containers.add({ pod: 'proxied', ports: { 5432: dbPort } });
    try {
      await apply({
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: 'proxied', namespace: 'default' },
        spec: { initContainers: [{ name: 'cloud-sql-proxy', image: 'proxy', restartPolicy: 'Always', startupProbe: { tcpSocket: { port: 5432 }, periodSeconds: 1, failureThreshold: 60 } }], containers: [{ name: 'app', image: 'nginx' }] },
      });
      const row = async () => (await s.kubectlOk(['get', 'pod', 'proxied', '--no-headers'])).trim().split(/\s+/).slice(1, 3);
      await until('the sidecar to run', async () => ((await getJson(['get', 'pod', 'proxied'])).status.initContainerStatuses?.[0]?.state.running ? true : undefined), { timeoutMs: 10_000 });
      await new Promise((r) => setTimeout(r, 1500));
      assert.deepEqual(await row(), ['0/2', 'Init:0/1']);
      assert.match(await s.kubectlOk(['get', 'events', '--field-selector', 'involvedObject.name=proxied,reason=Unhealthy', '-o', 'jsonpath={.items[0].involvedObject.fieldPath} {.items[0].message}']), /^spec\.initContainers\{cloud-sql-proxy\} Startup probe failed: dial tcp 10\.244\.\d+\.\d+:5432: connect: connection refused$/);
      await new Promise<void>((resolve) => db.listen(dbPort, '127.0.0.1', resolve));
      await s.kubectlOk(['wait', '--for=condition=Ready', 'pod/proxied', '--timeout=20s']);
      assert.deepEqual(await row(), ['2/2', 'Running']);
    } finally {
      s.containers.remove(rule.id);
      await s.kubectl(['delete', 'pod', 'proxied', '--wait=false']);
      db.close();
    }
  });

  test('a deleted pod whose container takes time to stop: Terminating on the server clock, its endpoint terminating; killed when its grace period ends', async () => {
    s.containers.add({ selector: 'app=draining', stopAfter: '20s' });
    s.containers.add({ pod: 'stubborn', stopAfter: '1m' });
    await apply({
      apiVersion: 'v1',
      kind: 'List',
      items: [
        { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'draining', namespace: 'default', labels: { app: 'draining' } }, spec: { containers: [{ name: 'app', image: 'nginx' }] } },
        { apiVersion: 'v1', kind: 'Service', metadata: { name: 'draining', namespace: 'default' }, spec: { selector: { app: 'draining' }, ports: [{ port: 80 }] } },
        // A finalizer keeps the pod, with the status the kubelet gave it, once the kubelet has deleted it.
        { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'stubborn', namespace: 'default', finalizers: ['example.com/keep'] }, spec: { terminationGracePeriodSeconds: 5, containers: [{ name: 'app', image: 'nginx' }] } },
      ],
    });
    await s.kubectlOk(['wait', '--for=condition=Ready', 'pod/draining', 'pod/stubborn', '--timeout=20s']);
    await s.kubectlOk(['delete', 'pod', 'draining', 'stubborn', '--wait=false']);
    const conditionsOf = async () => ((await getJson(['get', 'endpointslices', '-l', 'kubernetes.io/service-name=draining'])).items[0]?.endpoints?.[0]?.conditions ?? {}) as Obj;
    await until('the endpoint to be terminating', async () => ((await conditionsOf()).terminating === true ? true : undefined), { timeoutMs: 10_000 });
    assert.deepEqual(await conditionsOf(), { ready: false, serving: true, terminating: true });
    // Stopping: still there and running a while on, with the kubelet's Killing event.
    await new Promise((r) => setTimeout(r, 500));
    const draining = await getJson(['get', 'pod', 'draining']);
    assert.deepEqual([draining.status.phase, Object.keys(draining.status.containerStatuses[0].state)], ['Running', ['running']]);
    assert.equal((await s.kubectlOk(['get', 'pod', 'draining', '--no-headers'])).trim().split(/\s+/)[2], 'Terminating');
    assert.equal(await s.kubectlOk(['get', 'events', '--field-selector', 'involvedObject.name=draining,reason=Killing', '-o', 'jsonpath={.items[*].message}']), 'Stopping container app');
    // Past its grace period (5 s), the stubborn container is killed: exit 137, the pod Failed, then deleted (kept
    // here by its finalizer).
    s.clock.advance('5s');
    const stubborn = await until('the kill', async () => {
      const p = await getJson(['get', 'pod', 'stubborn']);
      return p.status.phase === 'Failed' ? p : undefined;
    }, { timeoutMs: 10_000 });
    assert.deepEqual([stubborn.status.containerStatuses[0].state.terminated.exitCode, stubborn.status.containerStatuses[0].state.terminated.reason], [137, 'Error']);
    assert.equal((await getJson(['get', 'pod', 'draining'])).status.phase, 'Running');
    // 20 s on, the draining one has stopped and is gone.
    s.clock.advance('15s');
    await s.kubectlOk(['wait', '--for=delete', 'pod/draining', '--timeout=10s']);
    await s.kubectlOk(['patch', 'pod', 'stubborn', '--type=json', '-p', '[{"op":"remove","path":"/metadata/finalizers"}]']);
    await s.kubectlOk(['delete', 'service', 'draining']);
  });

  test("a deleted pod whose containers stop at once gets the kubelet's terminal phase before it goes: Succeeded when they ran, Failed when they never did", async () => {
    // Finalizers keep the pods, with the status the kubelet gave them, once the kubelet has deleted them.
    const keep = ['example.com/keep'];
    await apply({
      apiVersion: 'v1',
      kind: 'List',
      items: [
        { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'quick', namespace: 'default', finalizers: keep }, spec: { containers: [{ name: 'app', image: 'nginx' }] } },
        { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'unmounted', namespace: 'default', finalizers: keep }, spec: { containers: [{ name: 'app', image: 'nginx', volumeMounts: [{ name: 'cfg', mountPath: '/etc/app' }] }], volumes: [{ name: 'cfg', configMap: { name: 'absent' } }] } },
      ],
    });
    await s.kubectlOk(['wait', '--for=condition=Ready', 'pod/quick', '--timeout=20s']);
    await until('the unmounted pod to be held', async () => ((await getJson(['get', 'pod', 'unmounted'])).status?.containerStatuses?.[0]?.state?.waiting?.reason === 'ContainerCreating' ? true : undefined));
    await s.kubectlOk(['delete', 'pod', 'quick', 'unmounted', '--wait=false']);
    const terminal = (name: string) =>
      until(`${name}'s terminal phase`, async () => {
        const p = await getJson(['get', 'pod', name]);
        return p.status.phase === 'Succeeded' || p.status.phase === 'Failed' ? p : undefined;
      });
    const quick = await terminal('quick');
    const ran = quick.status.containerStatuses[0];
    assert.equal(quick.status.phase, 'Succeeded');
    assert.deepEqual([ran.state.terminated.exitCode, ran.state.terminated.reason, ran.ready, ran.started], [0, 'Completed', false, false]);
    assert.equal(ran.state.terminated.startedAt, quick.status.startTime);
    const conditions = Object.fromEntries(quick.status.conditions.map((c: Obj) => [c.type, `${String(c.status)} ${String(c.reason ?? '')}`.trim()]));
    assert.deepEqual(conditions, { PodReadyToStartContainers: 'False', Initialized: 'True PodCompleted', Ready: 'False PodCompleted', ContainersReady: 'False PodCompleted', PodScheduled: 'True' });
    const unmounted = await terminal('unmounted');
    assert.equal(unmounted.status.phase, 'Failed');
    assert.deepEqual(unmounted.status.containerStatuses[0].state, { terminated: { exitCode: 137, reason: 'ContainerStatusUnknown', message: 'The container could not be located when the pod was terminated', startedAt: null, finishedAt: null } });
    assert.deepEqual(
      unmounted.status.conditions.filter((c: Obj) => c.type === 'Ready' || c.type === 'ContainersReady').map((c: Obj) => `${String(c.type)} ${String(c.status)} ${String(c.reason)}`),
      ['Ready False PodFailed', 'ContainersReady False PodFailed'],
    );
    assert.equal((await s.kubectlOk(['get', 'pod', 'quick', 'unmounted', '--no-headers'])).trim().split('\n').map((l) => l.split(/\s+/)[2]).join(' '), 'Completed ContainerStatusUnknown');
    for (const name of ['quick', 'unmounted']) await s.kubectlOk(['patch', 'pod', name, '--type=json', '-p', '[{"op":"remove","path":"/metadata/finalizers"}]']);
  });

  test("a container whose environment cannot be made holds only itself: the kubelet starts the pod's other containers (after its init containers), the pod Pending until it starts", async () => {
    const worker = { name: 'worker', image: 'busybox', env: [{ name: 'TOKEN', valueFrom: { secretKeyRef: { name: 'worker-creds', key: 'token' } } }] };
    await apply({
      apiVersion: 'v1',
      kind: 'List',
      items: [
        { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'halfway', namespace: 'default' }, spec: { containers: [{ name: 'web', image: 'nginx' }, worker] } },
        { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'halfway-init', namespace: 'default' }, spec: { initContainers: [{ name: 'setup', image: 'busybox' }], containers: [{ name: 'web', image: 'nginx' }, worker] } },
      ],
    });
    const eventsFor = async (pod: string, fieldPath: string) =>
      ((await getJson(['get', 'events', '--field-selector', `involvedObject.name=${pod},involvedObject.fieldPath=${fieldPath}`])).items as Obj[]).map((e) => `${String(e.reason)}: ${String(e.message)}`).sort();
    const webStarted = new Map<string, string>();
    for (const name of ['halfway', 'halfway-init']) {
      const held = await until(`${name}: web running beside the waiting worker`, async () => {
        const p = await getJson(['get', 'pod', name]);
        const states = (p.status?.containerStatuses ?? []).map((c: Obj) => Object.keys(c.state)[0]);
        return states.join() === 'running,waiting' ? p : undefined;
      });
      assert.equal(held.status.phase, 'Pending');
      assert.deepEqual(held.status.containerStatuses[1].state, { waiting: { reason: 'CreateContainerConfigError', message: 'secret "worker-creds" not found' } });
      assert.deepEqual(
        held.status.conditions.map((c: Obj) => [c.type, c.status, c.message ?? '']),
        [
          ['PodReadyToStartContainers', 'True', ''],
          ['Initialized', 'True', ''],
          ['Ready', 'False', 'containers with unready status: [worker]'],
          ['ContainersReady', 'False', 'containers with unready status: [worker]'],
          ['PodScheduled', 'True', ''],
        ],
      );
      if (name === 'halfway-init') assert.deepEqual([held.status.initContainerStatuses[0].state.terminated?.reason, held.status.initContainerStatuses[0].state.terminated?.exitCode], ['Completed', 0]);
      assert.deepEqual((await s.kubectlOk(['get', 'pod', name, '--no-headers'])).trim().split(/\s+/).slice(1, 3), ['1/2', 'CreateContainerConfigError']);
      assert.deepEqual(await eventsFor(name, 'spec.containers{worker}'), ['Failed: Error: secret "worker-creds" not found']);
      assert.ok((await eventsFor(name, 'spec.containers{web}')).includes('Started: Started container web'));
      webStarted.set(name, held.status.containerStatuses[0].state.running.startedAt);
    }
    // The Secret appears: the worker starts, the web container runs on from its start.
    await s.kubectlOk(['create', 'secret', 'generic', 'worker-creds', '--from-literal=token=t0k3n']);
    await s.kubectlOk(['wait', '--for=condition=Ready', 'pod/halfway', 'pod/halfway-init', '--timeout=20s']);
    for (const name of ['halfway', 'halfway-init']) {
      const runningPod = await getJson(['get', 'pod', name]);
      assert.equal(runningPod.status.phase, 'Running');
      assert.equal(runningPod.status.containerStatuses[0].state.running.startedAt, webStarted.get(name));
      assert.ok(runningPod.status.containerStatuses[1].state.running);
      assert.deepEqual(await eventsFor(name, 'spec.containers{web}').then((all) => all.filter((e) => e.startsWith('Started'))), ['Started: Started container web']);
      assert.ok((await eventsFor(name, 'spec.containers{worker}')).includes('Started: Started container worker'));
    }
    await s.kubectlOk(['delete', 'pod', 'halfway', 'halfway-init', '--wait=false']);
    await s.kubectlOk(['delete', 'secret', 'worker-creds']);
  });

  test('a missing ConfigMap or Secret holds a pod as the kubelet holds it (ContainerCreating with FailedMount, CreateContainerConfigError) until it is created', async () => {
    await apply({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'configured', namespace: 'default' },
      spec: {
        selector: { matchLabels: { app: 'configured' } },
        template: {
          metadata: { labels: { app: 'configured' } },
          spec: {
            containers: [{ name: 'app', image: 'nginx', env: [{ name: 'DB_PASSWORD', valueFrom: { secretKeyRef: { name: 'db', key: 'password' } } }], volumeMounts: [{ name: 'config', mountPath: '/etc/app' }] }],
            volumes: [{ name: 'config', configMap: { name: 'app-config' } }],
          },
        },
      },
    });
    const podStatus = async () => {
      const pods = await podsOf('app=configured');
      return pods.length === 1 ? pods[0]! : undefined;
    };
    const row = async () => (await s.kubectlOk(['get', 'pods', '-l', 'app=configured', '--no-headers'])).trim().split(/\s+/).slice(1, 3);
    const warnings = async (name: string) => s.kubectlOk(['get', 'events', '--field-selector', `involvedObject.name=${name},type=Warning`, '--sort-by=.metadata.creationTimestamp', '-o', 'jsonpath={range .items[*]}{.reason}: {.message}{"\\n"}{end}']);
    const mounting = await until('the pod to wait for its volume', async () => {
      const p = await podStatus();
      return p?.status.containerStatuses?.[0]?.state.waiting?.reason === 'ContainerCreating' ? p : undefined;
    }, { timeoutMs: 20_000 });
    assert.deepEqual(await row(), ['0/1', 'ContainerCreating']);
    assert.deepEqual([mounting.status.phase, mounting.status.podIP, mounting.status.conditions.find((c: Obj) => c.type === 'PodReadyToStartContainers').status], ['Pending', undefined, 'False']);
    const name = mounting.metadata.name as string;
    await until('the FailedMount event', async () => ((await warnings(name)).includes('FailedMount') ? true : undefined), { timeoutMs: 10_000 });
    assert.equal(await warnings(name), 'FailedMount: MountVolume.SetUp failed for volume "config" : configmap "app-config" not found\n');
    // Each retry of the mount fails again (500 ms, then 1 s, 2 s, ... on the volume manager's backoff), counted on the one event.
    const countOf = async (reason: string) => Number(await s.kubectlOk(['get', 'events', '--field-selector', `involvedObject.name=${name},reason=${reason}`, '-o', 'jsonpath={.items[0].count}']));
    await until('the retries to be counted', async () => ((await countOf('FailedMount')) >= 3 ? true : undefined), { timeoutMs: 10_000 });
    // The volume mounts once its ConfigMap exists; then the container's environment names a Secret key that does not
    // (the Secret made first, so that the kubelet never finds it missing).
    await s.kubectlOk(['create', 'secret', 'generic', 'db', '--from-literal=user=app']);
    await s.kubectlOk(['create', 'configmap', 'app-config', '--from-literal=mode=prod']);
    const configError = await until('the container config error', async () => {
      const p = await podStatus();
      return p?.status.containerStatuses?.[0]?.state.waiting?.reason === 'CreateContainerConfigError' ? p : undefined;
    }, { timeoutMs: 20_000 });
    assert.deepEqual(configError.status.containerStatuses[0].state.waiting, { reason: 'CreateContainerConfigError', message: "couldn't find key password in Secret default/db" });
    assert.deepEqual(await row(), ['0/1', 'CreateContainerConfigError']);
    assert.ok(configError.status.podIP, 'the sandbox runs');
    await until('the Failed event', async () => ((await warnings(name)).includes('Failed:') ? true : undefined), { timeoutMs: 10_000 });
    assert.match(await warnings(name), /\nFailed: Error: couldn't find key password in Secret default\/db\n$/);
    // The pod worker tries again every 10 s on the server clock.
    assert.equal(await countOf('Failed'), 1);
    s.clock.advance('10s');
    await until('the next attempt to be counted', async () => ((await countOf('Failed')) === 2 ? true : undefined), { timeoutMs: 10_000 });
    // With the key there, it starts.
    await s.kubectlOk(['create', 'secret', 'generic', 'db', '--from-literal=password=s3cret', '--dry-run=client', '-o', 'yaml'], {}).then((y) => s.kubectlOk(['replace', '-f', '-'], { input: y }));
    await s.kubectlOk(['rollout', 'status', 'deployment/configured', '--timeout=20s']);
    await s.kubectlOk(['delete', 'deployment', 'configured']);
  });

  test('an image that cannot be pulled: ErrImagePull, then ImagePullBackOff with the kubelet\'s backoff on the server clock; it starts once pulls succeed; a name that does not parse: InvalidImageName', async () => {
    const rule = s.containers.add({ selector: 'app=unpulled', imagePull: false });
    await s.kubectlOk(['create', 'deployment', 'unpulled', '--image=registry.example.com/team/app:v9']);
    const reasonOf = async () => (await podsOf('app=unpulled'))[0]?.status.containerStatuses?.[0]?.state.waiting?.reason as string | undefined;
    // ErrImagePull shows for a second, then the backoff (the events below record both).
    await until('a failed pull', async () => (['ErrImagePull', 'ImagePullBackOff'].includes((await reasonOf()) ?? '') ? true : undefined), { timeoutMs: 20_000 });
    const [pod] = await until('ImagePullBackOff', async () => ((await reasonOf()) === 'ImagePullBackOff' ? podsOf('app=unpulled') : undefined), { timeoutMs: 20_000 });
    const name = pod!.metadata.name as string;
    assert.deepEqual(pod!.status.containerStatuses[0].state.waiting, { reason: 'ImagePullBackOff', message: 'Back-off pulling image "registry.example.com/team/app:v9"' });
    assert.deepEqual([pod!.status.phase, (await s.kubectlOk(['get', 'pod', name, '--no-headers'])).trim().split(/\s+/).slice(1, 3)], ['Pending', ['0/1', 'ImagePullBackOff']]);
    const events = async () => s.kubectlOk(['get', 'events', '--field-selector', `involvedObject.name=${name}`, '-o', 'jsonpath={range .items[*]}{.reason}: {.message}{"\\n"}{end}']);
    const seen = await until('the pull events', async () => ((await events()).includes('Error: ImagePullBackOff') ? events() : undefined), { timeoutMs: 10_000 });
    for (const line of [
      'Pulling: Pulling image "registry.example.com/team/app:v9"',
      'Failed: Failed to pull image "registry.example.com/team/app:v9": rpc error: code = NotFound desc = failed to pull and unpack image "registry.example.com/team/app:v9": failed to resolve reference "registry.example.com/team/app:v9": registry.example.com/team/app:v9: not found',
      'Failed: Error: ErrImagePull',
      'BackOff: Back-off pulling image "registry.example.com/team/app:v9"',
      'Failed: Error: ImagePullBackOff',
    ]) assert.ok(seen.split('\n').includes(line), `${line} in\n${seen}`);
    // The backoff runs on the server clock: past it, the image manager pulls again (and fails again).
    s.clock.advance('10s');
    await until('the second pull', async () => ((await events()).match(/Pulling: /g)?.length === 1 && (await s.kubectlOk(['get', 'events', '--field-selector', `involvedObject.name=${name},reason=Pulling`, '-o', 'jsonpath={.items[0].count}'])) === '2' ? true : undefined), { timeoutMs: 10_000 });
    s.containers.remove(rule.id);
    await s.kubectlOk(['rollout', 'status', 'deployment/unpulled', '--timeout=20s']);
    await s.kubectlOk(['delete', 'deployment', 'unpulled']);
    // A name the kubelet cannot parse: InvalidImageName, with no rule, until the pod's image is changed.
    // (kubectl run checks names itself; a manifest does not.)
    await apply({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'misnamed', namespace: 'default' }, spec: { containers: [{ name: 'misnamed', image: 'MyApp:v1' }] } });
    const waiting = await until('InvalidImageName', async () => {
      const st = (await getJson(['get', 'pod', 'misnamed'])).status.containerStatuses?.[0]?.state.waiting;
      return st?.reason === 'InvalidImageName' ? st : undefined;
    }, { timeoutMs: 20_000 });
    const message = 'Failed to apply default image tag "MyApp:v1": couldn\'t parse image name "MyApp:v1": invalid reference format: repository name (library/MyApp) must be lowercase';
    assert.deepEqual(waiting, { reason: 'InvalidImageName', message });
    assert.deepEqual((await s.kubectlOk(['get', 'pod', 'misnamed', '--no-headers'])).trim().split(/\s+/).slice(1, 3), ['0/1', 'InvalidImageName']);
    assert.equal(await s.kubectlOk(['get', 'events', '--field-selector', 'involvedObject.name=misnamed,reason=InspectFailed', '-o', 'jsonpath={.items[0].message}']), message);
    await s.kubectlOk(['set', 'image', 'pod/misnamed', 'misnamed=myapp:v1']);
    await s.kubectlOk(['wait', '--for=condition=Ready', 'pod/misnamed', '--timeout=20s']);
    await s.kubectlOk(['delete', 'pod', 'misnamed', '--wait=false']);
  });

  test('init containers run one by one: Init:N/M while one runs, Init:CrashLoopBackOff or Init:Error when one fails', async () => {
    s.containers.add({ pod: 'staged', container: 'wait-db', after: '1h' });
    s.containers.add({ container: 'migrate', exitCode: 1, after: '100ms' });
    const pod = (name: string, restartPolicy: string, init: string[]) => ({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name, namespace: 'default' },
      spec: { restartPolicy, initContainers: init.map((n) => ({ name: n, image: 'busybox' })), containers: [{ name: 'app', image: 'nginx' }] },
    });
    await apply({ apiVersion: 'v1', kind: 'List', items: [pod('staged', 'Always', ['wait-db', 'setup']), pod('migrating', 'Always', ['migrate']), pod('migrating-once', 'Never', ['migrate'])] });
    const status = async (name: string) => (await s.kubectlOk(['get', 'pod', name, '--no-headers'])).trim().split(/\s+/).slice(1, 4);
    await until('the init containers to start and fail', async () => {
      const all = [await status('staged'), await status('migrating'), await status('migrating-once')];
      return all[0]![1] === 'Init:0/2' && all[1]![1] === 'Init:CrashLoopBackOff' && all[2]![1] === 'Init:Error' ? all : undefined;
    }, { timeoutMs: 20_000 });
    assert.deepEqual(await status('migrating'), ['0/1', 'Init:CrashLoopBackOff', '1']);
    const staged = await getJson(['get', 'pod', 'staged']);
    assert.equal(staged.status.phase, 'Pending');
    assert.deepEqual(staged.status.conditions.map((c: Obj) => [c.type, c.status, c.reason, c.message]), [
      ['PodReadyToStartContainers', 'True', undefined, undefined],
      ['Initialized', 'False', 'ContainersNotInitialized', 'containers with incomplete status: [wait-db setup]'],
      ['Ready', 'False', 'ContainersNotReady', 'containers with unready status: [app]'],
      ['ContainersReady', 'False', 'ContainersNotReady', 'containers with unready status: [app]'],
      ['PodScheduled', 'True', undefined, undefined],
    ]);
    assert.deepEqual(staged.status.initContainerStatuses.map((c: Obj) => [c.name, Object.keys(c.state)[0], c.state.waiting?.reason]), [['wait-db', 'running', undefined], ['setup', 'waiting', 'PodInitializing']]);
    assert.deepEqual(staged.status.containerStatuses.map((c: Obj) => [c.name, c.state, c.ready]), [['app', { waiting: { reason: 'PodInitializing' } }, false]]);
    const once = await getJson(['get', 'pod', 'migrating-once']);
    assert.deepEqual([once.status.phase, once.status.initContainerStatuses[0].state.terminated.exitCode, once.status.conditions.find((c: Obj) => c.type === 'Ready').reason], ['Failed', 1, 'PodFailed']);
    // The first init container's hour passes on the server clock: the second runs and exits 0, then the pod runs.
    s.clock.advance('1h');
    await s.kubectlOk(['wait', '--for=condition=Ready', 'pod/staged', '--timeout=20s']);
    const ran = await getJson(['get', 'pod', 'staged']);
    assert.deepEqual(ran.status.initContainerStatuses.map((c: Obj) => [c.name, c.state.terminated?.exitCode, c.state.terminated?.reason]), [['wait-db', 0, 'Completed'], ['setup', 0, 'Completed']]);
    assert.deepEqual([ran.status.phase, ran.status.containerStatuses[0].ready], ['Running', true]);
    await s.kubectlOk(['delete', 'pod', 'staged', 'migrating', 'migrating-once']);
  });

  test('kubectl exec and client-node Exec: the scripted answers over WebSocket (v5.channel.k8s.io), exit codes included', async () => {
    s.containers.add({ pod: 'db', exec: [{ command: ['cat', '/etc/motd'], stdout: 'hello from db\n' }, { command: ['pg_isready'], stdout: 'checking\n', stderr: 'no response\n', exitCode: 2 }] });
    await s.kubectlOk(['run', 'db', '--image=postgres']);
    await s.kubectlOk(['wait', '--for=condition=Ready', 'pod/db', '--timeout=20s']);
    assert.equal(await s.kubectlOk(['exec', 'db', '--', 'cat', '/etc/motd']), 'hello from db\n');
    // Many at once, each client slow to set up its streams: every output arrives whole, nothing is discarded.
    const many = await Promise.all(Array.from({ length: 12 }, () => s.kubectl(['exec', 'db', '--', 'cat', '/etc/motd'])));
    assert.deepEqual(many.filter((r) => r.code !== 0 || r.stdout !== 'hello from db\n' || r.stderr !== ''), []);
    const failing = await s.kubectl(['exec', 'db', '--', 'pg_isready', '-h', 'localhost']);
    assert.deepEqual([failing.code, failing.stdout, failing.stderr], [2, 'checking\n', 'no response\ncommand terminated with exit code 2\n']);
    // Without an answer for it, a command exits 0 and prints nothing.
    assert.deepEqual(await s.kubectl(['exec', 'db', '--', 'ls', '/']), { code: 0, stdout: '', stderr: '' });
    assert.deepEqual(await s.kubectl(['exec', '-i', 'db', '--', 'cat', '/etc/motd'], { input: 'x'.repeat(1024 * 1024) }), { code: 0, stdout: 'hello from db\n', stderr: '' });

    const kc = new k8s.KubeConfig();
    kc.loadFromString(s.kubeconfig);
    const run = async (command: string[]) => {
      let out = '';
      let err = '';
      const sink = (add: (t: string) => void) => new Writable({ write(chunk, _enc, done) { add(String(chunk)); done(); } });
      const status = await new Promise<Obj>((resolve, reject) => {
        new k8s.Exec(kc).exec('default', 'db', 'db', command, sink((t) => (out += t)), sink((t) => (err += t)), null, false, (st) => resolve(st as Obj)).catch(reject);
      });
      return { out, err, status };
    };
    assert.deepEqual(await run(['cat', '/etc/motd']), { out: 'hello from db\n', err: '', status: { metadata: {}, status: 'Success' } });
    assert.deepEqual(await run(['pg_isready']), {
      out: 'checking\n',
      err: 'no response\n',
      status: { metadata: {}, status: 'Failure', message: 'command terminated with non-zero exit code: error executing command [pg_isready], exit code 2', reason: 'NonZeroExitCode', details: { causes: [{ reason: 'ExitCode', message: '2' }] } },
    });
  });

  test('a command given stdin over v5 ends when the client closes stdin (the close signal on channel 255)', async () => {
    const url = new URL(s.url);
    const socket = await new Promise<Duplex>((resolve, reject) => {
      const req = https.request({
        host: url.hostname,
        port: url.port,
        path: '/api/v1/namespaces/default/pods/db/exec?command=cat&command=%2Fetc%2Fmotd&stdin=true&stdout=true&stderr=true',
        ca: s.caCert,
        cert: s.clientCert,
        key: s.clientKey,
        headers: { Connection: 'Upgrade', Upgrade: 'websocket', 'Sec-WebSocket-Key': 'dGhlIHNhbXBsZSBub25jZQ==', 'Sec-WebSocket-Version': '13', 'Sec-WebSocket-Protocol': 'v5.channel.k8s.io' },
      });
      req.on('upgrade', (_res, sock, head) => {
        if (head.length > 0) sock.unshift(head);
        resolve(sock);
      });
      req.on('response', (res) => reject(new Error(`no upgrade: ${res.statusCode}`)));
      req.on('error', reject);
      req.end();
    });
    // Server frames here are small: one header byte, one length byte.
    const frames: { opcode: number; payload: string }[] = [];
    let buf = Buffer.alloc(0);
    socket.on('data', (d: Buffer) => {
      buf = Buffer.concat([buf, d]);
      while (buf.length >= 2 && buf.length >= 2 + (buf[1]! & 0x7f)) {
        const len = buf[1]! & 0x7f;
        frames.push({ opcode: buf[0]! & 0x0f, payload: buf.subarray(2, 2 + len).toString('latin1') });
        buf = buf.subarray(2 + len);
      }
    });
    const send = (payload: Buffer) => socket.write(Buffer.concat([Buffer.from([0x82, 0x80 | payload.length, 0, 0, 0, 0]), payload]));
    await until('the output', async () => (frames.length >= 2 ? true : undefined));
    await new Promise((r) => setTimeout(r, 300));
    assert.deepEqual(frames, [{ opcode: 2, payload: '\x01' }, { opcode: 2, payload: '\x01hello from db\n' }]);
    send(Buffer.from('\x00some input', 'latin1'));
    send(Buffer.from([255, 0]));
    await until('the status and the close frame', async () => (frames.length >= 4 ? true : undefined));
    assert.deepEqual(frames.slice(2), [{ opcode: 2, payload: '\x03{"metadata":{},"status":"Success"}' }, { opcode: 8, payload: '\x03\xe8' }]);
    socket.destroy();
  });

  test('kubectl run -i --rm and kubectl debug -i attach: the output, then the exit code once the container ends', async () => {
    s.containers.add({ pod: 'probe', logs: '<html>ok</html>\n', after: '1s' });
    s.containers.add({ pod: 'probe-fail', logs: 'curl: (6) Could not resolve host: nope\n', after: '1s', exitCode: 6 });
    const ok = await s.kubectl(['run', 'probe', '-i', '--rm', '--restart=Never', '--image=curlimages/curl', '--', 'curl', '-s', 'http://web']);
    assert.deepEqual([ok.code, ok.stdout], [0, '<html>ok</html>\npod "probe" deleted\n']);
    const failing = await s.kubectl(['run', 'probe-fail', '-i', '--rm', '--restart=Never', '--image=curlimages/curl', '--', 'curl', '-s', 'http://nope']);
    assert.deepEqual([failing.code, failing.stdout], [6, 'curl: (6) Could not resolve host: nope\npod "probe-fail" deleted\n']);
    assert.match(failing.stderr, /pod default\/probe-fail terminated \(Error\)/);
    // A debug container's attach with stdin ends when kubectl closes stdin.
    const debug = await s.kubectl(['debug', '-i', 'db', '--image=busybox', '--container=dbg'], { input: '' });
    assert.equal(debug.code, 0, debug.stderr);
    const pod = await getJson(['get', 'pod', 'db']);
    assert.deepEqual(pod.status.ephemeralContainerStatuses.map((c: Obj) => [c.name, Object.keys(c.state)[0]]), [['dbg', 'running']]);
  });

  test('over SPDY, as kubectl falls back to and client-go\'s SPDY executor speaks: output, exit codes, stdin to its end, attach, and the kubelet\'s refusals', async () => {
    const spdy = { env: { KUBECTL_REMOTE_COMMAND_WEBSOCKETS: 'false' } };
    s.containers.add({ pod: 'spdy', exec: [{ command: ['pg_isready'], stdout: 'localhost:5432 - no response\n', stderr: 'warning: slow\n', exitCode: 2 }] });
    await s.kubectlOk(['run', 'spdy', '--image=postgres']);
    await until('the pod to run', async () => ((await getJson(['get', 'pod', 'spdy'])).status.phase === 'Running' ? true : undefined), { timeoutMs: 20_000 });
    const failing = await s.kubectl(['exec', 'spdy', '--', 'pg_isready', '-q'], spdy);
    assert.deepEqual([failing.code, failing.stdout, failing.stderr], [2, 'localhost:5432 - no response\n', 'warning: slow\ncommand terminated with exit code 2\n']);
    const quiet = await s.kubectl(['exec', 'spdy', '--', 'ls', '/'], spdy);
    assert.deepEqual([quiet.code, quiet.stdout, quiet.stderr], [0, '', '']);
    // With stdin the command reads to the stream's end (the client's FIN) before it answers.
    const piped = await s.kubectl(['exec', '-i', 'spdy', '--', 'psql'], { ...spdy, input: 'select 1;\n'.repeat(20_000) });
    assert.deepEqual([piped.code, piped.stderr], [0, '']);
    // An attach: what the container prints, then its exit code, once its run ends.
    s.containers.add({ pod: 'spdy-once', logs: 'migrated 3 tables\n', exitCode: 4, after: '300ms' });
    const attached = await s.kubectl(['run', 'spdy-once', '-i', '--rm', '--restart=Never', '--image=busybox'], spdy);
    assert.equal(attached.code, 4);
    assert.match(attached.stdout, /migrated 3 tables\n/);
    // A container that does not run: the kubelet's 500 before any upgrade, as client-go reports it.
    s.containers.add({ pod: 'spdy-down', exitCode: 1, after: '100ms' });
    await s.kubectlOk(['run', 'spdy-down', '--image=busybox']);
    await until('the container to wait in its backoff', async () => ((await getJson(['get', 'pod', 'spdy-down'])).status.containerStatuses?.[0]?.state.waiting ? true : undefined), { timeoutMs: 20_000 });
    const down = await s.kubectl(['exec', 'spdy-down', '--', 'ls'], spdy);
    assert.deepEqual([down.code, down.stderr.trim()], [1, 'error: unable to upgrade connection: container not found ("spdy-down")']);
    await s.kubectlOk(['delete', 'pod', 'spdy', 'spdy-down', '--wait=false']);
  });

  test("the Python client's stream (v4.channel.k8s.io): output and return code", async () => {
    const kubeconfig = await s.writeKubeconfig('python-exec', { clientCert: s.clientCert, clientKey: s.clientKey });
    const script = [
      'import json, sys',
      'from kubernetes import client, config',
      'from kubernetes.stream import stream',
      'config.load_kube_config(sys.argv[1])',
      'api = client.CoreV1Api()',
      'seen = []',
      'for command in (["cat", "/etc/motd"], ["pg_isready"]):',
      '    r = stream(api.connect_get_namespaced_pod_exec, "db", "default", command=command, stdout=True, stderr=True, stdin=False, tty=False, _preload_content=False)',
      '    r.run_forever(timeout=10)',
      '    seen.append([r.read_stdout(), r.read_stderr(), r.returncode])',
      'print(json.dumps(seen))',
    ].join('\n');
    const r = await runCommand('/usr/bin/python3', ['-c', script, kubeconfig], { timeoutMs: 60_000, env: process.env });
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(JSON.parse(r.stdout), [['hello from db\n', '', 0], ['checking\n', 'no response\n', 2]]);
  });

  test("kubectl exec into a container that does not run, and a client that offers no protocol the server speaks", async () => {
    s.containers.add({ pod: 'down', exitCode: 1, after: '100ms' });
    await s.kubectlOk(['run', 'down', '--image=busybox']);
    await until('the container to wait in its backoff', async () => ((await getJson(['get', 'pod', 'down'])).status.containerStatuses?.[0]?.state.waiting ? true : undefined), { timeoutMs: 20_000 });
    const r = await s.kubectl(['exec', 'down', '--', 'ls']);
    assert.deepEqual([r.code, r.stderr.trim()], [1, 'error: Internal error occurred: unable to upgrade connection: container not found ("down")']);
    // The Python client's v4.channel.k8s.io is served too; x/net/websocket's 403 when none of the offered subprotocols
    // is served.
    const url = new URL(s.url);
    const handshake = (protocol: string) => new Promise<number>((resolve, reject) => {
      const req = https.request({
        host: url.hostname,
        port: url.port,
        path: '/api/v1/namespaces/default/pods/db/exec?command=ls&stdout=true',
        ca: s.caCert,
        cert: s.clientCert,
        key: s.clientKey,
        headers: { Connection: 'Upgrade', Upgrade: 'websocket', 'Sec-WebSocket-Key': 'dGhlIHNhbXBsZSBub25jZQ==', 'Sec-WebSocket-Version': '13', 'Sec-WebSocket-Protocol': protocol },
      });
      req.on('response', (res) => resolve(res.statusCode ?? 0));
      req.on('upgrade', (res, socket) => {
        socket.destroy();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', reject);
      req.end();
    });
    assert.deepEqual([await handshake('v4.channel.k8s.io'), await handshake('base64.channel.k8s.io, channel.k8s.io')], [101, 403]);
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
