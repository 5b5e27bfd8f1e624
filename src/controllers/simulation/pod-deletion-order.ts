// Which of a controller's pods go first when it has too many: kube's ReplicaSet controller ranks them with
// controller.ActivePodsWithRanks (getPodsToDelete; 1.31: PodDeletionCost and LogarithmicScaleDown on), the Job
// controller orders them with controller.ActivePods.

import type { KubeObject } from '../../registry/types.ts';
import { podDeletionCost } from '../../registry/builtin/core/pod-annotations.ts';
import { asObj, podActive, podReady } from './shared.ts';

const PHASE_ORDINAL: Readonly<Record<string, number>> = { Pending: 0, Unknown: 1, Running: 2 };
/** The pod-deletion-cost annotation as kube reads it (helper.GetDeletionCostFromPodAnnotations): 0 when invalid. */
const deletionCost = (pod: KubeObject): number => podDeletionCost(pod.metadata.annotations) ?? 0;

function readySince(pod: KubeObject): number | undefined {
  const ready = ((asObj(pod.status).conditions as unknown[] | undefined) ?? []).map(asObj).find((c) => c.type === 'Ready');
  const t = Date.parse(String(ready?.lastTransitionTime ?? ''));
  return Number.isNaN(t) ? undefined : t;
}

function createdAt(pod: KubeObject): number | undefined {
  const t = Date.parse(String(pod.metadata.creationTimestamp ?? ''));
  return Number.isNaN(t) ? undefined : t;
}

/** The highest restart count of the pod's regular containers, and of its sidecars (init containers always restarted). */
function maxRestarts(pod: KubeObject): [number, number] {
  const status = asObj(pod.status);
  const max = (statuses: unknown): number => Math.max(0, ...((statuses as unknown[] | undefined) ?? []).map((s) => Number(asObj(s).restartCount ?? 0)));
  const sidecars = new Set(((asObj(pod.spec).initContainers as unknown[] | undefined) ?? []).map(asObj).filter((c) => c.restartPolicy === 'Always').map((c) => c.name));
  const initStatuses = ((status.initContainerStatuses as unknown[] | undefined) ?? []).filter((s) => sidecars.has(asObj(s).name));
  return [max(status.containerStatuses), max(initStatuses)];
}

/** floor(log2) of the time from t to now in nanoseconds, -1 when t is not before now (logarithmicRankDiff). */
function logRank(t: number, now: number): number {
  const d = (now - t) * 1e6;
  return d > 0 ? Math.floor(Math.log2(d)) : -1;
}

/**
 * Orders by kube's "less" for two times of which the later (or the zero) goes first (afterOrZero); with `now`, by
 * powers of two of their age, the pods' uids deciding within one (LogarithmicScaleDown).
 */
function byAge(a: KubeObject, ta: number | undefined, b: KubeObject, tb: number | undefined, now: number | undefined): number {
  if (ta === undefined || tb === undefined) return ta === undefined ? (tb === undefined ? 0 : -1) : 1;
  if (now === undefined) return tb - ta;
  const diff = logRank(ta, now) - logRank(tb, now);
  if (diff !== 0) return diff;
  const ua = a.metadata.uid ?? '';
  const ub = b.metadata.uid ?? '';
  return ua < ub ? -1 : ua > ub ? 1 : 0;
}

/**
 * kube's ActivePods.Less as a comparator: unassigned, pending, not ready, ready for less time, restarted more, newer.
 * With `ranked` (ActivePodsWithRanks): cheaper to delete, then doubled up on a node (the rank: the owner's related
 * active pods on the pod's node) before readiness, and the times compared by powers of two of their age at `now`.
 */
function compare(a: KubeObject, b: KubeObject, ranked?: { rankA: number; rankB: number; now: number }): number {
  const nodeA = String(asObj(a.spec).nodeName ?? '');
  const nodeB = String(asObj(b.spec).nodeName ?? '');
  if (nodeA !== nodeB && (nodeA === '' || nodeB === '')) return nodeA === '' ? -1 : 1;
  const phaseA = PHASE_ORDINAL[String(asObj(a.status).phase ?? '')] ?? 0;
  const phaseB = PHASE_ORDINAL[String(asObj(b.status).phase ?? '')] ?? 0;
  if (phaseA !== phaseB) return phaseA - phaseB;
  const readyA = podReady(a);
  const readyB = podReady(b);
  if (readyA !== readyB) return readyA ? 1 : -1;
  if (ranked) {
    const costA = deletionCost(a);
    const costB = deletionCost(b);
    if (costA !== costB) return costA - costB;
    if (ranked.rankA !== ranked.rankB) return ranked.rankB - ranked.rankA;
  }
  if (readyA && readyB) {
    const ta = readySince(a);
    const tb = readySince(b);
    if (ta !== tb) return byAge(a, ta, b, tb, ranked?.now);
  }
  const [regularA, sidecarA] = maxRestarts(a);
  const [regularB, sidecarB] = maxRestarts(b);
  if (regularA !== regularB) return regularB - regularA;
  if (sidecarA !== sidecarB) return sidecarB - sidecarA;
  const ca = createdAt(a);
  const cb = createdAt(b);
  if (ca !== cb) return byAge(a, ca, b, cb, ranked?.now);
  return 0;
}

/** controller.ActivePods as a sort comparator: the pod to delete first sorts first. */
export function activePodsOrder(a: KubeObject, b: KubeObject): number {
  return compare(a, b);
}

/**
 * The `count` pods of `pods` to delete first (getPodsToDelete). `related` are the active and inactive pods of every
 * ReplicaSet of the same owner (the set's own when it has none): the active ones on a pod's node make its rank.
 */
export function podsToDelete(pods: readonly KubeObject[], related: readonly KubeObject[], count: number, now: number): KubeObject[] {
  if (count >= pods.length) return [...pods];
  const onNode = new Map<string, number>();
  for (const pod of related) {
    if (!podActive(pod)) continue;
    const node = String(asObj(pod.spec).nodeName ?? '');
    onNode.set(node, (onNode.get(node) ?? 0) + 1);
  }
  const ranked = pods.map((pod) => ({ pod, rank: onNode.get(String(asObj(pod.spec).nodeName ?? '')) ?? 0 }));
  ranked.sort((x, y) => compare(x.pod, y.pod, { rankA: x.rank, rankB: y.rank, now }));
  return ranked.slice(0, count).map((r) => r.pod);
}
