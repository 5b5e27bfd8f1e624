// Simulated kubelets (kwok-style pod stages): a pod bound to a simulated node starts after a delay (Running,
// Ready, an IP from its node's pod CIDR, running container statuses); a pod that runs to completion (restartPolicy
// Never or OnFailure: a Job's pods, `kubectl run --restart=Never`, helm's test hooks) then completes (Succeeded,
// containers terminated with exit code 0), as its command would with nothing to fail on. The containers test control
// scripts other runs (container-runs.ts): exits with other codes, after a set time, restarted as the restartPolicy
// says with the kubelet's crash loop backoff (container-lifecycle.ts), and what they print. A pod marked for deletion
// is gone shortly after (its containers stop at once on SIGTERM, as most do), where without simulated kubelets
// pod-termination.ts waits out its grace period.

import { clockDate, clockNow, onClockChange } from '../../apis/clock.ts';
import { jsonEqual, rfc3339 } from '../../registry/store-codec.ts';
import type { KubeObject } from '../../registry/types.ts';
import { createKeyedQueue } from '../work-queue.ts';
import { containerId, probed, probesScripted, runsToCompletion, stepContainers, unreadyMessage, type Backoff, type KubeletEvent, type ProbingScript, type RunStart, type StepResult } from './container-lifecycle.ts';
import { createNetworkProber } from './network-prober.ts';
import type { ContainerRuns } from './container-runs.ts';
import type { EventRecorder, EventSink } from '../events.ts';
import type { Informers } from '../informers.ts';
import { loopbackContext } from '../../registry/loopback-context.ts';
import { containerBlockers, startBlocker, type ReferenceReader, type StartBlocker } from './pod-references.ts';
import { pullStep } from './image-pulls.ts';
import { asObj, ignoreConflictOrGone, key, kubeletEvents, PODS, podReady, splitKey, type Obj, WRITERS } from './shared.ts';

export interface KubeletOptions {
  /** The simulated nodes' names (pods bound elsewhere are left alone). */
  readonly nodes: readonly string[];
  /** Delay from binding to Running and Ready (default 100 ms). */
  readonly podStartupMs?: number;
  /** How long a pod that runs to completion (a Job's, any with restartPolicy Never or OnFailure) runs before it succeeds (default 300 ms). */
  readonly jobPodRunMs?: number;
  /** Delay from a pod's graceful deletion to its removal (default 100 ms). */
  readonly podTerminationMs?: number;
  /** Whether a node's kubelet runs (a stopped one leaves its pods as they are). Default: all run. */
  readonly running?: (node: string) => boolean;
  /** How the containers run, as the tests script it (default: no scripts). */
  readonly runs?: ContainerRuns;
}

export interface Kubelets {
  /** A kubelet started again looks at every pod bound to its node. */
  resync(node: string): void;
  stop(): Promise<void>;
}

function condition(type: string, status: string, at: string, reason?: string, message?: string) {
  return { type, status, lastProbeTime: null, lastTransitionTime: at, ...(reason ? { reason } : {}), ...(message ? { message } : {}) };
}

const DEADLINE_MESSAGE = 'Pod was active on the node longer than the specified deadline';
/** How often, at most, a pod that cannot start yet (a missing ConfigMap or Secret) is looked at again. */
const BLOCKED_RETRY_MS = 1000;
/** The volume manager's retries of a failed mount (nestedpendingoperations): 500 ms, doubling to 2m2s. */
const MOUNT_RETRY_INITIAL_MS = 500;
const MOUNT_RETRY_MAX_MS = 122_000;
/** The pod worker's retry of a pod whose container cannot be made (its backOffPeriod). */
const SYNC_RETRY_MS = 10_000;

/** Whether any of the pod's containers has run (past the point where a missing reference holds it). */
function anyStarted(pod: KubeObject): boolean {
  const status = asObj(pod.status);
  return [...((status.initContainerStatuses as unknown[] | undefined) ?? []), ...((status.containerStatuses as unknown[] | undefined) ?? [])].some((s) => {
    const state = asObj(asObj(s).state);
    return state.running !== undefined || state.terminated !== undefined;
  });
}

/** When a started pod's spec.activeDeadlineSeconds runs out (from its status.startTime), on the server clock. */
function deadlineOf(pod: KubeObject): number | undefined {
  const seconds = asObj(pod.spec).activeDeadlineSeconds;
  const start = Date.parse(String(asObj(pod.status).startTime ?? ''));
  return typeof seconds === 'number' && !Number.isNaN(start) ? start + seconds * 1000 : undefined;
}

const pastDeadline = (pod: KubeObject): boolean => {
  const deadline = deadlineOf(pod);
  return deadline !== undefined && clockNow() >= deadline;
};

/** The conditions the kubelet owns (PodConditionByKubelet): the others are kept, ahead of them, as its status manager merges. */
const KUBELET_CONDITIONS = new Set(['PodReadyToStartContainers', 'Initialized', 'Ready', 'ContainersReady', 'PodScheduled']);

/** What kube's status manager reports for a container it never saw stop when it terminates a pod. */
const UNLOCATED_CONTAINER: Readonly<Obj> = { exitCode: 137, reason: 'ContainerStatusUnknown', message: 'The container could not be located when the pod was terminated' };

const conditionsOf = (pod: KubeObject): Obj[] => ((asObj(pod.status).conditions as unknown[] | undefined) ?? []).map(asObj);

/**
 * GeneratePodReadyCondition for a pod whose containers are ready: True, unless one of its readiness gates' conditions
 * is missing or not True (ReadinessGatesNotReady, with kube's message for each).
 */
function readyFromGates(pod: KubeObject, conditions: readonly Obj[], at: string): Obj {
  const unready: string[] = [];
  for (const gate of ((asObj(pod.spec).readinessGates as unknown[] | undefined) ?? []).map(asObj)) {
    const c = conditions.find((x) => x.type === gate.conditionType);
    if (!c) unready.push(`corresponding condition of pod readiness gate "${String(gate.conditionType)}" does not exist.`);
    else if (c.status !== 'True') unready.push(`the status of pod readiness gate "${String(gate.conditionType)}" is not "True", but ${String(c.status)}`);
  }
  return unready.length > 0 ? condition('Ready', 'False', at, 'ReadinessGatesNotReady', unready.join(', ')) : condition('Ready', 'True', at);
}

/** The Ready condition the pod should have now, with its old transition time when its status did not change. */
function keepTransition(next: Obj, previous: Obj | undefined): Obj {
  return previous && previous.status === next.status ? { ...next, lastTransitionTime: previous.lastTransitionTime } : next;
}

/** GenerateContainersReadyCondition of a running pod, from unreadyMessage. */
function containersReadyCondition(unready: string | undefined, at: string): Obj {
  return unready === undefined ? condition('ContainersReady', 'True', at) : condition('ContainersReady', 'False', at, 'ContainersNotReady', unready);
}

/** The pod's Ready condition from its containers' readiness (as ContainersReady) and its readiness gates. */
function readyCondition(pod: KubeObject, conditions: readonly Obj[], unready: string | undefined, at: string): Obj {
  return unready === undefined ? readyFromGates(pod, conditions, at) : condition('Ready', 'False', at, 'ContainersNotReady', unready);
}

