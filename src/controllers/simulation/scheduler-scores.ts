// The simulated scheduler's scoring, as kube-scheduler 1.31's default profile scores the nodes that passed the
// filters (pkg/scheduler/apis/config/v1/default_plugins.go): each score plugin's Score and NormalizeScore (0 to
// framework.MaxNodeScore, 100), times its weight, summed per node. TaintToleration weighs 3, NodeAffinity,
// PodTopologySpread and InterPodAffinity 2, NodeResourcesFit (LeastAllocated on cpu and memory),
// NodeResourcesBalancedAllocation and ImageLocality 1. VolumeBinding scores only behind the VolumeCapacityPriority
// feature gate, off by default. ImageLocality is constant here: it scores the images a node reports
// (node.status.images), and simulated nodes report none, so it gives every node 0.
// Every feasible node is scored: kube's percentageOfNodesToScore never scores fewer than 100 nodes, more than a
// simulated cluster has. Plain functions over plain data; the scheduler keeps the bound pods' index
// (createBoundPods) as pods come and go, and computes what kube's PreScore does once per scheduling cycle.

import { labelsMatch, type LabelRequirement, type LabelSelector } from '../../apis/labels.ts';
import { nodeSelectorTermMatches } from '../../apis/node-selectors.ts';
import type { KubeObject } from '../../registry/types.ts';
import { affinityMatches, aggregateRequests, allocatable, podTotals, toleratesTaint, tolerationsOf, type CpuMemory } from './scheduler-filters.ts';
import { affinityTerms, selector, termMatches, type Term } from './scheduler-inter-pod.ts';
import { asObj, controllerOf } from './shared.ts';

export const MAX_NODE_SCORE = 100;

/** The default profile's score plugins and their weights. */
export const SCORE_WEIGHTS = {
  TaintToleration: 3,
  NodeAffinity: 2,
  PodTopologySpread: 2,
  InterPodAffinity: 2,
  NodeResourcesFit: 1,
  NodeResourcesBalancedAllocation: 1,
  ImageLocality: 1,
} as const;

/** What the scheduler counts for a container without a cpu or memory request (pkg/scheduler/util: 100m, 200Mi). */
export const NON_ZERO_DEFAULTS: CpuMemory = { cpu: 100, memory: 200 * 1024 * 1024 };

const HOSTNAME = 'kubernetes.io/hostname';
const ZONE = 'topology.kubernetes.io/zone';

/** PodTopologySpread's system defaults (DefaultingType System): applied when a pod has no constraints of its own. */
const SYSTEM_DEFAULT_CONSTRAINTS = [
  { topologyKey: HOSTNAME, maxSkew: 3 },
  { topologyKey: ZONE, maxSkew: 5 },
] as const;

/** What the pods bound to a node request: NodeInfo's Requested (cpu, memory) and NonZeroRequested. */
export interface Requested {
  readonly cpu: number;
  readonly memory: number;
  readonly nonZeroCpu: number;
  readonly nonZeroMemory: number;
}

export const NOTHING_REQUESTED: Requested = { cpu: 0, memory: 0, nonZeroCpu: 0, nonZeroMemory: 0 };

/** A pod's non-zero requests, as NodeInfo.NonZeroRequested adds them up and NodeResourcesFit scores them. */
export const nonZeroRequests = (pod: KubeObject): CpuMemory => aggregateRequests(pod, NON_ZERO_DEFAULTS);

/** A pod's requests and non-zero requests, parsed once. */
export const requestsAndNonZero = (pod: KubeObject) => podTotals(pod, NON_ZERO_DEFAULTS);

/** A node that passed the filters, with what the pods bound to it request. */
export interface Feasible {
  readonly node: KubeObject;
  readonly requested: Requested;
}

