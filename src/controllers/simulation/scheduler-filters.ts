// The simulated scheduler's filters, as kube-scheduler's default profile runs them (NodeUnschedulable,
// TaintToleration, NodeAffinity, NodeResourcesFit, in that order, the first that fails answering for the node), and
// the message of a pod no node fits: kube's FitError with DefaultPreemption's dry run, e.g. "0/2 nodes are
// available: 1 Insufficient cpu, 1 node(s) were unschedulable. preemption: 0/2 nodes are available: 1 No preemption
// victims found for incoming pod, 1 Preemption is not helpful for scheduling.." (the doubled period is kube's).

import { parseQuantity } from '../../registry/validation/quantity.ts';
import type { KubeObject } from '../../registry/types.ts';
import { nodeSelectorMatches } from '../../apis/node-selectors.ts';
import { NODE_CAPACITY } from './nodes.ts';
import { asObj, nodeReady, type Obj } from './shared.ts';

/** What a pod asks of a node, or a node has: millicores, bytes, pods. */
export interface Resources {
  cpu: number;
  memory: number;
  pods: number;
}

/** Parsed quantities by text: pods and nodes repeat a few values ("100m", "32Gi"), parsed on every decision. */
const parsedQuantities = new Map<string, number>();

/** kube's MilliValue (cpu) and Value (bytes), rounded up; 0 when absent or unparsable. */
function quantity(q: unknown, milli: boolean): number {
  if (typeof q !== 'string' && typeof q !== 'number') return 0;
  const k = `${milli ? 'm' : 'b'}${q}`;
  let v = parsedQuantities.get(k);
  if (v === undefined) {
    const r = parseQuantity(String(q));
    const unit = milli ? 1_000_000n : 1_000_000_000n;
    const n = r.ok ? BigInt(r.nanos) : 0n;
    v = Number(n / unit + (n % unit > 0n ? 1n : 0n));
    if (parsedQuantities.size >= 4096) parsedQuantities.clear();
    parsedQuantities.set(k, v);
  }
  return v;
}

export interface CpuMemory {
  cpu: number;
  memory: number;
}

/** A container's cpu (millicores) and memory (bytes) requests, and which of them it sets. */
interface ContainerRequests extends CpuMemory {
  readonly hasCpu: boolean;
  readonly hasMemory: boolean;
  readonly sidecar: boolean;
}

function containerRequests(containers: unknown, init: boolean): ContainerRequests[] {
  return ((containers as unknown[] | undefined) ?? []).map((c) => {
    const r = asObj(asObj(asObj(c).resources).requests);
    return { cpu: quantity(r.cpu, true), memory: quantity(r.memory, false), hasCpu: Object.hasOwn(r, 'cpu'), hasMemory: Object.hasOwn(r, 'memory'), sidecar: init && asObj(c).restartPolicy === 'Always' };
  });
}

/**
 * resourcehelper.PodRequests over parsed containers: the containers summed, with the sidecars (restartable init
 * containers) that run beside them, at least what each init container takes with the sidecars started before it.
 * `missing` stands in for a request a container lacks (kube's NonMissingContainerRequests).
 */
function aggregate(containers: readonly ContainerRequests[], initContainers: readonly ContainerRequests[], missing?: CpuMemory): CpuMemory {
  const of = (c: ContainerRequests): CpuMemory => ({ cpu: missing && !c.hasCpu ? missing.cpu : c.cpu, memory: missing && !c.hasMemory ? missing.memory : c.memory });
  const sum = { cpu: 0, memory: 0 };
  for (const c of containers) {
    const r = of(c);
    sum.cpu += r.cpu;
    sum.memory += r.memory;
  }
  const sidecars = { cpu: 0, memory: 0 };
  const init = { cpu: 0, memory: 0 };
  for (const c of initContainers) {
    const r = of(c);
    let takes: CpuMemory;
    if (c.sidecar) {
      sum.cpu += r.cpu;
      sum.memory += r.memory;
      sidecars.cpu += r.cpu;
      sidecars.memory += r.memory;
      takes = sidecars;
    } else takes = { cpu: r.cpu + sidecars.cpu, memory: r.memory + sidecars.memory };
    init.cpu = Math.max(init.cpu, takes.cpu);
    init.memory = Math.max(init.memory, takes.memory);
  }
  return { cpu: Math.max(sum.cpu, init.cpu), memory: Math.max(sum.memory, init.memory) };
}

