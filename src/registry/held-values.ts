// Who holds a value that must be unique among a resource's objects (Strategy.heldValues: a Service's cluster IPs
// and node ports), for Strategy.beginWrite. The watch cache keeps these values indexed as it applies storage events,
// so a lookup costs O(1) once the cache has caught up with storage's current revision (the same consistent read a
// list from the cache makes); without a usable cache the stored objects are listed from storage and scanned.

import { CacheNotReadyError, CacheTooLargeError } from '../storage/cacher/types.ts';
import type { StoreCore } from './store-core.ts';
import type { Holders, KubeObject } from './types.ts';

/** Holders over a list of objects. */
export function holdersAmong(objects: readonly KubeObject[], heldValues: (obj: KubeObject) => readonly (string | number)[]): Holders {
  const index = new Map<string | number, string[]>();
  for (const o of objects) {
    const id = `${o.metadata.namespace ?? ''}/${o.metadata.name ?? ''}`;
    for (const v of heldValues(o)) {
      const list = index.get(v);
      if (list === undefined) index.set(v, [id]);
      else list.push(id);
    }
  }
  return (value) => index.get(value) ?? [];
}

/** Holders from the watch cache's index once it reflects storage's current revision; undefined when it cannot. */
export async function cachedHolders(core: StoreCore, waitMs: number, signal: AbortSignal | undefined): Promise<Holders | undefined> {
  const cache = core.cache;
  if (!cache?.ready() || core.options.featureGates?.ConsistentListFromCache === false) return undefined;
  const current = await core.storage.currentRevision();
  try {
    await cache.waitFresh(current, waitMs, signal);
  } catch (e) {
    if (e instanceof CacheTooLargeError || e instanceof CacheNotReadyError) return undefined;
    throw e;
  }
  // Lookups read the live index, which only moves forward from here: every object stored before the call counts.
  return (value) =>
    cache.holders(value).map((key) => {
      const attrs = cache.get(key)?.attrs;
      return `${attrs?.namespace ?? ''}/${attrs?.name ?? ''}`;
    });
}
