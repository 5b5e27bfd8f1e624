// kube-controller-manager's disruption controller: every PodDisruptionBudget's status says how many of its pods are
// expected (the pods, or for a maxUnavailable or percentage budget the scale of their controllers), how many must
// stay healthy, how many are healthy (Ready, not being deleted, not just evicted) and so how many disruptions are
// allowed now, with the DisruptionAllowed condition; a budget whose controllers cannot be found allows none
// (SyncFailed). The eviction subresource reads and decrements this status (disruptedPods), and evicted pods not
// deleted within two minutes count again.

import { clockNow } from '../apis/clock.ts';
import { isStatusError } from '../apis/errors.ts';
import { cloneJson } from '../apis/json-clone.ts';
import { formatLabelSelector, labelsMatch, parseLabelSelector } from '../apis/labels.ts';
import { loopbackContext } from '../registry/registry.ts';
import { isPodReady } from '../registry/builtin/core/pod-ready.ts';
import { withDisruptionCondition } from '../registry/builtin/policy/disruption-status.ts';
import type { KubeObject, Registry, ResourceStore } from '../registry/types.ts';
import { createKeyedQueue, followWatch } from './work-queue.ts';

type Obj = Record<string, unknown>;
const asObj = (v: unknown): Obj => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : {});

/** How long an evicted pod may take to be deleted before it counts again (DeletionTimeout). */
export const DELETION_TIMEOUT_MS = 2 * 60 * 1000;

/** The pods a budget's selector picks: none for no selector, all of its namespace for an empty one. */
export function selectsPod(pdb: KubeObject, pod: KubeObject): boolean {
  const selector = asObj(pdb.spec).selector;
  if (selector === undefined || selector === null) return false;
  return labelsMatch(parseLabelSelector(formatLabelSelector(selector)), pod.metadata.labels);
}

/** intstr.GetScaledValueFromIntOrPercent, rounding up. */
function scaledValue(v: unknown, total: number): number {
  if (typeof v === 'number') return v;
  const m = typeof v === 'string' ? /^(\d+)%$/.exec(v) : null;
  if (!m) throw new Error(`invalid value for IntOrString: invalid value "${String(v)}": must be an integer or a percentage`);
  return Math.ceil((Number(m[1]) * total) / 100);
}

interface Controller {
  readonly uid: string;
  readonly replicas: number;
}

/** The desired scale of the controller a pod's controllerRef names (a Deployment for its ReplicaSets). */
async function controllerOf(registry: Registry, namespace: string, ref: Obj): Promise<Controller | undefined> {
  const [group, version] = String(ref.apiVersion ?? '').includes('/') ? String(ref.apiVersion).split('/') : ['', String(ref.apiVersion ?? '')];
  const def = registry.all().find((d) => d.group === group && d.version === version && d.kind === ref.kind && d.subresources.some((r) => r.name === 'scale'));
  if (!def) return undefined;
  let owner: KubeObject;
  try {
    owner = await registry.store(def).get(loopbackContext(namespace), String(ref.name ?? ''), { resourceVersion: '0' });
  } catch (e) {
    if (isStatusError(e) && e.code === 404) return undefined;
    throw e;
  }
  if (owner.metadata.uid !== ref.uid) return undefined;
  if (group === 'apps' && ref.kind === 'ReplicaSet') {
    const deployment = owner.metadata.ownerReferences?.find((o) => o.controller === true);
    if (deployment?.kind === 'Deployment') return controllerOf(registry, namespace, deployment as unknown as Obj);
  }
  const path = (def.scale?.specReplicasPath ?? '.spec.replicas').split('.').filter(Boolean);
  let value: unknown = owner;
  for (const p of path) value = asObj(value)[p];
  return { uid: owner.metadata.uid ?? '', replicas: typeof value === 'number' ? value : 0 };
}

/** getExpectedScale: the sum of the scales of the controllers of the pods (each once). */
async function expectedScale(registry: Registry, namespace: string, pods: readonly KubeObject[]): Promise<number> {
  const scales = new Map<string, number>();
  for (const pod of pods) {
    const ref = pod.metadata.ownerReferences?.find((o) => o.controller === true);
    // Pods without a controller are "unmanaged": they are left out.
    if (!ref || scales.has(ref.uid)) continue;
    const controller = await controllerOf(registry, namespace, ref as unknown as Obj);
    if (!controller) throw new Error(`found no controllers for pod "${pod.metadata.name ?? ''}"`);
    scales.set(controller.uid, controller.replicas);
  }
  let total = 0;
  for (const n of scales.values()) total += n;
  return total;
}

/** The expected and desired counts of a budget over its pods. */
async function expectedAndDesired(registry: Registry, pdb: KubeObject, pods: readonly KubeObject[]): Promise<{ expected: number; desired: number }> {
  const spec = asObj(pdb.spec);
  const namespace = pdb.metadata.namespace ?? '';
  if (spec.maxUnavailable !== undefined && spec.maxUnavailable !== null) {
    const expected = await expectedScale(registry, namespace, pods);
    return { expected, desired: Math.max(0, expected - scaledValue(spec.maxUnavailable, expected)) };
  }
  if (typeof spec.minAvailable === 'number') return { expected: pods.length, desired: spec.minAvailable };
  if (typeof spec.minAvailable === 'string') {
    const expected = await expectedScale(registry, namespace, pods);
    return { expected, desired: scaledValue(spec.minAvailable, expected) };
  }
  return { expected: 0, desired: 0 };
}