/** What a pod requests (NodeResourcesFit's filter) and, with `missing` filling in, its non-zero requests; each plus its overhead. */
export function podTotals(pod: KubeObject, missing: CpuMemory): { requested: CpuMemory; nonZero: CpuMemory } {
  const spec = asObj(pod.spec);
  const containers = containerRequests(spec.containers, false);
  const initContainers = containerRequests(spec.initContainers, true);
  const overhead = asObj(spec.overhead);
  const extra = { cpu: quantity(overhead.cpu, true), memory: quantity(overhead.memory, false) };
  const plus = (r: CpuMemory) => ({ cpu: r.cpu + extra.cpu, memory: r.memory + extra.memory });
  return { requested: plus(aggregate(containers, initContainers)), nonZero: plus(aggregate(containers, initContainers, missing)) };
}

/** resourcehelper.PodRequests: what a pod requests plus its overhead, `missing` standing in for a request a container lacks. */
export function aggregateRequests(pod: KubeObject, missing?: CpuMemory): CpuMemory {
  const spec = asObj(pod.spec);
  const r = aggregate(containerRequests(spec.containers, false), containerRequests(spec.initContainers, true), missing);
  const overhead = asObj(spec.overhead);
  return { cpu: r.cpu + quantity(overhead.cpu, true), memory: r.memory + quantity(overhead.memory, false) };
}

/** A pod's requests as NodeResourcesFit counts them (aggregateRequests), and the one pod it is. */
export function podRequests(pod: KubeObject): Resources {
  return { ...aggregateRequests(pod), pods: 1 };
}

/** A node's allocatable resources (a simulated node's capacity when it reports none). */
export function allocatable(node: KubeObject): Resources {
  let r = allocatables.get(node);
  if (!r) {
    const a = asObj(asObj(node.status).allocatable);
    const pick = (k: keyof typeof NODE_CAPACITY) => a[k] ?? NODE_CAPACITY[k];
    allocatables.set(node, (r = { cpu: quantity(pick('cpu'), true), memory: quantity(pick('memory'), false), pods: quantity(pick('pods'), false) }));
  }
  return r;
}

/** By (never modified) cached node object. */
const allocatables = new WeakMap<KubeObject, Readonly<Resources>>();

/** ToleratesTaint: effect, key and value (operator Equal) or key alone (Exists; an empty key matches every taint). */
export function toleratesTaint(t: Obj, taint: Obj): boolean {
  if (t.effect && t.effect !== taint.effect) return false;
  if (t.operator === 'Exists') return !t.key || t.key === taint.key;
  return t.key === taint.key && (t.value ?? '') === (taint.value ?? '');
}

export const tolerationsOf = (pod: KubeObject): Obj[] => ((asObj(pod.spec).tolerations as unknown[] | undefined) ?? []).map(asObj);

/** Whether one of the pod's tolerations tolerates the taint. */
export function tolerates(pod: KubeObject, taint: Obj): boolean {
  return tolerationsOf(pod).some((t) => toleratesTaint(t, taint));
}

/** The taint kube's node lifecycle controller puts on a node whose Ready condition is not True. */
const NOT_READY: Obj = { key: 'node.kubernetes.io/not-ready', effect: 'NoSchedule' };

function taintsOf(node: KubeObject): Obj[] {
  const taints = ((asObj(node.spec).taints as unknown[] | undefined) ?? []).map(asObj);
  return nodeReady(node) || taints.some((t) => t.key === NOT_READY.key) ? taints : [...taints, NOT_READY];
}

/** The first of a node's NoSchedule and NoExecute taints the pod does not tolerate. */
export function untoleratedTaint(pod: KubeObject, node: KubeObject): Obj | undefined {
  return taintsOf(node).find((t) => (t.effect === 'NoSchedule' || t.effect === 'NoExecute') && !tolerates(pod, t));
}

/** NodeAffinity's filter: the pod's nodeSelector and its required node affinity (any of its terms). */
export function affinityMatches(pod: KubeObject, node: KubeObject): boolean {
  const spec = asObj(pod.spec);
  const labels = node.metadata.labels ?? {};
  if (!Object.entries(asObj(spec.nodeSelector)).every(([k, v]) => labels[k] === v)) return false;
  return nodeSelectorMatches(asObj(asObj(spec.affinity).nodeAffinity).requiredDuringSchedulingIgnoredDuringExecution, node);
}

/** NodeResourcesFit's reasons: pods first, then cpu and memory, each asked only when the pod requests it. */
export function insufficient(want: Resources, used: Resources, has: Resources): string[] {
  const reasons: string[] = [];
  if (used.pods + want.pods > has.pods) reasons.push('Too many pods');
  if (want.cpu > 0 && want.cpu > has.cpu - used.cpu) reasons.push('Insufficient cpu');
  if (want.memory > 0 && want.memory > has.memory - used.memory) reasons.push('Insufficient memory');
  return reasons;
}

/**
 * Why a node cannot take a pod, undefined when it can. `resolvable` is kube's Unschedulable (removing pods could
 * help: resources) against UnschedulableAndUnresolvable (the node itself refuses the pod).
 */
