// kube-controller-manager's pod garbage collector (PodGC, kube 1.31 pkg/controller/podgc). Every 20 s, from one
// look at the pod and node informers, four passes in this order:
// - gcTerminated: past --terminated-pod-gc-threshold (12500; 0 turns this pass off) terminated pods (phase neither
//   Pending, Running nor Unknown), the excess goes: evicted pods (Failed, reason Evicted) first, then the oldest by
//   creationTimestamp, names breaking ties;
// - gcTerminating: terminating pods on a node that is not Ready and has the node.kubernetes.io/out-of-service taint
//   (its key, whatever the effect);
// - gcOrphaned: pods bound to a node that is not in the informer, once that node has been missing for 40 s and a
//   get from the API (not the informer) still finds none; they get the DisruptionTarget condition (DeletionByPodGC);
// - gcUnscheduledTerminating: terminating pods bound to no node.
// Each such pod is first marked Failed, unless it is already Succeeded or Failed (a status patch with the pod's uid as
// precondition; the DisruptionTarget condition rides along for orphans), then deleted with gracePeriodSeconds 0.
// PodGC records no events (log lines only). What differs here: the quarantine and the period run on the server's
// clock, and a move of that clock runs a pass at once; the passes run one pod after another; the delete carries a
// uid precondition as well. A write that fails is left to the next pass, as kube's are.

import { clockNow, onClockChange } from '../../apis/clock.ts';
import { conflict, notFound } from '../../apis/errors.ts';
import type { KubeObject } from '../../registry/types.ts';
import type { Informers } from '../informers.ts';
import { createKeyedQueue } from '../work-queue.ts';
import { addPodCondition } from './pod-conditions.ts';
import { asObj, controllerAccount, ctxFor, ignoreConflictOrGone, isNotFound, NODES, nodeReady, PODS, type Obj } from './shared.ts';

export const DEFAULT_TERMINATED_POD_THRESHOLD = 12500;
const GC_CHECK_PERIOD_MS = 20_000;
const QUARANTINE_MS = 40_000;
export const OUT_OF_SERVICE_TAINT = 'node.kubernetes.io/out-of-service';

const phaseOf = (pod: KubeObject): string => String(asObj(pod.status).phase ?? '');
const terminal = (pod: KubeObject): boolean => phaseOf(pod) === 'Succeeded' || phaseOf(pod) === 'Failed';
/** isPodTerminated: an empty phase counts too. */
const terminated = (pod: KubeObject): boolean => !['Pending', 'Running', 'Unknown'].includes(phaseOf(pod));
const evicted = (pod: KubeObject): boolean => phaseOf(pod) === 'Failed' && asObj(pod.status).reason === 'Evicted';
const nodeNameOf = (pod: KubeObject): string => String(asObj(pod.spec).nodeName ?? '');

function outOfService(node: KubeObject): boolean {
  return ((asObj(node.spec).taints as unknown[] | undefined) ?? []).some((t) => asObj(t).key === OUT_OF_SERVICE_TAINT);
}

/** byEvictionAndCreationTimestamp. */
function deletionOrder(a: KubeObject, b: KubeObject): number {
  if (evicted(a) !== evicted(b)) return evicted(a) ? -1 : 1;
  const ta = Date.parse(a.metadata.creationTimestamp ?? '');
  const tb = Date.parse(b.metadata.creationTimestamp ?? '');
  if (ta !== tb) return ta - tb;
  const [na, nb] = [a.metadata.name ?? '', b.metadata.name ?? ''];
  return na < nb ? -1 : na > nb ? 1 : 0;
}

export interface PodGarbageCollector {
  stop(): Promise<void>;
  /** Runs one pass now (after any running one); resolves when it is done. */
  sweep(): Promise<void>;
}

