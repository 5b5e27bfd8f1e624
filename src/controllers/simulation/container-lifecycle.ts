// One step of a running pod's regular containers as a kubelet takes it (the kubelet steps a started init container,
// and the sidecars, the same way, as the only containers of the pod): a container whose run is over exits (its
// script's exit code and reason), and is then left terminated or started again as the pod's restartPolicy says
// (Always: on any exit; OnFailure: on a non-zero one; Never: not), the second and later restarts after the kubelet's
// crash loop backoff (10 s doubling to 5 min, waiting in CrashLoopBackOff meanwhile, forgotten after 10 min of quiet).
// A running container is started and ready as its probes say: a startup probe holds `started` for its
// initialDelaySeconds, a readiness probe holds `ready` for its own (counted from the container's start) and while the
// script fails it; the probes themselves pass at once otherwise (those to a port mapped to a test's server run for
// real, their results given as the script: network-prober.ts). A failing liveness or startup probe (the script's
// `live` or `started` false) gets the container killed once it has failed failureThreshold times, periodSeconds apart:
// exit code 137 (a process that does not stop on SIGTERM; the grace period is not waited), then restarted as for an
// exit.
// Pure: the kubelet keeps the run records and applies the updates once its status write succeeds.

import { formatGoDuration } from '../../encoding/protobuf/duration.ts';
import type { KubeObject } from '../../registry/types.ts';
import { answerOf, type ContainerScript } from './container-runs.ts';
import { asObj, type Obj } from './shared.ts';

/** The kubelet's backOffPeriod and MaxContainerBackOff. */
export const BACKOFF_INITIAL_MS = 10_000;
export const BACKOFF_MAX_MS = 300_000;

/** flowcontrol.Backoff's entry for one container. */
export interface Backoff {
  readonly backoffMs: number;
  readonly lastUpdate: number;
}

/** An entry not updated for twice the maximum is forgotten (flowcontrol's hasExpired). */
const expired = (entry: Backoff, eventTime: number): boolean => eventTime - entry.lastUpdate > 2 * BACKOFF_MAX_MS;

/** Backoff.IsInBackOffSince: whether a container that exited at eventTime must still wait at `now`. */
export function inBackoffSince(entry: Backoff | undefined, eventTime: number, now: number): boolean {
  if (entry === undefined || expired(entry, eventTime)) return false;
  return now - eventTime < entry.backoffMs;
}

/** Backoff.Next: the entry after a restart for an exit at eventTime. */
export function nextBackoff(entry: Backoff | undefined, eventTime: number): Backoff {
  if (entry === undefined || expired(entry, eventTime)) return { backoffMs: BACKOFF_INITIAL_MS, lastUpdate: eventTime };
  return { backoffMs: Math.min(entry.backoffMs * 2, BACKOFF_MAX_MS), lastUpdate: eventTime };
}

/** When a container's current run started: on the server clock (scripted runs) and the wall clock (default runs). */
export interface RunStart {
  readonly clock: number;
  readonly wall: number;
}

/** What the kubelet remembers of a pod's containers, by container name. */
export interface PodRuns {
  readonly starts: ReadonlyMap<string, RunStart>;
  /** When each container's last run ended, on the server clock (its status has whole seconds only). */
  readonly ends: ReadonlyMap<string, number>;
  readonly backoffs: ReadonlyMap<string, Backoff>;
  /** When each failing probe's next failure is to be reported, by reportKey (server clock). */
  readonly reports?: ReadonlyMap<string, number>;
}

/** The key of a container's probe in PodRuns.reports. */
export const reportKey = (container: string, field: ProbeField): string => `${container}/${field}`;

export interface StepInput {
  readonly pod: KubeObject;
  /** The server clock and the wall clock, ms. */
  readonly now: number;
  readonly wallNow: number;
  /** The RFC 3339 time written for `now`. */
  readonly at: string;
  /** How long a container of a pod that runs to completion runs without a script (wall clock). */
  readonly defaultRunMs: number;
  script(container: string): ProbingScript;
  readonly runs: PodRuns;
}

export interface KubeletEvent {
  readonly type: 'Normal' | 'Warning';
  readonly reason: string;
  readonly message: string;
  readonly container: string;
}

