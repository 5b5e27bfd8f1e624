// The DaemonSet controller: one pod per node that the template's nodeSelector, required node affinity and
// tolerations admit (with the tolerations kube's controller adds to every daemon pod: not-ready and unreachable
// NoExecute, disk, memory and PID pressure and unschedulable NoSchedule, network-unavailable for hostNetwork pods,
// so a cordoned node keeps its daemons). As kube's controller does since daemon pods are scheduled, each pod is
// pinned by required node affinity (matchFields metadata.name In [node]) and bound by the scheduler. A template
// change is rolled out node by node within maxUnavailable (default 1), or by surging with maxSurge; OnDelete waits
// for old pods to be deleted. A ControllerRevision per template (`kubectl rollout history` and `undo`). Status with
// the counts `kubectl rollout status` reads, written even when a pod cannot be made. A daemon pod that failed is
// deleted (FailedDaemonPod, at most once per kube's backoff per node: 1 s doubling to 15 min) and one that succeeded
// too; a node's new pod is made once its old one is gone.

import { clockNow } from '../../apis/clock.ts';
import type { KubeObject } from '../../registry/types.ts';
import type { EventSink } from '../events.ts';
import type { Informers } from '../informers.ts';
import { CONTROLLERREVISIONS, syncHistory } from './controller-history.ts';
import { templateHash } from './deployments.ts';
import { createControlledPod, deleteControlledPod, minReadySecondsOf, podAvailable, podFromTemplate, recheckWhenAvailable, requeuedOnClock } from './replicasets.ts';
import { affinityMatches, untoleratedTaint } from './scheduler-filters.ts';
import { asObj, claim, controllerEvents, DAEMONSETS, key, NODES, PODS, podReady, startLoop, writeStatus, type Loop, type Obj, WRITERS } from './shared.ts';
import { createFlowBackoff } from './flow-backoff.ts';

const REVISION_LABEL = 'controller-revision-hash';
const GENERATION_LABEL = 'pod-template-generation';

