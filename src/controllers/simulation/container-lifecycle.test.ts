import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../registry/types.ts';
import { BACKOFF_INITIAL_MS, BACKOFF_MAX_MS, inBackoffSince, nextBackoff, probed, probeFailure, probesScripted, reportKey, stepContainers, unreadyMessage, type Backoff, type PodRuns, type StepInput } from './container-lifecycle.ts';
import type { ContainerScript } from './container-runs.ts';

type Obj = Record<string, any>;

const T0 = Date.parse('2026-11-30T10:00:00Z');
const iso = (ms: number) => new Date(ms).toISOString().replace('.000Z', 'Z');

function pod(restartPolicy: string | undefined, statuses: Obj[]): KubeObject {
  return {
    metadata: { name: 'web', namespace: 'default', uid: 'u1' },
    spec: { ...(restartPolicy ? { restartPolicy } : {}), containers: statuses.map((s) => ({ name: s.name, image: 'busybox' })) },
    status: { phase: 'Running', containerStatuses: statuses },
  } as KubeObject;
}

const running = (name: string, startedAt = iso(T0), restartCount = 0): Obj => ({ name, state: { running: { startedAt } }, lastState: {}, ready: true, restartCount, containerID: `capstan://u1-${name}`, started: true });

type Step = Omit<ReturnType<typeof stepContainers>, 'containerStatuses'> & { containerStatuses: Obj[] };

function step(p: KubeObject, now: number, scripts: Record<string, ContainerScript>, runs: Partial<PodRuns> = {}, wallNow = now): Step {
  const input: StepInput = {
    pod: p,
    now,
    wallNow,
    at: iso(now),
    defaultRunMs: 300,
    script: (c) => scripts[c] ?? {},
    runs: { starts: runs.starts ?? new Map(), ends: runs.ends ?? new Map(), backoffs: runs.backoffs ?? new Map(), reports: runs.reports ?? new Map() },
  };
  return stepContainers(input);
}

test('backoff: the first restart is at once, then 10 s doubling to 5 min, forgotten after 10 quiet minutes', () => {
  let entry: Backoff | undefined;
  const waits: number[] = [];
  let t = T0;
  for (let i = 0; i < 8; i++) {
    waits.push(inBackoffSince(entry, t, t) ? entry!.backoffMs : 0);
    entry = nextBackoff(entry, t);
    t += 1000;
  }
  assert.deepEqual(waits, [0, 10_000, 20_000, 40_000, 80_000, 160_000, BACKOFF_MAX_MS, BACKOFF_MAX_MS]);
  // Past the wait it may restart; an exit more than twice the maximum after the last update starts over.
  assert.equal(inBackoffSince(entry, t, t + BACKOFF_MAX_MS), false);
  assert.equal(inBackoffSince(entry, entry!.lastUpdate + 2 * BACKOFF_MAX_MS + 1, entry!.lastUpdate + 2 * BACKOFF_MAX_MS + 1), false);
  assert.deepEqual(nextBackoff(entry, entry!.lastUpdate + 2 * BACKOFF_MAX_MS + 1).backoffMs, BACKOFF_INITIAL_MS);
});

test('a container without a script runs on in a pod that restarts always', () => {
  const p = pod(undefined, [running('app')]);
  const r = step(p, T0 + 3_600_000, {});
  assert.equal(r.changed, false);
  assert.equal(r.phase, undefined);
  assert.equal(r.wakeClock ?? r.wakeWall, undefined);
});

test('a scripted exit waits for its time on the server clock, then the container restarts at once the first time', () => {
  const p = pod('Always', [running('app')]);
  const scripts = { app: { exitCode: 1, afterMs: 5000 } };
  const starts = new Map([['app', { clock: T0, wall: 0 }]]);
  const early = step(p, T0 + 4000, scripts, { starts });
  assert.deepEqual([early.changed, early.wakeClock], [false, T0 + 5000]);
  const r = step(p, T0 + 5000, scripts, { starts });
  assert.equal(r.changed, true);
  assert.deepEqual(r.restarted, ['app']);
  assert.deepEqual(r.containerStatuses[0], {
    name: 'app',
    state: { running: { startedAt: iso(T0 + 5000) } },
    lastState: { terminated: { exitCode: 1, reason: 'Error', startedAt: iso(T0), finishedAt: iso(T0 + 5000), containerID: 'capstan://u1-app' } },
    ready: true,
    restartCount: 1,
    containerID: 'capstan://u1-app-1',
    started: true,
  });
  assert.deepEqual(r.backoffs, [['app', { backoffMs: 10_000, lastUpdate: T0 + 5000 }]]);
  assert.deepEqual(r.starts, [['app', { clock: T0 + 5000, wall: T0 + 5000 }]]);
});