/** The bound pods (neither terminated nor being deleted) as scoring reads them, indexed by namespace and label. */
export interface BoundPods {
  set(key: string, pod: KubeObject, node: string): void;
  delete(key: string): void;
  /** Per node, how many bound pods of the namespace the selector matches (countPodsMatchSelector: an empty selector none). */
  countMatching(namespace: string, sel: LabelSelector): Map<string, number>;
  /** The bound pods and their nodes: all, or only those with pod affinity or anti-affinity (NodeInfo.PodsWithAffinity). */
  pods(withAffinityOnly: boolean): Iterable<readonly [KubeObject, string]>;
  /** How many bound pods have pod affinity or anti-affinity. */
  readonly withAffinity: number;
}

const hasPodAffinity = (pod: KubeObject): boolean => {
  const affinity = asObj(asObj(pod.spec).affinity);
  return !!affinity.podAffinity || !!affinity.podAntiAffinity;
};

function sameLabels(a: Readonly<Record<string, string>> | undefined, b: Readonly<Record<string, string>> | undefined): boolean {
  if (a === b) return true;
  const ak = Object.keys(a ?? {});
  if (ak.length !== Object.keys(b ?? {}).length) return false;
  return ak.every((k) => Object.hasOwn(b ?? {}, k) && b![k] === a![k]);
}

/**
 * The index of bound pods, kept as they are bound and go: a selector's matches are counted from the pods carrying
 * its rarest equality requirement's label (a ReplicaSet's pod-template-hash: its own pods), not from every pod.
 */
export function createBoundPods(): BoundPods {
  const entries = new Map<string, { pod: KubeObject; node: string }>();
  const byNamespace = new Map<string, Set<string>>();
  const byLabel = new Map<string, Set<string>>();
  const affine = new Set<string>();
  const labelKey = (namespace: string, k: string, v: string) => `${namespace}\u0000${k}\u0000${v}`;
  const add = (m: Map<string, Set<string>>, k: string, key: string) => {
    let s = m.get(k);
    if (!s) m.set(k, (s = new Set()));
    s.add(key);
  };
  const drop = (m: Map<string, Set<string>>, k: string, key: string) => {
    const s = m.get(k);
    if (s?.delete(key) && s.size === 0) m.delete(k);
  };
  function remove(key: string): void {
    const old = entries.get(key);
    if (!old) return;
    entries.delete(key);
    const namespace = old.pod.metadata.namespace ?? '';
    drop(byNamespace, namespace, key);
    for (const [k, v] of Object.entries(old.pod.metadata.labels ?? {})) drop(byLabel, labelKey(namespace, k, v), key);
    affine.delete(key);
  }
  return {
    set(key, pod, node) {
      const old = entries.get(key);
      // A bound pod's status changes often, its labels and namespace seldom: then only the object is replaced.
      if (old && old.node === node && old.pod.metadata.namespace === pod.metadata.namespace && sameLabels(old.pod.metadata.labels, pod.metadata.labels)) {
        old.pod = pod;
        if (hasPodAffinity(pod)) affine.add(key);
        else affine.delete(key);
        return;
      }
      remove(key);
      entries.set(key, { pod, node });
      const namespace = pod.metadata.namespace ?? '';
      add(byNamespace, namespace, key);
      for (const [k, v] of Object.entries(pod.metadata.labels ?? {})) add(byLabel, labelKey(namespace, k, v), key);
      if (hasPodAffinity(pod)) affine.add(key);
    },
    delete: remove,
    countMatching(namespace, sel) {
      const counts = new Map<string, number>();
      if (sel.requirements.length === 0) return counts;
      let candidates = byNamespace.get(namespace);
      if (!candidates) return counts;
      for (const r of sel.requirements) {
        if (!(r.operator === '=' || r.operator === '==' || (r.operator === 'in' && r.values.length === 1))) continue;
        const withLabel = byLabel.get(labelKey(namespace, r.key, r.values[0]!));
        if (!withLabel) return counts;
        if (withLabel.size < candidates.size) candidates = withLabel;
      }
      for (const key of candidates) {
        const e = entries.get(key)!;
        if (labelsMatch(sel, e.pod.metadata.labels)) counts.set(e.node, (counts.get(e.node) ?? 0) + 1);
      }
      return counts;
    },
    *pods(withAffinityOnly) {
      if (!withAffinityOnly) {
        for (const e of entries.values()) yield [e.pod, e.node] as const;
        return;
      }
      for (const key of affine) {
        const e = entries.get(key)!;
        yield [e.pod, e.node] as const;
      }
    },
    get withAffinity() {
      return affine.size;
    },
  };
}