/** Whether a running pod's Ready condition no longer matches its containers and readiness gates (NeedToReconcilePodReadiness). */
function readinessStale(pod: KubeObject): boolean {
  const conditions = conditionsOf(pod);
  const ready = conditions.find((c) => c.type === 'Ready');
  const containersReady = conditions.find((c) => c.type === 'ContainersReady');
  const want = containersReady?.status === 'True' ? readyFromGates(pod, conditions, '') : undefined;
  return want === undefined ? ready?.status !== containersReady?.status : ready?.status !== want.status || ready?.message !== want.message;
}

function containers(pod: KubeObject, field = 'containers'): Obj[] {
  return ((asObj(pod.spec)[field] as unknown[] | undefined) ?? []).map(asObj);
}

/** The pod's sidecars: init containers with restartPolicy Always, which start in order and then run beside the others. */
const sidecarsOf = (pod: KubeObject): Obj[] => containers(pod, 'initContainers').filter((c) => c.restartPolicy === 'Always');

/** Where a container of the pod is specified: containers, or initContainers for a sidecar. */
const specFieldOf = (pod: KubeObject, name: string): string => (containers(pod).some((c) => c.name === name) ? 'containers' : 'initContainers');

/** The ephemeral containers (kubectl debug's) the pod's status does not report yet. */
function unstartedEphemeral(pod: KubeObject): Obj[] {
  const reported = new Set(((asObj(pod.status).ephemeralContainerStatuses as unknown[] | undefined) ?? []).map((s) => asObj(s).name));
  return containers(pod, 'ephemeralContainers').filter((c) => !reported.has(c.name));
}

/**
 * The container's mounts as the kubelet reports them with RecursiveReadOnlyMounts (beta, on, in 1.31): a read-only
 * mount is recursively read-only when asked for (Enabled, or IfPossible: the simulated runtime supports it).
 */
function volumeMountStatuses(c: Obj): Obj {
  const mounts = ((c.volumeMounts as unknown[] | undefined) ?? []).map(asObj);
  if (mounts.length === 0) return {};
  return {
    volumeMounts: mounts.map((m) => ({
      name: m.name,
      mountPath: m.mountPath,
      ...(m.readOnly === true ? { readOnly: true, recursiveReadOnly: m.recursiveReadOnly === 'Enabled' || m.recursiveReadOnly === 'IfPossible' ? 'Enabled' : 'Disabled' } : {}),
    })),
  };
}

/** A container's status once started: running since `at`. */
function runningContainer(pod: KubeObject, c: Obj, at: string, ready: boolean, started = true): Obj {
  return {
    name: c.name,
    state: { running: { startedAt: at } },
    lastState: {},
    ready,
    restartCount: 0,
    image: c.image,
    imageID: `capstan-simulated://${String(c.image)}`,
    containerID: containerId(pod, String(c.name), 0),
    started,
    ...volumeMountStatuses(c),
  };
}

/** A container's status once it has run to completion (exit code 0) between `started` and `at`. */
function completedContainer(pod: KubeObject, c: Obj, started: string, at: string): Obj {
  const containerID = containerId(pod, String(c.name), 0);
  return {
    name: c.name,
    state: { terminated: { exitCode: 0, reason: 'Completed', startedAt: started, finishedAt: at, containerID } },
    lastState: {},
    ready: false,
    restartCount: 0,
    image: c.image,
    imageID: `capstan-simulated://${String(c.image)}`,
    containerID,
    started: false,
    ...volumeMountStatuses(c),
  };
}

/** A container that waits for the pod's init containers (PodInitializing). */
function pendingContainer(c: Obj): Obj {
  return { name: c.name, state: { waiting: { reason: 'PodInitializing' } }, lastState: {}, ready: false, restartCount: 0, image: c.image, imageID: '', started: false, ...volumeMountStatuses(c) };
}

/**
 * Init containers of a pod started at once: each ran to completion, but a sidecar (restartPolicy Always) keeps running,
 * as `sidecar` has it.
 */
function initContainerStatuses(pod: KubeObject, at: string, sidecar: (c: Obj) => Obj): Obj {
  const init = containers(pod, 'initContainers');
  if (init.length === 0) return {};
  return { initContainerStatuses: init.map((c) => (c.restartPolicy === 'Always' ? sidecar(c) : completedContainer(pod, c, at, at))) };
}

/** The earlier of two optional times. */
const earliest = (a: number | undefined, b: number | undefined): number | undefined => (a === undefined ? b : b === undefined ? a : Math.min(a, b));

/** Where a container's events point: spec.containers{web}, spec.initContainers{setup}, spec.ephemeralContainers{dbg}. */
const fieldPath = (field: string, c: Obj) => `spec.${field}{${String(c.name)}}`;

/** Killing for each container the kubelet stops: the running ones, regular and ephemeral, then running sidecars. */
function recordKilling(events: EventRecorder, pod: KubeObject): void {
  for (const [field, statuses] of [['containers', 'containerStatuses'], ['ephemeralContainers', 'ephemeralContainerStatuses'], ['initContainers', 'initContainerStatuses']] as const) {
    const running = new Set(((asObj(pod.status)[statuses] as unknown[] | undefined) ?? []).map(asObj).filter((c) => asObj(c.state).running).map((c) => c.name));
    for (const c of containers(pod, field)) if (running.has(c.name)) events.event(pod, 'Normal', 'Killing', `Stopping container ${String(c.name)}`, { fieldPath: fieldPath(field, c) });
  }
}

/** The kubelet's events for a container it starts: the image (pulled when its policy is Always), created, started. */
function recordStart(events: EventRecorder, pod: KubeObject, field: string, c: Obj): void {
  const at = { fieldPath: fieldPath(field, c) };
  const image = String(c.image ?? '');
  if (c.imagePullPolicy === 'Always') {
    events.event(pod, 'Normal', 'Pulling', `Pulling image "${image}"`, at);
    events.event(pod, 'Normal', 'Pulled', `Successfully pulled image "${image}" in 0s (0s including waiting). Image size: 0 bytes.`, at);
  } else events.event(pod, 'Normal', 'Pulled', `Container image "${image}" already present on machine`, at);
  events.event(pod, 'Normal', 'Created', `Created container ${String(c.name)}`, at);
  events.event(pod, 'Normal', 'Started', `Started container ${String(c.name)}`, at);
}

/** What was last reported about a blocker (an event each time it changes) and when its failure is retried. */
interface BlockerSeen {
  reported?: string;
  retry?: { at: number; delayMs: number };
}

interface BlockedPod extends BlockerSeen {
  attempts: number;
  pulls: Map<string, Backoff>;
  containers: Map<string, BlockerSeen>;
}

/** The waiting reasons of a container the kubelet could not create. */
const NOT_CREATED = new Set(['CreateContainerConfigError', 'InvalidImageName', 'ErrImagePull', 'ImagePullBackOff']);

const statusesOf = (pod: KubeObject): Obj[] => ((asObj(pod.status).containerStatuses as unknown[] | undefined) ?? []).map(asObj);

/** The regular containers that run. */
const runningNames = (pod: KubeObject): Set<string> => new Set(statusesOf(pod).filter((s) => asObj(s.state).running).map((s) => String(s.name)));

/**
 * A pod without init containers some of whose containers run while others could not be created yet (a missing
 * environment reference, an image): the kubelet started those it could, and the pod is Pending while one waits.
 */
