// The state one generic store shares across the versions it serves (storage, key layout, strategy, clock) and the
// small primitives the verbs are built from: keys, reads, waiting for a future revision, and a guaranteed
// read-modify-write that retries on storage conflicts.

import { cloneJson } from '../apis/json-clone.ts';
import { clockDate } from '../apis/clock.ts';
import { badRequest, conflict, notFound, type GroupKind, type GroupResource } from '../apis/errors.ts';
import { namespacePrefix, objectKey } from '../storage/keys.ts';
import { StorageError, type KeyValue, type Storage } from '../storage/types.ts';
import { decodeFromStorage, decodeStored, encodeForStorage, inKubeOrder, jsonEqual, sameStoredContent, writtenObject, type ReadTarget } from './store-codec.ts';
import { tooLargeResourceVersion } from './store-errors.ts';
import { createStoreCacher, type StoreCacher, type WatchCacheOptions } from './store-cache.ts';
import type { KubeObject, ResourceDefinition, Strategy } from './types.ts';
import { isValidPathSegment } from './validation/names.ts';
import { asStoredByKube } from './validation/go-zero-values.ts';

export interface StoreOptions {
  readonly storage: Storage;
  /** Any served version's definition of the group/resource: scope, kind, strategy and fields come from it. */
  readonly definition: ResourceDefinition;
  /** Reads a namespace (for namespaced kinds: no creation in a missing or terminating namespace). */
  readonly getNamespace?: (name: string) => Promise<KubeObject | undefined>;
  readonly featureGates?: Readonly<Record<string, boolean>>;
  /** How long a read at a future resourceVersion waits for it before 504 (kube's watch cache: 3 s). */
  readonly futureRevisionWaitMs?: number;
  readonly now?: () => Date;
  /** Extra condition before an update that empties the finalizers of a terminating object deletes it. */
  readonly shouldDeleteDuringUpdate?: (obj: KubeObject) => boolean;
  /** kube's ReturnDeletedObject (default: the strategy's returnDeletedObject). */
  readonly returnDeletedObject?: boolean;
  /** The watch cache (serves watches and cache-able lists and gets); false: every read goes to storage. */
  readonly watchCache?: WatchCacheOptions | false;
}

export interface StoreCore {
  readonly storage: Storage;
  /** Storage prefix without the trailing '/', e.g. "/registry/configmaps". */
  readonly prefix: string;
  readonly gr: GroupResource;
  readonly gk: GroupKind;
  readonly namespaced: boolean;
  readonly strategy: Strategy;
  readonly definition: ResourceDefinition;
  readonly options: StoreOptions;
  /** The watch cache of the group/resource (shared by its versions); undefined when disabled. */
  readonly cache: StoreCacher | undefined;
  now(): Date;
}

export function createCore(options: StoreOptions): StoreCore {
  const def = options.definition;
  const prefix = def.storagePrefix.replace(/\/+$/, '');
  return {
    storage: options.storage,
    prefix,
    gr: { group: def.group, resource: def.resource },
    gk: { group: def.group, kind: def.kind },
    namespaced: def.namespaced,
    strategy: def.strategy,
    definition: def,
    options,
    cache: options.watchCache === false ? undefined : createStoreCacher(options.storage, prefix, def, options.watchCache ?? {}),
    now: options.now ?? clockDate,
  };
}

/** The key of one object; 400 as kube's NamespaceKeyFunc/NoNamespaceKeyFunc for a missing or unusable name. */
export function keyFor(core: StoreCore, namespace: string, name: string): string {
  if (core.namespaced && !namespace) throw badRequest('Namespace parameter required.');
  if (!name) throw badRequest('Name parameter required.');
  const msgs = isValidPathSegment(name, false);
  if (msgs.length) throw badRequest(`Name parameter invalid: ${JSON.stringify(name)}: ${msgs.join(';')}`);
  return objectKey(core.prefix, core.namespaced ? namespace : '', name);
}

/** The range prefix (ending in '/') of one namespace, or of the whole resource when namespace is ''. */
export function rootFor(core: StoreCore, namespace: string): string {
  return namespacePrefix(core.prefix, core.namespaced ? namespace : '');
}

export interface Current {
  readonly kv: KeyValue;
  readonly object: KubeObject;
  /**
   * The read defaults changed the object: it differs from what is stored, so even an update that changes nothing
   * writes (kube compares the bytes it would write with the stored ones), persisting the defaults.
   */
  readonly defaultedOnRead?: boolean;
}

/** The stored object at key as reads see it through def (its read defaults), still in its stored version. */
export async function readCurrent(core: StoreCore, key: string, def: ReadTarget): Promise<Current | undefined> {
  const { kv } = await core.storage.get(key);
  if (!kv) return undefined;
  if (!def.readDefaults) return { kv, object: decodeFromStorage(kv) };
  const object = decodeStored(kv, def);
  return { kv, object, defaultedOnRead: !jsonEqual(object, decodeFromStorage(kv)) };
}

/** Wait (briefly) until storage reaches `revision`; 504 "Too large resource version" when it does not. */
export async function waitForRevision(core: StoreCore, revision: number, signal?: AbortSignal): Promise<number> {
  let current = await core.storage.currentRevision();
  if (revision <= current) return current;
  const deadline = Date.now() + (core.options.futureRevisionWaitMs ?? 3000);
  while (Date.now() < deadline && !signal?.aborted) {
    await new Promise((r) => setTimeout(r, 25));
    current = await core.storage.currentRevision();
    if (revision <= current) return current;
  }
  throw tooLargeResourceVersion(revision, current);
}

/** What a mutation decides: the new object to write, or to leave the object as it is. */
export type Mutation = KubeObject | 'unchanged';

const maxAttempts = 64;

/**
 * Read-modify-write of one existing object, retried on storage conflicts (kube's GuaranteedUpdate without
 * create). `mutate` gets a fresh copy each attempt. A mutation equal to the stored content writes nothing.
 * Dry-run writes nothing and answers the would-be object at the current resourceVersion.
 */
export async function guaranteedUpdate(
  core: StoreCore,
  def: ReadTarget,
  key: string,
  name: string,
  mutate: (current: Current) => Mutation | Promise<Mutation>,
  dryRun: boolean,
): Promise<{ object: KubeObject; written: boolean }> {
  for (let attempt = 0; attempt < maxAttempts; attempt++) {
    const current = await readCurrent(core, key, def);
    if (!current) throw notFound(core.gr, name);
    // The mutation works on its own copy; `current` stays the reference for "did anything change".
    const next = await mutate({ kv: current.kv, object: cloneJson(current.object) });
    if (next !== 'unchanged' && !core.definition.custom) asStoredByKube(next);
    if (next === 'unchanged' || (!current.defaultedOnRead && sameStoredContent(next, current.object))) {
      return { object: current.object, written: false };
    }
    if (dryRun) {
      next.metadata.resourceVersion = String(current.kv.modRevision);
      return { object: inKubeOrder(next), written: false };
    }
    try {
      const kv = await core.storage.update(key, encodeForStorage(next, core.definition), current.kv.modRevision);
      return { object: writtenObject(next, kv, core.definition), written: true };
    } catch (e) {
      if (e instanceof StorageError && (e.code === 'Conflict' || e.code === 'NotFound')) continue;
      throw e;
    }
  }
  throw conflict(core.gr, name);
}