export interface Refusal {
  readonly reasons: string[];
  readonly resolvable: boolean;
}

/** The filters that look at the pods already bound (scheduler-inter-pod.ts), in their places in kube's order. */
export interface InterPodFilters {
  /** NodePorts, which runs before NodeResourcesFit. */
  ports(node: KubeObject): Refusal | undefined;
  /** PodTopologySpread, then InterPodAffinity, which run after it. */
  spreadAndAffinity(node: KubeObject): Refusal | undefined;
}

/** `volumes`: VolumeBinding's filter, which runs after NodeResourcesFit and before PodTopologySpread. */
export function refusal(pod: KubeObject, want: Resources, node: KubeObject, used: Resources, interPod?: InterPodFilters, volumes?: (node: KubeObject) => Refusal | undefined): Refusal | undefined {
  if (asObj(node.spec).unschedulable === true && !tolerates(pod, { key: 'node.kubernetes.io/unschedulable', effect: 'NoSchedule' })) {
    return { reasons: ['node(s) were unschedulable'], resolvable: false };
  }
  const taint = untoleratedTaint(pod, node);
  if (taint) return { reasons: [`node(s) had untolerated taint {${String(taint.key ?? '')}: ${String(taint.value ?? '')}}`], resolvable: false };
  if (!affinityMatches(pod, node)) return { reasons: ["node(s) didn't match Pod's node affinity/selector"], resolvable: false };
  const ports = interPod?.ports(node);
  if (ports) return ports;
  const reasons = insufficient(want, used, allocatable(node));
  if (reasons.length > 0) return { reasons, resolvable: true };
  return volumes?.(node) ?? interPod?.spreadAndAffinity(node);
}

/** kube's reason histogram: "<count> <reason>" per distinct reason, sorted, comma-separated. */
function histogram(reasons: string[]): string {
  const counts = new Map<string, number>();
  for (const r of reasons) counts.set(r, (counts.get(r) ?? 0) + 1);
  return [...counts].map(([r, n]) => `${n} ${r}`).sort().join(', ');
}

/** A node a pod does not fit: its refusal and, for a resolvable one, DefaultPreemption's dry run on it. */
export interface RefusedNode {
  readonly refusal: Refusal;
  /** The reasons the pod still does not fit with every lower-priority pod gone; undefined: victims were found. */
  readonly dryRun?: string[];
}

/**
 * FitError's message for a pod no node fits: each node's reasons counted, then DefaultPreemption's: why the pod may
 * not preempt ("not eligible due to preemptionPolicy=Never.", or `notEligible`), or each node's dry-run verdict. When
 * the dry run finds victims on some node, they are preempted and the message has no preemption part.
 */
export function fitErrorMessage(pod: KubeObject, nodes: RefusedNode[], notEligible?: string): string {
  let message = `0/${nodes.length} nodes are available: ${histogram(nodes.flatMap((n) => n.refusal.reasons))}.`;
  let post: string | undefined;
  if (asObj(pod.spec).preemptionPolicy === 'Never') post = 'not eligible due to preemptionPolicy=Never.';
  else if (notEligible !== undefined) post = notEligible;
  else if (nodes.every((n) => !n.refusal.resolvable || n.dryRun !== undefined)) {
    post = `0/${nodes.length} nodes are available: ${histogram(nodes.flatMap((n) => (n.refusal.resolvable ? n.dryRun! : ['Preemption is not helpful for scheduling'])))}.`;
  }
  if (post !== undefined) message += ` preemption: ${post}.`;
  return message;
}

/** FitError's message when a PreFilter plugin refuses the pod: every node is then beyond preemption's help. */
export function preFilterMessage(pod: KubeObject, nodeCount: number, reason: string): string {
  const post = asObj(pod.spec).preemptionPolicy === 'Never' ? 'not eligible due to preemptionPolicy=Never.' : `0/${nodeCount} nodes are available: ${nodeCount} Preemption is not helpful for scheduling.`;
  return `0/${nodeCount} nodes are available: ${reason}. preemption: ${post}.`;
}

/**
 * SelectVictimsOnNode's answer for a node refused for its resources, given what its pods of lower priority than
 * the incoming one take: none there ("No preemption victims found for incoming pod"), still no room with all of
 * them gone (the resources' reasons), or undefined (they would be preempted).
 */
export function dryRun(want: Resources, node: KubeObject, used: Resources, lowerPriority: Resources): string[] | undefined {
  if (lowerPriority.pods === 0) return ['No preemption victims found for incoming pod'];
  const left = { cpu: used.cpu - lowerPriority.cpu, memory: used.memory - lowerPriority.memory, pods: used.pods - lowerPriority.pods };
  const reasons = insufficient(want, left, allocatable(node));
  return reasons.length > 0 ? reasons : undefined;
}