/** What scoring reads of the cluster besides the nodes: the bound pods, namespaces and the owners of pods. */
export interface ScoringCluster {
  readonly bound: Pick<BoundPods, 'countMatching' | 'pods' | 'withAffinity'>;
  namespaceLabels(name: string): Readonly<Record<string, string>> | undefined;
  /** The Services of a namespace (their selectors feed PodTopologySpread's system default spreading). */
  services(namespace: string): readonly KubeObject[];
  /** A ReplicaSet, StatefulSet (apps/v1) or ReplicationController (v1) by name. */
  controller(kind: 'ReplicaSet' | 'StatefulSet' | 'ReplicationController', namespace: string, name: string): KubeObject | undefined;
}

const labelsOf = (obj: KubeObject): Readonly<Record<string, string>> => obj.metadata.labels ?? {};

/** helper.DefaultNormalizeScore: scaled so the highest is MAX_NODE_SCORE (integer division), then reversed if asked. */
export function defaultNormalize(scores: readonly number[], reverse: boolean): number[] {
  const max = Math.max(0, ...scores);
  if (max === 0) return scores.map((s) => (reverse ? MAX_NODE_SCORE : s));
  return scores.map((s) => {
    const n = Math.floor((MAX_NODE_SCORE * s) / max);
    return reverse ? MAX_NODE_SCORE - n : n;
  });
}

function leastRequested(requested: number, capacity: number): number {
  if (capacity === 0 || requested > capacity) return 0;
  return Math.floor(((capacity - requested) * MAX_NODE_SCORE) / capacity);
}

/**
 * NodeResourcesFit's LeastAllocated score: per resource (cpu, memory, weight 1 each) the share left free of the
 * node's allocatable after the pod, from the non-zero requests, each floored, then their weighted mean, floored.
 */
export function leastAllocatedScore(podNonZero: CpuMemory, node: Requested, has: CpuMemory): number {
  const weights = (has.cpu === 0 ? 0 : 1) + (has.memory === 0 ? 0 : 1);
  if (weights === 0) return 0;
  return Math.floor((leastRequested(node.nonZeroCpu + podNonZero.cpu, has.cpu) + leastRequested(node.nonZeroMemory + podNonZero.memory, has.memory)) / weights);
}

/**
 * NodeResourcesBalancedAllocation: the fractions of cpu and memory requested with the pod (the actual requests, each
 * at most 1), scored (1 - their standard deviation) x 100, truncated; for two resources the deviation is half
 * their difference.
 */
export function balancedAllocationScore(pod: CpuMemory, node: Requested, has: CpuMemory): number {
  // With one resource (or none) allocatable, the deviation is 0.
  if (has.cpu === 0 || has.memory === 0) return MAX_NODE_SCORE;
  const cpu = Math.min(1, (node.cpu + pod.cpu) / has.cpu);
  const memory = Math.min(1, (node.memory + pod.memory) / has.memory);
  return Math.trunc((1 - Math.abs((cpu - memory) / 2)) * MAX_NODE_SCORE);
}