test('the next exit waits in CrashLoopBackOff with the kubelet message and a BackOff event, then restarts', () => {
  const first = running('app', iso(T0 + 5000), 1);
  first.lastState = { terminated: { exitCode: 1, reason: 'Error', startedAt: iso(T0), finishedAt: iso(T0 + 5000), containerID: 'capstan://u1-app' } };
  const p = pod('Always', [first]);
  const scripts = { app: { exitCode: 1, afterMs: 5000 } };
  const backoffs = new Map([['app', { backoffMs: 10_000, lastUpdate: T0 + 5000 }]]);
  const r = step(p, T0 + 10_000, scripts, { starts: new Map([['app', { clock: T0 + 5000, wall: 0 }]]), backoffs });
  assert.deepEqual(r.containerStatuses[0]!.state, { waiting: { reason: 'CrashLoopBackOff', message: 'back-off 10s restarting failed container=app pod=web_default(u1)' } });
  assert.deepEqual([r.containerStatuses[0]!.ready, r.containerStatuses[0]!.restartCount, r.containerStatuses[0]!.lastState.terminated.finishedAt], [false, 1, iso(T0 + 10_000)]);
  assert.deepEqual(r.events, [{ type: 'Warning', reason: 'BackOff', message: 'Back-off restarting failed container app in pod web_default(u1)', container: 'app' }]);
  assert.equal(r.wakeClock, T0 + 20_000);
  assert.deepEqual(r.restarted, []);

  const waiting = pod('Always', r.containerStatuses);
  const ends = new Map([['app', T0 + 10_000]]);
  const still = step(waiting, T0 + 19_999, scripts, { ends, backoffs });
  assert.deepEqual([still.changed, still.wakeClock], [false, T0 + 20_000]);
  const again = step(waiting, T0 + 20_000, scripts, { ends, backoffs });
  assert.deepEqual(again.restarted, ['app']);
  assert.deepEqual([again.containerStatuses[0]!.restartCount, again.containerStatuses[0]!.containerID, again.containerStatuses[0]!.lastState.terminated.finishedAt], [2, 'capstan://u1-app-2', iso(T0 + 10_000)]);
  assert.deepEqual(again.backoffs, [['app', { backoffMs: 20_000, lastUpdate: T0 + 10_000 }]]);
});

test('OnFailure: a zero exit ends the container, a failing one restarts; Never ends it either way', () => {
  const zero = step(pod('OnFailure', [running('a')]), T0 + 1000, { a: { afterMs: 1000 } }, { starts: new Map([['a', { clock: T0, wall: 0 }]]) });
  assert.deepEqual([zero.phase, zero.containerStatuses[0]!.state.terminated.reason, zero.restarted], ['Succeeded', 'Completed', []]);
  const failing = step(pod('OnFailure', [running('a')]), T0 + 1000, { a: { afterMs: 1000, exitCode: 137, reason: 'OOMKilled' } }, { starts: new Map([['a', { clock: T0, wall: 0 }]]) });
  assert.deepEqual([failing.phase, failing.restarted, failing.containerStatuses[0]!.lastState.terminated.reason], [undefined, ['a'], 'OOMKilled']);
  // Never: one container failed and one still running: the pod runs on; once both are done it failed.
  const p = pod('Never', [running('a'), running('b')]);
  const scripts = { a: { exitCode: 2, afterMs: 1000 }, b: { afterMs: 4000 } };
  const starts = new Map([['a', { clock: T0, wall: 0 }], ['b', { clock: T0, wall: 0 }]]);
  const half = step(p, T0 + 1000, scripts, { starts });
  assert.deepEqual([half.phase, half.containerStatuses.map((s) => Object.keys(s.state)[0]), half.wakeClock], [undefined, ['terminated', 'running'], T0 + 4000]);
  const done = step(pod('Never', half.containerStatuses), T0 + 4000, scripts, { starts });
  assert.deepEqual([done.phase, done.containerStatuses.map((s) => s.state.terminated.exitCode)], ['Failed', [2, 0]]);
});

