// The garbage collector of kube-controller-manager, in process and through the stores like any client: a graph of
// every object's ownerReferences kept from one watch per stored resource, and three kinds of work on it.
// - attempt:<uid>  a dependent whose owner went away (or may have): owners are solid (present), dangling (absent
//   or another uid) or waiting (deleting in the foreground). No solid owner: the dependent is deleted (in the
//   foreground when an owner waits for it, else as its own finalizers say); solid and other owners: the others'
//   references are removed.
// - foreground:<uid>  an owner deleting in the foreground: its dependents are deleted, and once none that blocks
//   (blockOwnerDeletion) is left, the foregroundDeletion finalizer is removed.
// - orphan:<uid>  an owner deleted with the orphan policy: its references are removed from every dependent, then
//   the orphan finalizer.

import { isStatusError } from '../apis/errors.ts';
import { loopbackContext } from '../registry/registry.ts';
import { apiVersionOf } from '../registry/store-codec.ts';
import type { KubeObject, OwnerReference, Registry, RequestContext, ResourceDefinition, ResourceStore, WatchEvent } from '../registry/types.ts';
import { createKeyedQueue, followWatch, type KeyedQueue } from './work-queue.ts';
import { createEventSink, type EventRecorder } from './events.ts';
import { createInformers } from './informers.ts';
import { controllerAccount, controllerEvents } from './simulation/shared.ts';

const FOREGROUND = 'foregroundDeletion';
const ORPHAN = 'orphan';

interface GraphNode {
  uid: string;
  def: ResourceDefinition;
  namespace: string;
  name: string;
  owners: OwnerReference[];
  deleting: boolean;
  finalizers: string[];
}

export interface GarbageCollector {
  /** Resolves when the work queued so far is done (tests). */
  idle(): Promise<void>;
  stop(): Promise<void>;
}

export interface GarbageCollectorOptions {
  retryMs?: number;
}

const isNotFound = (e: unknown) => isStatusError(e) && e.code === 404;
const isConflict = (e: unknown) => isStatusError(e) && e.code === 409;

function groupOf(apiVersion: string): string {
  const slash = apiVersion.indexOf('/');
  return slash < 0 ? '' : apiVersion.slice(0, slash);
}

