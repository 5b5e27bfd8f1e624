// kube-controller-manager's node lifecycle controller (pkg/controller/nodelifecycle, kube 1.31's defaults) for the
// simulated cluster:
// - Node health: a node whose kubelet has posted neither a new Ready heartbeat nor a lease renewal for 40 s
//   (--node-monitor-grace-period; 60 s after registration for a node that never posted a status) gets its Ready,
//   MemoryPressure, DiskPressure and PIDPressure conditions set to Unknown ("Kubelet stopped posting node status.",
//   or "Kubelet never posted node status."), an event NodeNotReady, and its pods' Ready condition False (a Warning
//   NodeNotReady event on each). Time is the server clock's, checked every 5 s and whenever the clock moves.
// - NoSchedule taints follow the conditions (not-ready, unreachable, memory-, disk-, pid-pressure,
//   network-unavailable) and spec.unschedulable (`kubectl cordon`).
// - NoExecute taints: a node not Ready (False: not-ready, Unknown: unreachable) joins its zone's queue, which
//   taints one node every 10 s (--node-eviction-rate 0.1); none while every node of every zone is not Ready
//   ("master disruption mode": all nodes' NoExecute taints are taken off instead), and none in a zone of at most 50
//   nodes where more than 2 and at least 55% are not Ready. A Ready node loses them. The taint eviction controller
//   (taint-eviction.ts) then deletes the pods that do not tolerate them.
// - The beta os and arch labels are kept equal to the stable ones.

import { clockNow, onClockChange } from '../../apis/clock.ts';
import { rfc3339 } from '../../registry/store-codec.ts';
import type { KubeObject } from '../../registry/types.ts';
import type { EventSink } from '../events.ts';
import type { Informers } from '../informers.ts';
import { coalescedPass, createKeyedQueue } from '../work-queue.ts';
import { addPodCondition, podConditions } from './pod-conditions.ts';
import { asObj, controllerAccount, controllerEvents, ignoreConflictOrGone, LEASES, NODES, PODS, type Obj } from './shared.ts';

const MONITOR_PERIOD_MS = 5000;
const GRACE_MS = 40_000;
const STARTUP_GRACE_MS = 60_000;
const EVICTION_QPS = 0.1;
const SECONDARY_EVICTION_QPS = 0.01;
const LARGE_CLUSTER = 50;
const UNHEALTHY_ZONE = 0.55;
const TAINTING_PERIOD_MS = 100;

const NOT_READY_KEY = 'node.kubernetes.io/not-ready';
const UNREACHABLE_KEY = 'node.kubernetes.io/unreachable';
const UNSCHEDULABLE_KEY = 'node.kubernetes.io/unschedulable';
/** The NoSchedule taint each condition status brings. */
const CONDITION_TAINTS: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  Ready: { False: NOT_READY_KEY, Unknown: UNREACHABLE_KEY },
  MemoryPressure: { True: 'node.kubernetes.io/memory-pressure' },
  DiskPressure: { True: 'node.kubernetes.io/disk-pressure' },
  NetworkUnavailable: { True: 'node.kubernetes.io/network-unavailable' },
  PIDPressure: { True: 'node.kubernetes.io/pid-pressure' },
};
const CONDITION_TAINT_KEYS = new Set(Object.values(CONDITION_TAINTS).flatMap((m) => Object.values(m)));
const LABELS_KEPT_EQUAL = [
  ['kubernetes.io/os', 'beta.kubernetes.io/os'],
  ['kubernetes.io/arch', 'beta.kubernetes.io/arch'],
] as const;

type ZoneState = 'Initial' | 'Normal' | 'FullDisruption' | 'PartialDisruption';

