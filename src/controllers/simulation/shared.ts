// What the simulated kube-controller-manager and kubelets share: the resources they follow, controller references,
// pod readiness, label selectors, and one controller loop shape (a keyed queue of "namespace/name" fed by the
// informers of a primary resource and of the objects it controls).

import { isStatusError, StatusError } from '../../apis/errors.ts';
import { ALL_AUTHENTICATED, type UserInfo } from '../../auth/user.ts';
import { formatLabelSelector, labelsMatch, parseLabelSelector } from '../../apis/labels.ts';
import { loopbackContext } from '../../registry/registry.ts';
import { jsonEqual } from '../../registry/store-codec.ts';
import type { KubeObject, OwnerReference, Registry, RequestContext, ResourceStore } from '../../registry/types.ts';
import { createKeyedQueue } from '../work-queue.ts';
import type { EventRecorder, EventSink } from '../events.ts';
import type { Informer, Informers, ResourceRef } from '../informers.ts';

export type Obj = Record<string, unknown>;

export const PODS: ResourceRef = { group: '', version: 'v1', resource: 'pods' };
export const NODES: ResourceRef = { group: '', version: 'v1', resource: 'nodes' };
export const LEASES: ResourceRef = { group: 'coordination.k8s.io', version: 'v1', resource: 'leases' };
export const NAMESPACES: ResourceRef = { group: '', version: 'v1', resource: 'namespaces' };
export const SERVICES: ResourceRef = { group: '', version: 'v1', resource: 'services' };
export const PDBS: ResourceRef = { group: 'policy', version: 'v1', resource: 'poddisruptionbudgets' };
export const REPLICASETS = { group: 'apps', version: 'v1', resource: 'replicasets', kind: 'ReplicaSet' } as const;
export const REPLICATION_CONTROLLERS = { group: '', version: 'v1', resource: 'replicationcontrollers', kind: 'ReplicationController' } as const;
export const DEPLOYMENTS = { group: 'apps', version: 'v1', resource: 'deployments', kind: 'Deployment' } as const;
export const STATEFULSETS = { group: 'apps', version: 'v1', resource: 'statefulsets', kind: 'StatefulSet' } as const;
export const DAEMONSETS = { group: 'apps', version: 'v1', resource: 'daemonsets', kind: 'DaemonSet' } as const;
export const JOBS = { group: 'batch', version: 'v1', resource: 'jobs', kind: 'Job' } as const;
export const CRONJOBS = { group: 'batch', version: 'v1', resource: 'cronjobs', kind: 'CronJob' } as const;
/** A controller's identity when kube-controller-manager uses service account credentials (kubeadm does). */
export function controllerAccount(name: string): UserInfo {
  return { name: `system:serviceaccount:kube-system:${name}`, groups: ['system:serviceaccounts', 'system:serviceaccounts:kube-system', ALL_AUTHENTICATED] };
}

/** Who the simulated components write as: what admission (plugins, webhooks, policies) is told. */
export const WRITERS = {
  replicaset: controllerAccount('replicaset-controller'),
  replicationController: controllerAccount('replication-controller'),
  deployment: controllerAccount('deployment-controller'),
  statefulset: controllerAccount('statefulset-controller'),
  daemonset: controllerAccount('daemon-set-controller'),
  job: controllerAccount('job-controller'),
  cronjob: controllerAccount('cronjob-controller'),
  scheduler: { name: 'system:kube-scheduler', groups: [ALL_AUTHENTICATED] } as UserInfo,
  kubelet: (node: string): UserInfo => ({ name: `system:node:${node}`, groups: ['system:nodes', ALL_AUTHENTICATED] }),
};

/**
 * The field manager kube records a component's writes under: the prefix of its user agent
 * ("kube-controller-manager/v1.31.0 (linux/amd64) kubernetes/..."), so an apply that sets a field a controller owns
 * (an HPA's spec.replicas, through the scale subresource) conflicts as on a cluster.
 */
export function componentFieldManager(user: UserInfo): string | undefined {
  if (user.name.startsWith('system:serviceaccount:kube-system:')) return 'kube-controller-manager';
  if (user.name === WRITERS.scheduler.name) return 'kube-scheduler';
  if (user.name.startsWith('system:node:')) return 'kubelet';
  return undefined;
}

/**
 * A kube-controller-manager controller's event recorder: its component name, its identity, and kcm's client rate
 * (--kube-api-qps 20, --kube-api-burst 30).
 */
export function controllerEvents(events: EventSink, component: string, user: UserInfo): EventRecorder {
  return events.recorder({ component, user, qps: 20, burst: 30 });
}