export function startGarbageCollector(registry: Registry, options: GarbageCollectorOptions = {}): GarbageCollector {
  const retryMs = options.retryMs ?? 1000;
  const nodes = new Map<string, GraphNode>();
  /** owner uid -> dependent uids */
  const dependents = new Map<string, Set<string>>();
  const watches = new Map<string, () => void>();
  const queue: KeyedQueue = createKeyedQueue(sync, retryMs);

  const storeOf = (def: ResourceDefinition): ResourceStore => registry.store(def);

  function link(node: GraphNode) {
    for (const o of node.owners) {
      let set = dependents.get(o.uid);
      if (!set) dependents.set(o.uid, (set = new Set()));
      set.add(node.uid);
    }
  }

  function unlink(node: GraphNode) {
    for (const o of node.owners) {
      const set = dependents.get(o.uid);
      set?.delete(node.uid);
      if (set?.size === 0) dependents.delete(o.uid);
    }
  }

  function observe(def: ResourceDefinition, ev: WatchEvent) {
    const obj = ev.object as KubeObject;
    const uid = obj.metadata?.uid;
    if (!uid) return;
    const previous = nodes.get(uid);
    if (ev.type === 'DELETED') {
      if (previous) unlink(previous);
      nodes.delete(uid);
      for (const dep of dependents.get(uid) ?? []) queue.enqueue(`attempt:${dep}`);
      for (const o of previous?.owners ?? []) if (nodes.get(o.uid)?.finalizers.includes(FOREGROUND)) queue.enqueue(`foreground:${o.uid}`);
      return;
    }
    const node: GraphNode = {
      uid,
      def,
      namespace: obj.metadata.namespace ?? '',
      name: obj.metadata.name ?? '',
      owners: (obj.metadata.ownerReferences ?? []).filter((o) => o && typeof o.uid === 'string'),
      deleting: !!obj.metadata.deletionTimestamp,
      finalizers: obj.metadata.finalizers ?? [],
    };
    if (previous) unlink(previous);
    nodes.set(uid, node);
    link(node);
    const ownersChanged = !previous || JSON.stringify(previous.owners) !== JSON.stringify(node.owners);
    if (node.owners.length > 0 && ownersChanged) queue.enqueue(`attempt:${uid}`);
    if (node.deleting && node.finalizers.includes(FOREGROUND)) queue.enqueue(`foreground:${uid}`);
    if (node.deleting && node.finalizers.includes(ORPHAN)) queue.enqueue(`orphan:${uid}`);
    // A dependent that started deleting may unblock an owner waiting in the foreground.
    if (node.deleting) for (const o of node.owners) if (nodes.get(o.uid)?.finalizers.includes(FOREGROUND)) queue.enqueue(`foreground:${o.uid}`);
  }

  /** The definition an owner reference names: its group and kind, its own version when served. */
  function ownerDefinition(ref: OwnerReference): ResourceDefinition | undefined {
    const group = groupOf(ref.apiVersion ?? '');
    const version = ref.apiVersion?.slice(ref.apiVersion.indexOf('/') + 1);
    let found: ResourceDefinition | undefined;
    for (const d of registry.all()) {
      if (d.group !== group || d.kind !== ref.kind || d.resource.includes('/')) continue;
      if (d.version === version) return d;
      found ??= d;
    }
    return found;
  }

  /** 'invalid': a cluster-scoped dependent naming a namespaced owner, which kube's collector neither keeps nor deletes for. */
  type OwnerState = 'solid' | 'dangling' | 'waiting' | 'invalid';

  /**
   * The graph answers for an owner only where the reference names it as it was seen (kind, name, and a namespace
   * the dependent may refer to); otherwise the owner is looked up where the reference points, as kube verifies a
   * potentially invalid reference. A namespaced owner seen in another namespace, or named by a cluster-scoped
   * dependent, gets kube's OwnerRefInvalidNamespace warning on the dependent.
   */
  async function ownerState(dependent: GraphNode, ref: OwnerReference): Promise<OwnerState> {
    const known = nodes.get(ref.uid);
    if (known && known.def.namespaced && known.namespace !== dependent.namespace) reportInvalidNamespace(dependent, ref);
    else if (known && known.name === ref.name && known.def.kind === ref.kind && groupOf(ref.apiVersion ?? '') === known.def.group) {
      return known.deleting && known.finalizers.includes(FOREGROUND) ? 'waiting' : 'solid';
    }
    const def = ownerDefinition(ref);
    if (!def) return 'dangling';
    if (def.namespaced && dependent.namespace === '') {
      reportInvalidNamespace(dependent, ref);
      return 'invalid';
    }
    try {
      const owner = await storeOf(def).get(loopbackContext(def.namespaced ? dependent.namespace : ''), ref.name);
      if (owner.metadata.uid !== ref.uid) return 'dangling';
      return owner.metadata.deletionTimestamp && owner.metadata.finalizers?.includes(FOREGROUND) ? 'waiting' : 'solid';
    } catch (e) {
      if (isNotFound(e)) return 'dangling';
      throw e;
    }
  }

  /** The collector's events, written by a recorder made when first needed (rarely: references gone wrong). */
  let recorder: { events: EventRecorder; stop(): Promise<void> } | undefined;
  function reportInvalidNamespace(dependent: GraphNode, ref: OwnerReference): void {
    if (!recorder) {
      const informers = createInformers(registry);
      const sink = createEventSink(informers);
      recorder = {
        events: controllerEvents(sink, 'garbage-collector-controller', controllerAccount('generic-garbage-collector')),
        async stop() {
          await sink.stop();
          await informers.stop();
        },
      };
    }
    const object: KubeObject = { apiVersion: apiVersionOf(dependent.def), kind: dependent.def.kind, metadata: { name: dependent.name, namespace: dependent.namespace, uid: dependent.uid } };
    const owner = `[${ref.apiVersion}/${ref.kind}, namespace: ${dependent.namespace}, name: ${ref.name}, uid: ${ref.uid}]`;
    recorder.events.event(object, 'Warning', 'OwnerRefInvalidNamespace', `ownerRef ${owner} does not exist in namespace "${dependent.namespace}"`);
  }

  async function removeOwnerRefs(node: GraphNode, uids: ReadonlySet<string>) {
    await storeOf(node.def)
      .update(loopbackContext(node.namespace), node.name, (cur) => {
        if (!cur || cur.metadata.uid !== node.uid) return cur!;
        const refs = (cur.metadata.ownerReferences ?? []).filter((o) => !uids.has(o.uid));
        const metadata = { ...cur.metadata };
        if (refs.length) metadata.ownerReferences = refs;
        else delete metadata.ownerReferences;
        return { ...cur, metadata };
      })
      .catch((e) => {
        if (!isNotFound(e)) throw e;
      });
  }

  async function removeFinalizer(node: GraphNode, finalizer: string) {
    await storeOf(node.def)
      .update(loopbackContext(node.namespace), node.name, (cur) => {
        if (!cur || cur.metadata.uid !== node.uid) return cur!;
        return { ...cur, metadata: { ...cur.metadata, finalizers: (cur.metadata.finalizers ?? []).filter((f) => f !== finalizer) } };
      })
      .catch((e) => {
        if (!isNotFound(e)) throw e;
      });
  }

  async function deleteNode(node: GraphNode, propagationPolicy: 'Orphan' | 'Background' | 'Foreground') {
    await storeOf(node.def)
      .delete(loopbackContext(node.namespace), node.name, { propagationPolicy, preconditions: { uid: node.uid } })
      .catch((e) => {
        if (!isNotFound(e) && !isConflict(e)) throw e;
      });
  }

  async function attemptToDelete(node: GraphNode) {
    if (node.owners.length === 0) return;
    if (node.deleting && !node.finalizers.includes(FOREGROUND)) return;
    const states = await Promise.all(node.owners.map((o) => ownerState(node, o)));
    if (states.includes('invalid')) return;
    const solid = node.owners.filter((_, i) => states[i] === 'solid');
    const others = new Set(node.owners.filter((_, i) => states[i] !== 'solid').map((o) => o.uid));
    if (solid.length > 0) {
      if (others.size > 0) await removeOwnerRefs(node, others);
      return;
    }
    if (node.deleting) return;
    const waiting = states.includes('waiting');
    let policy: 'Orphan' | 'Background' | 'Foreground' = 'Background';
    if (waiting && (dependents.get(node.uid)?.size ?? 0) > 0) policy = 'Foreground';
    else if (node.finalizers.includes(ORPHAN)) policy = 'Orphan';
    else if (node.finalizers.includes(FOREGROUND)) policy = 'Foreground';
    await deleteNode(node, policy);
  }

  async function processForeground(owner: GraphNode) {
    if (!owner.deleting || !owner.finalizers.includes(FOREGROUND)) return;
    const blocking: GraphNode[] = [];
    for (const uid of dependents.get(owner.uid) ?? []) {
      const dep = nodes.get(uid);
      if (!dep) continue;
      if (!dep.deleting) queue.enqueue(`attempt:${uid}`);
      if (dep.owners.some((o) => o.uid === owner.uid && o.blockOwnerDeletion === true)) blocking.push(dep);
    }
    if (blocking.length === 0) await removeFinalizer(owner, FOREGROUND);
  }

  async function processOrphan(owner: GraphNode) {
    if (!owner.deleting || !owner.finalizers.includes(ORPHAN)) return;
    for (const uid of [...(dependents.get(owner.uid) ?? [])]) {
      const dep = nodes.get(uid);
      if (dep) await removeOwnerRefs(dep, new Set([owner.uid]));
    }
    await removeFinalizer(owner, ORPHAN);
  }

  async function sync(key: string): Promise<void> {
    const colon = key.indexOf(':');
    const node = nodes.get(key.slice(colon + 1));
    if (!node) return;
    switch (key.slice(0, colon)) {
      case 'attempt':
        return attemptToDelete(node);
      case 'foreground':
        return processForeground(node);
      case 'orphan':
        return processOrphan(node);
    }
  }

  /** One watch per stored resource (versions and groups sharing storage are watched once). */
  // The graph needs owners, finalizers and deletion state only: watch events without the objects' bodies.
  const metadataContext: RequestContext = { ...loopbackContext(), metadataOnly: true };

  function refreshWatches() {
    const wanted = new Map<string, ResourceDefinition>();
    for (const d of registry.all()) {
      if (d.resource.includes('/') || !d.verbs.includes('watch') || !d.verbs.includes('delete')) continue;
      if (!wanted.has(d.storagePrefix)) wanted.set(d.storagePrefix, d);
    }
    for (const [prefix, stop] of watches) {
      if (wanted.has(prefix)) continue;
      stop();
      watches.delete(prefix);
    }
    for (const [prefix, def] of wanted) {
      if (watches.has(prefix)) continue;
      watches.set(prefix, followWatch(() => (registry.lookup(def.group, def.version, def.resource) ? storeOf(def) : undefined), metadataContext, (ev) => observe(def, ev), queue, retryMs));
    }
  }

  refreshWatches();
  const unsubscribe = registry.onChange(refreshWatches);

  return {
    idle: () => queue.idle(),
    async stop() {
      unsubscribe();
      for (const stop of watches.values()) stop();
      watches.clear();
      await queue.stop();
      await recorder?.stop();
    },
  };
}
