// The simulated scheduler's filters that look at the pods already bound: NodePorts (host ports in use),
// PodTopologySpread (DoNotSchedule constraints) and InterPodAffinity (required pod affinity and anti-affinity, the
// incoming pod's and the existing pods'), with kube-scheduler's reasons. They are built once per scheduling decision
// from the bound pods, and answer per node.

import { formatLabelSelector, labelsMatch, parseLabelSelector, type LabelSelector } from '../../apis/labels.ts';
import type { KubeObject } from '../../registry/types.ts';
import { affinityMatches, untoleratedTaint, type InterPodFilters } from './scheduler-filters.ts';
import { asObj, type Obj } from './shared.ts';

/** What the inter-pod filters need to know of the cluster. */
export interface ClusterView {
  readonly nodes: readonly KubeObject[];
  /** Pods bound to a node, neither terminated nor being deleted. */
  readonly bound: readonly KubeObject[];
  /** A namespace's labels (for namespaceSelector), undefined when it is not known. */
  namespaceLabels(name: string): Readonly<Record<string, string>> | undefined;
}

const parsed = new WeakMap<object, LabelSelector | null>();

/** A metav1.LabelSelector: null or absent matches nothing, {} everything. */
export function selector(sel: unknown): LabelSelector | null {
  if (!sel || typeof sel !== 'object') return null;
  let s = parsed.get(sel);
  if (s === undefined) parsed.set(sel, (s = parseLabelSelector(formatLabelSelector(sel))));
  return s;
}

const matches = (sel: LabelSelector | null, labels: Readonly<Record<string, string>> | undefined): boolean => sel !== null && labelsMatch(sel, labels ?? {});

const nodeOf = (pod: KubeObject): string => String(asObj(pod.spec).nodeName ?? '');
const labelsOf = (obj: KubeObject): Readonly<Record<string, string>> => obj.metadata.labels ?? {};

interface HostPort {
  readonly ip: string;
  readonly protocol: string;
  readonly port: number;
}

function hostPorts(pod: KubeObject): HostPort[] {
  const out: HostPort[] = [];
  const spec = asObj(pod.spec);
  for (const c of (spec.containers as unknown[] | undefined) ?? []) {
    for (const p of ((asObj(c).ports as unknown[] | undefined) ?? []).map(asObj)) {
      const port = Number(p.hostPort ?? 0);
      if (port > 0) out.push({ ip: String(p.hostIP || '0.0.0.0'), protocol: String(p.protocol ?? 'TCP'), port });
    }
  }
  return out;
}

/** Two host ports clash on the same port and protocol when either listens on every address or both on the same one. */
const clash = (a: HostPort, b: HostPort): boolean => a.port === b.port && a.protocol === b.protocol && (a.ip === b.ip || a.ip === '0.0.0.0' || b.ip === '0.0.0.0');

/** A PodAffinityTerm of `owner`, resolved: its selector, the namespaces it looks in, its topology key (and weight, when preferred). */
export interface Term {
  readonly selector: LabelSelector | null;
  readonly inNamespace: (namespace: string) => boolean;
  readonly topologyKey: string;
  readonly weight: number;
}

function resolveTerm(owner: KubeObject, t: Obj, weight: number, namespaceLabels: ClusterView['namespaceLabels']): Term {
  const listed = new Set(((t.namespaces as unknown[] | undefined) ?? []).map(String));
  // namespaces and namespaceSelector together (an empty selector, {}, selects every namespace); neither: the owner's.
  const nsSelector = t.namespaceSelector && typeof t.namespaceSelector === 'object' ? selector(t.namespaceSelector) : undefined;
  const own = owner.metadata.namespace ?? '';
  const inNamespace = (ns: string): boolean => listed.has(ns) || (nsSelector ? labelsMatch(nsSelector, namespaceLabels(ns) ?? {}) : listed.size === 0 && ns === own);
  return { selector: selector(t.labelSelector), inNamespace, topologyKey: String(t.topologyKey ?? ''), weight };
}

function requiredTerms(owner: KubeObject, kind: 'podAffinity' | 'podAntiAffinity', view: Pick<ClusterView, 'namespaceLabels'>): Term[] {
  const affinity = asObj(asObj(asObj(owner.spec).affinity)[kind]);
  return ((affinity.requiredDuringSchedulingIgnoredDuringExecution as unknown[] | undefined) ?? []).map((raw) => resolveTerm(owner, asObj(raw), 1, view.namespaceLabels));
}

