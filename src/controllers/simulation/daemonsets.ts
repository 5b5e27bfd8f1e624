// The DaemonSet controller: one pod per node that the template's nodeSelector, required node affinity and
// tolerations admit (with the tolerations kube's controller adds to every daemon pod: not-ready and unreachable
// NoExecute, disk, memory and PID pressure and unschedulable NoSchedule, network-unavailable for hostNetwork pods,
// so a cordoned node keeps its daemons). As kube's controller does since daemon pods are scheduled, each pod is
// pinned by required node affinity (matchFields metadata.name In [node]) and bound by the scheduler. A template
// change is rolled out node by node within maxUnavailable (default 1), or by surging with maxSurge; OnDelete waits
// for old pods to be deleted. A ControllerRevision per template (`kubectl rollout history` and `undo`). Status with
// the counts `kubectl rollout status` reads, written even when a pod cannot be made.

import type { KubeObject } from '../../registry/types.ts';
import type { EventSink } from '../events.ts';
import type { Informers } from '../informers.ts';
import { CONTROLLERREVISIONS, syncHistory } from './controller-history.ts';
import { templateHash } from './deployments.ts';
import { createControlledPod, deleteControlledPod, podFromTemplate } from './replicasets.ts';
import { affinityMatches, untoleratedTaint } from './scheduler-filters.ts';
import { asObj, claim, controllerEvents, DAEMONSETS, NODES, PODS, podReady, startLoop, writeStatus, type Loop, type Obj, WRITERS } from './shared.ts';

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

export function startDaemonSetController(informers: Informers, eventSink: EventSink): Loop {
  const daemonSets = informers.of(DAEMONSETS).as(WRITERS.daemonset);
  const podCache = informers.of(PODS).as(WRITERS.daemonset);
  const events = controllerEvents(eventSink, 'daemonset-controller', WRITERS.daemonset);
  const nodeCache = informers.of(NODES);
  const history = informers.of(CONTROLLERREVISIONS).as(WRITERS.daemonset);
  return startLoop(
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
      const pods = (await claim(podCache, ds, { apiVersion: 'apps/v1', kind: 'DaemonSet' })).filter((p) => !p.metadata.deletionTimestamp && asObj(p.status).phase !== 'Failed' && asObj(p.status).phase !== 'Succeeded');
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
        for (const [node, onNode] of byNode) if (!wanted.has(node)) for (const p of onNode) await deleteControlledPod(podCache, events, ds, p);
        for (const node of wanted) if (!byNode.has(node)) await create(node);
      } catch (e) {
        failure = e;
      }

      const strategy = asObj(spec.updateStrategy);
      if (failure === undefined && strategy.type !== 'OnDelete') {
        const rolling = asObj(strategy.rollingUpdate);
        const maxSurge = scaledUp(rolling.maxSurge, wanted.size, 0);
        const maxUnavailable = maxSurge > 0 ? scaledUp(rolling.maxUnavailable ?? 0, wanted.size, 0) : Math.max(1, scaledUp(rolling.maxUnavailable, wanted.size, 1));
        let unavailable = [...wanted].filter((n) => !(byNode.get(n) ?? []).some(podReady)).length;
        let surged = [...wanted].filter((n) => (byNode.get(n) ?? []).length > 1).length;
        for (const node of wanted) {
          const onNode = byNode.get(node) ?? [];
          const old = onNode.filter((p) => !updated(p));
          if (old.length === 0) continue;
          const fresh = onNode.find(updated);
          if (fresh) {
            // Surged: the old pod goes once the new one is ready.
            if (podReady(fresh)) for (const p of old) await deleteControlledPod(podCache, events, ds, p);
            continue;
          }
          if (!old.some(podReady)) {
            // An old pod that is not available goes at once.
            for (const p of old) await deleteControlledPod(podCache, events, ds, p);
          } else if (maxSurge > 0 ? surged < maxSurge : unavailable < maxUnavailable) {
            if (maxSurge > 0) {
              await create(node);
              surged++;
            } else {
              for (const p of old) await deleteControlledPod(podCache, events, ds, p);
              unavailable++;
            }
          }
        }
      }

      const scheduledOn = (p: KubeObject) => (typeof asObj(p.spec).nodeName === 'string' && asObj(p.spec).nodeName ? String(asObj(p.spec).nodeName) : undefined);
      const scheduled = pods.filter((p) => scheduledOn(p) !== undefined);
      const nodesWith = (pick: (p: KubeObject) => boolean) => [...wanted].filter((n) => (byNode.get(n) ?? []).some((p) => scheduledOn(p) === n && pick(p))).length;
      const ready = nodesWith(podReady);
      const status: Obj = {
        currentNumberScheduled: nodesWith(() => true),
        numberMisscheduled: new Set(scheduled.map(scheduledOn).filter((n) => n !== undefined && !wanted.has(n))).size,
        desiredNumberScheduled: wanted.size,
        numberReady: ready,
        observedGeneration: ds.metadata.generation ?? 0,
        updatedNumberScheduled: nodesWith(updated),
        numberAvailable: ready,
      };
      if (wanted.size - ready > 0) status.numberUnavailable = wanted.size - ready;
      if (status.numberAvailable === 0) delete status.numberAvailable;
      if (status.updatedNumberScheduled === 0) delete status.updatedNumberScheduled;
      await writeStatus(daemonSets, ds, status);
      if (failure !== undefined) throw failure;
    },
    { owned: [PODS], adopts: true },
  );
}
