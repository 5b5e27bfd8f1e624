// The kubelet's prober workers for probes that reach a test's server (network-probes.ts): each running container's
// mapped startup, readiness and liveness probes run every periodSeconds on the server clock, from initialDelaySeconds
// after the container started (readiness and liveness once the startup probe has passed), and their results turn as
// kube's worker turns them: failureThreshold failures in a row fail the probe, successThreshold successes pass it.
// A readiness probe fails until its first success, a startup probe is pending until then, a liveness probe passes
// until it fails. When the clock is moved on, the next probe's result counts once for each period that passed (so
// moving the clock past failureThreshold periods of a failing probe fails it, as that many probes would have).
// What the workers know reaches the kubelet as its script: ready, live and started false, a startup still pending,
// and which probes run here; each failure's Unhealthy event is recorded here, as the kubelet's prober records it.

import { clockNow, onClockChange } from '../../apis/clock.ts';
import type { KubeObject } from '../../registry/types.ts';
import { PROBE_FIELDS, PROBE_NAMES, type ProbeField, type ProbingScript } from './container-lifecycle.ts';
import type { ContainerRuns, ContainerScript } from './container-runs.ts';
import { networkProbeOf, runNetworkProbe, type NetworkProbe } from './network-probes.ts';
import { asObj, type Obj } from './shared.ts';

interface Worker {
  readonly field: ProbeField;
  readonly probe: NetworkProbe;
  readonly periodMs: number;
  readonly delayMs: number;
  readonly failureThreshold: number;
  readonly successThreshold: number;
  successes: number;
  failures: number;
  /** undefined until the threshold is first reached. */
  result?: boolean;
  lastAt?: number;
  nextAt?: number;
  timer?: NodeJS.Timeout;
  busy: boolean;
}

interface ContainerWorkers {
  readonly name: string;
  readonly start: number;
  /** The mapped probes the workers run, as JSON: a rule's change of them starts the workers over. */
  readonly probes: string;
  readonly workers: Map<ProbeField, Worker>;
}

export interface NetworkProber {
  /** The container's script with its network probes' results (the base when none of its probes is mapped). */
  script(pod: KubeObject, container: string, base: ContainerScript): ProbingScript;
  /** The pod's running containers and when each started (server clock): their workers start, or start over. */
  track(pod: KubeObject, running: ReadonlyMap<string, number>): void;
  forget(uid: string): void;
  stop(): void;
}

const seconds = (v: unknown, fallback: number): number => (typeof v === 'number' && v > 0 ? v : fallback);

/** A container of the pod, or a sidecar (an init container with restartPolicy Always). */
function specOf(pod: KubeObject, name: string): Obj | undefined {
  const spec = asObj(pod.spec);
  const found = ((spec.containers as unknown[] | undefined) ?? []).map(asObj).find((c) => c.name === name);
  return found ?? ((spec.initContainers as unknown[] | undefined) ?? []).map(asObj).find((c) => c.name === name && c.restartPolicy === 'Always');
}

/** The container's probes that the rules map to a test's server. */
function mappedProbes(pod: KubeObject, container: Obj, runs: ContainerRuns): Map<ProbeField, { spec: Obj; probe: NetworkProbe }> {
  const out = new Map<ProbeField, { spec: Obj; probe: NetworkProbe }>();
  const podIP = String(asObj(pod.status).podIP ?? '');
  for (const field of PROBE_FIELDS) {
    const spec = container[field];
    if (!spec || typeof spec !== 'object') continue;
    const probe = networkProbeOf(spec as Obj, container, podIP, (port) => runs.portTarget(pod, port));
    if (probe) out.set(field, { spec: spec as Obj, probe });
  }
  return out;
}


/**
 * `changed`: a probe's result turned (the kubelet looks at the pod again); `recorded`: the event the kubelet's prober
 * records for each probe that fails (Unhealthy) or passes with a warning (ProbeWarning), which its recorder counts on
 * the Event already written for a repeat.
 */
