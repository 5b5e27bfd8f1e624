// The ReplicaSet controller: as many active pods as spec.replicas (created from the template with a controller
// reference, the surplus deleted not-ready and newest first), and status counts of the pods it controls.

import { clockDate } from '../../apis/clock.ts';
import { rfc3339 } from '../../registry/store-codec.ts';
import type { KubeObject, Registry } from '../../registry/types.ts';
import { asObj, controlled, controllerRef, ctxFor, isConflictOrGone, isNotFound, podActive, podReady, startLoop, storeFor, writeStatus, type Loop, type Obj } from './shared.ts';

/** A pod from a controller's pod template. */
export function podFromTemplate(owner: KubeObject, ownerApiVersion: string, ownerKind: string, template: Obj, extra: { name?: string; generateName?: string; nodeName?: string } = {}): KubeObject {
  const meta = asObj(template.metadata);
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      ...(extra.name ? { name: extra.name } : { generateName: extra.generateName ?? `${owner.metadata.name}-` }),
      namespace: owner.metadata.namespace,
      ...(meta.labels ? { labels: { ...(meta.labels as Record<string, string>) } } : {}),
      ...(meta.annotations ? { annotations: { ...(meta.annotations as Record<string, string>) } } : {}),
      ownerReferences: [controllerRef(owner, ownerApiVersion, ownerKind)],
    },
    spec: { ...asObj(template.spec), ...(extra.nodeName ? { nodeName: extra.nodeName } : {}) },
  };
}

/** Which surplus pods go first: unscheduled, then not ready, then the newest. */
function deletionOrder(a: KubeObject, b: KubeObject): number {
  const rank = (p: KubeObject) => (asObj(p.spec).nodeName ? 0 : 2) + (podReady(p) ? 0 : 1);
  if (rank(a) !== rank(b)) return rank(b) - rank(a);
  return String(b.metadata.creationTimestamp ?? '').localeCompare(String(a.metadata.creationTimestamp ?? ''));
}

export function startReplicaSetController(registry: Registry): Loop {
  return startLoop(
    registry,
    { group: 'apps', version: 'v1', resource: 'replicasets', kind: 'ReplicaSet' },
    async (namespace, name) => {
      const rsStore = storeFor(registry, 'apps', 'v1', 'replicasets');
      const podStore = storeFor(registry, '', 'v1', 'pods');
      if (!rsStore || !podStore) return;
      let rs: KubeObject;
      try {
        rs = await rsStore.get(ctxFor(namespace), name);
      } catch (e) {
        if (isNotFound(e)) return;
        throw e;
      }
      const spec = asObj(rs.spec);
      const pods = (await controlled(podStore, namespace, rs)).filter(podActive);
      const desired = typeof spec.replicas === 'number' ? spec.replicas : 1;
      if (!rs.metadata.deletionTimestamp) {
        for (let i = pods.length; i < desired; i++) await podStore.create(ctxFor(namespace), podFromTemplate(rs, 'apps/v1', 'ReplicaSet', asObj(spec.template)));
        for (const pod of [...pods].sort(deletionOrder).slice(0, Math.max(0, pods.length - desired))) {
          await podStore.delete(ctxFor(namespace), pod.metadata.name ?? '', { preconditions: { uid: pod.metadata.uid } }).catch((e) => {
            if (!isConflictOrGone(e)) throw e;
          });
        }
      }
      const ready = pods.filter(podReady).length;
      const status: Obj = {
        replicas: pods.length,
        fullyLabeledReplicas: pods.length,
        readyReplicas: ready,
        availableReplicas: ready,
        observedGeneration: rs.metadata.generation ?? 0,
      };
      for (const k of ['fullyLabeledReplicas', 'readyReplicas', 'availableReplicas']) if (status[k] === 0) delete status[k];
      await writeStatus(rsStore, rs, status);
    },
    { owned: [{ group: '', version: 'v1', resource: 'pods' }] },
  );
}

export const now = (): string => rfc3339(clockDate());
