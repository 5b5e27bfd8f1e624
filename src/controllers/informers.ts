// Shared informers for the in-process controllers (client-go's shared informers in miniature): one per resource,
// listed once and then kept from its watch, indexed by namespace and by controller, so a controller reads what it
// needs without decoding it from the store again. Writes go through the store, and what a write returns is taken
// into the cache at once: a controller's next look sees its own creates, updates and deletes before their watch
// events arrive (the part client-go's expectations and kube-scheduler's assumed pods play). Events older than what
// the cache holds for a key are skipped. Objects in the cache are shared: readers never modify them.

import { admissionHooks, admitDelete, type AdmissionRequestInfo } from '../admission/request.ts';
import type { AdmissionChain } from '../admission/types.ts';
import type { UserInfo } from '../auth/user.ts';
import type { DeleteOptions, KubeObject, Registry, RequestContext, ResourceStore, TryUpdate, UpdateOptions } from '../registry/types.ts';
import { createActivity, createKeyedQueue, type Activity } from './work-queue.ts';
import { loopbackContext } from '../registry/registry.ts';
import { managedFieldsTracker } from '../endpoints/managed-fields.ts';
import type { OwnerReference } from '../registry/types.ts';

export interface ResourceRef {
  readonly group: string;
  readonly version: string;
  readonly resource: string;
}

export interface InformerEvent {
  readonly type: 'ADDED' | 'MODIFIED' | 'DELETED';
  readonly object: KubeObject;
  /**
   * For a write made through this informer, reported when it returned (not from the watch): the subresource it
   * wrote ('' for the object itself).
   */
  readonly written?: string;
}

export interface Informer {
  /** Resolves once the first list is in the cache. */
  readonly synced: Promise<void>;
  get(namespace: string, name: string): KubeObject | undefined;
  /** The cached objects of a namespace, or of all namespaces. */
  list(namespace?: string): KubeObject[];
  /** The cached objects whose controller reference names this uid. */
  controlledBy(uid: string): KubeObject[];
  /** The cached objects of a namespace that have no controller reference. */
  orphans(namespace: string): KubeObject[];
  /** Called after each change of the cache, from the watch or from a write made through the informer. */
  onEvent(handler: (event: InformerEvent) => void): void;
  create(namespace: string, obj: KubeObject): Promise<KubeObject>;
  update(namespace: string, name: string, tryUpdate: TryUpdate, options?: UpdateOptions): Promise<KubeObject>;
  delete(namespace: string, name: string, options?: DeleteOptions): Promise<void>;
  createSubresource(namespace: string, name: string, subresource: string, obj: KubeObject): Promise<KubeObject>;
  /** The store behind the informer (undefined while its resource is not served). */
  store(): ResourceStore | undefined;
  /** The same informer, writing as this user (what admission is told; by default the loopback user). */
  as(user: UserInfo): Informer;
}

export interface Informers {
  readonly registry: Registry;
  /** The simulated components' queued and running work (their queues count themselves in). */
  readonly activity: Activity;
  of(ref: ResourceRef): Informer;
  /** The context of a write as `user` to a resource no informer follows (through admission, as the informers' writes). */
  writeContext(ref: ResourceRef, namespace: string, user: UserInfo, subresource?: string, kind?: string): RequestContext;
  stop(): Promise<void>;
}

const revisionOf = (obj: KubeObject): number => Number(obj.metadata.resourceVersion ?? 0);
const keyOf = (obj: KubeObject): string => `${obj.metadata.namespace ?? ''}/${obj.metadata.name ?? ''}`;

function unavailable(ref: ResourceRef): Error {
  return new Error(`${ref.resource}.${ref.group} is not served`);
}

/** How the informers' writes are made: through the server's admission chain, and recorded in managedFields. */
export interface WriteOptions {
  readonly admission?: AdmissionChain;
  /**
   * The field manager a writer's scale writes are recorded under (kube's components: the prefix of their user agent,
   * e.g. "kube-controller-manager"); undefined: not recorded. The apply engine must be loaded
   * (loadManagedFieldsEngine). Only writes through the scale subresource to objects that carry managedFields are
   * recorded: the one a later apply conflicts with (an autoscaler's spec.replicas). Recording every status write
   * too, as kube does, made the simulated settle of 100 Deployments about 25% slower.
   */
  readonly fieldManager?: (user: UserInfo) => string | undefined;
}

/**
 * The context of a write as `user`: through the admission chain, as every API client's writes go (kube's
 * controllers, scheduler and kubelets write through the API server), when the simulation was given one.
 */
