// A simple scheduler: pending pods (no node, default scheduler, no scheduling gates) are bound through pods/binding
// to a simulated node that passes kube-scheduler's filters (scheduler-filters.ts), the one that scores highest with
// kube-scheduler's default score plugins and weights (scheduler-scores.ts).
// A pod no node takes gets kube's FailedScheduling event and PodScheduled=False condition (reason Unschedulable),
// and waits, as in kube-scheduler's unschedulable queue, for a change that could let it fit (a node added or
// changed, a bound pod gone), at the earliest after its backoff (1 s, doubling to 10 s), and at least every 5 min.
// When pods of lower priority stand in its way, it preempts them as DefaultPreemption does: on the node where the
// fewest of them that a PodDisruptionBudget protects, then the fewest and least important of them, make room, they get the DisruptionTarget condition, are deleted and get a
// Preempted event, and the pod is nominated to that node (status.nominatedNodeName), which it is tried on first.

import { clockDate } from '../../apis/clock.ts';
import { rfc3339 } from '../../registry/store-codec.ts';
import type { KubeObject } from '../../registry/types.ts';
import { createKeyedQueue } from '../work-queue.ts';
import { hostname } from 'node:os';
import type { EventSink } from '../events.ts';
import type { Informer, Informers } from '../informers.ts';
import type { ClusterView } from './scheduler-inter-pod.ts';
import { interPodFilters, needsInterPod } from './scheduler-inter-pod.ts';
import { allocatable, dryRun, fitErrorMessage, insufficient, podRequests, preFilterMessage, refusal, type Refusal, type RefusedNode, type Resources } from './scheduler-filters.ts';
import { createVolumeBinding, RWOP_CONFLICT } from './scheduler-volumes.ts';
import { claimsOfPod } from '../pod-claims.ts';
import { createBoundPods, NOTHING_REQUESTED, nonZeroRequests, requestsAndNonZero, scoreNodes, selectHost, type Feasible, type Requested, type ScoringCluster } from './scheduler-scores.ts';
import { withCondition } from './pod-conditions.ts';
import { asObj, ignoreConflictOrGone, key, NAMESPACES, NODES, PDBS, PODS, REPLICASETS, REPLICATION_CONTROLLERS, selects, SERVICES, splitKey, STATEFULSETS, WRITERS } from './shared.ts';


/** What a pod takes or holds on a node, and its priority. */
interface Hold extends Resources {
  readonly node: string;
  readonly priority: number;
}

/** What a bound pod takes from its node while it is neither terminated nor being deleted. */
interface Placement extends Hold {
  /** Its non-zero requests (what scoring counts of it). */
  readonly nonZeroCpu: number;
  readonly nonZeroMemory: number;
  /** The pod as it was placed (scoring reads its labels and affinity). */
  readonly pod: KubeObject;
}

function placementFor(pod: KubeObject, node: string, want: Resources, nonZero = nonZeroRequests(pod)): Placement {
  return { node, priority: priorityOf(pod), ...want, nonZeroCpu: nonZero.cpu, nonZeroMemory: nonZero.memory, pod };
}

function placementOf(pod: KubeObject): Placement | undefined {
  const spec = asObj(pod.spec);
  const phase = asObj(pod.status).phase;
  if (typeof spec.nodeName !== 'string' || !spec.nodeName || pod.metadata.deletionTimestamp || phase === 'Succeeded' || phase === 'Failed') return undefined;
  const { requested, nonZero } = requestsAndNonZero(pod);
  return placementFor(pod, spec.nodeName, { ...requested, pods: 1 }, nonZero);
}

/** What the pods on a node take: the filters' sum (cpu, memory, pods) and scoring's (Requested). */
type Usage = Resources & { -readonly [K in keyof Requested]: Requested[K] };

function priorityOf(pod: KubeObject): number {
  const p = asObj(pod.spec).priority;
  return typeof p === 'number' ? p : 0;
}