/**
 * A pod's pod affinity or anti-affinity terms for scoring: its required ones (each weighing 1, kube's
 * HardPodAffinityWeight) or its preferred ones (each with its weight).
 */
export function affinityTerms(owner: KubeObject, kind: 'podAffinity' | 'podAntiAffinity', which: 'required' | 'preferred', namespaceLabels: ClusterView['namespaceLabels']): Term[] {
  if (which === 'required') return requiredTerms(owner, kind, { namespaceLabels });
  const affinity = asObj(asObj(asObj(owner.spec).affinity)[kind]);
  return ((affinity.preferredDuringSchedulingIgnoredDuringExecution as unknown[] | undefined) ?? []).map((raw) => {
    const w = asObj(raw);
    return resolveTerm(owner, asObj(w.podAffinityTerm), Number(w.weight ?? 0), namespaceLabels);
  });
}

export const termMatches = (term: Term, pod: KubeObject): boolean => term.inNamespace(pod.metadata.namespace ?? '') && matches(term.selector, pod.metadata.labels);

const pairKey = (key: string, value: string): string => `${key}\u0000${value}`;

interface SpreadConstraint {
  readonly key: string;
  readonly maxSkew: number;
  readonly minDomains: number;
  readonly matches: (pod: KubeObject) => boolean;
  readonly selfMatch: number;
  /** Matching pods per domain of the nodes the constraint counts. */
  readonly counts: Map<string, number>;
  readonly minMatch: number;
}

function spreadConstraints(pod: KubeObject, view: ClusterView): SpreadConstraint[] {
  const raw = ((asObj(pod.spec).topologySpreadConstraints as unknown[] | undefined) ?? []).map(asObj).filter((c) => c.whenUnsatisfiable === 'DoNotSchedule');
  if (raw.length === 0) return [];
  const keys = raw.map((c) => String(c.topologyKey ?? ''));
  const out: SpreadConstraint[] = [];
  for (const c of raw) {
    const sel = selector(c.labelSelector);
    const own = labelsOf(pod);
    const labelKeys = ((c.matchLabelKeys as unknown[] | undefined) ?? []).map(String).filter((k) => Object.hasOwn(own, k));
    const match = (p: KubeObject) => p.metadata.namespace === pod.metadata.namespace && matches(sel, p.metadata.labels) && labelKeys.every((k) => labelsOf(p)[k] === own[k]);
    const key = String(c.topologyKey ?? '');
    const honorAffinity = c.nodeAffinityPolicy !== 'Ignore';
    const honorTaints = c.nodeTaintsPolicy === 'Honor';
    const counts = new Map<string, number>();
    const eligible = new Set<string>();
    for (const node of view.nodes) {
      const labels = labelsOf(node);
      // PreFilter counts only nodes that carry every constraint's key and (by default) the pod's node affinity.
      if (!keys.every((k) => Object.hasOwn(labels, k)) || (honorAffinity && !affinityMatches(pod, node)) || (honorTaints && untoleratedTaint(pod, node))) continue;
      eligible.add(node.metadata.name ?? '');
      const pair = pairKey(key, labels[key]!);
      counts.set(pair, counts.get(pair) ?? 0);
    }
    const domainOf = new Map(view.nodes.map((n) => [n.metadata.name ?? '', labelsOf(n)[key]]));
    for (const p of view.bound) {
      if (!eligible.has(nodeOf(p)) || !match(p)) continue;
      const pair = pairKey(key, domainOf.get(nodeOf(p))!);
      counts.set(pair, (counts.get(pair) ?? 0) + 1);
    }
    const minDomains = Number(c.minDomains ?? 1);
    const minMatch = counts.size < minDomains ? 0 : Math.min(...counts.values());
    out.push({ key, maxSkew: Number(c.maxSkew ?? 1), minDomains, matches: match, selfMatch: match(pod) ? 1 : 0, counts, minMatch: Number.isFinite(minMatch) ? minMatch : 0 });
  }
  return out;
}

