// An in-process informer: list, then watch from the list's resourceVersion, through a ResourceStore (served by its
// watch cache), keeping the current objects by namespace/name. A watch that ends or fails is re-listed after a
// short delay. Readers (authorizers, controllers) see the store's state a few milliseconds late, as kube's do.

import type { KubeList, KubeObject, RequestContext, ResourceStore, WatchStream } from './types.ts';
import { loopbackContext } from './registry.ts';

export type InformerEvent = 'add' | 'update' | 'delete';

export interface Informer {
  /** Resolves once the first list is in. */
  synced(): Promise<void>;
  /** Resolves once the first watch after that list is open (its watcher counted by the watch cache). */
  watching(): Promise<void>;
  hasSynced(): boolean;
  get(namespace: string, name: string): KubeObject | undefined;
  /** Every object, in no particular order. */
  items(): IterableIterator<KubeObject>;
  /** Called for each change after it is applied (and for every object of a re-list). */
  onEvent(handler: (type: InformerEvent, obj: KubeObject, old: KubeObject | undefined) => void): () => void;
  stop(): void;
}

export interface InformerOptions {
  /** Delay before re-listing after a watch ended or failed (default 200 ms). */
  readonly retryMs?: number;
  readonly context?: RequestContext;
}

export const objectKey = (namespace: string | undefined, name: string | undefined): string => `${namespace ?? ''}/${name ?? ''}`;

export function startInformer(store: ResourceStore, options: InformerOptions = {}): Informer {
  const ctx = options.context ?? loopbackContext();
  const retryMs = options.retryMs ?? 200;
  const objects = new Map<string, KubeObject>();
  const handlers = new Set<(type: InformerEvent, obj: KubeObject, old: KubeObject | undefined) => void>();
  let watch: WatchStream | undefined;
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  let hasSynced = false;
  let markSynced!: () => void;
  const syncedPromise = new Promise<void>((resolve) => (markSynced = resolve));
  let markWatching!: () => void;
  const watchingPromise = new Promise<void>((resolve) => (markWatching = resolve));

  const emit = (type: InformerEvent, obj: KubeObject, old: KubeObject | undefined) => {
    for (const h of [...handlers]) {
      try {
        h(type, obj, old);
      } catch {
        // One handler's failure must not stop the others.
      }
    }
  };

  const apply = (type: InformerEvent, obj: KubeObject) => {
    const key = objectKey(obj.metadata.namespace, obj.metadata.name);
    const old = objects.get(key);
    if (type === 'delete') {
      if (!old) return;
      objects.delete(key);
    } else objects.set(key, obj);
    emit(type === 'delete' ? 'delete' : old ? 'update' : 'add', obj, old);
  };

  const retry = () => {
    if (stopped) return;
    timer = setTimeout(() => void run(), retryMs);
    timer.unref?.();
  };

  async function run(): Promise<void> {
    if (stopped) return;
    let list: KubeList;
    try {
      list = await store.list(ctx, {});
    } catch {
      return retry();
    }
    if (stopped) return;
    const seen = new Set<string>();
    for (const item of list.items) {
      const obj = { ...item, apiVersion: item.apiVersion ?? list.apiVersion.replace(/List$/, ''), kind: item.kind ?? list.kind.replace(/List$/, '') };
      seen.add(objectKey(obj.metadata.namespace, obj.metadata.name));
      apply('update', obj);
    }
    for (const [key, obj] of [...objects]) if (!seen.has(key)) apply('delete', obj);
    if (!hasSynced) {
      hasSynced = true;
      markSynced();
    }
    try {
      const w = await store.watch(ctx, { resourceVersion: list.metadata.resourceVersion, allowWatchBookmarks: false });
      if (stopped) return w.stop();
      watch = w;
      w.start(
        (ev) => {
          if (ev.type === 'ERROR') {
            w.stop();
            retry();
            return;
          }
          if (ev.type === 'BOOKMARK') return;
          apply(ev.type === 'DELETED' ? 'delete' : 'update', ev.object as KubeObject);
        },
        () => {
          if (watch === w) watch = undefined;
          retry();
        },
      );
      markWatching();
    } catch {
      retry();
    }
  }

  void run();

  return {
    synced: () => syncedPromise,
    watching: () => watchingPromise,
    hasSynced: () => hasSynced,
    get: (namespace, name) => objects.get(objectKey(namespace, name)),
    items: () => objects.values(),
    onEvent(handler) {
      handlers.add(handler);
      return () => handlers.delete(handler);
    },
    stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      watch?.stop();
    },
  };
}
