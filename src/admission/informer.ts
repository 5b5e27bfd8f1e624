// A small informer over one resource of the registry: a list from the watch cache, then a watch from its
// resourceVersion, kept as a map; `version` moves on every change. What admission reads on every request
// (webhook configurations, policies, bindings) costs a map lookup instead of a list. A watch that ends is
// re-established on the next read.

import { loopbackContext } from '../registry/registry.ts';
import type { KubeObject, Registry, WatchStream } from '../registry/types.ts';

export interface Snapshot {
  /** In namespace/name order. */
  readonly items: readonly KubeObject[];
  /** Changes whenever the items do. */
  readonly version: number;
}

export interface Informer {
  /** The objects now; the first call lists and starts watching. */
  snapshot(): Promise<Snapshot>;
  /** The objects now if the informer is listed and watching (no waiting), else undefined: call snapshot(). */
  now(): Snapshot | undefined;
  stop(): void;
}

/** namespace/name: the map key, whose order is the snapshot's (name order for cluster-scoped objects). */
function keyOf(o: KubeObject): string {
  return `${o.metadata.namespace ?? ''}/${o.metadata.name ?? ''}`;
}

export function createInformer(registry: Registry, group: string, version: string, resource: string): Informer {
  const objects = new Map<string, KubeObject>();
  let changes = 0;
  let current: Snapshot = { items: [], version: -1 };
  let started: Promise<void> | undefined;
  let stream: WatchStream | undefined;
  let stopped = false;
  let unserved = false;
  /** Listed and watching: snapshots need no wait. */
  let live = false;

  const changed = () => {
    changes++;
  };

  async function start(): Promise<void> {
    const def = registry.lookup(group, version, resource);
    // Not served (yet): the next read tries again.
    unserved = !def;
    if (!def) return;
    const store = registry.store(def);
    const list = await store.list(loopbackContext(), { resourceVersion: '0' });
    objects.clear();
    for (const o of list.items) objects.set(keyOf(o), o);
    changed();
    const s = await store.watch(loopbackContext(), { resourceVersion: list.metadata.resourceVersion });
    if (stopped) {
      s.stop();
      return;
    }
    stream = s;
    live = true;
    s.start(
      (ev) => {
        const obj = ev.object as KubeObject;
        if (ev.type === 'ADDED' || ev.type === 'MODIFIED') objects.set(keyOf(obj), obj);
        else if (ev.type === 'DELETED') objects.delete(keyOf(obj));
        else if (ev.type === 'ERROR') {
          s.stop();
          started = undefined;
          live = false;
          return;
        } else return;
        changed();
      },
      () => {
        if (stream !== s) return;
        started = undefined;
        live = false;
      },
    );
  }

  function currentSnapshot(): Snapshot {
    if (current.version !== changes) {
      const items = [...objects].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, o]) => o);
      current = { items, version: changes };
    }
    return current;
  }

  return {
    async snapshot() {
      if ((!started || unserved) && !stopped) {
        const p = start();
        started = p;
        p.catch(() => {
          if (started === p) started = undefined;
        });
      }
      await started;
      return currentSnapshot();
    },
    now() {
      return live && !stopped ? currentSnapshot() : undefined;
    },
    stop() {
      stopped = true;
      live = false;
      stream?.stop();
    },
  };
}

/** An informer's object with what was built from it (a compiled webhook configuration, a policy). */
export interface Built<T> {
  readonly object: KubeObject;
  readonly built: T;
}

/** An informer's objects, each built once per resourceVersion; the same array while nothing changes. */
export interface BuiltList<T> {
  read(): Promise<readonly Built<T>[]>;
  /** Without waiting when the informer is watching, else undefined: call read(). */
  now(): readonly Built<T>[] | undefined;
  stop(): void;
}

export function builtList<T>(informer: Informer, build: (o: KubeObject) => T): BuiltList<T> {
  const cache = new Map<string, { rv: string; built: T }>();
  let last: { version: number; out: readonly Built<T>[] } = { version: -1, out: [] };
  const fromSnapshot = (snap: Snapshot): readonly Built<T>[] => {
    if (snap.version === last.version) return last.out;
    const out: Built<T>[] = [];
    const seen = new Set<string>();
    for (const o of snap.items) {
      const uid = o.metadata.uid ?? '';
      seen.add(uid);
      let c = cache.get(uid);
      if (!c || c.rv !== o.metadata.resourceVersion) {
        c = { rv: o.metadata.resourceVersion ?? '', built: build(o) };
        cache.set(uid, c);
      }
      out.push({ object: o, built: c.built });
    }
    for (const k of [...cache.keys()]) if (!seen.has(k)) cache.delete(k);
    last = { version: snap.version, out };
    return out;
  };
  return {
    read: async () => fromSnapshot(await informer.snapshot()),
    now() {
      const snap = informer.now();
      return snap && fromSnapshot(snap);
    },
    stop: () => informer.stop(),
  };
}