/** A condition of a node status (NodeStatus.conditions) by type. */
const conditionIn = (status: unknown, type: string): Obj | undefined => ((asObj(status).conditions as unknown[] | undefined) ?? []).map(asObj).find((c) => c.type === type);
const conditionOf = (node: KubeObject | undefined, type: string): Obj | undefined => conditionIn(node?.status, type);
const taintsOf = (node: KubeObject): Obj[] => ((asObj(node.spec).taints as unknown[] | undefined) ?? []).map(asObj);
const hasTaint = (node: KubeObject, k: string, effect: string) => taintsOf(node).some((t) => t.key === k && t.effect === effect);

/** nodetopology.GetZoneKey: region and zone labels (the GA ones, else the deprecated ones); '' for neither. */
export function zoneKey(node: KubeObject): string {
  const labels = node.metadata.labels ?? {};
  const region = labels['topology.kubernetes.io/region'] ?? labels['failure-domain.beta.kubernetes.io/region'] ?? '';
  const zone = labels['topology.kubernetes.io/zone'] ?? labels['failure-domain.beta.kubernetes.io/zone'] ?? '';
  return region === '' && zone === '' ? '' : `${region}:\u0000:${zone}`;
}

/** ComputeZoneState over the zone's nodes' Ready conditions. */
export function zoneState(ready: readonly (Obj | undefined)[]): ZoneState {
  const readyCount = ready.filter((c) => c?.status === 'True').length;
  const notReady = ready.length - readyCount;
  if (readyCount === 0 && notReady > 0) return 'FullDisruption';
  if (notReady > 2 && notReady / ready.length >= UNHEALTHY_ZONE) return 'PartialDisruption';
  return 'Normal';
}

/** A token bucket of burst 1 (EvictionRateLimiterBurst); qps 0 never lets anything through. */
function limiter(qps: number, startFull = true) {
  let tokens = startFull ? 1 : 0;
  let last = performance.now();
  return {
    qps,
    tryAccept(): boolean {
      if (qps <= 0) return false;
      const now = performance.now();
      tokens = Math.min(1, tokens + ((now - last) / 1000) * qps);
      last = now;
      if (tokens < 1) return false;
      tokens -= 1;
      return true;
    },
    full: () => qps > 0 && Math.min(1, tokens + ((performance.now() - last) / 1000) * qps) >= 1,
  };
}

interface Health {
  /** When the controller last saw the kubelet post (server clock, ms). */
  probe: number;
  readyTransition: number;
  /** The node's status as last seen. */
  status: Obj;
  /** The renewTime of the node's Lease as last seen. */
  leaseRenew?: string;
}

export interface NodeLifecycleOptions {
  /**
   * Runs before the health pass a moved clock brings: the simulated kubelets that run renew their leases at the
   * new time first, as they would have while that time passed.
   */
  readonly beforeClockPass?: () => Promise<void>;
}

