// kube-controller-manager's taint eviction controller (pkg/controller/tainteviction; its own controller since 1.29,
// writing with the node-controller's credentials): a pod bound to a node with NoExecute taints it does not all
// tolerate is deleted at once; a pod that tolerates them all is deleted when the shortest tolerationSeconds of the
// tolerations it uses has passed since the controller saw the taints, or kept for good when none of them has
// tolerationSeconds. The time is the server clock's, so the test controls' clock.advance brings an eviction on.
// Before the delete (graceful, the pod's own period), the pod gets the DisruptionTarget condition, reason
// DeletionByTaintManager. Events: TaintManagerEviction "Marking for deletion Pod <ns>/<name>", and "Cancelling
// deletion of Pod <ns>/<name>" when the taints go (or become tolerated) before the time.

import { clockNow, onClockChange } from '../../apis/clock.ts';
import type { KubeObject } from '../../registry/types.ts';
import type { EventSink } from '../events.ts';
import type { Informers } from '../informers.ts';
import { createKeyedQueue } from '../work-queue.ts';
import { addPodCondition } from './pod-conditions.ts';
import { tolerationsOf, toleratesTaint } from './scheduler-filters.ts';
import { asObj, controllerAccount, controllerEvents, ignoreConflictOrGone, key, NODES, PODS, splitKey, type Obj } from './shared.ts';

/** The NoExecute taints of a node. */
export function noExecuteTaints(node: KubeObject | undefined): Obj[] {
  return ((asObj(node?.spec).taints as unknown[] | undefined) ?? []).map(asObj).filter((t) => t.effect === 'NoExecute');
}

/**
 * kube's GetMatchingTolerations then getMinTolerationTime: undefined when some taint is not tolerated (delete now),
 * Infinity when the tolerations used keep the pod for good, else the shortest tolerationSeconds in ms (0 or less:
 * at once).
 */
export function toleratedFor(taints: readonly Obj[], tolerations: readonly Obj[]): number | undefined {
  if (taints.length === 0) return Infinity;
  const used: Obj[] = [];
  for (const taint of taints) {
    const t = tolerations.find((toleration) => toleratesTaint(toleration, taint));
    if (!t) return undefined;
    used.push(t);
  }
  let min = Infinity;
  for (const t of used) {
    if (typeof t.tolerationSeconds !== 'number') continue;
    if (t.tolerationSeconds <= 0) return 0;
    min = Math.min(min, t.tolerationSeconds * 1000);
  }
  return min;
}

export function startTaintEviction(informers: Informers, eventSink: EventSink): { stop(): Promise<void> } {
  const user = controllerAccount('node-controller');
  const pods = informers.of(PODS).as(user);
  const nodes = informers.of(NODES);
  const events = controllerEvents(eventSink, 'taint-eviction-controller', user);
  /** node -> its NoExecute taints, as last seen (JSON, to see changes). */
  const tainted = new Map<string, string>();
  /** pod key -> what the controller last saw of it: its node and tolerations. */
  const seenPods = new Map<string, string>();
  /** pod key -> the scheduled eviction: when it was planned and when it fires (server clock, ms). */
  const scheduled = new Map<string, { createdAt: number; fireAt: number }>();

  const ref = (k: string): KubeObject => {
    const { namespace, name } = splitKey(k);
    return { apiVersion: 'v1', kind: 'Pod', metadata: { namespace, name } };
  };
  function cancel(k: string): void {
    if (!scheduled.delete(k)) return;
    events.event(ref(k), 'Normal', 'TaintManagerEviction', `Cancelling deletion of Pod ${k}`);
  }
  function schedule(k: string, createdAt: number, fireAt: number): void {
    scheduled.set(k, { createdAt, fireAt });
    evictions.enqueue(k, Math.max(0, fireAt - clockNow()));
  }

  /** kube's processPodOnNode. */
  function processPod(k: string, taints: readonly Obj[], tolerations: readonly Obj[], now: number): void {
    if (taints.length === 0) return cancel(k);
    const tolerated = toleratedFor(taints, tolerations);
    if (tolerated === undefined) {
      cancel(k);
      return schedule(k, now, now);
    }
    if (tolerated === Infinity) return cancel(k);
    const planned = scheduled.get(k);
    let createdAt = now;
    if (planned) {
      createdAt = planned.createdAt;
      if (createdAt + tolerated < now + tolerated) return;
      cancel(k);
    }
    schedule(k, createdAt, now + tolerated);
  }

  const evictions = createKeyedQueue(async (k) => {
    const planned = scheduled.get(k);
    if (!planned) return;
    if (planned.fireAt > clockNow()) return void evictions.enqueue(k, planned.fireAt - clockNow());
    scheduled.delete(k);
    events.event(ref(k), 'Normal', 'TaintManagerEviction', `Marking for deletion Pod ${k}`);
    const { namespace, name } = splitKey(k);
    const pod = pods.get(namespace, name);
    if (!pod) return;
    const reason = { type: 'DisruptionTarget', status: 'True', reason: 'DeletionByTaintManager', message: 'Taint manager: deleting due to NoExecute taint' };
    await pods.update(namespace, name, (cur) => (cur && cur.metadata.uid === pod.metadata.uid ? addPodCondition(cur, reason) : cur!), { subresource: 'status' }).catch(ignoreConflictOrGone);
    await pods.delete(namespace, name, { preconditions: { uid: pod.metadata.uid } }).catch(ignoreConflictOrGone);
  }, 500, informers.activity);

  const podsOn = (node: string) => pods.list().filter((p) => asObj(p.spec).nodeName === node);

  nodes.onEvent((ev) => {
    const name = ev.object.metadata.name ?? '';
    const taints = ev.type === 'DELETED' ? [] : noExecuteTaints(ev.object);
    const text = JSON.stringify(taints);
    if ((tainted.get(name) ?? '[]') === text) return;
    if (taints.length === 0) tainted.delete(name);
    else tainted.set(name, text);
    if (ev.type === 'DELETED') return;
    const now = clockNow();
    for (const pod of podsOn(name)) processPod(key(pod), taints, tolerationsOf(pod), now);
  });

  pods.onEvent((ev) => {
    const k = key(ev.object);
    if (ev.type === 'DELETED') {
      seenPods.delete(k);
      return cancel(k);
    }
    // With no node tainted there is nothing to do (a node's taints, when they come, look at all its pods).
    if (tainted.size === 0) return void seenPods.clear();
    const node = String(asObj(ev.object.spec).nodeName ?? '');
    const seen = `${node}\n${JSON.stringify(tolerationsOf(ev.object))}`;
    if (seenPods.get(k) === seen) return;
    seenPods.set(k, seen);
    const taints = node ? tainted.get(node) : undefined;
    if (taints) processPod(k, JSON.parse(taints) as Obj[], tolerationsOf(ev.object), clockNow());
  });

  // A moved clock may bring scheduled evictions on.
  const stopClock = onClockChange(() => {
    for (const [k, planned] of scheduled) if (planned.fireAt <= clockNow()) evictions.enqueue(k);
  });

  return {
    async stop() {
      stopClock();
      await evictions.stop();
    },
  };
}