/** NodeAffinity: the weights of the pod's preferred node affinity terms each node matches, normalized. */
export function nodeAffinityScores(pod: KubeObject, nodes: readonly KubeObject[]): number[] {
  const preferred = asObj(asObj(asObj(pod.spec).affinity).nodeAffinity).preferredDuringSchedulingIgnoredDuringExecution;
  const terms = ((preferred as unknown[] | undefined) ?? []).map(asObj).filter((t) => Number(t.weight ?? 0) !== 0);
  if (terms.length === 0) return nodes.map(() => 0);
  const raw = nodes.map((n) => terms.reduce((sum, t) => (nodeSelectorTermMatches(asObj(t.preference), n) ? sum + Number(t.weight) : sum), 0));
  return defaultNormalize(raw, false);
}

/**
 * TaintToleration: how many of a node's PreferNoSchedule taints the pod's tolerations (those for PreferNoSchedule
 * or every effect) leave untolerated, reverse-normalized (no such taint: MAX_NODE_SCORE).
 */
export function taintTolerationScores(pod: KubeObject, nodes: readonly KubeObject[]): number[] {
  const tolerations = tolerationsOf(pod).filter((t) => !t.effect || t.effect === 'PreferNoSchedule');
  const raw = nodes.map((n) => {
    const taints = ((asObj(n.spec).taints as unknown[] | undefined) ?? []).map(asObj);
    return taints.filter((taint) => taint.effect === 'PreferNoSchedule' && !tolerations.some((t) => toleratesTaint(t, taint))).length;
  });
  return defaultNormalize(raw, true);
}

interface SpreadConstraint {
  readonly topologyKey: string;
  readonly maxSkew: number;
  /** null: matches nothing. */
  readonly selector: LabelSelector | null;
  readonly honorAffinity: boolean;
  readonly honorTaints: boolean;
}

function eq(key: string, value: string): LabelRequirement {
  return { key, operator: '=', values: [value] };
}

/** ReplicaSets' and StatefulSets' selectors (immutable in apps/v1) by uid: their objects change with every status. */
const ownerSelectors = new Map<string, LabelSelector | null>();

function ownerSelector(owner: KubeObject | undefined): LabelSelector | null {
  if (!owner) return null;
  const uid = owner.metadata.uid;
  if (!uid) return selector(asObj(owner.spec).selector);
  let sel = ownerSelectors.get(uid);
  if (sel === undefined) {
    if (ownerSelectors.size >= 10_000) ownerSelectors.clear();
    ownerSelectors.set(uid, (sel = selector(asObj(owner.spec).selector)));
  }
  return sel;
}

/**
 * helper.DefaultSelector: the selectors of the pod's namespace's Services that select it, merged (a later one's
 * value wins a key), with its controller's selector: a ReplicationController's merged in as well, a ReplicaSet's or
 * StatefulSet's requirements added. Empty when none applies.
 */
export function defaultSelector(pod: KubeObject, cluster: ScoringCluster): LabelSelector {
  const namespace = pod.metadata.namespace ?? '';
  const labels = labelsOf(pod);
  const set: Record<string, string> = {};
  for (const svc of cluster.services(namespace)) {
    const sel = asObj(svc.spec).selector;
    if (!sel || typeof sel !== 'object') continue;
    if (Object.entries(sel as Record<string, unknown>).every(([k, v]) => labels[k] === String(v))) Object.assign(set, sel);
  }
  const requirements: LabelRequirement[] = [];
  const owner = controllerOf(pod);
  if (owner?.apiVersion === 'v1' && owner.kind === 'ReplicationController') {
    const rc = cluster.controller('ReplicationController', namespace, owner.name);
    if (rc) Object.assign(set, asObj(asObj(rc.spec).selector));
  } else if (owner?.apiVersion === 'apps/v1' && (owner.kind === 'ReplicaSet' || owner.kind === 'StatefulSet')) {
    const sel = ownerSelector(cluster.controller(owner.kind, namespace, owner.name));
    if (sel) requirements.push(...sel.requirements);
  }
  requirements.unshift(...Object.entries(set).map(([k, v]) => eq(k, String(v))));
  return { requirements, empty: requirements.length === 0 };
}