test('a pod that runs to completion without a script exits 0 after the default run, on the wall clock', () => {
  const p = pod('Never', [running('a'), running('b')]);
  const starts = new Map([['a', { clock: T0, wall: 1000 }], ['b', { clock: T0, wall: 1000 }]]);
  const early = step(p, T0, {}, { starts }, 1200);
  assert.deepEqual([early.changed, early.wakeWall, early.wakeClock], [false, 1300, undefined]);
  const r = step(p, T0, {}, { starts }, 1300);
  assert.equal(r.phase, 'Succeeded');
  assert.deepEqual(r.containerStatuses.map((s) => [s.state.terminated.exitCode, s.state.terminated.reason, s.ready, s.started]), [[0, 'Completed', false, false], [0, 'Completed', false, false]]);
});

test("unreadyMessage: kube's ContainersNotReady message, sidecars first, unknown containers apart", () => {
  const p = {
    metadata: { name: 'p' },
    spec: { initContainers: [{ name: 'init' }, { name: 'proxy', restartPolicy: 'Always' }], containers: [{ name: 'a' }, { name: 'b' }, { name: 'c' }] },
  } as KubeObject;
  assert.equal(unreadyMessage(p, [{ name: 'a', ready: true }, { name: 'b', ready: false }], [{ name: 'proxy', ready: false }]), 'containers with unknown status: [c], containers with unready status: [proxy b]');
  assert.equal(unreadyMessage(p, [{ name: 'a', ready: true }, { name: 'b', ready: true }, { name: 'c', ready: true }], [{ name: 'proxy', ready: true }]), undefined);
});

test('probes: a startup probe holds started, a readiness probe holds ready for its delay from the start, and a script fails it', () => {
  const c = { name: 'app', startupProbe: { initialDelaySeconds: 5 }, readinessProbe: { initialDelaySeconds: 8, httpGet: { port: 80 } } };
  assert.deepEqual(probed(c, T0, T0, {}), { started: false, ready: false, wake: T0 + 5000 });
  assert.deepEqual(probed(c, T0, T0 + 5000, {}), { started: true, ready: false, wake: T0 + 8000 });
  assert.deepEqual(probed(c, T0, T0 + 8000, {}), { started: true, ready: true });
  assert.deepEqual(probed(c, T0, T0 + 8000, { ready: false }), { started: true, ready: false });
  // The readiness delay counts from the start, but readiness waits for the startup probe.
  assert.deepEqual(probed({ startupProbe: { initialDelaySeconds: 10 }, readinessProbe: { initialDelaySeconds: 3 } }, T0, T0 + 3000, {}), { started: false, ready: false, wake: T0 + 10_000 });
  // Without a readiness probe nothing can fail it.
  assert.deepEqual(probed({ name: 'plain' }, T0, T0, { ready: false }), { started: true, ready: true });
});

test("probeFailure: the output the kubelet's Unhealthy event reports, by probe kind", () => {
  const p = { metadata: { name: 'p' }, status: { podIP: '10.244.0.7' } } as KubeObject;
  assert.equal(probeFailure(p, { readinessProbe: { httpGet: { path: '/healthz', port: 8080 } } }, 'readinessProbe', {}), 'HTTP probe failed with statuscode: 503');
  assert.equal(probeFailure(p, { ports: [{ name: 'db', containerPort: 5432 }], livenessProbe: { tcpSocket: { port: 'db' } } }, 'livenessProbe', {}), 'dial tcp 10.244.0.7:5432: connect: connection refused');
  assert.equal(probeFailure(p, { startupProbe: { grpc: { port: 9000 } } }, 'startupProbe', {}), 'service unhealthy (responded with "NOT_SERVING")');
  // An exec probe reports what its command printed.
  const script = { exec: [{ command: ['pg_isready'], stdout: 'localhost:5432 - no response\n', exitCode: 2 }] };
  assert.equal(probeFailure(p, { readinessProbe: { exec: { command: ['pg_isready', '-q'] } } }, 'readinessProbe', script), 'localhost:5432 - no response\n');
  assert.equal(probeFailure(p, { readinessProbe: { exec: { command: ['false'] } } }, 'readinessProbe', {}), '');
});