const kubeletRecorders = new WeakMap<EventSink, Map<string, EventRecorder>>();

/** A node's kubelet's event recorder (its own client: eventRecordQPS 50, eventBurst 100), one per node and sink. */
export function kubeletEvents(events: EventSink, node: string): EventRecorder {
  let byNode = kubeletRecorders.get(events);
  if (!byNode) kubeletRecorders.set(events, (byNode = new Map()));
  let r = byNode.get(node);
  if (!r) byNode.set(node, (r = events.recorder({ component: 'kubelet', host: node, user: WRITERS.kubelet(node), qps: 50, burst: 100 })));
  return r;
}

export const asObj = (v: unknown): Obj => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : {});
export const isNotFound = (e: unknown): boolean => isStatusError(e) && e.code === 404;
export const isConflictOrGone = (e: unknown): boolean => isStatusError(e) && (e.code === 404 || e.code === 409);

export function storeFor(registry: Registry, group: string, version: string, resource: string): ResourceStore | undefined {
  const def = registry.lookup(group, version, resource);
  return def ? registry.store(def) : undefined;
}

export const ctxFor = (namespace = ''): RequestContext => loopbackContext(namespace);

/** Creates an object the simulation installs once, as an install would (a default class, a role): one there stays. */
export async function installOnce(registry: Registry, ref: ResourceRef, obj: KubeObject): Promise<void> {
  const store = storeFor(registry, ref.group, ref.version, ref.resource);
  if (!store) return;
  await store.create(ctxFor(), obj).catch((e) => {
    if (!isStatusError(e) || e.code !== 409) throw e;
  });
}

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