/** The constraints PodTopologySpread scores by: the pod's ScheduleAnyway ones, or the system defaults when it has none. */
export function scoringConstraints(pod: KubeObject, cluster: ScoringCluster): { constraints: SpreadConstraint[]; systemDefaulted: boolean } {
  const own = ((asObj(pod.spec).topologySpreadConstraints as unknown[] | undefined) ?? []).map(asObj);
  if (own.length === 0) {
    const sel = defaultSelector(pod, cluster);
    if (sel.empty) return { constraints: [], systemDefaulted: true };
    return { constraints: SYSTEM_DEFAULT_CONSTRAINTS.map((c) => ({ ...c, selector: sel, honorAffinity: true, honorTaints: false })), systemDefaulted: true };
  }
  const podLabels = labelsOf(pod);
  const constraints = own
    .filter((c) => c.whenUnsatisfiable === 'ScheduleAnyway')
    .map((c): SpreadConstraint => {
      let sel = selector(c.labelSelector);
      // matchLabelKeys: the pod's values of those keys join the selector.
      const keyed = ((c.matchLabelKeys as unknown[] | undefined) ?? []).map(String).filter((k) => Object.hasOwn(podLabels, k));
      if (keyed.length > 0) {
        const requirements = [...keyed.map((k) => eq(k, podLabels[k]!)), ...(sel?.requirements ?? [])];
        sel = { requirements, empty: false };
      }
      return { topologyKey: String(c.topologyKey ?? ''), maxSkew: Number(c.maxSkew ?? 1), selector: sel, honorAffinity: c.nodeAffinityPolicy !== 'Ignore', honorTaints: c.nodeTaintsPolicy === 'Honor' };
    });
  return { constraints, systemDefaulted: false };
}

/** Whether one of the node's own NoSchedule or NoExecute taints is not tolerated (nodeTaintsPolicy Honor). */
function untoleratedHardTaint(pod: KubeObject, node: KubeObject): boolean {
  const tolerations = tolerationsOf(pod);
  const taints = ((asObj(node.spec).taints as unknown[] | undefined) ?? []).map(asObj);
  return taints.some((taint) => (taint.effect === 'NoSchedule' || taint.effect === 'NoExecute') && !tolerations.some((t) => toleratesTaint(t, taint)));
}

/**
 * PodTopologySpread's PreScore, Score and NormalizeScore; undefined when it skips (no constraint applies). Per
 * constraint, a node is credited with the matching pods of its domain (a hostname constraint: of the node itself)
 * times log(domains + 2), plus maxSkew - 1, rounded; then the fewest such pods score highest.
 */
