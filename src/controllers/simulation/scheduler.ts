// A simple scheduler: pending pods (no node, default scheduler) are bound through pods/binding to the
// simulated node with room for their requests, whose labels match their nodeSelector and whose taints they
// tolerate, and that is not cordoned (unless they tolerate that too); the least loaded such node wins.

import { parseQuantity } from '../../registry/validation/quantity.ts';
import type { KubeObject } from '../../registry/types.ts';
import { createKeyedQueue } from '../work-queue.ts';
import { hostname } from 'node:os';
import type { EventSink } from './events.ts';
import type { Informers } from './informers.ts';
import { NODE_CAPACITY } from './nodes.ts';
import { asObj, ignoreConflictOrGone, key, NODES, PODS, splitKey, type Obj, WRITERS } from './shared.ts';

/** A quantity in units (cores, bytes); 0 when it does not parse. */
function units(q: unknown): number {
  const r = typeof q === 'string' || typeof q === 'number' ? parseQuantity(String(q)) : undefined;
  return r?.ok ? Number(r.nanos) / 1e9 : 0;
}

function requests(pod: KubeObject): { cpu: number; memory: number } {
  let cpu = 0;
  let memory = 0;
  for (const c of (asObj(pod.spec).containers as unknown[] | undefined) ?? []) {
    const r = asObj(asObj(asObj(c).resources).requests);
    cpu += units(r.cpu);
    memory += units(r.memory);
  }
  return { cpu, memory };
}

function tolerates(pod: KubeObject, taint: Obj): boolean {
  if (taint.effect === 'PreferNoSchedule') return true;
  return ((asObj(pod.spec).tolerations as unknown[] | undefined) ?? []).map(asObj).some((t) => {
    if (t.effect && t.effect !== taint.effect) return false;
    if (t.operator === 'Exists') return !t.key || t.key === taint.key;
    return t.key === taint.key && (t.value ?? '') === (taint.value ?? '');
  });
}

/** The taint a cordoned node stands for (kube's NodeUnschedulable filter admits only pods that tolerate it). */
const UNSCHEDULABLE: Obj = { key: 'node.kubernetes.io/unschedulable', effect: 'NoSchedule' };

function fits(pod: KubeObject, node: KubeObject): boolean {
  if (asObj(node.spec).unschedulable === true && !tolerates(pod, UNSCHEDULABLE)) return false;
  const selector = asObj(asObj(pod.spec).nodeSelector);
  const labels = node.metadata.labels ?? {};
  if (!Object.entries(selector).every(([k, v]) => labels[k] === v)) return false;
  const taints = ((asObj(node.spec).taints as unknown[] | undefined) ?? []).map(asObj);
  if (!taints.every((t) => tolerates(pod, t))) return false;
  return asObj(node.status).conditions !== undefined && ((asObj(node.status).conditions as unknown[]) ?? []).some((c) => asObj(c).type === 'Ready' && asObj(c).status === 'True');
}

/** What a bound pod takes from its node while it is neither terminated nor being deleted. */
interface Placement {
  readonly node: string;
  readonly cpu: number;
  readonly memory: number;
}

function placementOf(pod: KubeObject): Placement | undefined {
  const node = asObj(pod.spec).nodeName;
  const phase = asObj(pod.status).phase;
  if (typeof node !== 'string' || !node || pod.metadata.deletionTimestamp || phase === 'Succeeded' || phase === 'Failed') return undefined;
  return { node, ...requests(pod) };
}

interface Usage {
  cpu: number;
  memory: number;
  count: number;
}

export function startScheduler(informers: Informers, eventSink: EventSink): { stop(): Promise<void> } {
  const pods = informers.of(PODS).as(WRITERS.scheduler);
  // kube-scheduler records events.k8s.io/v1 Events at its client's rate (--kube-api-qps 50, burst 100).
  const events = eventSink.recorder({ component: 'default-scheduler', host: `default-scheduler-${hostname()}`, user: WRITERS.scheduler, qps: 50, burst: 100, eventsV1: true });
  const nodes = informers.of(NODES);
  const capacity = { cpu: units(NODE_CAPACITY.cpu), memory: units(NODE_CAPACITY.memory) };
  // The scheduler's cache (as kube-scheduler's): what each bound pod takes, and each node's sum of it, kept from the
  // pod informer, which takes a binding in as soon as it succeeds, so the next decision sees it.
  const placements = new Map<string, Placement>();
  const usage = new Map<string, Usage>();
  function account(p: Placement, sign: 1 | -1): void {
    let u = usage.get(p.node);
    if (!u) usage.set(p.node, (u = { cpu: 0, memory: 0, count: 0 }));
    u.cpu += sign * p.cpu;
    u.memory += sign * p.memory;
    u.count += sign;
    if (u.count === 0) usage.delete(p.node);
  }
  function place(k: string, p: Placement | undefined): void {
    const old = placements.get(k);
    if (old) account(old, -1);
    if (p) {
      placements.set(k, p);
      account(p, 1);
    } else placements.delete(k);
  }
  const queue = createKeyedQueue(async (k) => {
    await Promise.all([pods.synced, nodes.synced]);
    const { namespace, name } = splitKey(k);
    const pod = pods.get(namespace, name);
    if (!pod || asObj(pod.spec).nodeName || pod.metadata.deletionTimestamp) return;
    const want = requests(pod);
    let best: { name: string; load: number } | undefined;
    for (const node of nodes.list()) {
      if (!fits(pod, node)) continue;
      const u = usage.get(node.metadata.name ?? '') ?? { cpu: 0, memory: 0, count: 0 };
      if (u.cpu + want.cpu > capacity.cpu || u.memory + want.memory > capacity.memory || u.count >= 110) continue;
      if (!best || u.count < best.load) best = { name: node.metadata.name ?? '', load: u.count };
    }
    if (!best) {
      queue.enqueue(k, 1000);
      return;
    }
    const bound = await pods
      .createSubresource(namespace, name, 'binding', { apiVersion: 'v1', kind: 'Binding', metadata: { name, namespace }, target: { kind: 'Node', name: best.name } })
      .then(() => true, ignoreConflictOrGone);
    if (!bound) return;
    if (!placements.has(k)) place(k, { node: best.name, ...want });
    events.event(pod, 'Normal', 'Scheduled', `Successfully assigned ${namespace}/${name} to ${best.name}`, { action: 'Binding' });
  }, 500, informers.activity);
  pods.onEvent((ev) => {
    const pod = ev.object;
    const spec = asObj(pod.spec);
    // An unbound pod's event (possibly older than a binding just made) leaves the assumed placement alone.
    if (ev.type === 'DELETED' || spec.nodeName) place(key(pod), ev.type === 'DELETED' ? undefined : placementOf(pod));
    if (ev.type !== 'DELETED' && !spec.nodeName && (spec.schedulerName ?? 'default-scheduler') === 'default-scheduler') queue.enqueue(key(pod));
  });
  return { stop: queue.stop };
}