test("an exec probe runs its command against the script's exec answers: a non-zero exit fails it", () => {
  const c = { name: 'db', readinessProbe: { exec: { command: ['pg_isready'] } }, livenessProbe: { exec: { command: ['cat', '/tmp/healthy'] }, periodSeconds: 1, failureThreshold: 1 } };
  assert.deepEqual(probed(c, T0, T0, {}), { started: true, ready: true });
  assert.equal(probesScripted(c, {}), false);
  const unready = { exec: [{ command: ['pg_isready'], exitCode: 2 }] };
  assert.deepEqual(probed(c, T0, T0, unready), { started: true, ready: false });
  assert.equal(probesScripted(c, unready), true);
  assert.equal(probesScripted({ name: 'plain' }, unready), false);
  // Every command answered non-zero: both fail.
  assert.deepEqual(probed(c, T0, T0 + 5000, { exec: [{ exitCode: 1 }] }), { started: true, ready: false, kill: { probe: 'Liveness', at: T0 } });
  // The last matching answer wins: a later answer of 0 for the liveness command keeps it alive.
  assert.deepEqual(probed(c, T0, T0 + 5000, { exec: [{ exitCode: 1 }, { command: ['cat'], exitCode: 0 }] }), { started: true, ready: false });
});

test('a running container becomes ready when its readiness delay has passed, and unready with an Unhealthy event when a script fails it', () => {
  const probedPod = (statuses: Obj[]) => {
    const p = pod('Always', statuses);
    (p.spec as Obj).containers[0].readinessProbe = { initialDelaySeconds: 10, httpGet: { port: 80 } };
    return p;
  };
  const p = probedPod([{ ...running('app'), ready: false }]);
  const starts = new Map([['app', { clock: T0, wall: 0 }]]);
  const early = step(p, T0 + 9000, {}, { starts });
  assert.deepEqual([early.changed, early.wakeClock], [false, T0 + 10_000]);
  const ready = step(p, T0 + 10_000, {}, { starts });
  assert.deepEqual([ready.changed, ready.containerStatuses[0]!.ready, ready.events], [true, true, []]);
  const failing = step(probedPod(ready.containerStatuses), T0 + 20_000, { app: { ready: false } }, { starts });
  assert.equal(failing.containerStatuses[0]!.ready, false);
  assert.deepEqual(failing.events.map((e) => [e.type, e.reason]), [['Warning', 'Unhealthy']]);
});

test('a failing liveness probe kills after failureThreshold runs periodSeconds apart, counted once the startup probe passed', () => {
  const c = { name: 'app', startupProbe: { initialDelaySeconds: 5 }, livenessProbe: { initialDelaySeconds: 2, periodSeconds: 4, failureThreshold: 3 } };
  // Started at 5 s (past the liveness delay), failing at 5, 9 and 13 s: killed at 13 s.
  assert.deepEqual(probed(c, T0, T0 + 6000, { live: false }), { started: true, ready: true, wake: T0 + 13_000, kill: { probe: 'Liveness', at: T0 + 13_000 } });
  assert.deepEqual(probed(c, T0, T0 + 6000, {}), { started: true, ready: true });
  // kube's defaults: 3 failures 10 s apart.
  assert.deepEqual(probed({ livenessProbe: { exec: { command: ['true'] } } }, T0, T0, { live: false }).kill, { probe: 'Liveness', at: T0 + 20_000 });
  // A failing startup probe: never started nor ready; killed after its own failures; liveness is not run.
  assert.deepEqual(probed({ ...c, startupProbe: { periodSeconds: 1, failureThreshold: 30 } }, T0, T0, { started: false, live: false }), { started: false, ready: false, wake: T0 + 29_000, kill: { probe: 'Startup', at: T0 + 29_000 } });
  // Without the probe, nothing fails.
  assert.deepEqual(probed({ name: 'plain' }, T0, T0, { live: false, started: false }), { started: true, ready: true });
});