export function topologySpreadScores(pod: KubeObject, feasible: readonly KubeObject[], allNodes: readonly KubeObject[], cluster: ScoringCluster): number[] | undefined {
  if (allNodes.length === 0) return undefined;
  const { constraints, systemDefaulted } = scoringConstraints(pod, cluster);
  if (constraints.length === 0) return undefined;
  // System default spreading lets nodes without a zone label still spread by hostname.
  const requireAll = !systemDefaulted;
  const hasAllKeys = (n: KubeObject) => constraints.every((c) => Object.hasOwn(labelsOf(n), c.topologyKey));
  const ignored = feasible.map((n) => requireAll && !hasAllKeys(n));
  const scored = feasible.filter((_, i) => !ignored[i]);
  // A constraint no scored node has the key of credits no node: it is not counted.
  const relevant = constraints.map((c) => scored.some((n) => Object.hasOwn(labelsOf(n), c.topologyKey)));
  const domains = constraints.map((c, i) => {
    const m = new Map<string, number>();
    if (!relevant[i] || c.topologyKey === HOSTNAME) return m;
    for (const n of scored) m.set(labelsOf(n)[c.topologyKey] ?? '', 0);
    return m;
  });
  const weights = constraints.map((c, i) => Math.log((c.topologyKey === HOSTNAME ? scored.length : domains[i]!.size) + 2));
  const namespace = pod.metadata.namespace ?? '';
  const countsOf = new Map<LabelSelector, Map<string, number>>();
  const perNode = constraints.map((c, i) => {
    if (!relevant[i] || !c.selector) return new Map<string, number>();
    let m = countsOf.get(c.selector);
    if (!m) countsOf.set(c.selector, (m = cluster.bound.countMatching(namespace, c.selector)));
    return m;
  });
  if (constraints.some((c, i) => relevant[i] && c.topologyKey !== HOSTNAME)) {
    for (const node of allNodes) {
      const labels = labelsOf(node);
      if (requireAll && !hasAllKeys(node)) continue;
      constraints.forEach((c, i) => {
        if (!relevant[i] || c.topologyKey === HOSTNAME) return;
        if ((c.honorAffinity && !affinityMatches(pod, node)) || (c.honorTaints && untoleratedHardTaint(pod, node))) return;
        const value = labels[c.topologyKey] ?? '';
        const count = domains[i]!.get(value);
        if (count !== undefined) domains[i]!.set(value, count + (perNode[i]!.get(node.metadata.name ?? '') ?? 0));
      });
    }
  }
  const raw = feasible.map((n, j) => {
    if (ignored[j]) return 0;
    const labels = labelsOf(n);
    let score = 0;
    constraints.forEach((c, i) => {
      if (!Object.hasOwn(labels, c.topologyKey)) return;
      const count = c.topologyKey === HOSTNAME ? (perNode[i]!.get(n.metadata.name ?? '') ?? 0) : domains[i]!.get(labels[c.topologyKey]!)!;
      score += count * weights[i]! + (c.maxSkew - 1);
    });
    return Math.round(score);
  });
  let min = Infinity;
  let max = 0;
  raw.forEach((s, j) => {
    if (ignored[j]) return;
    min = Math.min(min, s);
    max = Math.max(max, s);
  });
  return raw.map((s, j) => (ignored[j] ? 0 : max === 0 ? MAX_NODE_SCORE : Math.floor((MAX_NODE_SCORE * (max + min - s)) / max)));
}

/**
 * InterPodAffinity's PreScore, Score and NormalizeScore; undefined when it skips (nothing to weigh). Per topology
 * domain: the weights of the pod's preferred affinity terms an existing pod there matches, minus those of its
 * preferred anti-affinity terms, plus each existing pod's terms the pod matches (required affinity weighing 1,
 * preferred affinity its weight, preferred anti-affinity minus its weight); a node scores its domains' sum,
 * min-max normalized.
 */
export function interPodAffinityScores(pod: KubeObject, feasible: readonly KubeObject[], allNodes: readonly KubeObject[], cluster: ScoringCluster): number[] | undefined {
  const nsLabels = (name: string) => cluster.namespaceLabels(name);
  const affinity = affinityTerms(pod, 'podAffinity', 'preferred', nsLabels);
  const antiAffinity = affinityTerms(pod, 'podAntiAffinity', 'preferred', nsLabels);
  const own = affinity.length > 0 || antiAffinity.length > 0;
  if (!own && cluster.bound.withAffinity === 0) return undefined;
  const nodeLabels = new Map(allNodes.map((n) => [n.metadata.name ?? '', labelsOf(n)]));
  const topology = new Map<string, Map<string, number>>();
  const credit = (term: Term, labels: Readonly<Record<string, string>>, weight: number) => {
    if (!Object.hasOwn(labels, term.topologyKey)) return;
    let values = topology.get(term.topologyKey);
    if (!values) topology.set(term.topologyKey, (values = new Map()));
    const value = labels[term.topologyKey]!;
    values.set(value, (values.get(value) ?? 0) + weight);
  };
  // Without terms of its own, only the existing pods with affinity can weigh.
  for (const [existing, nodeName] of cluster.bound.pods(!own)) {
    const labels = nodeLabels.get(nodeName);
    if (!labels || Object.keys(labels).length === 0) continue;
    for (const t of affinity) if (termMatches(t, existing)) credit(t, labels, t.weight);
    for (const t of antiAffinity) if (termMatches(t, existing)) credit(t, labels, -t.weight);
    if (!hasPodAffinity(existing)) continue;
    for (const t of affinityTerms(existing, 'podAffinity', 'required', nsLabels)) if (termMatches(t, pod)) credit(t, labels, t.weight);
    for (const t of affinityTerms(existing, 'podAffinity', 'preferred', nsLabels)) if (termMatches(t, pod)) credit(t, labels, t.weight);
    for (const t of affinityTerms(existing, 'podAntiAffinity', 'preferred', nsLabels)) if (termMatches(t, pod)) credit(t, labels, -t.weight);
  }
  if (topology.size === 0) return undefined;
  const raw = feasible.map((n) => {
    const labels = labelsOf(n);
    let score = 0;
    for (const [key, values] of topology) if (Object.hasOwn(labels, key)) score += values.get(labels[key]!) ?? 0;
    return score;
  });
  const min = Math.min(...raw);
  const diff = Math.max(...raw) - min;
  return raw.map((s) => (diff > 0 ? Math.trunc(MAX_NODE_SCORE * ((s - min) / diff)) : 0));
}

