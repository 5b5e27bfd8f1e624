// What the simulated kube-controller-manager and kubelets share: stores by resource, controller references,
// pod readiness, label selectors, and one controller loop shape (a keyed queue of "namespace/name" fed by
// watches of a primary resource and of the pods it owns).

import { isStatusError } from '../../apis/errors.ts';
import { formatLabelSelector, labelsMatch, parseLabelSelector } from '../../apis/labels.ts';
import { loopbackContext } from '../../registry/registry.ts';
import { jsonEqual } from '../../registry/store-codec.ts';
import type { KubeObject, OwnerReference, Registry, RequestContext, ResourceStore, WatchEvent } from '../../registry/types.ts';
import { createKeyedQueue, followWatch } from '../work-queue.ts';

export type Obj = Record<string, unknown>;
export const asObj = (v: unknown): Obj => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : {});
export const isNotFound = (e: unknown): boolean => isStatusError(e) && e.code === 404;
export const isConflictOrGone = (e: unknown): boolean => isStatusError(e) && (e.code === 404 || e.code === 409);

export function storeFor(registry: Registry, group: string, version: string, resource: string): ResourceStore | undefined {
  const def = registry.lookup(group, version, resource);
  return def ? registry.store(def) : undefined;
}

export const ctxFor = (namespace = ''): RequestContext => loopbackContext(namespace);

export function controllerOf(obj: KubeObject): OwnerReference | undefined {
  return obj.metadata.ownerReferences?.find((o) => o.controller === true);
}

export function controllerRef(owner: KubeObject, apiVersion: string, kind: string): OwnerReference {
  return { apiVersion, kind, name: owner.metadata.name ?? '', uid: owner.metadata.uid ?? '', controller: true, blockOwnerDeletion: true };
}

/** metav1.LabelSelectorAsSelector(spec.selector) matching obj's labels; an empty selector matches nothing here. */
export function selects(selector: unknown, labels: Readonly<Record<string, string>> | undefined): boolean {
  const text = formatLabelSelector(selector);
  return text !== '' && labelsMatch(parseLabelSelector(text), labels);
}

export function podReady(pod: KubeObject): boolean {
  const conditions = asObj(pod.status).conditions;
  return Array.isArray(conditions) && conditions.some((c) => asObj(c).type === 'Ready' && asObj(c).status === 'True');
}

export function podActive(pod: KubeObject): boolean {
  const phase = asObj(pod.status).phase;
  return !pod.metadata.deletionTimestamp && phase !== 'Succeeded' && phase !== 'Failed';
}

export const key = (obj: KubeObject): string => `${obj.metadata.namespace ?? ''}/${obj.metadata.name ?? ''}`;

export function splitKey(k: string): { namespace: string; name: string } {
  const slash = k.indexOf('/');
  return { namespace: k.slice(0, slash), name: k.slice(slash + 1) };
}

export interface Loop {
  enqueue(key: string, delayMs?: number): void;
  stop(): Promise<void>;
}

/**
 * A controller loop: `sync(namespace/name)` for the primary resource's objects, queued on their own events and on
 * the events of the objects they control (found by the controller reference's kind).
 */
export function startLoop(
  registry: Registry,
  primary: { group: string; version: string; resource: string; kind: string },
  sync: (namespace: string, name: string) => Promise<void>,
  extra: { owned?: { group: string; version: string; resource: string }[]; retryMs?: number } = {},
): Loop {
  const retryMs = extra.retryMs ?? 500;
  const queue = createKeyedQueue((k) => {
    const { namespace, name } = splitKey(k);
    return sync(namespace, name);
  }, retryMs);
  const stops = [
    followWatch(() => storeFor(registry, primary.group, primary.version, primary.resource), ctxFor(), (ev: WatchEvent) => queue.enqueue(key(ev.object as KubeObject)), queue, retryMs),
    ...(extra.owned ?? []).map((o) =>
      followWatch(
        () => storeFor(registry, o.group, o.version, o.resource),
        ctxFor(),
        (ev: WatchEvent) => {
          const obj = ev.object as KubeObject;
          const ref = controllerOf(obj);
          if (ref && ref.kind === primary.kind) queue.enqueue(`${obj.metadata.namespace ?? ''}/${ref.name}`);
        },
        queue,
        retryMs,
      ),
    ),
  ];
  return {
    enqueue: queue.enqueue,
    async stop() {
      for (const s of stops) s();
      await queue.stop();
    },
  };
}

/**
 * The objects of a store in a namespace that the owner controls (by uid), narrowed first by the owner's
 * spec.selector when it has one (as kube's controllers list through their selector).
 */
export async function controlled(store: ResourceStore, namespace: string, owner: KubeObject): Promise<KubeObject[]> {
  const selector = asObj(owner.spec).selector;
  const labelSelector = selector ? formatLabelSelector(selector) : '';
  const list = await store.list(ctxFor(namespace), labelSelector ? { labelSelector } : {});
  return list.items.filter((o) => controllerOf(o)?.uid === owner.metadata.uid);
}

/** Updates the status of obj when the computed one differs (status subresource). */
export async function writeStatus(store: ResourceStore, obj: KubeObject, status: Obj): Promise<void> {
  if (jsonEqual(status, obj.status ?? {})) return;
  await store
    .update(ctxFor(obj.metadata.namespace ?? ''), obj.metadata.name ?? '', (cur) => ({ ...cur!, status }), { subresource: 'status' })
    .catch((e) => {
      if (!isConflictOrGone(e)) throw e;
    });
}