function writeContext(registry: Registry, ref: ResourceRef, write: WriteOptions, namespace: string, user: UserInfo | undefined, subresource = '', kind?: string): RequestContext {
  const base: RequestContext = user ? { ...loopbackContext(namespace), user } : loopbackContext(namespace);
  const def = registry.lookup(ref.group, ref.version, ref.resource);
  const manager = user && def ? write.fieldManager?.(user) : undefined;
  const tracked: RequestContext = manager && subresource === 'scale' ? { ...base, fieldManager: manager, trackManagedFields: trackedWhenManaged(managedFieldsTracker(def!, manager)) } : base;
  if (!write.admission || !def) return tracked;
  const info: AdmissionRequestInfo = { def, subresource, kind: { group: def.group, version: def.version, kind: kind ?? def.kind }, user: base.user, namespace: def.namespaced ? namespace : '', dryRun: false, warnings: [] };
  return { ...tracked, ...admissionHooks(write.admission, info) };
}

/** A tracker that records only updates of objects already carrying managedFields. */
function trackedWhenManaged(track: NonNullable<RequestContext['trackManagedFields']>): NonNullable<RequestContext['trackManagedFields']> {
  return (old, next, subresource) => (old?.metadata.managedFields?.length ? track(old, next, subresource) : next);
}