function partlyStarted(pod: KubeObject): boolean {
  if (containers(pod, 'initContainers').length > 0) return false;
  const statuses = statusesOf(pod);
  return statuses.some((s) => asObj(s.state).running) && statuses.some((s) => NOT_CREATED.has(String(asObj(asObj(s.state).waiting).reason)));
}

function containerSeen(pod: BlockedPod, container: string): BlockerSeen {
  let seen = pod.containers.get(container);
  if (!seen) pod.containers.set(container, (seen = {}));
  return seen;
}

/**
 * One look at what keeps a container (or, for a volume, the pod) from starting: the container's waiting state, the
 * events this look reports (`seen` keeps what was reported), and when to look again: in `retryMs`, or at `wakeClock`
 * on the server clock (an image pull's backoff).
 */
function lookAtBlocker(blocker: StartBlocker, seen: BlockerSeen, pod: BlockedPod): { waiting?: Obj; events: KubeletEvent[]; retryMs?: number; wakeClock?: number } {
  if (blocker.kind === 'image' && blocker.invalid) {
    // The image manager refuses the name at every sync, until the pod's image is changed.
    const first = seen.reported !== blocker.invalid;
    seen.reported = blocker.invalid;
    return {
      waiting: { reason: 'InvalidImageName', message: blocker.invalid },
      events: first
        ? [
            { type: 'Warning', reason: 'InspectFailed', message: blocker.invalid, container: blocker.container },
            { type: 'Warning', reason: 'Failed', message: 'Error: InvalidImageName', container: blocker.container },
          ]
        : [],
      retryMs: BLOCKED_RETRY_MS,
    };
  }
  if (blocker.kind === 'image') {
    // The image manager pulls, or waits out its backoff (on the server clock), before it looks again.
    const pull = pullStep(blocker.container, blocker.image, pod.pulls.get(blocker.container), clockNow());
    if (pull.backoff) pod.pulls.set(blocker.container, pull.backoff);
    const report = pull.reason === 'ErrImagePull' || seen.reported !== pull.message;
    seen.reported = pull.message;
    return { waiting: { reason: pull.reason, message: pull.message }, events: report ? pull.events : [], wakeClock: pull.wake };
  }
  // Each failed retry (a mount on the volume manager's backoff, a container on the pod worker's) is reported again,
  // on the server clock; the recorder counts the repeats on one event.
  const now = clockNow();
  const retried = seen.reported === blocker.message && seen.retry !== undefined;
  let events: KubeletEvent[] = [];
  if (!retried || now >= seen.retry!.at) {
    events = [blocker.kind === 'volume' ? { type: 'Warning', reason: 'FailedMount', message: blocker.message, container: '' } : { type: 'Warning', reason: 'Failed', message: `Error: ${blocker.message}`, container: blocker.container }];
    const delayMs = blocker.kind !== 'volume' ? SYNC_RETRY_MS : retried ? Math.min(seen.retry!.delayMs * 2, MOUNT_RETRY_MAX_MS) : MOUNT_RETRY_INITIAL_MS;
    seen.retry = { at: now + delayMs, delayMs };
  }
  seen.reported = blocker.message;
  return {
    ...(blocker.kind === 'env' ? { waiting: { reason: 'CreateContainerConfigError', message: blocker.message } } : {}),
    events,
    retryMs: Math.min(BLOCKED_RETRY_MS, 50 * 2 ** pod.attempts),
  };
}

