// A simple scheduler: pending pods (no node, default scheduler) are bound through pods/binding to the
// simulated node with room for their requests, whose labels match their nodeSelector and whose taints they
// tolerate; the least loaded such node wins.

import { parseQuantity } from '../../registry/validation/quantity.ts';
import type { KubeObject, Registry } from '../../registry/types.ts';
import { createKeyedQueue, followWatch } from '../work-queue.ts';
import { NODE_CAPACITY } from './nodes.ts';
import { asObj, ctxFor, isConflictOrGone, key, splitKey, storeFor, type Obj } from './shared.ts';

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

function fits(pod: KubeObject, node: KubeObject): boolean {
  const selector = asObj(asObj(pod.spec).nodeSelector);
  const labels = node.metadata.labels ?? {};
  if (!Object.entries(selector).every(([k, v]) => labels[k] === v)) return false;
  const taints = ((asObj(node.spec).taints as unknown[] | undefined) ?? []).map(asObj);
  if (!taints.every((t) => tolerates(pod, t))) return false;
  return asObj(node.status).conditions !== undefined && ((asObj(node.status).conditions as unknown[]) ?? []).some((c) => asObj(c).type === 'Ready' && asObj(c).status === 'True');
}

export function startScheduler(registry: Registry): { stop(): Promise<void> } {
  const pods = () => storeFor(registry, '', 'v1', 'pods');
  const capacity = { cpu: units(NODE_CAPACITY.cpu), memory: units(NODE_CAPACITY.memory) };
  const queue = createKeyedQueue(async (k) => {
    const podStore = pods();
    const nodeStore = storeFor(registry, '', 'v1', 'nodes');
    if (!podStore || !nodeStore) return;
    const { namespace, name } = splitKey(k);
    const pod = await podStore.get(ctxFor(namespace), name).catch(() => undefined);
    if (!pod || asObj(pod.spec).nodeName || pod.metadata.deletionTimestamp) return;
    const all = (await podStore.list(ctxFor(), {})).items;
    const want = requests(pod);
    let best: { name: string; load: number } | undefined;
    for (const node of (await nodeStore.list(ctxFor(), {})).items) {
      if (!fits(pod, node)) continue;
      const placed = all.filter((p) => asObj(p.spec).nodeName === node.metadata.name && !p.metadata.deletionTimestamp);
      const used = placed.reduce((acc, p) => ({ cpu: acc.cpu + requests(p).cpu, memory: acc.memory + requests(p).memory }), { cpu: 0, memory: 0 });
      if (used.cpu + want.cpu > capacity.cpu || used.memory + want.memory > capacity.memory || placed.length >= 110) continue;
      if (!best || placed.length < best.load) best = { name: node.metadata.name ?? '', load: placed.length };
    }
    if (!best) {
      queue.enqueue(k, 1000);
      return;
    }
    await podStore.createSubresource?.(ctxFor(namespace), name, 'binding', { apiVersion: 'v1', kind: 'Binding', metadata: { name, namespace }, target: { kind: 'Node', name: best.name } }).catch((e) => {
      if (!isConflictOrGone(e)) throw e;
    });
  }, 500);
  const stopWatch = followWatch(
    pods,
    ctxFor(),
    (ev) => {
      const pod = ev.object as KubeObject;
      const spec = asObj(pod.spec);
      if (ev.type !== 'DELETED' && !spec.nodeName && (spec.schedulerName ?? 'default-scheduler') === 'default-scheduler') queue.enqueue(key(pod));
    },
    queue,
    500,
  );
  return {
    async stop() {
      stopWatch();
      await queue.stop();
    },
  };
}