function startInformer(registry: Registry, ref: ResourceRef, retryMs: number, write: WriteOptions): Informer & { stop(): Promise<void> } {
  const storeOf = (): ResourceStore | undefined => {
    const def = registry.lookup(ref.group, ref.version, ref.resource);
    return def ? registry.store(def) : undefined;
  };
  const byNamespace = new Map<string, Map<string, KubeObject>>();
  const byController = new Map<string, Set<KubeObject>>();
  /** The objects without a controller reference, by namespace. */
  const orphansByNamespace = new Map<string, Set<KubeObject>>();
  /**
   * The revision each key was last seen at. A key deleted through the informer keeps its entry until the watch (or a
   * list) reports the deletion: nothing older can come after that.
   */
  const seen = new Map<string, number>();
  const handlers: ((event: InformerEvent) => void)[] = [];
  let markSynced!: () => void;
  const synced = new Promise<void>((resolve) => (markSynced = resolve));

  function index(obj: KubeObject, add: boolean): void {
    const uid = obj.metadata.ownerReferences?.find((o: OwnerReference) => o.controller === true)?.uid;
    const map = uid ? byController : orphansByNamespace;
    const k = uid ?? obj.metadata.namespace ?? '';
    let set = map.get(k);
    if (add) {
      if (!set) map.set(k, (set = new Set()));
      set.add(obj);
    } else if (set) {
      set.delete(obj);
      if (set.size === 0) map.delete(k);
    }
  }

  function current(namespace: string, name: string): KubeObject | undefined {
    return byNamespace.get(namespace)?.get(name);
  }

  function notify(event: InformerEvent): void {
    for (const h of handlers) h(event);
  }

  /** Takes obj into the cache unless the cache already holds this key at a later revision. */
  function upsert(obj: KubeObject, written?: string): void {
    const k = keyOf(obj);
    const rev = revisionOf(obj);
    if (rev <= (seen.get(k) ?? 0)) return;
    seen.set(k, rev);
    const namespace = obj.metadata.namespace ?? '';
    let names = byNamespace.get(namespace);
    if (!names) byNamespace.set(namespace, (names = new Map()));
    const old = names.get(obj.metadata.name ?? '');
    if (old) index(old, false);
    names.set(obj.metadata.name ?? '', obj);
    index(obj, true);
    notify({ type: old ? 'MODIFIED' : 'ADDED', object: obj, written });
  }

  /** Drops the key, as of revision rev (later events of the key are still taken). */
  function remove(namespace: string, name: string, rev: number, written?: string): void {
    const k = `${namespace}/${name}`;
    if (rev < (seen.get(k) ?? 0)) return;
    if (written === undefined) seen.delete(k);
    else seen.set(k, rev);
    const names = byNamespace.get(namespace);
    const old = names?.get(name);
    if (!old) return;
    index(old, false);
    names!.delete(name);
    if (names!.size === 0) byNamespace.delete(namespace);
    notify({ type: 'DELETED', object: old, written });
  }

  const removeObject = (obj: KubeObject, rev: number, written?: string): void => remove(obj.metadata.namespace ?? '', obj.metadata.name ?? '', rev, written);

  /** A fresh list: what it has is taken, what it lacks (and the cache saw before the list) is dropped. */
  function replace(items: readonly KubeObject[], listRevision: number): void {
    const listed = new Set(items.map(keyOf));
    for (const names of [...byNamespace.values()]) {
      for (const obj of [...names.values()]) if (!listed.has(keyOf(obj)) && revisionOf(obj) <= listRevision) removeObject(obj, listRevision);
    }
    for (const obj of items) upsert(obj);
  }

  // The watch is opened from a fresh list, and when it ends (or the list fails) the informer lists again: soon at
  // first (a watch cache still filling at start-up), then every retryMs. A queue of one key keeps these in order.
  let stopWatch: (() => void) | undefined;
  let failures = 0;
  const runner = createKeyedQueue(async () => {
    stopWatch?.();
    stopWatch = undefined;
    try {
      const store = storeOf();
      if (!store) throw unavailable(ref);
      const list = await store.list(loopbackContext(), {});
      const listRevision = Number(list.metadata.resourceVersion ?? 0);
      replace(list.items, listRevision);
      markSynced();
      const watch = await store.watch({ ...loopbackContext(), lazyObjects: true }, { resourceVersion: String(listRevision) });
      if (runner.stopped) return watch.stop();
      failures = 0;
      let open = true;
      stopWatch = () => {
        open = false;
        watch.stop();
      };
      watch.start(
        (ev) => {
          if (ev.type === 'BOOKMARK' || ev.type === 'ERROR') return;
          // Most events are of the informers' own writes, already in the cache: those are not decoded.
          const peek = ev.peek;
          if (peek && ev.type === 'DELETED') return remove(peek.namespace, peek.name, peek.revision);
          if (peek && peek.revision <= (seen.get(`${peek.namespace}/${peek.name}`) ?? 0)) return;
          const obj = ev.object as KubeObject;
          if (ev.type === 'DELETED') removeObject(obj, revisionOf(obj));
          else upsert(obj);
        },
        () => {
          if (open) runner.enqueue('list');
        },
      );
    } catch {
      runner.later(() => runner.enqueue('list'), failures++ < 10 ? 20 : retryMs);
    }
  });
  runner.enqueue('list');

  const take = (obj: KubeObject, subresource = ''): KubeObject => {
    upsert(obj, subresource);
    return obj;
  };

  const reads = {
    synced,
    get: current,
    list(namespace?: string) {
      if (namespace !== undefined) return [...(byNamespace.get(namespace)?.values() ?? [])];
      const all: KubeObject[] = [];
      for (const names of byNamespace.values()) for (const obj of names.values()) all.push(obj);
      return all;
    },
    controlledBy: (uid: string) => [...(byController.get(uid) ?? [])],
    orphans: (namespace: string) => [...(orphansByNamespace.get(namespace) ?? [])],
    onEvent: (handler: (event: InformerEvent) => void) => void handlers.push(handler),
    store: storeOf,
  };
  const served = (): ResourceStore => {
    const store = storeOf();
    if (!store) throw unavailable(ref);
    return store;
  };
  /** Writes as `user` (undefined: the loopback user). */
  const writer = (user: UserInfo | undefined): Informer => ({
    ...reads,
    async create(namespace, obj) {
      return take(await served().create(writeContext(registry, ref, write, namespace, user), obj));
    },
    async update(namespace, name, tryUpdate, options) {
      const ctx = writeContext(registry, ref, write, namespace, user, options?.subresource);
      return take((await served().update(ctx, name, tryUpdate, options)).object, options?.subresource);
    },
    async delete(namespace, name, options) {
      const store = served();
      const ctx = writeContext(registry, ref, write, namespace, user);
      if (write.admission && ctx.admit) {
        const def = registry.lookup(ref.group, ref.version, ref.resource)!;
        await admitDelete(write.admission, { def, subresource: '', kind: { group: def.group, version: def.version, kind: def.kind }, user: ctx.user, namespace: def.namespaced ? namespace : '', dryRun: false, warnings: [], deleteOptions: options as Record<string, unknown> | undefined }, name);
      }
      const result = await store.delete(ctx, name, options);
      if (result.deletedImmediately) removeObject(result.object, revisionOf(result.object), '');
      else upsert(result.object, '');
    },
    async createSubresource(namespace, name, subresource, obj) {
      const store = served();
      if (!store.createSubresource) throw unavailable(ref);
      return store.createSubresource(writeContext(registry, ref, write, namespace, user, subresource, obj.kind), name, subresource, obj);
    },
    as: (other) => writer(other),
  });

  return {
    ...writer(undefined),
    async stop() {
      stopWatch?.();
      await runner.stop();
    },
  };
}

/** A set of informers, each started on first use and shared by every controller that asks for it. */
export function createInformers(registry: Registry, options: WriteOptions & { retryMs?: number } = {}): Informers {
  const started = new Map<string, ReturnType<typeof startInformer>>();
  return {
    registry,
    activity: createActivity(),
    writeContext: (ref, namespace, user, subresource, kind) => writeContext(registry, ref, options, namespace, user, subresource, kind),
    of(ref) {
      const k = `${ref.group}/${ref.version}/${ref.resource}`;
      let informer = started.get(k);
      if (!informer) started.set(k, (informer = startInformer(registry, ref, options.retryMs ?? 500, options)));
      return informer;
    },
    async stop() {
      for (const informer of started.values()) await informer.stop();
    },
  };
}