export interface StepResult {
  /** The containers' statuses after the step (the same objects where nothing changed). */
  readonly containerStatuses: Obj[];
  /** Whether any status changed. */
  readonly changed: boolean;
  /** The containers started again: the kubelet records their start events. */
  readonly restarted: string[];
  readonly events: KubeletEvent[];
  /** Every container has terminated: the pod's phase is over. */
  readonly phase?: 'Succeeded' | 'Failed';
  /** When to look again: the earliest pending exit or restart, on the server clock and on the wall clock. */
  readonly wakeClock?: number;
  readonly wakeWall?: number;
  /** Records to keep once the status is written. */
  readonly starts: [string, RunStart][];
  readonly ends: [string, number][];
  readonly backoffs: [string, Backoff][];
  /** Failure reports to keep (undefined: forget the key). */
  readonly reports: [string, number | undefined][];
}

/** Whether the pod's containers are meant to exit (restartPolicy Never or OnFailure; kube defaults it to Always). */
export function runsToCompletion(pod: KubeObject): boolean {
  const policy = asObj(pod.spec).restartPolicy;
  return policy === 'Never' || policy === 'OnFailure';
}

/** format.Pod: name_namespace(uid). */
const podRef = (pod: KubeObject): string => `${pod.metadata.name ?? ''}_${pod.metadata.namespace ?? ''}(${pod.metadata.uid ?? ''})`;

export function containerId(pod: KubeObject, name: string, restartCount: number): string {
  return `capstan://${pod.metadata.uid}-${name}${restartCount > 0 ? `-${restartCount}` : ''}`;
}

interface Probe {
  readonly initialDelaySeconds?: number;
  readonly periodSeconds?: number;
  readonly failureThreshold?: number;
  readonly httpGet?: { port?: unknown };
  readonly tcpSocket?: { port?: unknown };
  readonly grpc?: { port?: unknown };
  readonly exec?: { command?: unknown };
}

export type ProbeField = 'startupProbe' | 'readinessProbe' | 'livenessProbe';
export const PROBE_FIELDS: readonly ProbeField[] = ['startupProbe', 'readinessProbe', 'livenessProbe'];
/** The kubelet's name of a probe in its events. */
export const PROBE_NAMES: Readonly<Record<ProbeField, string>> = { startupProbe: 'Startup', readinessProbe: 'Readiness', livenessProbe: 'Liveness' };

/** A container's script with what the probes that reach a test's server found (network-prober.ts). */
export interface ProbingScript extends ContainerScript {
  /** A startup probe that has neither passed nor failed yet: not started, not killed. */
  readonly startupPending?: boolean;
  /** The probes the network prober runs (and reports: an Unhealthy event per failure) itself. */
  readonly networkProbed?: readonly ProbeField[];
}

const probeOf = (c: Obj, kind: ProbeField): Probe | undefined => (c[kind] && typeof c[kind] === 'object' ? (c[kind] as Probe) : undefined);
const delayMs = (p: Probe | undefined): number => (typeof p?.initialDelaySeconds === 'number' ? p.initialDelaySeconds * 1000 : 0);
/** From a failing probe's first run to its failureThreshold-th (kube's defaults: 3, every 10 s). */
const failingMs = (p: Probe): number => ((p.failureThreshold ?? 3) - 1) * (p.periodSeconds ?? 10) * 1000;

/** A probe whose failures get the container killed, and when. */
export interface ProbeKill {
  readonly probe: 'Liveness' | 'Startup';
  readonly at: number;
}

/** What the prober says of a container running since `start` (server clock), and when that changes next. */
export interface Probed {
  readonly started: boolean;
  readonly ready: boolean;
  readonly wake?: number;
  readonly kill?: ProbeKill;
}

const execCommand = (p: Probe): string[] | undefined => (Array.isArray(p.exec?.command) ? (p.exec.command as unknown[]).map(String) : undefined);

/** Whether the probe fails: the script says so, or it runs a command (an exec probe) that the script answers non-zero. */
function fails(probe: Probe | undefined, said: boolean | undefined, script: ContainerScript): probe is Probe {
  if (probe === undefined) return false;
  if (said === false) return true;
  const command = execCommand(probe);
  return command !== undefined && script.exec !== undefined && answerOf(script, command).exitCode !== 0;
}