function hasRequiredAntiAffinity(pod: KubeObject): boolean {
  const terms = asObj(asObj(asObj(pod.spec).affinity).podAntiAffinity).requiredDuringSchedulingIgnoredDuringExecution;
  return Array.isArray(terms) && terms.length > 0;
}

const NONE: Resources = { cpu: 0, memory: 0, pods: 0 };
const NO_NODES = 'no nodes available to schedule pods';
const INITIAL_BACKOFF_MS = 1000;
const MAX_BACKOFF_MS = 10_000;
/** kube-scheduler's podMaxInUnschedulablePodsDuration. */
const UNSCHEDULABLE_RETRY_MS = 300_000;

/** A pod no node took: how often it failed, when it may be tried again, and what it was when it failed. */
interface Unschedulable {
  attempts: number;
  backoffUntil: number;
  fingerprint: string;
  retryAt?: number;
  /** Whether the filters that look at bound pods judged it (a pod bound somewhere may then help it). */
  interPod: boolean;
}

/** A node where preempting `victims` (keys of bound pods) makes room for a pod, `violations` of them against a PodDisruptionBudget. */
interface Candidate {
  readonly node: string;
  readonly victims: { readonly key: string; readonly placement: Placement }[];
  readonly violations: number;
}

const plus = (a: Resources, b: Resources, sign: 1 | -1 = 1): Resources => ({ cpu: a.cpu + sign * b.cpu, memory: a.memory + sign * b.memory, pods: a.pods + sign * b.pods });

/**
 * pickOneNodeForPreemption's order (start times aside): the fewest victims a PodDisruptionBudget protects, the lowest
 * highest-priority victim, then the lowest sum of priorities each offset by 2^31 (so fewer victims first), then the
 * fewest victims.
 */
function betterCandidate(a: Candidate, b: Candidate): boolean {
  if (a.violations !== b.violations) return a.violations < b.violations;
  const top = (c: Candidate) => Math.max(...c.victims.map((v) => v.placement.priority));
  const sum = (c: Candidate) => c.victims.reduce((n, v) => n + v.placement.priority + 2 ** 31, 0);
  if (top(a) !== top(b)) return top(a) < top(b);
  if (sum(a) !== sum(b)) return sum(a) < sum(b);
  return a.victims.length < b.victims.length;
}

/** What kube-scheduler's isPodUpdated compares: the pod without its status and bookkeeping. */
function podFingerprint(pod: KubeObject): string {
  const { resourceVersion: _rv, generation: _g, managedFields: _mf, ...meta } = pod.metadata;
  return JSON.stringify([meta, pod.spec]);
}

/** The parts of a node a pending pod's filters read. */
function nodeFingerprint(node: KubeObject): string {
  const status = asObj(node.status);
  const ready = ((status.conditions as unknown[] | undefined) ?? []).map(asObj).find((c) => c.type === 'Ready')?.status;
  return JSON.stringify([node.metadata.labels, node.spec, status.allocatable, ready]);
}