export function startNodeLifecycle(informers: Informers, eventSink: EventSink, options: NodeLifecycleOptions = {}): { pass(): Promise<void>; idle(): Promise<void>; stop(): Promise<void> } {
  const user = controllerAccount('node-controller');
  const nodes = informers.of(NODES).as(user);
  const pods = informers.of(PODS).as(user);
  const leases = informers.of(LEASES);
  const events = controllerEvents(eventSink, 'node-controller', user);
  const known = new Map<string, KubeObject>();
  const healths = new Map<string, Health>();
  const zoneStates = new Map<string, ZoneState>();
  /** Each zone's NoExecute tainting queue (node names in order) and its rate limiter. */
  const tainters = new Map<string, { queue: Set<string>; limiter: ReturnType<typeof limiter> }>();
  let stopped = false;

  const nodeRef = (node: KubeObject): KubeObject => ({ apiVersion: 'v1', kind: 'Node', metadata: { name: node.metadata.name, uid: node.metadata.uid } });
  const podsOn = (name: string) => pods.list().filter((p) => asObj(p.spec).nodeName === name);

  /** Writes the node's taints: `add` (with timeAdded now) in place of the same key and effect, `remove` gone. */
  async function swapTaints(node: KubeObject, add: Obj[], remove: Obj[]): Promise<boolean> {
    const name = node.metadata.name ?? '';
    const at = rfc3339(new Date(clockNow()));
    const same = (a: Obj, b: Obj) => a.key === b.key && a.effect === b.effect;
    const written = await nodes
      .update('', name, (cur) => {
        const taints = [...taintsOf(cur!).filter((t) => !remove.some((r) => same(r, t)) && !add.some((a) => same(a, t))), ...add.map((t) => ({ ...t, timeAdded: at }))];
        // Go's omitempty: no taints, no field.
        const { taints: _old, ...spec } = asObj(cur!.spec);
        return { ...cur!, spec: taints.length > 0 ? { ...spec, taints } : spec };
      })
      .catch(ignoreConflictOrGone);
    return written !== undefined;
  }

  function tainter(zone: string) {
    let t = tainters.get(zone);
    if (!t) tainters.set(zone, (t = { queue: new Set(), limiter: limiter(EVICTION_QPS) }));
    return t;
  }
  function setLimiter(zone: string, size: number, state: ZoneState): void {
    const qps = state === 'PartialDisruption' ? (size > LARGE_CLUSTER ? SECONDARY_EVICTION_QPS : 0) : EVICTION_QPS;
    const t = tainter(zone);
    // SwapLimiter: a limiter that had no token to give hands on an empty bucket.
    t.limiter = limiter(qps, t.limiter.full());
  }

  async function markReachable(node: KubeObject): Promise<void> {
    if (hasTaint(node, UNREACHABLE_KEY, 'NoExecute') || hasTaint(node, NOT_READY_KEY, 'NoExecute')) {
      await swapTaints(node, [], [{ key: UNREACHABLE_KEY, effect: 'NoExecute' }, { key: NOT_READY_KEY, effect: 'NoExecute' }]);
    }
    tainter(zoneKey(node)).queue.delete(node.metadata.name ?? '');
  }

  function markForTainting(node: KubeObject, status: 'False' | 'Unknown'): void {
    const queue = tainter(zoneKey(node)).queue;
    const name = node.metadata.name ?? '';
    if (!hasTaint(node, status === 'False' ? NOT_READY_KEY : UNREACHABLE_KEY, 'NoExecute')) queue.delete(name);
    queue.add(name);
    scheduleTainting();
  }

  /** doNoExecuteTaintingPass: each zone's queue, as its limiter allows. */
  let taintingTimer: NodeJS.Timeout | undefined;
  function scheduleTainting(): void {
    if (taintingTimer || stopped) return;
    taintingTimer = setTimeout(() => {
      taintingTimer = undefined;
      void taintingPass().finally(() => {
        if ([...tainters.values()].some((t) => t.queue.size > 0)) scheduleTainting();
      });
    }, TAINTING_PERIOD_MS);
    taintingTimer.unref();
  }
  async function taintingPass(): Promise<void> {
    for (const t of tainters.values()) {
      for (const name of [...t.queue]) {
        if (!t.limiter.tryAccept()) break;
        const node = nodes.get('', name);
        const ready = conditionOf(node, 'Ready')?.status;
        if (!node || ready === 'True' || (ready !== 'False' && ready !== 'Unknown')) {
          t.queue.delete(name);
          continue;
        }
        const [add, remove] = ready === 'False' ? [NOT_READY_KEY, UNREACHABLE_KEY] : [UNREACHABLE_KEY, NOT_READY_KEY];
        if (await swapTaints(node, [{ key: add, effect: 'NoExecute' }], [{ key: remove, effect: 'NoExecute' }])) t.queue.delete(name);
      }
    }
  }

  /** tryUpdateNodeHealth: the Ready condition as observed, and as it is after marking a silent node Unknown. */
  async function updateHealth(node: KubeObject): Promise<{ observed: Obj; current: Obj | undefined }> {
    const name = node.metadata.name ?? '';
    const now = clockNow();
    const created = Date.parse(node.metadata.creationTimestamp ?? '') || now;
    const status = asObj(node.status);
    let health = healths.get(name);
    const currentReady = conditionOf(node, 'Ready');
    let observed: Obj;
    let grace = GRACE_MS;
    if (!currentReady) {
      observed = { type: 'Ready', status: 'Unknown', lastHeartbeatTime: node.metadata.creationTimestamp, lastTransitionTime: node.metadata.creationTimestamp };
      grace = STARTUP_GRACE_MS;
      if (health) health.status = status;
      else health = { status, probe: created, readyTransition: created };
    } else observed = { ...currentReady };
    const saved = health ? conditionIn(health.status, 'Ready') : undefined;
    const savedLease = health?.leaseRenew;
    if (!health || (!saved && currentReady) || (saved && !currentReady)) {
      health = { status, probe: now, readyTransition: now, leaseRenew: savedLease };
    } else if (saved && currentReady && saved.lastHeartbeatTime !== currentReady.lastHeartbeatTime) {
      const transition = saved.lastTransitionTime !== currentReady.lastTransitionTime ? now : health.readyTransition;
      health = { status, probe: now, readyTransition: transition, leaseRenew: savedLease };
    }
    const renewed = asObj(leases.get('kube-node-lease', name)?.spec).renewTime;
    if (typeof renewed === 'string' && (savedLease === undefined || Date.parse(savedLease) < Date.parse(renewed))) {
      health.leaseRenew = renewed;
      health.probe = now;
    }
    healths.set(name, health);
    if (now <= health.probe + grace) return { observed, current: currentReady };

    const at = rfc3339(new Date(now));
    const silent = (cur: KubeObject): Obj[] => {
      const conditions = ((asObj(cur.status).conditions as unknown[] | undefined) ?? []).map(asObj);
      for (const type of ['Ready', 'MemoryPressure', 'DiskPressure', 'PIDPressure']) {
        const i = conditions.findIndex((c) => c.type === type);
        if (i < 0) conditions.push({ type, status: 'Unknown', lastHeartbeatTime: cur.metadata.creationTimestamp, lastTransitionTime: at, reason: 'NodeStatusNeverUpdated', message: 'Kubelet never posted node status.' });
        else if (conditions[i]!.status !== 'Unknown') conditions[i] = { ...conditions[i], status: 'Unknown', reason: 'NodeStatusUnknown', message: 'Kubelet stopped posting node status.', lastTransitionTime: at };
      }
      return conditions;
    };
    const current = silent(node).find((c) => c.type === 'Ready');
    if (JSON.stringify(current) === JSON.stringify(observed)) return { observed, current };
    const written = await nodes.update('', name, (cur) => ({ ...cur!, status: { ...asObj(cur!.status), conditions: silent(cur!) } }), { subresource: 'status' });
    healths.set(name, { status: asObj(written.status), probe: health.probe, readyTransition: now, leaseRenew: renewed as string | undefined });
    return { observed, current: conditionOf(written, 'Ready') };
  }

  /** MarkPodsNotReady: each pod's Ready condition False, and a NodeNotReady event on it. */
  async function markPodsNotReady(list: readonly KubeObject[]): Promise<void> {
    for (const pod of list) {
      const ready = podConditions(pod).find((c) => c.type === 'Ready');
      if (!ready || ready.status === 'False') continue;
      const written = await pods
        .update(pod.metadata.namespace ?? '', pod.metadata.name ?? '', (cur) => (cur && cur.metadata.uid === pod.metadata.uid ? addPodCondition(cur, { ...ready, status: 'False' }) : cur!), { subresource: 'status' })
        .catch(ignoreConflictOrGone);
      if (written) events.event(pod, 'Warning', 'NodeNotReady', 'Node is not ready');
    }
  }

  async function processTaintBasedEviction(node: KubeObject, observed: Obj): Promise<void> {
    if (observed.status === 'False' || observed.status === 'Unknown') {
      const [want, opposite] = observed.status === 'False' ? [NOT_READY_KEY, UNREACHABLE_KEY] : [UNREACHABLE_KEY, NOT_READY_KEY];
      // Already tainted the other way: swapped at once, as the two mirror the Ready condition.
      if (hasTaint(node, opposite, 'NoExecute')) await swapTaints(node, [{ key: want, effect: 'NoExecute' }], [{ key: opposite, effect: 'NoExecute' }]);
      else markForTainting(node, observed.status);
    } else if (observed.status === 'True') await markReachable(node);
  }

  function handleDisruption(zoneConditions: Map<string, (Obj | undefined)[]>, all: readonly KubeObject[]): Promise<void> | void {
    const newStates = new Map<string, ZoneState>();
    let allAreFull = true;
    for (const [zone, conditions] of zoneConditions) {
      const state = zoneState(conditions);
      if (state !== 'FullDisruption') allAreFull = false;
      newStates.set(zone, state);
      if (!zoneStates.has(zone)) zoneStates.set(zone, 'Initial');
    }
    let allWereFull = true;
    for (const [zone, state] of zoneStates) {
      if (!zoneConditions.has(zone)) {
        zoneStates.delete(zone);
        continue;
      }
      if (state !== 'FullDisruption') {
        allWereFull = false;
        break;
      }
    }
    if (allAreFull && allWereFull) return;
    if (allAreFull) {
      // Every node is not Ready: more likely the control plane's trouble than the nodes'. Evictions stop.
      for (const zone of zoneStates.keys()) {
        tainter(zone).limiter = limiter(0);
        zoneStates.set(zone, 'FullDisruption');
      }
      return (async () => {
        for (const node of all) await markReachable(node);
      })();
    }
    if (allWereFull) {
      const now = clockNow();
      for (const node of all) {
        const h = healths.get(node.metadata.name ?? '');
        if (h) Object.assign(h, { probe: now, readyTransition: now });
      }
      for (const zone of zoneStates.keys()) {
        setLimiter(zone, zoneConditions.get(zone)?.length ?? 0, newStates.get(zone) ?? 'Normal');
        zoneStates.set(zone, newStates.get(zone) ?? 'Normal');
      }
      return;
    }
    for (const [zone, state] of zoneStates) {
      const next = newStates.get(zone) ?? 'Normal';
      if (state === next) continue;
      setLimiter(zone, zoneConditions.get(zone)?.length ?? 0, next);
      zoneStates.set(zone, next);
    }
  }

  /** monitorNodeHealth. */
  async function monitor(): Promise<void> {
    await Promise.all([nodes.synced, pods.synced, leases.synced]);
    const all = nodes.list();
    const names = new Set(all.map((n) => n.metadata.name ?? ''));
    for (const node of all) {
      const name = node.metadata.name ?? '';
      if (known.has(name)) continue;
      events.event(nodeRef(node), 'Normal', 'RegisteredNode', `Node ${name} event: Registered Node ${name} in Controller`);
      known.set(name, node);
      nodeQueue.enqueue(name);
      await markReachable(node);
    }
    for (const [name, node] of known) {
      if (names.has(name)) continue;
      events.event(nodeRef(node), 'Normal', 'RemovingNode', `Node ${name} event: Removing Node ${name} from Controller`);
      known.delete(name);
      healths.delete(name);
    }
    const zoneConditions = new Map<string, (Obj | undefined)[]>();
    for (const node of nodes.list()) {
      let result: { observed: Obj; current: Obj | undefined };
      try {
        result = await updateHealth(node);
      } catch {
        continue;
      }
      if (!('node.kubernetes.io/exclude-disruption' in (node.metadata.labels ?? {}))) {
        const zone = zoneKey(node);
        zoneConditions.set(zone, [...(zoneConditions.get(zone) ?? []), result.current]);
      }
      if (!result.current) continue;
      await processTaintBasedEviction(node, result.observed);
      if (result.current.status !== 'True' && result.observed.status === 'True') {
        events.event(nodeRef(node), 'Normal', 'NodeNotReady', `Node ${node.metadata.name ?? ''} status is now: NodeNotReady`);
        await markPodsNotReady(podsOn(node.metadata.name ?? ''));
      }
    }
    await handleDisruption(zoneConditions, nodes.list());
  }

  const pass = coalescedPass(monitor, () => stopped);

  /** doNoScheduleTaintingPass and reconcileNodeLabels of one node. */
  const nodeQueue = createKeyedQueue(async (name) => {
    await nodes.synced;
    const node = nodes.get('', name);
    if (!node) return;
    const want: Obj[] = [];
    for (const c of ((asObj(node.status).conditions as unknown[] | undefined) ?? []).map(asObj)) {
      const k = CONDITION_TAINTS[String(c.type)]?.[String(c.status)];
      if (k) want.push({ key: k, effect: 'NoSchedule' });
    }
    if (asObj(node.spec).unschedulable === true) want.push({ key: UNSCHEDULABLE_KEY, effect: 'NoSchedule' });
    const have = taintsOf(node).filter((t) => t.effect === 'NoSchedule' && (t.key === UNSCHEDULABLE_KEY || CONDITION_TAINT_KEYS.has(String(t.key))));
    const add = want.filter((w) => !have.some((h) => h.key === w.key));
    const remove = have.filter((h) => !want.some((w) => w.key === h.key));
    if (add.length > 0 || remove.length > 0) await swapTaints(node, add, remove);
    const labels = nodes.get('', name)?.metadata.labels ?? {};
    const update: Record<string, string> = {};
    for (const [stable, beta] of LABELS_KEPT_EQUAL) if (labels[stable] !== undefined && labels[beta] !== labels[stable]) update[beta] = labels[stable]!;
    if (Object.keys(update).length > 0) {
      await nodes.update('', name, (cur) => ({ ...cur!, metadata: { ...cur!.metadata, labels: { ...cur!.metadata.labels, ...update } } })).catch(ignoreConflictOrGone);
    }
  }, 500, informers.activity);
  nodes.onEvent((ev) => {
    if (ev.type === 'DELETED') return;
    const name = ev.object.metadata.name ?? '';
    nodeQueue.enqueue(name);
    // A status this controller wrote, or a Ready condition that changed, is followed at once by the pass that acts
    // on it (kube's next 5 s tick).
    const saved = healths.get(name);
    if (ev.written === 'status' || (saved && conditionIn(saved.status, 'Ready')?.status !== conditionOf(ev.object, 'Ready')?.status)) void pass();
  });

  // podUpdated / processPod: a pod bound to a node that is not Ready is marked not ready too.
  const boundTo = new Map<string, string>();
  pods.onEvent((ev) => {
    const k = `${ev.object.metadata.namespace ?? ''}/${ev.object.metadata.name ?? ''}`;
    if (ev.type === 'DELETED') return void boundTo.delete(k);
    const node = String(asObj(ev.object.spec).nodeName ?? '');
    if (!node || boundTo.get(k) === node) return;
    boundTo.set(k, node);
    const health = healths.get(node);
    const ready = health && conditionIn(health.status, 'Ready');
    if (ready && ready.status !== 'True') void markPodsNotReady([ev.object]).catch(() => undefined);
  });

  const timer = setInterval(() => void pass(), MONITOR_PERIOD_MS);
  timer.unref();
  const stopClock = onClockChange(() => {
    void (async () => {
      await options.beforeClockPass?.().catch(() => undefined);
      await pass();
    })();
  });

  return {
    pass: () => pass(),
    idle: () => nodeQueue.idle(),
    async stop() {
      stopped = true;
      clearInterval(timer);
      if (taintingTimer) clearTimeout(taintingTimer);
      stopClock();
      await pass.running();
      await nodeQueue.stop();
    },
  };
}