/** Whether the script can make one of the container's probes fail (the kubelet then looks at it again as time passes). */
export function probesScripted(container: Obj, script: ContainerScript): boolean {
  if (script.ready !== undefined || script.live !== undefined || script.started !== undefined) return true;
  return script.exec !== undefined && PROBE_FIELDS.some((k) => execCommand(probeOf(container, k) ?? {}) !== undefined);
}

/**
 * When each probe of a container running since `start` first runs (once the startup probe has passed, for the
 * others; their delays count from the start), and when the ones the script fails began failing.
 */
function probeTimeline(container: Obj, start: number, script: ProbingScript) {
  const startup = probeOf(container, 'startupProbe');
  const readiness = probeOf(container, 'readinessProbe');
  const liveness = probeOf(container, 'livenessProbe');
  const startupFails = fails(startup, script.started, script);
  const startedAt = startupFails || (startup !== undefined && script.startupPending === true) ? Infinity : start + delayMs(startup);
  const readyAt = Math.max(startedAt, start + delayMs(readiness));
  const failing: Partial<Record<ProbeField, number>> = {};
  if (startupFails) failing.startupProbe = start + delayMs(startup);
  if (fails(liveness, script.live, script) && startedAt !== Infinity) failing.livenessProbe = Math.max(startedAt, start + delayMs(liveness));
  if (fails(readiness, script.ready, script) && startedAt !== Infinity) failing.readinessProbe = readyAt;
  return { startup, readiness, liveness, startupFails, startedAt, readyAt, failing };
}

export function probed(container: Obj, start: number, now: number, script: ProbingScript): Probed {
  const { startup, readiness, liveness, startupFails, startedAt, readyAt } = probeTimeline(container, start, script);
  let kill: ProbeKill | undefined;
  if (startupFails) kill = { probe: 'Startup', at: start + delayMs(startup) + failingMs(startup!) };
  else if (fails(liveness, script.live, script)) kill = { probe: 'Liveness', at: Math.max(startedAt, start + delayMs(liveness)) + failingMs(liveness) };
  const started = now >= startedAt;
  const ready = now >= readyAt && !fails(readiness, script.ready, script);
  const next = [startedAt, readyAt, kill?.at ?? Infinity].filter((t) => t > now);
  const wake = next.length > 0 ? Math.min(...next) : Infinity;
  return { started, ready, ...(wake !== Infinity ? { wake } : {}), ...(kill ? { kill } : {}) };
}

/**
 * The output a failing probe reports (the kubelet's Unhealthy event: "Readiness probe failed: <output>"); an exec
 * probe's is what its command printed.
 */
export function probeFailure(pod: KubeObject, container: Obj, kind: ProbeField, script: ProbingScript): string {
  const probe = probeOf(container, kind);
  const command = probe && execCommand(probe);
  if (command) {
    const answer = answerOf(script, command);
    return answer.stdout + answer.stderr;
  }
  const ports = ((container.ports as unknown[] | undefined) ?? []).map(asObj);
  const portOf = (port: unknown) => (typeof port === 'string' ? (ports.find((p) => p.name === port)?.containerPort ?? port) : port);
  const ip = String(asObj(pod.status).podIP ?? '');
  if (probe?.httpGet) return 'HTTP probe failed with statuscode: 503';
  if (probe?.tcpSocket) return `dial tcp ${ip}:${String(portOf(probe.tcpSocket.port))}: connect: connection refused`;
  if (probe?.grpc) return 'service unhealthy (responded with "NOT_SERVING")';
  return '';
}