/** Each plugin's normalized scores for the feasible nodes (a plugin that skips: all 0). */
export type PluginScores = Record<keyof typeof SCORE_WEIGHTS, number[]>;

/** Every default score plugin's normalized score for each feasible node. */
export function pluginScores(pod: KubeObject, feasible: readonly Feasible[], allNodes: readonly KubeObject[], cluster: ScoringCluster): PluginScores {
  const nodes = feasible.map((f) => f.node);
  const zeros = () => nodes.map(() => 0);
  const { requested, nonZero } = requestsAndNonZero(pod);
  const has = feasible.map((f) => allocatable(f.node));
  return {
    TaintToleration: taintTolerationScores(pod, nodes),
    NodeAffinity: nodeAffinityScores(pod, nodes),
    PodTopologySpread: topologySpreadScores(pod, nodes, allNodes, cluster) ?? zeros(),
    InterPodAffinity: interPodAffinityScores(pod, nodes, allNodes, cluster) ?? zeros(),
    NodeResourcesFit: feasible.map((f, i) => leastAllocatedScore(nonZero, f.requested, has[i]!)),
    NodeResourcesBalancedAllocation: feasible.map((f, i) => balancedAllocationScore(requested, f.requested, has[i]!)),
    ImageLocality: zeros(),
  };
}

/** prioritizeNodes: each feasible node's weighted sum of the plugins' scores. */
export function scoreNodes(pod: KubeObject, feasible: readonly Feasible[], allNodes: readonly KubeObject[], cluster: ScoringCluster): number[] {
  const s = pluginScores(pod, feasible, allNodes, cluster);
  const w = SCORE_WEIGHTS;
  return feasible.map(
    (_, i) =>
      w.TaintToleration * s.TaintToleration[i]! +
      w.NodeAffinity * s.NodeAffinity[i]! +
      w.PodTopologySpread * s.PodTopologySpread[i]! +
      w.InterPodAffinity * s.InterPodAffinity[i]! +
      w.NodeResourcesFit * s.NodeResourcesFit[i]! +
      w.NodeResourcesBalancedAllocation * s.NodeResourcesBalancedAllocation[i]! +
      w.ImageLocality * s.ImageLocality[i]!,
  );
}

/**
 * selectHost: the node with the highest total. kube draws one at random among equal totals; here the first in
 * name order wins, so that placements (and the tests that read them) are reproducible.
 */
export function selectHost(names: readonly string[], totals: readonly number[]): number {
  let best = -1;
  names.forEach((name, i) => {
    if (best < 0 || totals[i]! > totals[best]! || (totals[i] === totals[best] && name < names[best]!)) best = i;
  });
  return best;
}