/** The inter-pod filters for one pod against the bound pods (built once per decision). */
export function interPodFilters(pod: KubeObject, view: ClusterView): InterPodFilters {
  const wanted = hostPorts(pod);
  const nodeLabels = new Map(view.nodes.map((n) => [n.metadata.name ?? '', labelsOf(n)]));
  const spread = spreadConstraints(pod, view);
  const affinity = requiredTerms(pod, 'podAffinity', view);
  const antiAffinity = requiredTerms(pod, 'podAntiAffinity', view);
  // InterPodAffinity's PreFilter: per topology pair, the existing pods its terms match, and the existing pods whose
  // anti-affinity the incoming pod would break.
  const affinityCounts = new Map<string, number>();
  const antiAffinityCounts = new Map<string, number>();
  const existingAnti = new Set<string>();
  const count = (m: Map<string, number>, key: string, labels: Readonly<Record<string, string>> | undefined) => {
    if (labels && Object.hasOwn(labels, key)) m.set(pairKey(key, labels[key]!), (m.get(pairKey(key, labels[key]!)) ?? 0) + 1);
  };
  for (const p of view.bound) {
    const labels = nodeLabels.get(nodeOf(p));
    for (const t of affinity) if (termMatches(t, p)) count(affinityCounts, t.topologyKey, labels);
    for (const t of antiAffinity) if (termMatches(t, p)) count(antiAffinityCounts, t.topologyKey, labels);
    if (!asObj(asObj(p.spec).affinity).podAntiAffinity) continue;
    for (const t of requiredTerms(p, 'podAntiAffinity', view)) {
      if (termMatches(t, pod) && labels && Object.hasOwn(labels, t.topologyKey)) existingAnti.add(pairKey(t.topologyKey, labels[t.topologyKey]!));
    }
  }
  // The first pod of a group whose affinity names itself may go anywhere its terms' keys exist.
  const selfAffine = affinityCounts.size === 0 && affinity.every((t) => termMatches(t, pod));
  const byNode = new Map<string, HostPort[]>();
  if (wanted.length > 0) for (const p of view.bound) byNode.set(nodeOf(p), [...(byNode.get(nodeOf(p)) ?? []), ...hostPorts(p)]);

  return {
    ports(node) {
      if (wanted.length === 0) return undefined;
      const used = byNode.get(node.metadata.name ?? '') ?? [];
      return wanted.some((w) => used.some((u) => clash(w, u))) ? { reasons: ["node(s) didn't have free ports for the requested pod ports"], resolvable: true } : undefined;
    },
    spreadAndAffinity(node) {
      const labels = labelsOf(node);
      for (const c of spread) {
        if (!Object.hasOwn(labels, c.key)) return { reasons: ["node(s) didn't match pod topology spread constraints (missing required label)"], resolvable: false };
        const skew = (c.counts.get(pairKey(c.key, labels[c.key]!)) ?? 0) + c.selfMatch - c.minMatch;
        if (skew > c.maxSkew) return { reasons: ["node(s) didn't match pod topology spread constraints"], resolvable: true };
      }
      const inDomain = (m: Map<string, number>, t: Term) => Object.hasOwn(labels, t.topologyKey) && (m.get(pairKey(t.topologyKey, labels[t.topologyKey]!)) ?? 0) > 0;
      if (affinity.length > 0 && !affinity.every((t) => inDomain(affinityCounts, t)) && !(selfAffine && affinity.every((t) => Object.hasOwn(labels, t.topologyKey)))) {
        return { reasons: ["node(s) didn't match pod affinity rules"], resolvable: false };
      }
      if (antiAffinity.some((t) => inDomain(antiAffinityCounts, t))) return { reasons: ["node(s) didn't match pod anti-affinity rules"], resolvable: true };
      for (const [k, v] of Object.entries(labels)) {
        if (existingAnti.has(pairKey(k, v))) return { reasons: ["node(s) didn't satisfy existing pods anti-affinity rules"], resolvable: true };
      }
      return undefined;
    },
  };
}

/** Whether a pod's scheduling needs the inter-pod filters: its own rules, host ports, or pods bound with anti-affinity. */
export function needsInterPod(pod: KubeObject, boundWithAntiAffinity: number): boolean {
  const spec = asObj(pod.spec);
  const affinity = asObj(spec.affinity);
  return boundWithAntiAffinity > 0 || hostPorts(pod).length > 0 || !!affinity.podAffinity || !!affinity.podAntiAffinity || ((spec.topologySpreadConstraints as Obj[] | undefined) ?? []).some((c) => asObj(c).whenUnsatisfiable === 'DoNotSchedule');
}
