// The StatefulSet controller: pods <name>-0..N-1 created in order (OrderedReady: the next once the previous is
// Ready; Parallel: all at once), removed from the highest ordinal, rolled from the highest ordinal down when the
// template changes (RollingUpdate, honouring partition), with controller-revision-hash labels and the revision
// status `kubectl rollout status` compares.

import type { KubeObject } from '../../registry/types.ts';
import type { EventSink } from './events.ts';
import type { Informers } from './informers.ts';
import { templateHash } from './deployments.ts';
import { podFromTemplate } from './replicasets.ts';
import { asObj, controlled, controllerEvents, isConflictOrGone, PODS, podReady, startLoop, STATEFULSETS, writeStatus, type Loop, type Obj, WRITERS } from './shared.ts';

const REVISION_LABEL = 'controller-revision-hash';

export function startStatefulSetController(informers: Informers, eventSink: EventSink): Loop {
  const statefulSets = informers.of(STATEFULSETS).as(WRITERS.statefulset);
  const podCache = informers.of(PODS).as(WRITERS.statefulset);
  const events = controllerEvents(eventSink, 'statefulset-controller', WRITERS.statefulset);
  /** recordPodEvent: "<verb> Pod <pod> in StatefulSet <set> successful", or Failed<Verb> with the error. */
  async function podWrite(verb: 'create' | 'delete', sts: KubeObject, pod: KubeObject, write: () => Promise<unknown>): Promise<void> {
    const where = `Pod ${pod.metadata.name} in StatefulSet ${sts.metadata.name}`;
    const reason = verb === 'create' ? 'Create' : 'Delete';
    try {
      await write();
      events.event(sts, 'Normal', `Successful${reason}`, `${verb} ${where} successful`);
    } catch (e) {
      if (isConflictOrGone(e)) return;
      events.event(sts, 'Warning', `Failed${reason}`, `${verb} ${where} failed error: ${e instanceof Error ? e.message : String(e)}`);
      throw e;
    }
  }
  return startLoop(
    informers,
    STATEFULSETS,
    async (namespace, name) => {
      const sts = statefulSets.get(namespace, name);
      if (!sts || sts.metadata.deletionTimestamp) return;
      const spec = asObj(sts.spec);
      const replicas = typeof spec.replicas === 'number' ? spec.replicas : 1;
      const revision = `${name}-${templateHash(spec.template)}`;
      const ordered = asObj(spec).podManagementPolicy !== 'Parallel';
      const pods = controlled(podCache, sts).filter((p) => !p.metadata.deletionTimestamp);
      const byOrdinal = new Map(pods.map((p) => [Number(String(p.metadata.name).slice(name.length + 1)), p]));
      const template = asObj(spec.template);
      for (let i = 0; i < replicas; i++) {
        if (byOrdinal.has(i)) {
          if (ordered && !podReady(byOrdinal.get(i)!)) break;
          continue;
        }
        const pod = podFromTemplate(sts, 'apps/v1', 'StatefulSet', template, { name: `${name}-${i}` });
        pod.metadata.labels = { ...(pod.metadata.labels ?? {}), [REVISION_LABEL]: revision, 'statefulset.kubernetes.io/pod-name': `${name}-${i}`, 'apps.kubernetes.io/pod-index': String(i) };
        pod.spec = { ...asObj(pod.spec), hostname: `${name}-${i}`, ...(spec.serviceName ? { subdomain: spec.serviceName } : {}) };
        await podWrite('create', sts, pod, () => podCache.create(namespace, pod));
        if (ordered) break;
      }
      const remove = (pod: KubeObject) => podWrite('delete', sts, pod, () => podCache.delete(namespace, pod.metadata.name ?? '', { preconditions: { uid: pod.metadata.uid } }));
      const surplus = [...byOrdinal.entries()].filter(([i]) => i >= replicas).sort(([a], [b]) => b - a);
      if (surplus.length) await remove(surplus[0][1]);
      const rolling = asObj(spec.updateStrategy).type !== 'OnDelete';
      const partition = Number(asObj(asObj(spec.updateStrategy).rollingUpdate).partition ?? 0);
      const inRange = [...byOrdinal.entries()].filter(([i]) => i < replicas);
      if (rolling && surplus.length === 0 && inRange.length === replicas && inRange.every(([, p]) => podReady(p))) {
        const stale = inRange.filter(([i, p]) => i >= partition && p.metadata.labels?.[REVISION_LABEL] !== revision).sort(([a], [b]) => b - a);
        if (stale.length) await remove(stale[0][1]);
      }
      const current = inRange.map(([, p]) => p);
      const updated = current.filter((p) => p.metadata.labels?.[REVISION_LABEL] === revision).length;
      const ready = current.filter(podReady).length;
      const done = updated === replicas;
      const status: Obj = {
        observedGeneration: sts.metadata.generation ?? 0,
        replicas: current.length,
        readyReplicas: ready,
        currentReplicas: done ? updated : current.length - updated,
        updatedReplicas: updated,
        currentRevision: done ? revision : (asObj(sts.status).currentRevision ?? revision),
        updateRevision: revision,
        collisionCount: 0,
        availableReplicas: ready,
      };
      for (const k of ['readyReplicas', 'currentReplicas', 'updatedReplicas']) if (status[k] === 0) delete status[k];
      await writeStatus(statefulSets, sts, status);
    },
    { owned: [PODS] },
  );
}
