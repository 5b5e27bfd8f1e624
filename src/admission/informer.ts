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
    s.start(
      (ev) => {
        const obj = ev.object as KubeObject;
        if (ev.type === 'ADDED' || ev.type === 'MODIFIED') objects.set(keyOf(obj), obj);
        else if (ev.type === 'DELETED') objects.delete(keyOf(obj));
        else if (ev.type === 'ERROR') {
          s.stop();
          started = undefined;
          return;
        } else return;
        changed();
      },
      () => {
        if (stream === s) started = undefined;
      },
    );
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
      if (current.version !== changes) {
        const items = [...objects].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, o]) => o);
        current = { items, version: changes };
      }
      return current;
    },
    stop() {
      stopped = true;
      stream?.stop();
    },
  };
}