test("a liveness kill: Unhealthy and Killing events, exit 137 kept as the last state, restarted at once, then after the backoff counted from the kill before", () => {
  const livePod = (statuses: Obj[], restartPolicy = 'Always') => {
    const p = pod(restartPolicy, statuses);
    (p.spec as Obj).containers[0].livenessProbe = { periodSeconds: 1, failureThreshold: 2, httpGet: { path: '/healthz', port: 8080 } };
    return p;
  };
  const starts = new Map([['app', { clock: T0, wall: 0 }]]);
  const early = step(livePod([running('app')]), T0 + 500, { app: { live: false } }, { starts });
  assert.deepEqual([early.changed, early.wakeClock], [false, T0 + 1000]);
  const killed = step(livePod([running('app')]), T0 + 1000, { app: { live: false } }, { starts });
  assert.deepEqual(killed.events.map((e) => [e.type, e.reason, e.message]), [
    ['Warning', 'Unhealthy', 'Liveness probe failed: HTTP probe failed with statuscode: 503'],
    ['Normal', 'Killing', 'Container app failed liveness probe, will be restarted'],
  ]);
  const s = killed.containerStatuses[0]!;
  assert.deepEqual([s.restartCount, s.lastState.terminated.exitCode, s.lastState.terminated.reason, s.lastState.terminated.finishedAt, killed.restarted], [1, 137, 'Error', iso(T0 + 1000), ['app']]);
  // The next kill, 1 s into the new run, is within the 10 s backoff of the kill before: CrashLoopBackOff.
  const again = step(livePod(killed.containerStatuses), T0 + 2000, { app: { live: false } }, { starts: new Map(killed.starts), ends: new Map(killed.ends), backoffs: new Map(killed.backoffs) });
  assert.deepEqual(again.containerStatuses[0]!.state.waiting.reason, 'CrashLoopBackOff');
  assert.deepEqual(again.events.map((e) => e.reason), ['Unhealthy', 'Killing', 'BackOff']);
  // Long after the kill before, it restarts at once again.
  const later = step(livePod(killed.containerStatuses), T0 + 60_000, { app: { live: false } }, { starts: new Map([['app', { clock: T0 + 59_000, wall: 0 }]]), ends: new Map(killed.ends), backoffs: new Map(killed.backoffs) });
  assert.deepEqual([later.containerStatuses[0]!.restartCount, later.restarted], [2, ['app']]);
  // With restartPolicy Never the container stays terminated and the pod fails.
  const never = step(livePod([running('app')], 'Never'), T0 + 1000, { app: { live: false } }, { starts });
  assert.deepEqual([never.events[1]!.message, never.containerStatuses[0]!.state.terminated.exitCode, never.phase], ['Container app failed liveness probe', 137, 'Failed']);
  // A scripted exit due before the kill comes first.
  const exits = step(livePod([running('app')]), T0 + 1000, { app: { live: false, exitCode: 3, afterMs: 800 } }, { starts });
  assert.deepEqual([exits.events.map((e) => e.reason), exits.containerStatuses[0]!.lastState.terminated.exitCode], [[], 3]);
});

test('a probe a script fails is reported once per failed run, periodSeconds apart; a clock moved far on counts once; passing again forgets it', () => {
  const p = pod('Always', [{ ...running('app'), ready: false }]);
  (p.spec as Obj).containers[0].readinessProbe = { periodSeconds: 5, exec: { command: ['check'] } };
  const starts = new Map([['app', { clock: T0, wall: 0 }]]);
  const key = reportKey('app', 'readinessProbe');
  const at = (now: number, reports: Map<string, number>, script: ContainerScript = { ready: false }) => step(p, now, { app: script }, { starts, reports });
  const first = at(T0, new Map());
  assert.deepEqual([first.events.map((e) => e.message), first.reports, first.wakeClock], [['Readiness probe failed: '], [[key, T0 + 5000]], T0 + 5000]);
  const between = at(T0 + 2000, new Map([[key, T0 + 5000]]));
  assert.deepEqual([between.events, between.reports, between.wakeClock], [[], [], T0 + 5000]);
  const second = at(T0 + 5000, new Map([[key, T0 + 5000]]));
  assert.deepEqual([second.events.length, second.reports], [1, [[key, T0 + 10_000]]]);
  const jumped = at(T0 + 61_000, new Map([[key, T0 + 10_000]]));
  assert.deepEqual([jumped.events.length, jumped.reports], [1, [[key, T0 + 65_000]]]);
  const passing = at(T0 + 70_000, new Map([[key, T0 + 65_000]]), {});
  assert.deepEqual([passing.events, passing.reports], [[], [[key, undefined]]]);
  // A probe the network prober runs is reported by it.
  assert.deepEqual(at(T0, new Map(), { ready: false, networkProbed: ['readinessProbe'] } as ContainerScript).events, []);
});