/** AddOrUpdateDaemonPodTolerations, in kube's order. */
function daemonTolerations(spec: Obj): Obj[] {
  const wanted: Obj[] = [
    { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute' },
    { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute' },
    { key: 'node.kubernetes.io/disk-pressure', operator: 'Exists', effect: 'NoSchedule' },
    { key: 'node.kubernetes.io/memory-pressure', operator: 'Exists', effect: 'NoSchedule' },
    { key: 'node.kubernetes.io/pid-pressure', operator: 'Exists', effect: 'NoSchedule' },
    { key: 'node.kubernetes.io/unschedulable', operator: 'Exists', effect: 'NoSchedule' },
    ...(spec.hostNetwork === true ? [{ key: 'node.kubernetes.io/network-unavailable', operator: 'Exists', effect: 'NoSchedule' }] : []),
  ];
  const out = ((spec.tolerations as unknown[] | undefined) ?? []).map(asObj);
  for (const t of wanted) {
    // AddOrUpdateTolerationInPodSpec: one of the same key, effect and operator is replaced.
    const at = out.findIndex((o) => o.key === t.key && o.effect === t.effect && (o.operator ?? 'Equal') === t.operator);
    if (at >= 0) out[at] = t;
    else out.push(t);
  }
  return out;
}

/** The daemon pod's spec for a node: kube's tolerations, and required node affinity to that node alone. */
function daemonPodSpec(template: Obj, node: string): Obj {
  const spec = asObj(template.spec);
  const affinity = asObj(spec.affinity);
  const nodeAffinity = asObj(affinity.nodeAffinity);
  const required = { nodeSelectorTerms: [{ matchFields: [{ key: 'metadata.name', operator: 'In', values: [node] }] }] };
  return { ...spec, tolerations: daemonTolerations(spec), affinity: { ...affinity, nodeAffinity: { ...nodeAffinity, requiredDuringSchedulingIgnoredDuringExecution: required } } };
}

/** The node a daemon pod is for: where it runs, or where its node affinity pins it. */
function targetNode(pod: KubeObject): string | undefined {
  const spec = asObj(pod.spec);
  if (typeof spec.nodeName === 'string' && spec.nodeName) return spec.nodeName;
  const terms = asObj(asObj(asObj(spec.affinity).nodeAffinity).requiredDuringSchedulingIgnoredDuringExecution).nodeSelectorTerms;
  const field = ((asObj(((terms as unknown[] | undefined) ?? [])[0]).matchFields as unknown[] | undefined) ?? []).map(asObj).find((f) => f.key === 'metadata.name');
  const values = (field?.values as unknown[] | undefined) ?? [];
  return typeof values[0] === 'string' ? values[0] : undefined;
}

/** nodeShouldRunDaemonPod: the template (with the daemon tolerations) fits the node's labels and taints. */
function shouldRun(template: Obj, node: KubeObject): boolean {
  const probe: KubeObject = { metadata: {}, spec: { ...asObj(template.spec), tolerations: daemonTolerations(asObj(template.spec)) } };
  return affinityMatches(probe, node) && untoleratedTaint(probe, node) === undefined;
}

/** intstr.GetScaledValueFromIntOrPercent, rounding up (as the DaemonSet's maxUnavailable and maxSurge are). */
function scaledUp(v: unknown, total: number, fallback: number): number {
  if (typeof v === 'number') return v;
  const m = typeof v === 'string' ? /^(\d+)%$/.exec(v) : null;
  return m ? Math.ceil((Number(m[1]) * total) / 100) : fallback;
}

/** podByCreationTimestampAndPhase's first: a scheduled pod before an unscheduled one, then the oldest, then by name. */
function firstDaemonPod(pods: readonly KubeObject[]): KubeObject | undefined {
  const rank = (p: KubeObject) => (asObj(p.spec).nodeName ? 0 : 1);
  const stamp = (p: KubeObject) => String(p.metadata.creationTimestamp ?? '');
  return [...pods].sort((a, b) => rank(a) - rank(b) || stamp(a).localeCompare(stamp(b)) || String(a.metadata.name).localeCompare(String(b.metadata.name)))[0];
}

/** A node's daemon pods (findUpdatedPodsOnNode): at most one new and one old, else split is false. */
interface NodePods {
  node: string;
  split: boolean;
  fresh?: KubeObject;
  old?: KubeObject;
}

function splitByRevision(pods: readonly KubeObject[], updated: (p: KubeObject) => boolean): Omit<NodePods, 'node'> {
  const fresh = pods.filter(updated);
  const old = pods.filter((p) => !updated(p));
  return fresh.length > 1 || old.length > 1 ? { split: false } : { split: true, fresh: fresh[0], old: old[0] };
}

interface UpdatePlan {
  remove: KubeObject[];
  create: string[];
}

/**
 * rollingUpdate without surge: an old pod that is not available goes at once; available old pods go while fewer
 * than maxUnavailable nodes are unavailable (a node without a pod, with two, or whose new pod is not yet available
 * for minReadySeconds counts).
 */
function replacePlan(nodes: readonly NodePods[], maxUnavailable: number, available: (p: KubeObject) => boolean): UpdatePlan {
  let unavailable = 0;
  const replacements: KubeObject[] = [];
  const candidates: KubeObject[] = [];
  for (const { split, fresh, old } of nodes) {
    if (split && old && !fresh) {
      if (!available(old)) replacements.push(old);
      else if (unavailable < maxUnavailable) candidates.push(old);
    } else if (!split || old || !fresh || !available(fresh)) unavailable++;
  }
  return { remove: [...replacements, ...candidates.slice(0, Math.max(0, maxUnavailable - unavailable))], create: [] };
}

/**
 * rollingUpdate with surge: a node whose old pod is not available gets its new pod at once, others while fewer than
 * maxSurge nodes have a new pod not yet available; the old pod goes once the new one is available (or, as manage
 * does, once the old one is not ready).
 */
function surgePlan(nodes: readonly NodePods[], maxSurge: number, available: (p: KubeObject) => boolean): UpdatePlan {
  let surging = 0;
  const remove: KubeObject[] = [];
  const replacements: string[] = [];
  const candidates: string[] = [];
  for (const { node, split, fresh, old } of nodes) {
    if (!split) surging++;
    else if (!old) continue;
    else if (!fresh) {
      if (!available(old)) replacements.push(node);
      else if (surging < maxSurge) candidates.push(node);
    } else {
      if (!available(fresh)) surging++;
      if (available(fresh) || !podReady(old)) remove.push(old);
    }
  }
  return { remove, create: [...replacements, ...candidates.slice(0, Math.max(0, maxSurge - surging))] };
}

export function startDaemonSetController(informers: Informers, eventSink: EventSink): Loop {
  const daemonSets = informers.of(DAEMONSETS).as(WRITERS.daemonset);
  const podCache = informers.of(PODS).as(WRITERS.daemonset);
  const events = controllerEvents(eventSink, 'daemonset-controller', WRITERS.daemonset);
  const nodeCache = informers.of(NODES);
  const history = informers.of(CONTROLLERREVISIONS).as(WRITERS.daemonset);
  // failedPodsBackoff: how often a node's failed daemon pod is deleted (and so made again).
  const failedPodsBackoff = createFlowBackoff(1000, 15 * 60_000);
  const loop = startLoop(
    informers,
    DAEMONSETS,
    async (namespace, name) => {
      await Promise.all([nodeCache.synced, history.synced]);
      const ds = daemonSets.get(namespace, name);
      if (!ds || ds.metadata.deletionTimestamp) return;
      const spec = asObj(ds.spec);
      const template = asObj(spec.template);
      const revision = templateHash(template);
      // kube labels daemon pods with the template generation (apps/v1 keeps it in an annotation).
      const generation = ds.metadata.annotations?.['deprecated.daemonset.template.generation'] ?? String(ds.metadata.generation ?? 1);
      const nodes = nodeCache.list().filter((n) => shouldRun(template, n));
      const wanted = new Set(nodes.map((n) => n.metadata.name ?? ''));
      // getDaemonPods: the pods it claims (an orphan it selects is adopted).
      const claimed = await claim(podCache, ds, { apiVersion: 'apps/v1', kind: 'DaemonSet' });
      const finished = (p: KubeObject) => asObj(p.status).phase === 'Failed' || asObj(p.status).phase === 'Succeeded';
      const pods = claimed.filter((p) => !p.metadata.deletionTimestamp && !finished(p));
      // A node with any daemon pod, terminating or finished ones included, gets no new one in this pass.
      const occupied = new Set(claimed.map((p) => targetNode(p) ?? ''));
      const byNode = new Map<string, KubeObject[]>();
      for (const p of pods) {
        const node = targetNode(p) ?? '';
        byNode.set(node, [...(byNode.get(node) ?? []), p]);
      }
      // constructHistory, then cleanupHistory: the revisions of the pods stay.
      const live = new Set(pods.map((p) => `${name}-${p.metadata.labels?.[REVISION_LABEL] ?? ''}`));
      await syncHistory(history, ds, { kind: 'DaemonSet', hash: revision, hashLabel: REVISION_LABEL, live });
      const updated = (p: KubeObject) => p.metadata.labels?.[REVISION_LABEL] === revision;
      const create = (node: string) => {
        const pod = podFromTemplate(ds, 'apps/v1', 'DaemonSet', template);
        pod.metadata.labels = { ...(pod.metadata.labels ?? {}), [REVISION_LABEL]: revision, [GENERATION_LABEL]: generation };
        pod.spec = daemonPodSpec(template, node);
        return createControlledPod(podCache, events, ds, pod);
      };
      // Pods on nodes that should not run one go; nodes without one get one. A failure ends the pass once the
      // status is written (syncDaemonSet updates it whatever manage answered).
      let failure: unknown;
      try {
        for (const p of claimed) {
          const node = targetNode(p) ?? '';
          if (p.metadata.deletionTimestamp || (wanted.has(node) && !finished(p))) continue;
          if (wanted.has(node) && asObj(p.status).phase === 'Failed') {
            const backoffKey = `${ds.metadata.uid}/${asObj(ds.status).observedGeneration ?? 0}/${node}`;
            const now = clockNow();
            if (failedPodsBackoff.inBackoff(backoffKey, now)) {
              loop.enqueue(key(ds), failedPodsBackoff.delay(backoffKey));
              continue;
            }
            failedPodsBackoff.next(backoffKey, now);
            events.event(ds, 'Warning', 'FailedDaemonPod', `Found failed daemon pod ${namespace}/${p.metadata.name} on node ${node}, will try to kill it`);
          }
          await deleteControlledPod(podCache, events, ds, p);
        }
        for (const node of wanted) if (!occupied.has(node)) await create(node);
      } catch (e) {
        failure = e;
      }

      const at = clockNow();
      const available = (p: KubeObject) => podAvailable(p, minReadySecondsOf(ds), at);
      const strategy = asObj(spec.updateStrategy);
      if (failure === undefined && strategy.type !== 'OnDelete') {
        const rolling = asObj(strategy.rollingUpdate);
        const maxSurge = scaledUp(rolling.maxSurge, wanted.size, 0);
        const maxUnavailable = maxSurge > 0 ? scaledUp(rolling.maxUnavailable ?? 0, wanted.size, 0) : Math.max(1, scaledUp(rolling.maxUnavailable, wanted.size, 1));
        const onNodes = [...wanted].map((n) => ({ node: n, ...splitByRevision(byNode.get(n) ?? [], updated) }));
        const plan = maxSurge > 0 ? surgePlan(onNodes, maxSurge, available) : replacePlan(onNodes, maxUnavailable, available);
        for (const p of plan.remove) await deleteControlledPod(podCache, events, ds, p);
        for (const node of plan.create) await create(node);
      }

      // updateDaemonSetStatus: each node's daemon pod is its first (podByCreationTimestampAndPhase).
      const first = [...wanted].map((n) => firstDaemonPod(byNode.get(n) ?? [])).filter((p) => p !== undefined);
      const ready = first.filter(podReady);
      const availableCount = ready.filter(available).length;
      const status: Obj = {
        currentNumberScheduled: first.length,
        numberMisscheduled: nodeCache.list().filter((n) => !wanted.has(n.metadata.name ?? '') && byNode.has(n.metadata.name ?? '')).length,
        desiredNumberScheduled: wanted.size,
        numberReady: ready.length,
        observedGeneration: ds.metadata.generation ?? 0,
        updatedNumberScheduled: first.filter(updated).length,
        numberAvailable: availableCount,
      };
      if (wanted.size - availableCount > 0) status.numberUnavailable = wanted.size - availableCount;
      if (status.numberAvailable === 0) delete status.numberAvailable;
      if (status.updatedNumberScheduled === 0) delete status.updatedNumberScheduled;
      recheckWhenAvailable(loop, ds, pods, at);
      await writeStatus(daemonSets, ds, status);
      if (failure !== undefined) throw failure;
    },
    { owned: [PODS], adopts: true },
  );
  return requeuedOnClock(loop, daemonSets);
}