export function startPodGarbageCollector(informers: Informers, options: { terminatedPodThreshold?: number; periodMs?: number } = {}): PodGarbageCollector {
  const user = controllerAccount('pod-garbage-collector');
  const pods = informers.of(PODS).as(user);
  const nodes = informers.of(NODES).as(user);
  const threshold = options.terminatedPodThreshold ?? DEFAULT_TERMINATED_POD_THRESHOLD;
  const periodMs = options.periodMs ?? GC_CHECK_PERIOD_MS;
  /** The node names pods are bound to but the informer lacks, by when (server clock) each was first found missing. */
  const quarantine = new Map<string, number>();

  /** markFailedAndDeletePodWithCondition. Failures other than a conflict or a vanished pod go up. */
  async function markFailedAndDelete(pod: KubeObject, condition?: Obj): Promise<void> {
    const namespace = pod.metadata.namespace ?? '';
    const name = pod.metadata.name ?? '';
    const uid = pod.metadata.uid;
    if (!terminal(pod)) {
      const marked = await pods
        .update(
          namespace,
          name,
          (cur) => {
            if (!cur) throw notFound({ group: '', resource: 'pods' }, name);
            if (cur.metadata.uid !== uid) throw conflict({ group: '', resource: 'pods' }, name, `Precondition failed: UID in precondition: ${uid ?? ''}, UID in object meta: ${cur.metadata.uid ?? ''}`);
            // The apiserver would refuse to move a pod that finished meanwhile to another terminal phase.
            if (terminal(cur)) return cur;
            const failed = { ...cur, status: { ...asObj(cur.status), phase: 'Failed' } };
            return condition ? addPodCondition(failed, condition) : failed;
          },
          { subresource: 'status' },
        )
        .catch(ignoreConflictOrGone);
      if (!marked) return;
    }
    await pods.delete(namespace, name, { gracePeriodSeconds: 0, preconditions: { uid } }).catch(ignoreConflictOrGone);
  }

  /** kube logs a failed write and goes on with the other pods; the next pass tries again. */
  async function each(list: readonly KubeObject[], condition?: Obj): Promise<void> {
    for (const pod of list) await markFailedAndDelete(pod, condition).catch(() => undefined);
  }

  async function gcTerminated(all: readonly KubeObject[]): Promise<void> {
    const candidates = all.filter(terminated);
    const excess = candidates.length - threshold;
    if (excess <= 0) return;
    await each(candidates.sort(deletionOrder).slice(0, excess));
  }

  async function gcTerminating(all: readonly KubeObject[], byName: ReadonlyMap<string, KubeObject>): Promise<void> {
    const doomed = all.filter((pod) => {
      const node = pod.metadata.deletionTimestamp ? byName.get(nodeNameOf(pod)) : undefined;
      return node !== undefined && !nodeReady(node) && outOfService(node);
    });
    await each(doomed.sort(deletionOrder));
  }

  /** Whether the node is gone by the API's word; undefined when the API could not say. */
  async function nodeGone(name: string): Promise<boolean | undefined> {
    const store = nodes.store();
    if (!store) return undefined;
    try {
      await store.get(ctxFor(), name);
      return false;
    } catch (e) {
      return isNotFound(e) ? true : undefined;
    }
  }

  async function gcOrphaned(all: readonly KubeObject[], byName: ReadonlyMap<string, KubeObject>): Promise<void> {
    const now = clockNow();
    for (const pod of all) {
      const node = nodeNameOf(pod);
      if (node !== '' && !byName.has(node) && !quarantine.has(node)) quarantine.set(node, now);
    }
    // discoverDeletedNodes: a name whose quarantine is over leaves it, checked against the API if still missing
    // here; one the API could not answer for comes back with a fresh quarantine if pods still name it.
    const deleted = new Set<string>();
    for (const [node, since] of [...quarantine]) {
      if (now - since < QUARANTINE_MS) continue;
      quarantine.delete(node);
      if (!byName.has(node) && (await nodeGone(node)) === true) deleted.add(node);
    }
    if (deleted.size === 0) return;
    const condition = { type: 'DisruptionTarget', status: 'True', lastProbeTime: null, reason: 'DeletionByPodGC', message: 'PodGC: node no longer exists' };
    await each(all.filter((pod) => deleted.has(nodeNameOf(pod))), condition);
  }

  async function gcUnscheduledTerminating(all: readonly KubeObject[]): Promise<void> {
    await each(all.filter((pod) => pod.metadata.deletionTimestamp && nodeNameOf(pod) === ''));
  }

  const queue = createKeyedQueue(
    async () => {
      await Promise.all([pods.synced, nodes.synced]);
      // As kube, every pass works from the same listing.
      const all = pods.list();
      const byName = new Map(nodes.list().map((n) => [n.metadata.name ?? '', n]));
      if (threshold > 0) await gcTerminated(all);
      await gcTerminating(all, byName);
      await gcOrphaned(all, byName);
      await gcUnscheduledTerminating(all);
    },
    periodMs,
    informers.activity,
  );
  const pass = () => queue.enqueue('gc');
  pass();
  const timer = setInterval(pass, periodMs);
  timer.unref();
  const stopClock = onClockChange(pass);

  return {
    async sweep() {
      pass();
      await queue.idle();
    },
    async stop() {
      clearInterval(timer);
      stopClock();
      await queue.stop();
    },
  };
}
