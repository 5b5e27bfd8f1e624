// The DaemonSet controller: one pod per simulated node that matches the template's nodeSelector and whose taints
// it tolerates (placed on the node directly, as kube's controller pins them), replaced when the template changes,
// with the status counts `kubectl rollout status` reads.

import type { KubeObject } from '../../registry/types.ts';
import type { EventSink } from './events.ts';
import type { Informers } from './informers.ts';
import { templateHash } from './deployments.ts';
import { createControlledPod, deleteControlledPod, podFromTemplate } from './replicasets.ts';
import { asObj, controlled, controllerEvents, DAEMONSETS, NODES, PODS, podReady, startLoop, writeStatus, type Loop, type Obj, WRITERS } from './shared.ts';

const REVISION_LABEL = 'controller-revision-hash';

function eligible(template: Obj, node: KubeObject): boolean {
  const selector = asObj(asObj(template.spec).nodeSelector);
  if (!Object.entries(selector).every(([k, v]) => node.metadata.labels?.[k] === v)) return false;
  const tolerations = ((asObj(template.spec).tolerations as unknown[]) ?? []).map(asObj);
  return ((asObj(node.spec).taints as unknown[]) ?? []).map(asObj).every(
    (t) => t.effect === 'PreferNoSchedule' || tolerations.some((x) => (x.operator === 'Exists' && (!x.key || x.key === t.key)) || (x.key === t.key && (x.value ?? '') === (t.value ?? ''))),
  );
}

export function startDaemonSetController(informers: Informers, eventSink: EventSink): Loop {
  const daemonSets = informers.of(DAEMONSETS).as(WRITERS.daemonset);
  const podCache = informers.of(PODS).as(WRITERS.daemonset);
  const events = controllerEvents(eventSink, 'daemonset-controller', WRITERS.daemonset);
  const nodeCache = informers.of(NODES);
  return startLoop(
    informers,
    DAEMONSETS,
    async (namespace, name) => {
      await nodeCache.synced;
      const ds = daemonSets.get(namespace, name);
      if (!ds || ds.metadata.deletionTimestamp) return;
      const template = asObj(asObj(ds.spec).template);
      const revision = templateHash(template);
      const nodes = nodeCache.list().filter((n) => eligible(template, n));
      const pods = controlled(podCache, ds).filter((p) => !p.metadata.deletionTimestamp);
      for (const node of nodes) {
        const onNode = pods.filter((p) => asObj(p.spec).nodeName === node.metadata.name);
        const current = onNode.find((p) => p.metadata.labels?.[REVISION_LABEL] === revision);
        for (const stale of onNode.filter((p) => p !== current)) await deleteControlledPod(podCache, events, ds, stale);
        if (!current) {
          const pod = podFromTemplate(ds, 'apps/v1', 'DaemonSet', template, { nodeName: node.metadata.name });
          pod.metadata.labels = { ...(pod.metadata.labels ?? {}), [REVISION_LABEL]: revision };
          await createControlledPod(podCache, events, ds, pod);
        }
      }
      const scheduled = pods.filter((p) => nodes.some((n) => n.metadata.name === asObj(p.spec).nodeName));
      const ready = scheduled.filter((p) => podReady(p) && p.metadata.labels?.[REVISION_LABEL] === revision).length;
      const status: Obj = {
        currentNumberScheduled: scheduled.length,
        numberMisscheduled: pods.length - scheduled.length,
        desiredNumberScheduled: nodes.length,
        numberReady: ready,
        observedGeneration: ds.metadata.generation ?? 0,
        updatedNumberScheduled: scheduled.filter((p) => p.metadata.labels?.[REVISION_LABEL] === revision).length,
        numberAvailable: ready,
      };
      if (nodes.length - ready > 0) status.numberUnavailable = nodes.length - ready;
      if (status.numberAvailable === 0) delete status.numberAvailable;
      if (status.updatedNumberScheduled === 0) delete status.updatedNumberScheduled;
      await writeStatus(daemonSets, ds, status);
    },
    { owned: [PODS] },
  );
}