export function startScheduler(informers: Informers, eventSink: EventSink): { stop(): Promise<void> } {
  const pods = informers.of(PODS).as(WRITERS.scheduler);
  // kube-scheduler records events.k8s.io/v1 Events at its client's rate (--kube-api-qps 50, burst 100).
  const events = eventSink.recorder({ component: 'default-scheduler', host: `default-scheduler-${hostname()}`, user: WRITERS.scheduler, qps: 50, burst: 100, eventsV1: true });
  const nodes = informers.of(NODES);
  // The scheduler's cache (as kube-scheduler's): what each bound pod takes, and each node's sum of it, kept from the
  // pod informer, which takes a binding in as soon as it succeeds, so the next decision sees it.
  const placements = new Map<string, Placement>();
  const usage = new Map<string, Usage>();
  // The bound pods as scoring reads them, kept with the placements.
  const boundPods = createBoundPods();
  const unschedulable = new Map<string, Unschedulable>();
  // Pods a preemption nominated to a node, not bound yet: they hold its room against pods of no higher priority.
  const nominations = new Map<string, Hold>();
  // Bound pods with required anti-affinity: every decision must then respect them.
  const antiAffine = new Set<string>();
  let namespaces: Informer | undefined;
  // Followed from the start: a preemption must see the budgets as they are.
  const budgets = informers.of(PDBS);
  const volumeBinding = createVolumeBinding(informers);
  // Pods whose volumes PreBind is binding: the node they are assumed on and the claims they wait for.
  const volumeWaits = new Map<string, { node: string; claims: string[] }>();
  function clusterView(all: KubeObject[]): ClusterView {
    const bound: KubeObject[] = [];
    for (const [k, p] of placements) {
      const { namespace, name } = splitKey(k);
      const pod = pods.get(namespace, name);
      // A pod bound by this scheduler may not show its node in the informer yet.
      if (pod) bound.push(asObj(pod.spec).nodeName ? pod : { ...pod, spec: { ...asObj(pod.spec), nodeName: p.node } });
    }
    return {
      nodes: all,
      bound,
      namespaceLabels(name) {
        namespaces ??= informers.of(NAMESPACES);
        return namespaces.get('', name)?.metadata.labels;
      },
    };
  }
  const nodeSeen = new Map<string, string>();
  // Followed from the start: the system default spreading reads the owners and Services of the pods it places.
  const services = informers.of(SERVICES);
  const owners = { ReplicaSet: informers.of(REPLICASETS), StatefulSet: informers.of(STATEFULSETS), ReplicationController: informers.of(REPLICATION_CONTROLLERS) };
  const scoring: ScoringCluster = {
    bound: boundPods,
    namespaceLabels(name) {
      namespaces ??= informers.of(NAMESPACES);
      return namespaces.get('', name)?.metadata.labels;
    },
    services: (namespace) => services.list(namespace),
    controller: (kind, namespace, name) => owners[kind].get(namespace, name),
  };

  function account(p: Placement, sign: 1 | -1): void {
    let u = usage.get(p.node);
    if (!u) usage.set(p.node, (u = { cpu: 0, memory: 0, pods: 0, nonZeroCpu: 0, nonZeroMemory: 0 }));
    u.cpu += sign * p.cpu;
    u.memory += sign * p.memory;
    u.pods += sign * p.pods;
    u.nonZeroCpu += sign * p.nonZeroCpu;
    u.nonZeroMemory += sign * p.nonZeroMemory;
    if (u.pods === 0) usage.delete(p.node);
  }
  /** Records where a pod is now; true when it gave resources back. */
  function place(k: string, p: Placement | undefined): boolean {
    const old = placements.get(k);
    if (old) account(old, -1);
    if (p) {
      placements.set(k, p);
      account(p, 1);
      boundPods.set(k, p.pod, p.node);
    } else {
      placements.delete(k);
      boundPods.delete(k);
    }
    return old !== undefined && (p === undefined || p.cpu < old.cpu || p.memory < old.memory || p.node !== old.node);
  }
  /** What a node holds for a pod of `priority`: its bound pods and the pods nominated to it of at least that priority. */
  function usedFor(node: string, priority: number, self: string): Resources {
    let used = usage.get(node) ?? NONE;
    for (const [k, n] of nominations) if (k !== self && n.node === node && n.priority >= priority) used = plus(used, n);
    return used;
  }
  /**
   * PodEligibleToPreemptOthers' wait: a pod nominated to a node (not refused there for good) preempts no more while a
   * pod of lower priority it preempted there is still terminating.
   */
  function waitsForVictims(pod: KubeObject, nominatedRefusal: Refusal | undefined): boolean {
    const node = asObj(pod.status).nominatedNodeName;
    if (typeof node !== 'string' || !node || nominatedRefusal?.resolvable === false) return false;
    const priority = priorityOf(pod);
    return pods.list().some((p) => {
      if (asObj(p.spec).nodeName !== node || !p.metadata.deletionTimestamp || priorityOf(p) >= priority) return false;
      return ((asObj(p.status).conditions as unknown[] | undefined) ?? []).map(asObj).some((c) => c.type === 'DisruptionTarget' && c.status === 'True' && c.reason === 'PreemptionByScheduler');
    });
  }
  /** Whether the pod of key `k` is bound to `node` with a priority lower than `priority` (a possible victim there). */
  function isLowerOn(k: string, node: string, priority: number): boolean {
    const p = placements.get(k);
    return p !== undefined && p.node === node && p.priority < priority;
  }
  /** What the pods of lower priority than `priority` on a node take (DefaultPreemption's possible victims). */
  function lowerPriorityOn(node: string, priority: number): Resources {
    const sum = { cpu: 0, memory: 0, pods: 0 };
    for (const p of placements.values()) {
      if (p.node !== node || p.priority >= priority) continue;
      sum.cpu += p.cpu;
      sum.memory += p.memory;
      sum.pods += p.pods;
    }
    return sum;
  }
  /**
   * Moves the unschedulable pods back to the queue, each once its backoff has passed (a cluster event may help them);
   * only those the inter-pod filters judged when a pod was just bound.
   */
  function retryUnschedulable(podBound = false): void {
    const now = Date.now();
    for (const [k, state] of unschedulable) {
      if (podBound && !state.interPod) continue;
      const at = Math.max(now, state.backoffUntil);
      if (state.retryAt !== undefined && state.retryAt <= at) continue;
      state.retryAt = at;
      queue.later(() => {
        if (unschedulable.get(k) !== state || state.retryAt !== at) return;
        state.retryAt = undefined;
        queue.enqueue(k);
      }, at - now);
    }
  }

  /** handleSchedulingFailure, after PostFilter's preemption (if it chose a node, the pod is nominated to it). */
  async function failed(k: string, pod: KubeObject, message: string, interPod: boolean, preemption?: Candidate): Promise<void> {
    const state = unschedulable.get(k) ?? { attempts: 0, backoffUntil: 0, fingerprint: '', interPod };
    state.interPod = interPod;
    state.attempts++;
    state.backoffUntil = Date.now() + Math.min(INITIAL_BACKOFF_MS * 2 ** (state.attempts - 1), MAX_BACKOFF_MS);
    state.fingerprint = podFingerprint(pod);
    unschedulable.set(k, state);
    queue.enqueue(k, UNSCHEDULABLE_RETRY_MS);
    // Preempted only now that the pod waits as unschedulable: its victims' deletion moves it back to the queue.
    if (preemption) await preempt(pod, preemption);
    const nominated = preemption?.node;
    events.event(pod, 'Warning', 'FailedScheduling', message, { action: 'Scheduling' });
    // updatePod: the PodScheduled condition (lastTransitionTime kept while False) and the node a preemption
    // nominated, written only when either changes.
    const old = ((asObj(pod.status).conditions as unknown[] | undefined) ?? []).map(asObj).find((c) => c.type === 'PodScheduled');
    const renominate = nominated !== undefined && asObj(pod.status).nominatedNodeName !== nominated;
    if (old && old.status === 'False' && old.reason === 'Unschedulable' && old.message === message && !renominate) return;
    const condition = { type: 'PodScheduled', status: 'False', lastProbeTime: null, lastTransitionTime: old?.status === 'False' ? old.lastTransitionTime : rfc3339(clockDate()), reason: 'Unschedulable', message };
    const { namespace, name } = splitKey(k);
    await pods
      .update(
        namespace,
        name,
        (cur) => {
          if (!cur || cur.metadata.uid !== pod.metadata.uid || asObj(cur.spec).nodeName) return cur!;
          const next = withCondition(cur, condition);
          return nominated === undefined ? next : { ...next, status: { ...asObj(next.status), nominatedNodeName: nominated } };
        },
        { subresource: 'status' },
      )
      .catch(ignoreConflictOrGone);
  }

  /**
   * filterPodsWithPDBViolation: which of these pods (most important first) a PodDisruptionBudget of theirs would not
   * let go, counting down each budget's allowed disruptions (pods it already counts as disrupted take none).
   */
  function violatesBudget(lower: readonly (readonly [string, Placement])[]): Set<string> {
    const allowed = new Map<KubeObject, number>();
    const violating = new Set<string>();
    for (const [k] of lower) {
      const { namespace, name } = splitKey(k);
      const pod = pods.get(namespace, name);
      if (!pod) continue;
      for (const pdb of budgets.list(namespace)) {
        if (!selects(asObj(pdb.spec).selector, pod.metadata.labels)) continue;
        const status = asObj(pdb.status);
        if (name in asObj(status.disruptedPods)) continue;
        const left = (allowed.get(pdb) ?? Number(status.disruptionsAllowed ?? 0)) - 1;
        allowed.set(pdb, left);
        if (left < 0) violating.add(k);
      }
    }
    return violating;
  }

  /**
   * SelectVictimsOnNode: all lower-priority pods removed, then as many as still leave room put back, most important
   * first, those a budget protects before the others (never the `holders` of the pod's ReadWriteOncePod claims); the
   * protected ones left as victims are its violations.
   */
  function candidateOn(node: KubeObject, used: Resources, want: Resources, priority: number, holders: readonly string[]): Candidate | undefined {
    const name = node.metadata.name ?? '';
    const lower = [...placements].filter(([, p]) => p.node === name && p.priority < priority).sort(([, a], [, b]) => b.priority - a.priority);
    const has = allocatable(node);
    let left = lower.reduce((u, [, p]) => plus(u, p, -1), used);
    const violating = violatesBudget(lower);
    const victims: Candidate['victims'] = [];
    let violations = 0;
    for (const [key, placement] of [...lower.filter(([k]) => violating.has(k)), ...lower.filter(([k]) => !violating.has(k))]) {
      const back = plus(left, placement);
      if (!holders.includes(key) && insufficient(want, back, has).length === 0) left = back;
      else {
        victims.push({ key, placement });
        if (violating.has(key)) violations++;
      }
    }
    return victims.length > 0 ? { node: name, victims, violations } : undefined;
  }

  /** prepareCandidate: each victim gets the DisruptionTarget condition, is deleted and gets a Preempted event. */
  async function preempt(pod: KubeObject, candidate: Candidate): Promise<void> {
    const scheduler = String(asObj(pod.spec).schedulerName ?? 'default-scheduler');
    for (const { key: victimKey } of candidate.victims) {
      const { namespace, name } = splitKey(victimKey);
      const victim = pods.get(namespace, name);
      if (!victim) continue;
      const condition = { type: 'DisruptionTarget', status: 'True', lastProbeTime: null, lastTransitionTime: rfc3339(clockDate()), reason: 'PreemptionByScheduler', message: `${scheduler}: preempting to accommodate a higher priority pod` };
      await pods.update(namespace, name, (cur) => (cur && cur.metadata.uid === victim.metadata.uid ? withCondition(cur, condition) : cur!), { subresource: 'status' }).catch(ignoreConflictOrGone);
      await pods.delete(namespace, name).catch(ignoreConflictOrGone);
      events.event(victim, 'Normal', 'Preempted', `Preempted by pod ${pod.metadata.uid ?? ''} on node ${candidate.node}`, { action: 'Preempting', related: pod });
    }
  }

  /** The binding cycle: the pod to its node, and the Scheduled event. */
  async function bindPod(k: string, pod: KubeObject, node: string, want: Resources): Promise<void> {
    const { namespace, name } = splitKey(k);
    const bound = await pods
      .createSubresource(namespace, name, 'binding', { apiVersion: 'v1', kind: 'Binding', metadata: { name, namespace }, target: { kind: 'Node', name: node } })
      .then(() => true, ignoreConflictOrGone);
    if (!bound) return;
    unschedulable.delete(k);
    if (!placements.has(k)) {
      place(k, placementFor(pod, node, want));
      if (hasRequiredAntiAffinity(pod)) antiAffine.add(k);
      if (unschedulable.size > 0) retryUnschedulable(true);
    }
    events.event(pod, 'Normal', 'Scheduled', `Successfully assigned ${namespace}/${name} to ${node}`, { action: 'Binding' });
  }

  const queue = createKeyedQueue(async (k) => {
    await Promise.all([pods.synced, nodes.synced, volumeBinding.synced]);
    const { namespace, name } = splitKey(k);
    const pod = pods.get(namespace, name);
    const spec = asObj(pod?.spec);
    if (!pod || spec.nodeName || pod.metadata.deletionTimestamp || ((spec.schedulingGates as unknown[] | undefined) ?? []).length > 0) {
      unschedulable.delete(k);
      return;
    }
    const want = podRequests(pod);
    // Assumed on a node while its volumes are bound: bound to it once they all are.
    const waiting = volumeWaits.get(k);
    if (waiting) {
      if (!volumeBinding.allBound(waiting.claims)) return;
      volumeWaits.delete(k);
      return bindPod(k, pod, waiting.node, want);
    }
    const all = nodes.list();
    const podClaims = all.length > 0 ? volumeBinding.preFilter(pod) : undefined;
    if (typeof podClaims === 'string') {
      await failed(k, pod, preFilterMessage(pod, all.length, podClaims), false);
      return;
    }
    // The node a preemption nominated, when it fits, is the only one tried further (kube's evaluateNominatedNode);
    // otherwise the node that scores highest, as kube's prioritizeNodes and selectHost pick it.
    const nominated = asObj(pod.status).nominatedNodeName;
    const priority = priorityOf(pod);
    const interPod = needsInterPod(pod, antiAffine.size) ? interPodFilters(pod, clusterView(all)) : undefined;
    // VolumeRestrictions comes before VolumeBinding among the filters; its ReadWriteOncePod conflict is the cluster's.
    const holders = volumeBinding.readWriteOncePodHolders(pod, () => pods.list(namespace)).map(key);
    const volumeFilter = holders.length > 0 ? () => RWOP_CONFLICT : podClaims && ((n: KubeObject) => volumeBinding.filter(podClaims, n));
    const feasible: Feasible[] = [];
    let nominatedFits = false;
    const refused: { node: KubeObject; used: Resources; refusal: Refusal }[] = [];
    for (const node of all) {
      const nodeName = node.metadata.name ?? '';
      const used = usedFor(nodeName, priority, k);
      const why = refusal(pod, want, node, used, interPod, volumeFilter);
      if (why) refused.push({ node, used, refusal: why });
      else {
        if (nodeName === nominated) nominatedFits = true;
        // Scoring counts the pods bound and assumed on the node, not those nominated to it (as kube's NodeInfo).
        feasible.push({ node, requested: usage.get(nodeName) ?? NOTHING_REQUESTED });
      }
    }
    let best: string | undefined;
    if (nominatedFits) best = nominated as string;
    else if (feasible.length === 1) best = feasible[0]!.node.metadata.name ?? '';
    else if (feasible.length > 1) {
      const names = feasible.map((f) => f.node.metadata.name ?? '');
      best = names[selectHost(names, scoreNodes(pod, feasible, all, scoring))];
    }
    if (!best) {
      // DefaultPreemption's dry run: the node's lower-priority pods removed, the filters run again. A ReadWriteOncePod
      // conflict goes only when every pod holding the claim is among them (VolumeRestrictions' RemovePod).
      const verdictOf = (r: (typeof refused)[number]): string[] | undefined => {
        if (!r.refusal.resolvable) return undefined;
        const nodeName = r.node.metadata.name ?? '';
        const resources = dryRun(want, r.node, r.used, lowerPriorityOn(nodeName, priority));
        if (resources) return resources;
        if (holders.some((h) => !isLowerOn(h, nodeName, priority))) return RWOP_CONFLICT.reasons;
        const binding = holders.length > 0 && podClaims ? volumeBinding.filter(podClaims, r.node) : undefined;
        return binding?.reasons;
      };
      const verdicts: RefusedNode[] = refused.map((r) => ({ refusal: r.refusal, dryRun: verdictOf(r) }));
      const notEligible = waitsForVictims(pod, refused.find((r) => r.node.metadata.name === nominated)?.refusal) ? 'not eligible due to a terminating pod on the nominated node.' : undefined;
      let chosen: Candidate | undefined;
      if (asObj(pod.spec).preemptionPolicy !== 'Never' && notEligible === undefined) {
        refused.forEach((r, i) => {
          if (!r.refusal.resolvable || verdicts[i]!.dryRun !== undefined) return;
          const c = candidateOn(r.node, r.used, want, priority, holders);
          if (c && (!chosen || betterCandidate(c, chosen))) chosen = c;
        });
      }
      await failed(k, pod, all.length === 0 ? NO_NODES : fitErrorMessage(pod, verdicts, notEligible), interPod !== undefined, chosen);
      return;
    }
    if (podClaims && podClaims.waiting.length > 0) {
      const node = all.find((n) => n.metadata.name === best)!;
      let claims: string[];
      try {
        claims = await volumeBinding.preBind(podClaims, node);
      } catch (e) {
        await failed(k, pod, `running PreBind plugin "VolumeBinding": ${e instanceof Error ? e.message : String(e)}`, false);
        return;
      }
      unschedulable.delete(k);
      place(k, placementFor(pod, best, want));
      if (!volumeBinding.allBound(claims)) {
        volumeWaits.set(k, { node: best, claims });
        return;
      }
    }
    await bindPod(k, pod, best, want);
  }, 500, informers.activity);

  volumeBinding.onChange((claimKey) => {
    if (claimKey) for (const [k, w] of volumeWaits) if (w.claims.includes(claimKey)) queue.enqueue(k);
    if (unschedulable.size > 0) retryUnschedulable();
  });

  pods.onEvent((ev) => {
    const pod = ev.object;
    const spec = asObj(pod.spec);
    const k = key(pod);
    if (ev.type === 'DELETED') {
      unschedulable.delete(k);
      volumeWaits.delete(k);
    }
    const nominatedTo = asObj(pod.status).nominatedNodeName;
    if (ev.type !== 'DELETED' && !spec.nodeName && !pod.metadata.deletionTimestamp && typeof nominatedTo === 'string' && nominatedTo) {
      nominations.set(k, { node: nominatedTo, priority: priorityOf(pod), ...podRequests(pod) });
    } else nominations.delete(k);
    // An unbound pod's event (possibly older than a binding just made) leaves the assumed placement alone.
    if (ev.type === 'DELETED' || spec.nodeName) {
      const placement = ev.type === 'DELETED' ? undefined : placementOf(pod);
      const added = placement !== undefined && !placements.has(k);
      if (place(k, placement)) retryUnschedulable();
      else if (added && unschedulable.size > 0) retryUnschedulable(true);
      // A pod that held claims is gone (its resources were freed when it began terminating): a ReadWriteOncePod
      // claim it used is free now (kube's AssignedPodDelete event for VolumeRestrictions).
      else if (ev.type === 'DELETED' && unschedulable.size > 0 && claimsOfPod(pod).length > 0) retryUnschedulable();
      if (placement && hasRequiredAntiAffinity(pod)) antiAffine.add(k);
      else antiAffine.delete(k);
    }
    if (ev.type === 'DELETED' || spec.nodeName || (spec.schedulerName ?? 'default-scheduler') !== 'default-scheduler') return;
    // A pod waiting as unschedulable is tried again when it changes, not for its own status (the condition written).
    const waiting = unschedulable.get(k);
    if (waiting && waiting.fingerprint === podFingerprint(pod)) return;
    queue.enqueue(k);
  });
  nodes.onEvent((ev) => {
    const name = ev.object.metadata.name ?? '';
    if (ev.type === 'DELETED') {
      nodeSeen.delete(name);
      return;
    }
    const fingerprint = nodeFingerprint(ev.object);
    if (nodeSeen.get(name) === fingerprint) return;
    nodeSeen.set(name, fingerprint);
    retryUnschedulable();
  });
  return { stop: queue.stop };
}