export function createNetworkProber(runs: ContainerRuns, changed: (pod: KubeObject) => void, recorded: (pod: KubeObject, container: string, reason: 'Unhealthy' | 'ProbeWarning', message: string) => void): NetworkProber {
  /** By pod UID, then container name. */
  const pods = new Map<string, { pod: KubeObject; containers: Map<string, ContainerWorkers> }>();
  let stopped = false;

  const startupPassed = (c: ContainerWorkers): boolean => {
    const s = c.workers.get('startupProbe');
    return s === undefined || s.result === true;
  };

  function schedule(uid: string, c: ContainerWorkers, w: Worker): void {
    clearTimeout(w.timer);
    w.timer = undefined;
    if (stopped || w.nextAt === undefined) return;
    w.timer = setTimeout(() => void run(uid, c, w), Math.max(0, w.nextAt - clockNow()));
    w.timer.unref?.();
  }

  /** Readiness and liveness probing begins once the startup probe passed, initialDelaySeconds after the start. */
  function begin(uid: string, c: ContainerWorkers, w: Worker): void {
    if (w.nextAt !== undefined || (w.field !== 'startupProbe' && !startupPassed(c))) return;
    w.nextAt = Math.max(c.start + w.delayMs, clockNow());
    schedule(uid, c, w);
  }

  async function run(uid: string, c: ContainerWorkers, w: Worker): Promise<void> {
    const current = (): boolean => !stopped && pods.get(uid)?.containers.get(c.name) === c;
    if (w.busy || !current()) return;
    w.busy = true;
    const outcome = await runNetworkProbe(w.probe);
    w.busy = false;
    const entry = pods.get(uid);
    if (!entry || !current()) return;
    const now = clockNow();
    // A moved clock: the result stands for every period that passed since the last probe.
    const times = w.lastAt === undefined ? 1 : Math.max(1, Math.min(w.failureThreshold + w.successThreshold, Math.floor((now - w.lastAt) / w.periodMs)));
    w.lastAt = now;
    const before = w.result;
    if (outcome.warning) recorded(entry.pod, c.name, 'ProbeWarning', `${PROBE_NAMES[w.field]} probe warning: ${outcome.output}`);
    if (!outcome.ok) recorded(entry.pod, c.name, 'Unhealthy', `${PROBE_NAMES[w.field]} probe failed: ${outcome.output}`);
    if (outcome.ok) {
      w.failures = 0;
      w.successes += times;
      if (w.successes >= w.successThreshold) w.result = true;
    } else {
      w.successes = 0;
      w.failures += times;
      if (w.failures >= w.failureThreshold) w.result = false;
    }
    // A startup probe that passed is not run again; the others run on.
    w.nextAt = w.field === 'startupProbe' && w.result === true ? undefined : now + w.periodMs;
    schedule(uid, c, w);
    if (w.field === 'startupProbe' && w.result === true && before !== true) for (const other of c.workers.values()) begin(uid, c, other);
    if (w.result !== before) changed(entry.pod);
  }

  function stopWorkers(c: ContainerWorkers): void {
    for (const w of c.workers.values()) clearTimeout(w.timer);
  }

  const stopClock = onClockChange(() => {
    for (const [uid, entry] of pods) for (const c of entry.containers.values()) for (const w of c.workers.values()) if (!w.busy) schedule(uid, c, w);
  });

  return {
    script(pod, container, base) {
      if (runs.list().length === 0) return base;
      const spec = specOf(pod, container);
      if (!spec) return base;
      const mapped = mappedProbes(pod, spec, runs);
      if (mapped.size === 0) return base;
      const workers = pods.get(pod.metadata.uid ?? '')?.containers.get(container)?.workers;
      const out: { -readonly [K in keyof ProbingScript]: ProbingScript[K] } = { ...base };
      for (const field of mapped.keys()) {
        const w = workers?.get(field);
        if (field === 'startupProbe') {
          if (w?.result === false) out.started = false;
          else if (w?.result !== true) out.startupPending = true;
        } else if (field === 'readinessProbe') {
          if (w?.result !== true) out.ready = false;
        } else if (w?.result === false) out.live = false;
      }
      out.networkProbed = [...mapped.keys()];
      return out;
    },
    track(pod, running) {
      const uid = pod.metadata.uid ?? '';
      let entry = pods.get(uid);
      if (!entry) pods.set(uid, (entry = { pod, containers: new Map() }));
      entry.pod = pod;
      for (const [name, start] of running) {
        const spec = specOf(pod, name);
        const mapped = spec ? mappedProbes(pod, spec, runs) : new Map<ProbeField, { spec: Obj; probe: NetworkProbe }>();
        const probes = JSON.stringify([...mapped]);
        const known = entry.containers.get(name);
        if (known?.start === start && known.probes === probes) continue;
        if (known) stopWorkers(known);
        entry.containers.delete(name);
        if (mapped.size === 0) continue;
        const c: ContainerWorkers = { name, start, probes, workers: new Map() };
        for (const [field, { spec: p, probe }] of mapped) {
          c.workers.set(field, {
            field,
            probe,
            periodMs: seconds(p.periodSeconds, 10) * 1000,
            delayMs: (typeof p.initialDelaySeconds === 'number' ? p.initialDelaySeconds : 0) * 1000,
            failureThreshold: seconds(p.failureThreshold, 3),
            successThreshold: field === 'readinessProbe' ? seconds(p.successThreshold, 1) : 1,
            successes: 0,
            failures: 0,
            busy: false,
          });
        }
        entry.containers.set(name, c);
        for (const w of c.workers.values()) begin(uid, c, w);
      }
      for (const [name, c] of entry.containers) {
        if (running.has(name)) continue;
        stopWorkers(c);
        entry.containers.delete(name);
      }
      if (entry.containers.size === 0) pods.delete(uid);
    },
    forget(uid) {
      const entry = pods.get(uid);
      if (!entry) return;
      for (const c of entry.containers.values()) stopWorkers(c);
      pods.delete(uid);
    },
    stop() {
      stopped = true;
      stopClock();
      for (const entry of pods.values()) for (const c of entry.containers.values()) stopWorkers(c);
      pods.clear();
    },
  };
}