export interface DisruptionController {
  idle(): Promise<void>;
  stop(): Promise<void>;
}

export function startDisruptionController(registry: Registry, options: { retryMs?: number } = {}): DisruptionController {
  const retryMs = options.retryMs ?? 1000;
  const storeOf = (group: string, resource: string): ResourceStore | undefined => {
    const def = registry.lookup(group, 'v1', resource);
    return def ? registry.store(def) : undefined;
  };
  const budgets = () => storeOf('policy', 'poddisruptionbudgets');
  const podStore = () => storeOf('', 'pods');
  /** The budgets' names by namespace, as their watch has them: which budgets a pod's event concerns. */
  const known = new Map<string, Set<string>>();

  async function sync(key: string): Promise<void> {
    const [namespace, name] = key.split('/') as [string, string];
    const pdbs = budgets();
    const podsStore = podStore();
    if (!pdbs || !podsStore) return;
    let pdb: KubeObject;
    try {
      pdb = await pdbs.get(loopbackContext(namespace), name, { resourceVersion: '0' });
    } catch (e) {
      if (isStatusError(e) && e.code === 404) return;
      throw e;
    }
    const pods = (await podsStore.list(loopbackContext(namespace), { resourceVersion: '0' })).items.filter((p) => selectsPod(pdb, p));
    let counts: { expected: number; desired: number } | undefined;
    let failure: string | undefined;
    try {
      counts = await expectedAndDesired(registry, pdb, pods);
    } catch (e) {
      failure = e instanceof Error ? e.message : String(e);
    }
    let recheckAt: number | undefined;
    await pdbs.update(
      loopbackContext(namespace),
      name,
      (current) => {
        if (!current) return current!;
        const next = cloneJson(current);
        const status = asObj(next.status);
        const generation = next.metadata.generation ?? 0;
        if (failure !== undefined || !counts) {
          // failSafe: no disruption is allowed while the counts cannot be made.
          next.status = { ...status, disruptionsAllowed: 0, conditions: withDisruptionCondition(status.conditions, false, 'SyncFailed', failure ?? '', Number(status.observedGeneration ?? 0)) };
          return next;
        }
        const now = clockNow();
        // Evicted pods (disruptedPods) stay out of the healthy count until deleted, for two minutes at most.
        const disrupted: Record<string, string> = {};
        const recorded = asObj(status.disruptedPods);
        for (const pod of pods) {
          const at = recorded[pod.metadata.name ?? ''];
          if (pod.metadata.deletionTimestamp || typeof at !== 'string') continue;
          const expires = Date.parse(at) + DELETION_TIMEOUT_MS;
          if (expires < now) continue;
          disrupted[pod.metadata.name ?? ''] = at;
          recheckAt = recheckAt === undefined ? expires : Math.min(recheckAt, expires);
        }
        const healthy = pods.filter((p) => !p.metadata.deletionTimestamp && !(p.metadata.name! in disrupted) && isPodReady(p)).length;
        const allowed = counts.expected > 0 ? Math.max(0, healthy - counts.desired) : 0;
        const conditions = withDisruptionCondition(status.conditions, allowed > 0, allowed > 0 ? 'SufficientPods' : 'InsufficientPods', '', generation);
        next.status = {
          observedGeneration: generation,
          ...(Object.keys(disrupted).length > 0 ? { disruptedPods: disrupted } : {}),
          disruptionsAllowed: allowed,
          currentHealthy: healthy,
          desiredHealthy: counts.desired,
          expectedPods: counts.expected,
          conditions,
        };
        return next;
      },
      { subresource: 'status' },
    ).catch((e: unknown) => {
      if (!(isStatusError(e) && e.code === 404)) throw e;
    });
    if (recheckAt !== undefined) queue.enqueue(key, Math.max(0, recheckAt - clockNow()) + 1);
    if (failure !== undefined) throw new Error(failure);
  }

  const queue = createKeyedQueue(sync, retryMs);
  // Pods only say which budgets to look at again: their metadata is enough. Followed once there is a budget (most
  // servers have none, and every pod write would otherwise reach one more watcher).
  let stopPods: (() => void) | undefined;
  const followPods = (): void => {
    stopPods ??= followWatch(
      podStore,
      { ...loopbackContext(), metadataOnly: true },
      (ev) => {
        // Every budget of the namespace: one the pod's labels no longer match must count it out.
        const inNamespace = known.get((ev.object as KubeObject).metadata.namespace ?? '');
        for (const name of inNamespace ?? []) queue.enqueue(`${(ev.object as KubeObject).metadata.namespace}/${name}`);
      },
      queue,
      retryMs,
    );
  };
  const stopBudgets = followWatch(
    budgets,
    loopbackContext(),
    (ev) => {
      const pdb = ev.object as KubeObject;
      const namespace = pdb.metadata.namespace ?? '';
      const name = pdb.metadata.name ?? '';
      let inNamespace = known.get(namespace);
      if (ev.type === 'DELETED') {
        inNamespace?.delete(name);
        return;
      }
      if (!inNamespace) known.set(namespace, (inNamespace = new Set()));
      inNamespace.add(name);
      followPods();
      queue.enqueue(`${namespace}/${name}`);
    },
    queue,
    retryMs,
  );
  return {
    idle: () => queue.idle(),
    async stop() {
      stopBudgets();
      stopPods?.();
      await queue.stop();
    },
  };
}