export function stepContainers(input: StepInput): StepResult {
  const { pod, now, wallNow, at, runs } = input;
  const policy = String(asObj(pod.spec).restartPolicy ?? 'Always');
  const completes = runsToCompletion(pod);
  const statuses = ((asObj(pod.status).containerStatuses as unknown[] | undefined) ?? []).map(asObj);
  const out: Obj[] = [];
  const restarted: string[] = [];
  const events: KubeletEvent[] = [];
  const starts: [string, RunStart][] = [];
  const ends: [string, number][] = [];
  const backoffs: [string, Backoff][] = [];
  const reports: [string, number | undefined][] = [];
  let changed = false;
  let wakeClock: number | undefined;
  let wakeWall: number | undefined;
  const wakeOnClock = (t: number) => (wakeClock = wakeClock === undefined ? t : Math.min(wakeClock, t));
  const wakeOnWall = (t: number) => (wakeWall = wakeWall === undefined ? t : Math.min(wakeWall, t));

  /** The container started again now: running, one more restart, the exit kept as its last state. */
  const restart = (s: Obj, name: string, lastState: Obj, exitedAt: number): Obj => {
    const restartCount = (typeof s.restartCount === 'number' ? s.restartCount : 0) + 1;
    backoffs.push([name, nextBackoff(runs.backoffs.get(name), exitedAt)]);
    starts.push([name, { clock: now, wall: wallNow }]);
    restarted.push(name);
    const p = probed(specOf(name), now, now, input.script(name));
    if (p.wake !== undefined) wakeOnClock(p.wake);
    return { ...s, state: { running: { startedAt: at } }, lastState, ready: p.ready, restartCount, containerID: containerId(pod, name, restartCount), started: p.started };
  };

  const specs = ((asObj(pod.spec).containers as unknown[] | undefined) ?? []).map(asObj);
  const specOf = (name: string): Obj => specs.find((c) => c.name === name) ?? {};
  /**
   * The kubelet's prober records an Unhealthy event for each failed run of a probe, periodSeconds apart. For the
   * probes the script fails, each step that finds a run due records one (a clock moved far on counts once), and the
   * pod is looked at again when the next is due; the network prober records its own probes' failures.
   */
  const reportFailures = (name: string, start: number, script: ProbingScript): void => {
    const spec = specOf(name);
    const { failing } = probeTimeline(spec, start, script);
    for (const field of PROBE_FIELDS) {
      const key = reportKey(name, field);
      const from = script.networkProbed?.includes(field) ? undefined : failing[field];
      if (from === undefined) {
        if (runs.reports?.has(key)) reports.push([key, undefined]);
        continue;
      }
      const due = runs.reports?.get(key) ?? from;
      if (now < due) {
        wakeOnClock(due);
        continue;
      }
      const period = (probeOf(spec, field)?.periodSeconds ?? 10) * 1000;
      const next = due + period * (Math.floor((now - due) / period) + 1);
      events.push({ type: 'Warning', reason: 'Unhealthy', message: `${PROBE_NAMES[field]} probe failed: ${probeFailure(pod, spec, field, script)}`, container: name });
      reports.push([key, next]);
      wakeOnClock(next);
    }
  };
  /** A new run's probes report afresh. */
  const forgetReports = (name: string): void => {
    for (const field of PROBE_FIELDS) if (runs.reports?.has(reportKey(name, field))) reports.push([reportKey(name, field), undefined]);
  };
  /** The running container as its probes have it now. */
  const probing = (s: Obj, name: string, start: number, script: ProbingScript): Obj => {
    const p = probed(specOf(name), start, now, script);
    if (p.wake !== undefined) wakeOnClock(p.wake);
    reportFailures(name, start, script);
    if (s.ready === p.ready && s.started === p.started) return s;
    changed = true;
    return { ...s, ready: p.ready, started: p.started };
  };

  /**
   * The container's run ended now: left terminated, or restarted as the restartPolicy says, at once or after its
   * backoff counted from `backoffSince` (this exit; for a kill, the exit before it, as the kubelet restarts a killed
   * container in the same sync that kills it).
   */
  const end = (s: Obj, name: string, exitCode: number, reason: string, backoffSince: number): Obj => {
    const terminated = { exitCode, reason, startedAt: asObj(asObj(s.state).running).startedAt, finishedAt: at, containerID: s.containerID };
    changed = true;
    ends.push([name, now]);
    forgetReports(name);
    if (!(policy === 'Always' || (policy === 'OnFailure' && exitCode !== 0))) return { ...s, state: { terminated }, ready: false, started: false };
    const entry = runs.backoffs.get(name);
    if (!inBackoffSince(entry, backoffSince, now)) return restart(s, name, { terminated }, now);
    events.push({ type: 'Warning', reason: 'BackOff', message: `Back-off restarting failed container ${name} in pod ${podRef(pod)}`, container: name });
    wakeOnClock(now + entry!.backoffMs);
    return { ...s, state: { waiting: crashLoop(entry!, name, pod) }, lastState: { terminated }, ready: false, started: false };
  };

  for (const s of statuses) {
    const name = String(s.name ?? '');
    const state = asObj(s.state);
    if (state.running) {
      const script = input.script(name);
      const started = runs.starts.get(name) ?? { clock: Date.parse(String(asObj(state.running).startedAt ?? at)), wall: wallNow };
      const exitAt = script.afterMs !== undefined ? started.clock + script.afterMs : undefined;
      const { kill } = probed(specOf(name), started.clock, now, script);
      if (kill && now >= kill.at && !(exitAt !== undefined && exitAt <= kill.at)) {
        const restarts = policy !== 'Never';
        // The failed run that kills it is reported first.
        reportFailures(name, started.clock, script);
        events.push({ type: 'Normal', reason: 'Killing', message: `Container ${name} failed ${kill.probe.toLowerCase()} probe${restarts ? ', will be restarted' : ''}`, container: name });
        out.push(end(s, name, 137, 'Error', runs.ends.get(name) ?? now));
        continue;
      }
      if (script.exitCode === undefined && script.afterMs === undefined && !completes) {
        out.push(probing(s, name, started.clock, script));
        continue;
      }
      if (exitAt !== undefined ? now < exitAt : wallNow < started.wall + input.defaultRunMs) {
        if (exitAt !== undefined) wakeOnClock(exitAt);
        else wakeOnWall(started.wall + input.defaultRunMs);
        out.push(probing(s, name, started.clock, script));
        continue;
      }
      const exitCode = script.exitCode ?? 0;
      out.push(end(s, name, exitCode, script.reason ?? (exitCode === 0 ? 'Completed' : 'Error'), now));
      continue;
    }
    const waiting = asObj(state.waiting);
    if (waiting.reason === 'CrashLoopBackOff') {
      const lastExit = runs.ends.get(name) ?? Date.parse(String(asObj(asObj(s.lastState).terminated).finishedAt ?? at));
      const entry = runs.backoffs.get(name);
      if (inBackoffSince(entry, lastExit, now)) {
        wakeOnClock(lastExit + entry!.backoffMs);
        out.push(s);
        continue;
      }
      changed = true;
      out.push(restart(s, name, asObj(s.lastState), lastExit));
      continue;
    }
    out.push(s);
  }
  const over = out.length > 0 && out.every((s) => asObj(s.state).terminated);
  const phase = over ? (out.every((s) => asObj(asObj(s.state).terminated).exitCode === 0) ? 'Succeeded' : 'Failed') : undefined;
  return { containerStatuses: out, changed, restarted, events, phase, wakeClock, wakeWall, starts, ends, backoffs, reports };
}

