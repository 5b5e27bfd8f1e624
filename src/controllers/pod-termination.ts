// What the kubelet does at the end of a pod's graceful deletion, for a server without kubelets (pods bound to the
// simulated nodes of --simulate-workloads are left to their simulated kubelets): a pod marked for
// deletion with a grace period is deleted for good (gracePeriodSeconds 0) once that period has passed since it was
// seen marked (the kubelet counts from there too: deletionTimestamp has only second precision), so
// `kubectl delete pod` returns after the period as on a cluster. Pods deleted without a grace period go at once
// already (the pod strategy's CheckGracefulDelete). Moving the test controls' clock past a pod's period finishes it
// at once too.

import { clockNow, onClockChange } from '../apis/clock.ts';
import { SIMULATED_NODE_ANNOTATION } from '../apis/capstan-annotations.ts';
import { isStatusError } from '../apis/errors.ts';
import { loopbackContext } from '../registry/registry.ts';
import type { KubeObject, Registry } from '../registry/types.ts';
import { createKeyedQueue, followWatch } from './work-queue.ts';

export interface PodTermination {
  stop(): Promise<void>;
}

export function startPodTermination(registry: Registry, options: { retryMs?: number } = {}): PodTermination {
  const retryMs = options.retryMs ?? 1000;
  /** "namespace/name" -> the uid being finished. */
  const pending = new Map<string, string>();
  /** "namespace/name" -> when its period ends on the controllable clock (ms). */
  const deadlines = new Map<string, number>();
  const pods = () => {
    const def = registry.lookup('', 'v1', 'pods');
    return def ? registry.store(def) : undefined;
  };

  /** A pod bound to a simulated node is its simulated kubelet's to finish (a stopped one leaves it Terminating). */
  async function onSimulatedNode(namespace: string, name: string): Promise<boolean> {
    const pod = await pods()?.get(loopbackContext(namespace), name).catch(() => undefined);
    const node = (pod?.spec as { nodeName?: string } | undefined)?.nodeName;
    if (!node) return false;
    const nodes = registry.lookup('', 'v1', 'nodes');
    const found = nodes && (await registry.store(nodes).get(loopbackContext(), node).catch(() => undefined));
    return found?.metadata.annotations?.[SIMULATED_NODE_ANNOTATION] === 'true';
  }

  const queue = createKeyedQueue(async (key) => {
    const uid = pending.get(key);
    const store = pods();
    if (!uid || !store) return;
    const [namespace, name] = key.split('/');
    if (await onSimulatedNode(namespace!, name!)) {
      pending.delete(key);
      deadlines.delete(key);
      return;
    }
    try {
      await store.delete(loopbackContext(namespace), name, { gracePeriodSeconds: 0, preconditions: { uid } });
    } catch (e) {
      if (!(isStatusError(e) && (e.code === 404 || e.code === 409))) throw e;
    }
    pending.delete(key);
    deadlines.delete(key);
  }, retryMs);

  const stopWatch = followWatch(
    pods,
    // Deletion state is all it reads: events without the pods' bodies.
    { ...loopbackContext(), metadataOnly: true },
    (ev) => {
      const pod = ev.object as KubeObject;
      const key = `${pod.metadata.namespace}/${pod.metadata.name}`;
      if (ev.type === 'DELETED') {
        deadlines.delete(key);
        return void pending.delete(key);
      }
      const grace = pod.metadata.deletionGracePeriodSeconds ?? 0;
      if (!pod.metadata.deletionTimestamp || !pod.metadata.uid || grace <= 0 || pending.get(key) === pod.metadata.uid) return;
      pending.set(key, pod.metadata.uid);
      deadlines.set(key, clockNow() + grace * 1000);
      queue.enqueue(key, grace * 1000);
    },
    queue,
    retryMs,
  );
  const stopClock = onClockChange(() => {
    const now = clockNow();
    for (const [key, deadline] of deadlines) if (deadline <= now) queue.enqueue(key);
  });

  return {
    async stop() {
      stopClock();
      stopWatch();
      await queue.stop();
    },
  };
}