export function startKubelets(informers: Informers, eventSink: EventSink, options: KubeletOptions): Kubelets {
  const nodes = new Map(options.nodes.map((n, i) => [n, { index: i, next: 2 }]));
  const eventsOf = (node: string): EventRecorder => kubeletEvents(eventSink, node);
  const pods = informers.of(PODS);
  const addresses = new Map<string, string>();
  // Probes to ports the rules map to a test's servers run for real; a change in their results is looked at at once.
  const prober = options.runs
    ? createNetworkProber(
        options.runs,
        (pod) => queue.enqueue(key(pod)),
        (pod, container, reason, message) => eventsOf(String(asObj(pod.spec).nodeName ?? '')).event(pod, 'Warning', reason, message, { fieldPath: fieldPath(specFieldOf(pod, container), { name: container }) }),
      )
    : undefined;
  /** The container's script, with what its network probes found. */
  const scriptOf = (pod: KubeObject, container: string): ProbingScript => {
    const base = options.runs?.script(pod, container) ?? {};
    return prober ? prober.script(pod, container, base) : base;
  };

  function podIP(pod: KubeObject, node: string): string {
    const known = addresses.get(pod.metadata.uid ?? '');
    if (known) return known;
    const n = nodes.get(node)!;
    const ip = `10.244.${n.index}.${n.next++ % 250 + 2}`;
    addresses.set(pod.metadata.uid ?? '', ip);
    return ip;
  }

  /** The pod's addresses and start, once its sandbox runs (the start kept from the first time). */
  function sandbox(pod: KubeObject, node: string, at: string): Obj {
    const hostIP = `10.0.0.${nodes.get(node)!.index + 10}`;
    // A pod in the host's network namespace has the node's addresses (kubelet's podIPs for hostNetwork pods).
    const ip = asObj(pod.spec).hostNetwork === true ? hostIP : podIP(pod, node);
    return { hostIP, hostIPs: [{ ip: hostIP }], podIP: ip, podIPs: [{ ip }], startTime: asObj(pod.status).startTime ?? at };
  }

  /** The container started now, ready and started as its probes have it at once. */
  function startedNow(pod: KubeObject, c: Obj, at: string): Obj {
    const now = clockNow();
    const p = probed(c, now, now, scriptOf(pod, String(c.name)));
    return runningContainer(pod, c, at, p.ready, p.started);
  }

  /**
   * The pod running: its containers started now (those already running kept as they are). `initStatuses`: the init
   * containers' statuses when they ran one by one (initializing); else all done at `at`.
   */
  function running(pod: KubeObject, node: string, at: string, initStatuses?: Obj[]): Obj {
    const status = asObj(pod.status);
    const runningBefore = new Map(statusesOf(pod).filter((s) => asObj(s.state).running).map((s) => [s.name, s]));
    const containerStatuses = containers(pod).map((c) => runningBefore.get(c.name) ?? startedNow(pod, c, at));
    const init = initStatuses ? { initContainerStatuses: initStatuses } : initContainerStatuses(pod, at, (c) => startedNow(pod, c, at));
    const unready = unreadyMessage(pod, containerStatuses, (init.initContainerStatuses as Obj[] | undefined) ?? []);
    return {
      ...status,
      phase: 'Running',
      conditions: [
        ...conditionsOf(pod).filter((c) => !KUBELET_CONDITIONS.has(String(c.type))),
        condition('PodReadyToStartContainers', 'True', at),
        condition('Initialized', 'True', at),
        readyCondition(pod, conditionsOf(pod), unready, at),
        containersReadyCondition(unready, at),
        condition('PodScheduled', 'True', at),
      ],
      ...sandbox(pod, node, at),
      ...init,
      containerStatuses,
    };
  }

  /**
   * Whether the pod's init containers run one by one: a sidecar is not started at once (its startup probe holds the
   * containers after it), a script makes an init container exit or run for a time, or they already do.
   */
  function initializing(pod: KubeObject): boolean {
    if (asObj(pod.status).initContainerStatuses !== undefined) return true;
    const now = clockNow();
    if (sidecarsOf(pod).some((c) => !probed(c, now, now, scriptOf(pod, String(c.name))).started)) return true;
    const runs = options.runs;
    if (!runs || runs.list().length === 0) return false;
    return containers(pod, 'initContainers').some((c) => {
      if (c.restartPolicy === 'Always') return false;
      const script = runs.script(pod, String(c.name));
      return script.exitCode !== undefined || script.afterMs !== undefined;
    });
  }

  /** One step of some of the pod's started containers (an init container, the sidecars) as its containers under `restartPolicy`. */
  function stepAs(pod: KubeObject, specs: Obj[], statuses: Obj[], restartPolicy: string, when: { now: number; wallNow: number; at: string }, script: (name: string) => ProbingScript): StepResult {
    const pseudo = { ...pod, spec: { ...asObj(pod.spec), restartPolicy, containers: specs }, status: { ...asObj(pod.status), containerStatuses: statuses } } as KubeObject;
    return stepContainers({ pod: pseudo, ...when, defaultRunMs: options.jobPodRunMs ?? 300, script, runs: runsOf(pod) });
  }

  /**
   * A pending pod's next step through its init containers, as the kubelet runs them: in order, each after the one
   * before has exited 0 (sidecars, restartPolicy Always, start and run on), each exit or restart as stepContainers
   * takes it with the pod's restartPolicy (an init container restarts on failure unless it is Never, and never after
   * exit 0). The pod stays Pending (Init:N/M, Init:Error, Init:CrashLoopBackOff) until all are done, then runs; with
   * restartPolicy Never a failed one fails the pod.
   */
  function initStep(pod: KubeObject, node: string, at: string): { status: Obj; started: [string, Obj][]; events: KubeletEvent[]; step: Pick<StepResult, 'starts' | 'ends' | 'backoffs' | 'reports' | 'wakeClock' | 'wakeWall'> } {
    const status = asObj(pod.status);
    const policy = asObj(pod.spec).restartPolicy === 'Never' ? 'Never' : 'OnFailure';
    const now = clockNow();
    const wallNow = Date.now();
    const previous = new Map(((status.initContainerStatuses as unknown[] | undefined) ?? []).map(asObj).map((x) => [x.name, x]));
    const started: [string, Obj][] = [];
    const events: KubeletEvent[] = [];
    const out: Pick<StepResult, 'starts' | 'ends' | 'backoffs' | 'reports'> & { wakeClock?: number; wakeWall?: number } = { starts: [], ends: [], backoffs: [], reports: [] };
    const statuses: Obj[] = [];
    let waiting = false;
    let failed = false;
    const start = (c: Obj): Obj => {
      started.push(['initContainers', c]);
      out.starts.push([String(c.name), { clock: now, wall: wallNow }]);
      if (c.restartPolicy !== 'Always') return runningContainer(pod, c, at, false);
      const p = probed(c, now, now, scriptOf(pod, String(c.name)));
      if (p.wake !== undefined) out.wakeClock = earliest(out.wakeClock, p.wake);
      return runningContainer(pod, c, at, p.ready, p.started);
    };
    /** One step of a started init container, as the pod's only container under `restartPolicy`. */
    const stepOne = (c: Obj, s: Obj, restartPolicy: string, script: (name: string) => ProbingScript): StepResult => {
      const step = stepAs(pod, [c], [s], restartPolicy, { now, wallNow, at }, script);
      out.starts.push(...step.starts);
      out.ends.push(...step.ends);
      out.backoffs.push(...step.backoffs);
      out.reports.push(...step.reports);
      events.push(...step.events);
      if (step.restarted.length > 0) started.push(['initContainers', c]);
      out.wakeClock = earliest(out.wakeClock, step.wakeClock);
      out.wakeWall = earliest(out.wakeWall, step.wakeWall);
      return step;
    };
    for (const c of containers(pod, 'initContainers')) {
      const name = String(c.name);
      const s = previous.get(name);
      if (waiting || failed) {
        statuses.push(s ?? pendingContainer(c));
        continue;
      }
      const state = asObj(s?.state);
      if (c.restartPolicy === 'Always') {
        // A sidecar runs on, restarted whenever it exits or its probes kill it; the containers after it wait until
        // it has started (its startup probe passed).
        const next = s && (state.running || asObj(state.waiting).reason === 'CrashLoopBackOff') ? stepOne(c, s, 'Always', (n) => scriptOf(pod, n)).containerStatuses[0]! : start(c);
        statuses.push(next);
        if (next.started !== true) waiting = true;
        continue;
      }
      if (asObj(state.terminated).exitCode === 0) {
        statuses.push(s!);
        continue;
      }
      // Not started yet (waiting to initialize, or held by a reference that was missing).
      if (!s || (state.waiting !== undefined && asObj(state.waiting).reason !== 'CrashLoopBackOff')) {
        statuses.push(start(c));
        waiting = true;
        continue;
      }
      const step = stepOne(c, s, policy, (n) => options.runs?.script(pod, n) ?? {});
      statuses.push(step.containerStatuses[0]!);
      if (step.phase === 'Succeeded') continue;
      if (step.phase === 'Failed') failed = true;
      else waiting = true;
    }
    if (!waiting && !failed) {
      // Every init container is done: the regular containers start.
      started.push(...containers(pod).map((c): [string, Obj] => ['containers', c]));
      for (const c of containers(pod)) out.starts.push([String(c.name), { clock: now, wall: wallNow }]);
      return { status: running(pod, node, at, statuses), started, events, step: out };
    }
    const incomplete = containers(pod, 'initContainers')
      .filter((c) => {
        const st = statuses.find((x) => x.name === c.name);
        return c.restartPolicy === 'Always' ? st?.started !== true : asObj(asObj(st?.state).terminated).exitCode !== 0;
      })
      .map((c) => String(c.name));
    const unready = `containers with unready status: [${containers(pod).map((c) => String(c.name)).join(' ')}]`;
    const previousConditions = conditionsOf(pod);
    const kept = (next: Obj) => keepTransition(next, previousConditions.find((x) => x.type === next.type));
    return {
      status: {
        ...status,
        phase: failed ? 'Failed' : 'Pending',
        conditions: [
          ...previousConditions.filter((x) => !KUBELET_CONDITIONS.has(String(x.type))),
          kept(condition('PodReadyToStartContainers', failed ? 'False' : 'True', at)),
          kept(condition('Initialized', 'False', at, 'ContainersNotInitialized', `containers with incomplete status: [${incomplete.join(' ')}]`)),
          kept(failed ? condition('Ready', 'False', at, 'PodFailed') : condition('Ready', 'False', at, 'ContainersNotReady', unready)),
          kept(failed ? condition('ContainersReady', 'False', at, 'PodFailed') : condition('ContainersReady', 'False', at, 'ContainersNotReady', unready)),
          kept(condition('PodScheduled', 'True', at)),
        ],
        ...sandbox(pod, node, at),
        initContainerStatuses: statuses,
        containerStatuses: containers(pod).map(pendingContainer),
      },
      started,
      events,
      step: out,
    };
  }

  /** A running pod's status with its new ephemeral containers started (never ready: they take no part in it). */
  function ephemeralStarted(pod: KubeObject, at: string): Obj {
    const status = asObj(pod.status);
    const reported = (status.ephemeralContainerStatuses as unknown[] | undefined) ?? [];
    return { ...status, ephemeralContainerStatuses: [...reported, ...unstartedEphemeral(pod).map((c) => runningContainer(pod, c, at, false))] };
  }

  /** A pod whose containers have all terminated, each with exit code 0 (Succeeded) or not (Failed); sidecars stopped. */
  function terminal(pod: KubeObject, at: string, phase: 'Succeeded' | 'Failed', containerStatuses: Obj[]): Obj {
    const status = asObj(pod.status);
    const started = String(status.startTime ?? at);
    const reason = phase === 'Succeeded' ? 'PodCompleted' : 'PodFailed';
    return {
      ...status,
      phase,
      conditions: [
        ...(phase === 'Failed' ? conditionsOf(pod).filter((c) => !KUBELET_CONDITIONS.has(String(c.type))) : []),
        condition('PodReadyToStartContainers', 'False', at),
        phase === 'Succeeded' ? condition('Initialized', 'True', started, 'PodCompleted') : condition('Initialized', 'True', started),
        condition('Ready', 'False', at, reason),
        condition('ContainersReady', 'False', at, reason),
        condition('PodScheduled', 'True', started),
      ],
      ...(containers(pod, 'initContainers').length > 0 ? { initContainerStatuses: containers(pod, 'initContainers').map((c) => completedContainer(pod, c, started, c.restartPolicy === 'Always' ? at : started)) } : {}),
      containerStatuses,
    };
  }

  /**
   * The kubelet's activeDeadlineHandler: a pod active longer than spec.activeDeadlineSeconds (from its start) is failed,
   * DeadlineExceeded, its running containers killed.
   */
  function failedByDeadline(pod: KubeObject, at: string): Obj {
    const status = asObj(pod.status);
    const started = String(status.startTime ?? at);
    const killed = (c: Obj): Obj => {
      const state = asObj(c.state);
      if (!state.running) return c;
      const startedAt = asObj(state.running).startedAt ?? started;
      return { ...c, state: { terminated: { exitCode: 137, reason: 'Error', startedAt, finishedAt: at, containerID: c.containerID } }, ready: false, started: false };
    };
    return {
      ...status,
      phase: 'Failed',
      reason: 'DeadlineExceeded',
      message: DEADLINE_MESSAGE,
      conditions: [
        ...conditionsOf(pod).filter((c) => !KUBELET_CONDITIONS.has(String(c.type))),
        condition('PodReadyToStartContainers', 'False', at),
        condition('Initialized', 'True', started),
        condition('Ready', 'False', at, 'PodFailed'),
        condition('ContainersReady', 'False', at, 'PodFailed'),
        condition('PodScheduled', 'True', started),
      ],
      ...(status.initContainerStatuses ? { initContainerStatuses: (status.initContainerStatuses as unknown[]).map(asObj).map(killed) } : {}),
      ...(status.containerStatuses ? { containerStatuses: (status.containerStatuses as unknown[]).map(asObj).map(killed) } : {}),
      ...(status.ephemeralContainerStatuses ? { ephemeralContainerStatuses: (status.ephemeralContainerStatuses as unknown[]).map(asObj).map(killed) } : {}),
    };
  }

  /**
   * A running pod's status with these container statuses, and ContainersReady and Ready from them and the readiness
   * gates (a node marked NotReady meanwhile gets its pods' readiness back).
   */
  function withReadiness(pod: KubeObject, at: string, containerStatuses: Obj[], initStatuses: Obj[]): Obj {
    const status = asObj(pod.status);
    const current = conditionsOf(pod);
    const unready = unreadyMessage(pod, containerStatuses, initStatuses);
    const conditions = current.map((c) => {
      if (c.type === 'ContainersReady') return keepTransition(containersReadyCondition(unready, at), c);
      if (c.type === 'Ready') return keepTransition(readyCondition(pod, current, unready, at), c);
      return c;
    });
    return { ...status, conditions, ...(status.initContainerStatuses !== undefined ? { initContainerStatuses: initStatuses } : {}), containerStatuses };
  }

  // What the kubelet remembers of each pod's container runs (by pod uid): when runs started and ended, the backoffs.
  interface Runs {
    starts: Map<string, RunStart>;
    ends: Map<string, number>;
    backoffs: Map<string, Backoff>;
    reports: Map<string, number>;
    /** When the kubelet began stopping the deleted pod's containers (server clock). */
    terminating?: number;
  }
  const podRuns = new Map<string, Runs>();
  /**
   * Each pod that could not start yet: how often it was looked at, what was reported for it (or, when some of its
   * containers run, for each container that cannot start), and the image pull backoff of each container whose pulls
   * fail.
   */
  const blockedMessages = new Map<string, BlockedPod>();
  /** Whether a rule fails the pulls of the pod's container. */
  const pullFails = (pod: KubeObject) => (container: string) => options.runs?.script(pod, container).imagePull === false;
  /** The pod's record as one that cannot start yet, looked at once more. */
  const blockedPod = (pod: KubeObject): BlockedPod => {
    const uid = pod.metadata.uid ?? '';
    const seen = blockedMessages.get(uid) ?? { attempts: 0, pulls: new Map<string, Backoff>(), containers: new Map<string, BlockerSeen>() };
    seen.attempts++;
    blockedMessages.set(uid, seen);
    return seen;
  };
  /**
   * Looks at what holds the pod (`blockers`; with `perContainer`, each container's own, the others running): records
   * their events, plans the next look, and answers each held container's waiting state.
   */
  function holdContainers(k: string, pod: KubeObject, blockers: readonly StartBlocker[], seen: BlockedPod, perContainer: boolean): Map<string, Obj> {
    const events = eventsOf(String(asObj(pod.spec).nodeName ?? ''));
    const waiting = new Map<string, Obj>();
    let retryMs: number | undefined;
    let wakeClock: number | undefined;
    for (const b of blockers) {
      const look = lookAtBlocker(b, perContainer && b.kind !== 'volume' ? containerSeen(seen, b.container) : seen, seen);
      if (b.kind !== 'volume' && look.waiting) waiting.set(b.container, look.waiting);
      retryMs = earliest(retryMs, look.retryMs);
      wakeClock = earliest(wakeClock, look.wakeClock);
      const field = b.kind === 'volume' ? undefined : b.field;
      for (const e of look.events) events.event(pod, e.type, e.reason, e.message, field ? { fieldPath: fieldPath(field, { name: e.container }) } : undefined);
    }
    if (retryMs !== undefined) queue.enqueue(k, retryMs);
    if (wakeClock !== undefined) scheduleWakes(k, { wakeClock });
    return waiting;
  }
  /**
   * The pod's regular containers starting (`next`: its status with all of them started), but for those that cannot
   * be created yet when it has init containers (without them, its first look found those already): held, each with
   * its waiting state. `notStarted`: the containers this step does not start (held, or already running).
   */
  async function startRegular(k: string, pod: KubeObject, node: string, at: string, next: Obj): Promise<{ status: Obj; notStarted: Set<string> }> {
    const blocked = containers(pod, 'initContainers').length > 0 ? await containerBlockers(pod, references(pod.metadata.namespace ?? ''), pullFails(pod)) : [];
    const waiting = blocked.length > 0 ? holdContainers(k, pod, blocked, blockedPod(pod), true) : new Map<string, Obj>();
    const notStarted = new Set([...runningNames(pod), ...waiting.keys()]);
    return { status: waiting.size > 0 ? partlyStartedStatus(pod, node, at, waiting, next).status : next, notStarted };
  }
  /** The namespace's ConfigMaps and Secrets, read from their stores. */
  const references = (namespace: string): ReferenceReader => {
    const reader = (resource: string) => (name: string) => {
      const def = informers.registry.lookup('', 'v1', resource);
      return def ? informers.registry.store(def).get(loopbackContext(namespace), name).catch(() => undefined) : Promise.resolve(undefined);
    };
    return { configMap: reader('configmaps'), secret: reader('secrets') };
  };

  /**
   * A pod that cannot start yet: every container waiting (ContainerCreating while a volume cannot be mounted, and
   * without a sandbox or IP yet; CreateContainerConfigError for the container whose environment cannot be made, the
   * sandbox running), init containers and the containers after them waiting in PodInitializing, the pod Pending.
   */
  function blockedStatus(pod: KubeObject, node: string, at: string, blocker: { kind: 'volume' } | { kind: 'env' | 'image'; field: string; container: string; waiting: Obj }): Obj {
    const init = containers(pod, 'initContainers');
    const waitingAs = (c: Obj, field: string, reason: string): Obj => {
      const own = blocker.kind !== 'volume' && blocker.field === field && blocker.container === c.name;
      return { ...pendingContainer(c), state: { waiting: own ? blocker.waiting : { reason } } };
    };
    const previousConditions = conditionsOf(pod);
    const kept = (next: Obj) => keepTransition(next, previousConditions.find((x) => x.type === next.type));
    const unready = `containers with unready status: [${containers(pod).map((c) => String(c.name)).join(' ')}]`;
    const { podIP, podIPs, ...host } = sandbox(pod, node, at);
    return {
      ...asObj(pod.status),
      phase: 'Pending',
      conditions: [
        ...previousConditions.filter((x) => !KUBELET_CONDITIONS.has(String(x.type))),
        kept(condition('PodReadyToStartContainers', blocker.kind === 'volume' ? 'False' : 'True', at)),
        kept(init.length === 0 ? condition('Initialized', 'True', at) : condition('Initialized', 'False', at, 'ContainersNotInitialized', `containers with incomplete status: [${init.map((c) => String(c.name)).join(' ')}]`)),
        kept(condition('Ready', 'False', at, 'ContainersNotReady', unready)),
        kept(condition('ContainersReady', 'False', at, 'ContainersNotReady', unready)),
        kept(condition('PodScheduled', 'True', at)),
      ],
      ...(blocker.kind === 'volume' ? host : { ...host, podIP, podIPs }),
      ...(init.length > 0 ? { initContainerStatuses: init.map((c) => waitingAs(c, 'initContainers', 'PodInitializing')) } : {}),
      containerStatuses: containers(pod).map((c) => waitingAs(c, 'containers', init.length > 0 ? 'PodInitializing' : 'ContainerCreating')),
    };
  }
  /**
   * A pod whose containers the kubelet started, except those `waiting` (by name) that cannot be created yet: Pending
   * while one waits, as kube's getPhase has it, and not ready; `base` the status it starts from (the init containers'
   * when they have just finished). `started`: the containers started by this step.
   */
  function partlyStartedStatus(pod: KubeObject, node: string, at: string, waiting: ReadonlyMap<string, Obj>, base = asObj(pod.status)): { status: Obj; started: Obj[] } {
    const before = new Map(statusesOf(pod).map((s) => [s.name, s]));
    const started: Obj[] = [];
    const containerStatuses = containers(pod).map((c) => {
      const state = waiting.get(String(c.name));
      if (state) return { ...pendingContainer(c), state: { waiting: state } };
      const was = before.get(c.name);
      if (was && asObj(was.state).running) return was;
      started.push(c);
      return startedNow(pod, c, at);
    });
    const previousConditions = conditionsOf(pod);
    const kept = (next: Obj) => keepTransition(next, previousConditions.find((x) => x.type === next.type));
    const unready = unreadyMessage(pod, containerStatuses, (base.initContainerStatuses as Obj[] | undefined) ?? []);
    const status = {
      ...base,
      phase: 'Pending',
      conditions: [
        ...previousConditions.filter((x) => !KUBELET_CONDITIONS.has(String(x.type))),
        kept(condition('PodReadyToStartContainers', 'True', at)),
        kept(condition('Initialized', 'True', at)),
        kept(readyCondition(pod, previousConditions, unready, at)),
        kept(containersReadyCondition(unready, at)),
        kept(condition('PodScheduled', 'True', at)),
      ],
      ...sandbox(pod, node, at),
      containerStatuses,
    };
    return { status, started };
  }
  const runsOf = (pod: KubeObject): Runs => {
    const uid = pod.metadata.uid ?? '';
    let r = podRuns.get(uid);
    if (!r) podRuns.set(uid, (r = { starts: new Map(), ends: new Map(), backoffs: new Map(), reports: new Map() }));
    return r;
  };
  /** Pods waiting for a time on the server clock (a scripted exit, a backoff): a clock move looks at them again. */
  const clockWaits = new Set<string>();
  const scripted = (pod: KubeObject): boolean => {
    const runs = options.runs;
    if (!runs || runs.list().length === 0) return false;
    return [...sidecarsOf(pod), ...containers(pod)].some((c) => {
      const script = runs.script(pod, String(c.name));
      return script.exitCode !== undefined || script.afterMs !== undefined || probesScripted(c, script);
    });
  };
  const crashLooping = (pod: KubeObject): boolean =>
    [...((asObj(pod.status).initContainerStatuses as unknown[] | undefined) ?? []), ...((asObj(pod.status).containerStatuses as unknown[] | undefined) ?? [])].some((c) => asObj(asObj(asObj(c).state).waiting).reason === 'CrashLoopBackOff');

  /**
   * A deleted pod's containers stopping as the kubelet stops them (SIGTERM when it first sees the deletion): each
   * exits 0 once its rule's stopAfter has passed on the server clock (at once without one), or is killed (137) when
   * the pod's grace period ends. Once all have stopped, the pod's terminal status, which kube's kubelet (1.27+)
   * writes before the pod goes: Succeeded if every container exited 0, else Failed, a container that never ran
   * reported as the status manager's TerminatePod reports it. Undefined for a pod already Succeeded or Failed.
   */
  function terminationStep(pod: KubeObject, at: string): { status: Obj; wake?: number } | undefined {
    const status = asObj(pod.status);
    if (status.phase === 'Succeeded' || status.phase === 'Failed') return undefined;
    const runs = runsOf(pod);
    const now = clockNow();
    const since = (runs.terminating ??= now);
    const graceMs = Number(pod.metadata.deletionGracePeriodSeconds ?? 30) * 1000;
    let wake: number | undefined;
    const stopped = (list: unknown): Obj[] | undefined =>
      Array.isArray(list)
        ? list.map(asObj).map((s) => {
            if (!asObj(s.state).running) return s;
            const running = asObj(asObj(s.state).running);
            const ms = scriptOf(pod, String(s.name)).stopAfterMs ?? 0;
            const stopAt = since + Math.min(ms, graceMs);
            if (now < stopAt) {
              wake = earliest(wake, stopAt);
              return s;
            }
            const killed = ms > graceMs;
            const terminated = { exitCode: killed ? 137 : 0, reason: killed ? 'Error' : 'Completed', startedAt: running.startedAt, finishedAt: at, containerID: s.containerID };
            return { ...s, state: { terminated }, ready: false, started: false };
          })
        : undefined;
    const stopping = stopped(status.containerStatuses) ?? [];
    const initStatuses = stopped(status.initContainerStatuses);
    const ephemeral = stopped(status.ephemeralContainerStatuses);
    const withEphemeral = ephemeral ? { ephemeralContainerStatuses: ephemeral } : {};
    if (wake !== undefined) {
      return { status: { ...status, containerStatuses: stopping, ...(initStatuses ? { initContainerStatuses: initStatuses } : {}), ...withEphemeral }, wake };
    }
    const containerStatuses = stopping.map((s) => (asObj(s.state).terminated ? s : { ...s, state: { terminated: UNLOCATED_CONTAINER }, ready: false, started: false }));
    const ran = containerStatuses.some((s) => asObj(s.state).terminated !== UNLOCATED_CONTAINER);
    const phase = ran && containerStatuses.every((c) => asObj(asObj(c.state).terminated).exitCode === 0) ? 'Succeeded' : 'Failed';
    if (ran) return { status: { ...terminal(pod, at, phase, containerStatuses), ...withEphemeral } };
    // Its containers never ran (it was still starting): it fails, its init containers as they were.
    const conditions = conditionsOf(pod).map((c) =>
      c.type === 'Ready' || c.type === 'ContainersReady' ? condition(String(c.type), 'False', c.status === 'False' ? String(c.lastTransitionTime ?? at) : at, 'PodFailed') : c.type === 'PodReadyToStartContainers' ? condition('PodReadyToStartContainers', 'False', c.status === 'False' ? String(c.lastTransitionTime ?? at) : at) : c,
    );
    return { status: { ...status, phase: 'Failed', conditions, ...(initStatuses ? { initContainerStatuses: initStatuses } : {}), containerStatuses, ...withEphemeral } };
  }

  /** Looks at the pod again when a step's pending exit, restart or probe is due. */
  function scheduleWakes(k: string, step: Pick<StepResult, 'wakeClock' | 'wakeWall'>): void {
    clockWaits.delete(k);
    if (step.wakeClock !== undefined) {
      clockWaits.add(k);
      queue.enqueue(k, Math.max(0, step.wakeClock - clockNow()) + 10);
    }
    if (step.wakeWall !== undefined) queue.enqueue(k, Math.max(0, step.wakeWall - Date.now()) + 1);
  }

  /** Once a step's status is written: its run records kept, its events recorded on the containers of `field`. */
  function recordRuns(pod: KubeObject, step: Pick<StepResult, 'starts' | 'ends' | 'backoffs' | 'reports'>, stepEvents: readonly KubeletEvent[], field: string): void {
    const runs = runsOf(pod);
    for (const [n, v] of step.starts) runs.starts.set(n, v);
    for (const [n, v] of step.ends) runs.ends.set(n, v);
    for (const [n, v] of step.backoffs) runs.backoffs.set(n, v);
    for (const [n, v] of step.reports) {
      if (v === undefined) runs.reports.delete(n);
      else runs.reports.set(n, v);
    }
    const events = eventsOf(String(asObj(pod.spec).nodeName ?? ''));
    for (const e of stepEvents) events.event(pod, e.type, e.reason, e.message, { fieldPath: fieldPath(field, { name: e.container }) });
  }

  const queue = createKeyedQueue(async (k) => {
    const { namespace, name } = splitKey(k);
    const pod = pods.get(namespace, name);
    const node = String(asObj(pod?.spec).nodeName ?? '');
    if (!pod || !nodes.has(node) || options.running?.(node) === false) return;
    const kubelet = pods.as(WRITERS.kubelet(node));
    const events = eventsOf(node);
    if (pod.metadata.deletionTimestamp) {
      // Its running containers are stopped (Killing), then the pod deleted for good, if it is still the same pod.
      if (runsOf(pod).terminating === undefined) recordKilling(events, pod);
      const stopping = terminationStep(pod, rfc3339(clockDate()));
      if (stopping && !jsonEqual(stopping.status, pod.status)) {
        const written = await kubelet.update(namespace, name, (cur) => (cur && cur.metadata.uid === pod.metadata.uid ? { ...cur, status: stopping.status } : cur!), { subresource: 'status' }).catch(ignoreConflictOrGone);
        if (!written) return;
      }
      if (stopping?.wake !== undefined) return scheduleWakes(k, { wakeClock: stopping.wake });
      await kubelet.delete(namespace, name, { gracePeriodSeconds: 0, preconditions: { uid: pod.metadata.uid } }).catch(ignoreConflictOrGone);
      return;
    }
    const phase = asObj(pod.status).phase;
    const at = rfc3339(clockDate());
    let status: Obj | undefined;
    let started: [string, Obj][] = [];
    let afterWrite = (): void => {};
    // What keeps it from starting; for a partly started pod (its volumes mounted), its containers not created yet.
    const pending = phase === 'Pending' || phase === undefined;
    const blocker = pending && !anyStarted(pod) ? await startBlocker(pod, references(namespace), pullFails(pod)) : pending && partlyStarted(pod) ? (await containerBlockers(pod, references(namespace), pullFails(pod)))[0] : undefined;
    if (blocker) {
      // Looked at again soon, then each second (the kubelet retries mounts and container creation) until it can
      // start. What a first look finds is not reported: a namespace's kube-root-ca.crt, which every pod's token
      // volume names, may be a moment behind the pod.
      const seen = blockedPod(pod);
      if (seen.attempts === 1) return void queue.enqueue(k, 100);
      // A regular container that cannot be created holds only itself: the kubelet starts the others.
      const partly = blocker.kind !== 'volume' && blocker.field === 'containers';
      const found = partly ? await containerBlockers(pod, references(namespace), pullFails(pod)) : [];
      const waiting = holdContainers(k, pod, found.length > 0 ? found : [blocker], seen, partly);
      if (partly) {
        const partial = partlyStartedStatus(pod, node, at, waiting);
        status = partial.status;
        started = partial.started.map((c): [string, Obj] => ['containers', c]);
        afterWrite = () => {
          const start = { clock: clockNow(), wall: Date.now() };
          for (const c of partial.started) runsOf(pod).starts.set(String(c.name), start);
        };
      } else {
        status = blockedStatus(pod, node, at, blocker.kind === 'volume' ? blocker : { ...blocker, waiting: waiting.get(blocker.container)! });
      }
    } else if ((phase === 'Pending' || phase === undefined) && initializing(pod)) {
      const init = initStep(pod, node, at);
      scheduleWakes(k, init.step);
      const regular = init.status.phase === 'Running' ? await startRegular(k, pod, node, at, init.status) : { status: init.status, notStarted: new Set<string>() };
      status = regular.status;
      started = init.started.filter(([field, c]) => field === 'initContainers' || !regular.notStarted.has(String(c.name)));
      const step = { ...init.step, starts: init.step.starts.filter(([name]) => !regular.notStarted.has(name)) };
      afterWrite = () => recordRuns(pod, step, init.events, 'initContainers');
    } else if (phase === 'Pending' || phase === undefined) {
      const regular = await startRegular(k, pod, node, at, running(pod, node, at));
      const fresh = containers(pod).filter((c) => !regular.notStarted.has(String(c.name)));
      status = regular.status;
      started = [...containers(pod, 'initContainers').map((c): [string, Obj] => ['initContainers', c]), ...fresh.map((c): [string, Obj] => ['containers', c])];
      const start = { clock: clockNow(), wall: Date.now() };
      afterWrite = () => {
        const runs = runsOf(pod);
        for (const c of [...sidecarsOf(pod), ...fresh]) runs.starts.set(String(c.name), start);
      };
    } else if (phase === 'Running' && pastDeadline(pod)) {
      status = failedByDeadline(pod, at);
      events.event(pod, 'Warning', 'DeadlineExceeded', DEADLINE_MESSAGE);
      recordKilling(events, pod);
    } else if (phase === 'Running' && unstartedEphemeral(pod).length > 0) {
      status = ephemeralStarted(pod, at);
      started = unstartedEphemeral(pod).map((c) => ['ephemeralContainers', c]);
    } else if (phase === 'Running') {
      const when = { now: clockNow(), wallNow: Date.now(), at };
      const script = (c: string) => scriptOf(pod, c);
      const step = stepAs(pod, containers(pod), ((asObj(pod.status).containerStatuses as unknown[] | undefined) ?? []).map(asObj), String(asObj(pod.spec).restartPolicy ?? 'Always'), when, script);
      // The sidecars run beside the containers, restarted whatever the pod's restartPolicy.
      const sidecars = sidecarsOf(pod);
      const initStatuses = ((asObj(pod.status).initContainerStatuses as unknown[] | undefined) ?? []).map(asObj);
      const side = sidecars.length > 0 ? stepAs(pod, sidecars, initStatuses.filter((s) => sidecars.some((c) => c.name === s.name)), 'Always', when, script) : undefined;
      const initNow = side ? initStatuses.map((s) => side.containerStatuses.find((x) => x.name === s.name) ?? s) : initStatuses;
      scheduleWakes(k, { wakeClock: earliest(step.wakeClock, side?.wakeClock), wakeWall: earliest(step.wakeWall, side?.wakeWall) });
      status = step.phase ? terminal(pod, at, step.phase, step.containerStatuses) : withReadiness(pod, at, step.containerStatuses, initNow);
      started = [...step.restarted.map((n): [string, Obj] => ['containers', containers(pod).find((c) => c.name === n)!]), ...(side?.restarted ?? []).map((n): [string, Obj] => ['initContainers', sidecars.find((c) => c.name === n)!])];
      afterWrite = () => {
        recordRuns(pod, step, step.events, 'containers');
        if (side) recordRuns(pod, side, side.events, 'initContainers');
      };
    }
    if (!status) return;
    // A step that changes nothing may still have failed probes to report.
    if (jsonEqual(status, pod.status)) return void afterWrite();
    const written = await kubelet.update(namespace, name, (cur) => (cur && cur.metadata.uid === pod.metadata.uid ? { ...cur, status } : cur!), { subresource: 'status' }).catch(ignoreConflictOrGone);
    if (!written) return;
    afterWrite();
    trackProbes({ ...pod, status });
    for (const [field, c] of started) recordStart(events, pod, field, c);
  }, 500, informers.activity);

  /**
   * The network probes of the pod's running containers (its sidecars' from their starts while it initializes) run
   * from their starts; those of a pod that is done stop.
   */
  function trackProbes(pod: KubeObject): void {
    if (!prober) return;
    const uid = pod.metadata.uid ?? '';
    const phase = asObj(pod.status).phase;
    if (phase !== 'Running' && phase !== 'Pending') return prober.forget(uid);
    const starts = podRuns.get(uid)?.starts;
    const running = new Map<string, number>();
    const sidecars = new Set(sidecarsOf(pod).map((c) => c.name));
    const sidecarStatuses = ((asObj(pod.status).initContainerStatuses as unknown[] | undefined) ?? []).map(asObj).filter((s) => sidecars.has(s.name));
    for (const s of [...sidecarStatuses, ...((asObj(pod.status).containerStatuses as unknown[] | undefined) ?? []).map(asObj)]) {
      const start = starts?.get(String(s.name));
      if (asObj(s.state).running && start) running.set(String(s.name), start.clock);
    }
    prober.track(pod, running);
  }

  /** Queues the pod's next stage after its delay, if it has one. */
  function follow(pod: KubeObject): void {
    const node = String(asObj(pod.spec).nodeName ?? '');
    if (!nodes.has(node) || options.running?.(node) === false) return;
    if (pod.metadata.deletionTimestamp) return void queue.enqueue(key(pod), options.podTerminationMs ?? 100);
    const phase = asObj(pod.status).phase;
    if (phase === 'Running') {
      const deadline = deadlineOf(pod);
      if (deadline !== undefined) queue.enqueue(key(pod), Math.max(0, deadline - clockNow()) + 10);
    }
    if (phase === 'Pending' || phase === undefined) queue.enqueue(key(pod), options.podStartupMs ?? 100);
    else if (phase === 'Running' && unstartedEphemeral(pod).length > 0) queue.enqueue(key(pod), options.podStartupMs ?? 100);
    // Its containers exit (it runs to completion, or a script says so) or wait to restart; or the node lifecycle
    // controller marked it not ready while the kubelet was away, or a readiness gate's condition changed: the kubelet
    // reports its readiness again. The step says when to look again.
    else if (phase === 'Running' && (runsToCompletion(pod) || crashLooping(pod) || scripted(pod) || !podReady(pod) || readinessStale(pod))) queue.enqueue(key(pod));
  }

  pods.onEvent((ev) => {
    if (ev.type === 'DELETED') {
      blockedMessages.delete(ev.object.metadata.uid ?? '');
      prober?.forget(ev.object.metadata.uid ?? '');
      addresses.delete(ev.object.metadata.uid ?? '');
      podRuns.delete(ev.object.metadata.uid ?? '');
      clockWaits.delete(key(ev.object));
      return;
    }
    follow(ev.object);
  });
  // The test controls moved the clock: deadlines, scripted exits and backoffs are looked at again.
  const stopClock = onClockChange(() => {
    for (const pod of pods.list()) if (deadlineOf(pod) !== undefined) follow(pod);
    for (const k of clockWaits) queue.enqueue(k);
  });
  // New scripts apply to the containers running now, and to pods waiting for an image pull.
  const stopRules = options.runs?.onChange(() => {
    for (const pod of pods.list()) {
      if ((asObj(pod.status).phase === 'Running' || asObj(pod.status).phase === 'Pending') && nodes.has(String(asObj(pod.spec).nodeName ?? ''))) trackProbes(pod);
      if (asObj(pod.status).phase === 'Running' || asObj(pod.status).phase === 'Pending') follow(pod);
    }
  });
  return {
    resync(node) {
      for (const pod of pods.list()) if (asObj(pod.spec).nodeName === node) follow(pod);
    },
    async stop() {
      stopClock();
      stopRules?.();
      prober?.stop();
      await queue.stop();
    },
  };
}