/** The waiting state of a container in its crash loop backoff, with the kubelet's message. */
function crashLoop(entry: Backoff, name: string, pod: KubeObject): Obj {
  return { reason: 'CrashLoopBackOff', message: `back-off ${formatGoDuration(entry.backoffMs * 1e6)} restarting failed container=${name} pod=${podRef(pod)}` };
}

/**
 * GenerateContainersReadyCondition for a running pod: the containers (sidecars first) not ready, in kube's message;
 * undefined when all are.
 */
export function unreadyMessage(pod: KubeObject, containerStatuses: readonly Obj[], initStatuses: readonly Obj[]): string | undefined {
  const sidecars = ((asObj(pod.spec).initContainers as unknown[] | undefined) ?? []).map(asObj).filter((c) => c.restartPolicy === 'Always');
  const find = (list: readonly Obj[], name: unknown) => list.find((s) => s.name === name);
  const unknown: string[] = [];
  const unready: string[] = [];
  const look = (list: readonly Obj[], name: unknown) => {
    const s = find(list, name);
    if (!s) unknown.push(String(name));
    else if (s.ready !== true) unready.push(String(name));
  };
  for (const c of sidecars) look(initStatuses, c.name);
  for (const c of ((asObj(pod.spec).containers as unknown[] | undefined) ?? []).map(asObj)) look(containerStatuses, c.name);
  const parts: string[] = [];
  if (unknown.length > 0) parts.push(`containers with unknown status: [${unknown.join(' ')}]`);
  if (unready.length > 0) parts.push(`containers with unready status: [${unready.join(' ')}]`);
  return parts.length > 0 ? parts.join(', ') : undefined;
}