export { isPodReady as podReady, hasReadyCondition as nodeReady } from '../../registry/builtin/core/pod-ready.ts';

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
 * A controller loop: `sync(namespace, name)` for the primary resource's objects, queued on their own events and on
 * the events of the objects they control (found by the controller reference's kind), once the informers of both
 * have listed.
 */
export function startLoop(
  informers: Informers,
  primary: ResourceRef & { kind: string },
  sync: (namespace: string, name: string) => Promise<void>,
  extra: { owned?: ResourceRef[]; retryMs?: number; adopts?: boolean } = {},
): Loop {
  const primaries = informers.of(primary);
  const owned = (extra.owned ?? []).map((o) => informers.of(o));
  const synced = Promise.all([primaries.synced, ...owned.map((o) => o.synced)]);
  const queue = createKeyedQueue(async (k) => {
    await synced;
    const { namespace, name } = splitKey(k);
    return sync(namespace, name);
  }, extra.retryMs ?? 500, informers.activity);
  // The status of a primary object is written through the informers by its own controller only, with what its
  // last pass computed: that write is no reason for another pass (any other change is).
  primaries.onEvent((ev) => ev.written === 'status' || queue.enqueue(key(ev.object)));
  for (const informer of owned) {
    informer.onEvent((ev) => {
      const ref = controllerOf(ev.object);
      if (ref && ref.kind === primary.kind) queue.enqueue(`${ev.object.metadata.namespace ?? ''}/${ref.name}`);
      // An orphan (made, or let go of) is looked at by every owner that would adopt it.
      else if (!ref && extra.adopts && ev.type !== 'DELETED' && !ev.object.metadata.deletionTimestamp) for (const owner of adopters(primaries, ev.object)) queue.enqueue(key(owner));
    });
  }
  return { enqueue: queue.enqueue, stop: queue.stop };
}

/** Parsed spec.selectors, by the (never modified) cached objects they belong to. */
const parsedSelectors = new WeakMap<KubeObject, ReturnType<typeof parseLabelSelector> | undefined>();

/** An owner's parsed spec.selector (a ReplicationController's plain map too); undefined for none or an empty one. */
export function selectorOf(owner: KubeObject): ReturnType<typeof parseLabelSelector> | undefined {
  if (parsedSelectors.has(owner)) return parsedSelectors.get(owner);
  // A ReplicationController's selector is a plain map of labels.
  const spec = asObj(owner.spec);
  const selector = owner.kind === REPLICATION_CONTROLLERS.kind ? (spec.selector ? { matchLabels: spec.selector } : undefined) : spec.selector;
  const text = selector ? formatLabelSelector(selector) : '';
  const requirements = text ? parseLabelSelector(text) : undefined;
  parsedSelectors.set(owner, requirements);
  return requirements;
}

/**
 * The cached objects of the owner's namespace that it controls (by uid) and that its spec.selector, when it has one,
 * selects (kube's controllers list through their selector).
 */
export function controlled(informer: Informer, owner: KubeObject): KubeObject[] {
  const requirements = selectorOf(owner);
  const namespace = owner.metadata.namespace ?? '';
  return informer
    .controlledBy(owner.metadata.uid ?? '')
    .filter((o) => (o.metadata.namespace ?? '') === namespace && (!requirements || labelsMatch(requirements, o.metadata.labels)));
}

/** What a controller claims (kube's ControllerRefManager): the owner reference it writes, and which objects it considers. */
export interface ClaimOptions {
  readonly apiVersion: string;
  readonly kind: string;
  /** Part of the selector (ClaimPods' filters): objects the owner controls that fail it are released. */
  readonly match?: (obj: KubeObject) => boolean;
  /** The objects looked at (the list claimed from): others are left as they are, neither claimed nor released. */
  readonly among?: (obj: KubeObject) => boolean;
}

/** An update of obj's metadata, provided it is still the same object and its controller reference still reads `expected`. */
async function rewriteOwners(informer: Informer, obj: KubeObject, expected: string | undefined, owners: (refs: OwnerReference[]) => OwnerReference[]): Promise<KubeObject | undefined> {
  const namespace = obj.metadata.namespace ?? '';
  const name = obj.metadata.name ?? '';
  return informer
    .update(namespace, name, (cur) => {
      // As kube's patch with the object's uid: another object of the name, or a claim made meanwhile, is a conflict.
      if (!cur || cur.metadata.uid !== obj.metadata.uid || controllerOf(cur)?.uid !== expected) throw conflictOn(name);
      return { ...cur, metadata: { ...cur.metadata, ownerReferences: owners(cur.metadata.ownerReferences ?? []) } };
    })
    .catch(ignoreConflictOrGone);
}

const conflictOn = (name: string) => new StatusError(409, 'Conflict', `Operation cannot be fulfilled on "${name}": the object has been modified`);

/**
 * ClaimObjects (pkg/controller/controller_ref_manager.go): the objects of the owner's namespace it controls and selects;
 * an orphan it selects (neither it nor the orphan being deleted) is adopted, with a controller reference added; one it
 * controls but no longer selects is released, its reference removed (unless the owner is being deleted). An owner
 * without a selector claims only what it controls.
 */
export async function claim(informer: Informer, owner: KubeObject, opts: ClaimOptions): Promise<KubeObject[]> {
  const requirements = selectorOf(owner);
  const namespace = owner.metadata.namespace ?? '';
  const uid = owner.metadata.uid ?? '';
  const among = opts.among ?? (() => true);
  const owned = informer.controlledBy(uid).filter((o) => (o.metadata.namespace ?? '') === namespace && among(o));
  if (!requirements) return owned;
  const matches = (o: KubeObject) => labelsMatch(requirements, o.metadata.labels) && (!opts.match || opts.match(o));
  const deleting = owner.metadata.deletionTimestamp !== undefined;
  const claimed: KubeObject[] = [];
  for (const obj of owned) {
    if (matches(obj)) claimed.push(obj);
    else if (!deleting) await rewriteOwners(informer, obj, uid, (refs) => refs.filter((r) => r.uid !== uid));
  }
  if (deleting) return claimed;
  for (const obj of informer.orphans(namespace)) {
    if (obj.metadata.deletionTimestamp || !among(obj) || !matches(obj)) continue;
    const ref = controllerRef(owner, opts.apiVersion, opts.kind);
    const adopted = await rewriteOwners(informer, obj, undefined, (refs) => [...refs.filter((r) => r.uid !== uid), ref]);
    if (adopted) claimed.push(adopted);
  }
  return claimed;
}

/**
 * The owners in the namespace whose selector selects this object without a controller: the ones that may adopt it
 * (kube's getPodReplicaSets and kin, which queue them).
 */
export function adopters(owners: Informer, obj: KubeObject): KubeObject[] {
  return owners.list(obj.metadata.namespace ?? '').filter((owner) => {
    const requirements = selectorOf(owner);
    return requirements !== undefined && !owner.metadata.deletionTimestamp && labelsMatch(requirements, obj.metadata.labels);
  });
}

/** Updates the status of obj when the computed one differs (status subresource). */
export async function writeStatus(informer: Informer, obj: KubeObject, status: Obj): Promise<void> {
  if (jsonEqual(status, obj.status ?? {})) return;
  await informer.update(obj.metadata.namespace ?? '', obj.metadata.name ?? '', (cur) => ({ ...cur!, status }), { subresource: 'status' }).catch(ignoreConflictOrGone);
}

/** For writes that another writer may have overtaken or made moot: a conflict or a vanished object is no failure. */
export function ignoreConflictOrGone(e: unknown): undefined {
  if (!isConflictOrGone(e)) throw e;
  return undefined;
}
