// Get and list: which requests the watch cache answers and which go to storage, exactly as kube-apiserver 1.31's
// cacher decides (shouldDelegateList, Cacher.Get), and the storage reads with kube's resourceVersion semantics,
// paging, continue tokens and errors.
//
//   get   rv ""            storage (the newest state); in-process storage: the cache once it has seen its revision
//         rv "0" / N       cache, not older than N (waits up to 3 s, then 504 Too large resource version)
//   list  Exact, continue, limit with rv != "0", unknown match        storage
//         rv "" (ConsistentListFromCache)   cache once it has seen storage's current revision (else storage)
//         rv "0" (limit ignored) / NotOlderThan N                    cache

import { badRequest, notFound, StatusError } from '../apis/errors.ts';
import { requiresExactMatch } from '../apis/fields.ts';
import { isDNS1123Label } from '../apis/labels.ts';
import { CacheNotReadyError, CacheTooLargeError } from '../storage/cacher/types.ts';
import { StorageError, type KeyValue } from '../storage/types.ts';
import { servesHeldObject } from './item-key-value.ts';
import { jsonLayout, listFromStored } from './list-json.ts';
import { cacheFilter, type StoreAttrs } from './store-cache.ts';
import { apiVersionOf, convertsOnRead, convertToVersion, decodeStored, readDefaultsChange } from './store-codec.ts';
import { ContinueTokenError, decodeContinue, encodeContinue, encodeContinueAt } from './store-continue.ts';
import { keyFor, rootFor, waitForRevision, type StoreCore } from './store-core.ts';
import { CONTINUE_EXPIRED, CONTINUE_INCONSISTENT, LIST_TOO_OLD, parseResourceVersion, StatusErrorWithListMeta, tooLargeResourceVersion } from './store-errors.ts';
import { scaleOf } from './store-scale.ts';
import { buildPredicate, validateListOptions, type Predicate } from './store-selection.ts';
import type { GetOptions, KubeList, KubeObject, ListOptions, RequestContext, ResourceDefinition, StoredObject } from './types.ts';

/** kube's storage list batch ceiling when filtering (maxLimit). */
const MAX_BATCH = 10000;
/** How long a read waits for a cache that is (re-)initializing before it goes to storage. */
const CACHE_READY_WAIT_MS = 3000;

function futureWaitMs(core: StoreCore): number {
  return core.options.futureRevisionWaitMs ?? 3000;
}

/** The cache, when it may serve: ready, or (for reads that need a revision) ready within a short wait. */
async function usableCache(core: StoreCore, rv: number, signal: AbortSignal | undefined) {
  const cache = core.cache;
  if (!cache) return undefined;
  if (cache.ready()) return cache;
  // kube: "not yet initialized and no specific minimal resource version: forward to storage".
  if (rv === 0) return undefined;
  return (await cache.waitReady(CACHE_READY_WAIT_MS, signal)) ? cache : undefined;
}

/** Waits until the cache reflects rv; 504 Too large resource version (Retry-After 1) after the wait. */
async function cacheNotOlderThan(core: StoreCore, rv: number, signal: AbortSignal | undefined): Promise<void> {
  if (rv === 0) return;
  try {
    await core.cache!.waitFresh(rv, futureWaitMs(core), signal);
  } catch (e) {
    if (e instanceof CacheTooLargeError) throw tooLargeResourceVersion(rv, e.current);
    if (e instanceof CacheNotReadyError) throw new StatusError(503, 'ServiceUnavailable', e.message);
    throw e;
  }
}

// ---- get ----

/**
 * The newest state of key (a get at rv ""): from the watch cache when it has seen every revision storage has
 * written, which in-process storage tells without a round trip; from storage otherwise (always on etcd, as kube
 * 1.31 reads etcd). Either answer is the state after every write that completed before the request.
 */
async function getNewest(core: StoreCore, key: string): Promise<KeyValue | undefined> {
  const cache = core.cache;
  const now = core.storage.revisionNow?.();
  if (cache !== undefined && now !== undefined && cache.ready()) {
    if (cache.revision() >= now) return cache.get(key)?.kv;
    cache.catchUp();
  }
  return (await core.storage.get(key)).kv;
}

/** The stored value a get answers from: the newest state for rv "" (getNewest), else the watch cache (kube's Cacher.Get). */
async function readForGet(core: StoreCore, ctx: RequestContext, name: string, options: GetOptions): Promise<KeyValue> {
  const key = keyFor(core, ctx.namespace, name);
  const rvText = options.resourceVersion ?? '';
  let kv: KeyValue | undefined;
  if (rvText === '') {
    kv = await getNewest(core, key);
  } else {
    const rv = parseResourceVersion(rvText);
    const cache = await usableCache(core, rv, ctx.signal);
    if (cache) {
      await cacheNotOlderThan(core, rv, ctx.signal);
      kv = cache.get(key)?.kv;
    } else {
      if (rv > 0) await waitForRevision(core, rv, ctx.signal);
      kv = (await core.storage.get(key)).kv;
    }
  }
  if (!kv) throw notFound(core.gr, name);
  return kv;
}

export async function getObject(core: StoreCore, def: ResourceDefinition, ctx: RequestContext, name: string, options: GetOptions = {}): Promise<KubeObject> {
  const object = decodeStored(await readForGet(core, ctx, name, options), def);
  if (options.subresource === 'scale') return scaleOf(core, object, def.scale);
  return convertToVersion(object, def);
}

/**
 * A get answered from the stored value itself when it can be served as it is (no other stored version, no scale,
 * text in encodeForStorage's canonical shape): responses are then spliced (JSON) or encoded once per stored value
 * (protobuf) without decoding it per request. Otherwise the object getObject would return.
 */
export async function getStoredObject(core: StoreCore, def: ResourceDefinition, ctx: RequestContext, name: string, options: GetOptions = {}): Promise<StoredObject | KubeObject> {
  const kv = await readForGet(core, ctx, name, options);
  const apiVersion = apiVersionOf(def);
  const asStored = options.subresource !== 'scale' && !convertsOnRead(def) && !readDefaultsChange(kv, def);
  if (asStored && servesHeldObject(kv, apiVersion)) return { stored: kv, layout: undefined, apiVersion };
  const layout = asStored ? jsonLayout(kv.value) : undefined;
  // A definition that converts between versions serves stored text only when it is stored in the version asked for.
  if (layout?.apiVersion !== undefined && (!def.convert || kv.value.slice(layout.apiVersion[0], layout.apiVersion[1]) === JSON.stringify(apiVersion))) {
    return { stored: kv, layout, apiVersion };
  }
  const object = decodeStored(kv, def);
  if (options.subresource === 'scale') return scaleOf(core, object, def.scale);
  return convertToVersion(object, def);
}

// ---- list ----

function listNamespace(core: StoreCore, ctx: RequestContext, pinned: string | undefined): string {
  if (!core.namespaced) return '';
  if (ctx.namespace) return ctx.namespace;
  // A field selector on metadata.namespace narrows an all-namespaces list to one namespace's keys.
  return pinned && isDNS1123Label(pinned).length === 0 ? pinned : '';
}

function limitOf(options: ListOptions): number {
  return options.limit && options.limit > 0 ? Math.floor(options.limit) : 0;
}

/** kube 1.31 Cacher.shouldDelegateList (ConsistentListFromCache on: consistent reads come from the cache). */
export function listFromStorage(options: ListOptions, consistentListFromCache: boolean): boolean {
  const rv = options.resourceVersion ?? '';
  const match = options.resourceVersionMatch ?? '';
  const consistentReadFromStorage = rv === '' && !consistentListFromCache;
  const hasContinuation = !!options.continue;
  const hasLimit = limitOf(options) > 0 && rv !== '0';
  const unsupportedMatch = match !== '' && match !== 'NotOlderThan';
  return consistentReadFromStorage || hasContinuation || hasLimit || unsupportedMatch;
}

export async function listObjects(core: StoreCore, def: ResourceDefinition, ctx: RequestContext, options: ListOptions = {}): Promise<KubeList> {
  const pred = buildPredicate(def, options);
  validateListOptions(options);
  const root = rootFor(core, listNamespace(core, ctx, requiresExactMatch(pred.field, 'metadata.namespace')));
  const consistentFromCache = core.options.featureGates?.ConsistentListFromCache !== false;
  if (core.cache && !listFromStorage(options, consistentFromCache)) {
    const served = await listFromCache(core, def, ctx, options, pred, root);
    if (served) return served;
  }
  return listStorage(core, def, ctx, options, pred, root);
}

/** A list from the cache; undefined when it should go to storage after all (cache not ready, consistent read timeout). */
async function listFromCache(core: StoreCore, def: ResourceDefinition, ctx: RequestContext, options: ListOptions, pred: Predicate, root: string): Promise<KubeList | undefined> {
  const rvText = options.resourceVersion ?? '';
  // The cacher parses first: a malformed resourceVersion is a plain (500) error here.
  const rv = parseResourceVersion(rvText);
  const cache = await usableCache(core, rvText === '' ? 1 : rv, ctx.signal);
  if (!cache) return undefined;
  if (rvText === '') {
    // Consistent read: wait until the cache has seen storage's current revision; on timeout read storage.
    const current = await core.storage.currentRevision();
    try {
      await cache.waitFresh(current, futureWaitMs(core), ctx.signal);
    } catch (e) {
      if (e instanceof CacheTooLargeError || e instanceof CacheNotReadyError) return undefined;
      throw e;
    }
  } else {
    await cacheNotOlderThan(core, rv, ctx.signal);
  }
  const { revision, objects } = cache.list(root, cacheFilter(pred, options));
  return listFromStored(
    def,
    objects.map((o) => o.kv),
    { resourceVersion: String(revision) },
    objects.map((o) => o.attrs),
  );
}

function storageParseError(rvText: string): StatusError {
  try {
    parseResourceVersion(rvText);
  } catch (e) {
    if (e instanceof StatusError) return badRequest(`invalid resource version: ${e.message}`);
  }
  return badRequest(`invalid resource version: ${rvText}`);
}

/** etcd3 store GetList: paging with continue tokens over one revision, kube's resourceVersion rules and errors. */
async function listStorage(core: StoreCore, def: ResourceDefinition, ctx: RequestContext, options: ListOptions, pred: Predicate, root: string): Promise<KubeList> {
  const limit = limitOf(options);
  const rvText = options.resourceVersion ?? '';
  const match = options.resourceVersionMatch ?? '';
  let rv = 0;
  if (rvText !== '') {
    try {
      rv = parseResourceVersion(rvText);
    } catch {
      throw storageParseError(rvText);
    }
  }

  let startKey = root;
  let readRevision = 0;
  let paging = false;
  if (options.continue) {
    let pos;
    try {
      pos = decodeContinue(options.continue, root);
    } catch (e) {
      if (e instanceof ContinueTokenError) throw badRequest(`invalid continue token: ${e.message}`);
      throw e;
    }
    if (rvText !== '' && rvText !== '0') throw badRequest('specifying resource version is not allowed when using continue');
    startKey = pos.startKey;
    // rv -1: the token of an expired list, continuing at the newest revision.
    readRevision = pos.revision > 0 ? pos.revision : 0;
    paging = true;
  } else if (rv > 0 && (match === 'Exact' || (match === '' && limit > 0))) {
    // Exact, or the legacy form: a limited list at a non-zero resourceVersion reads exactly there.
    readRevision = rv;
  } else if (rv > 0 && !core.cache) {
    // Not older than rv, without a cache to wait on: wait for storage itself.
    await waitForRevision(core, rv, ctx.signal);
  }

  const page = await pageFromCache(core, def, ctx, root, pred, options, startKey, readRevision, rvText === '' && !paging && match === '');
  if (page) return page;

  const items: KubeObject[] = [];
  const kvs: KeyValue[] = [];
  let revision = readRevision;
  let lastKey = '';
  let more = false;
  let remaining = 0;
  let cursor = startKey;
  // Filtered lists read in growing batches until the page is full (kube doubles up to 10000).
  let batch = limit;
  for (;;) {
    let res;
    try {
      res = await core.storage.range(root, { revision: revision || undefined, startKey: cursor, limit: batch || undefined });
    } catch (e) {
      if (e instanceof StorageError && e.code === 'Compacted') throw expiredList(paging, startKey, root);
      if (e instanceof StorageError && e.code === 'FutureRevision') throw tooLargeResourceVersion(revision, await core.storage.currentRevision(), 0);
      throw e;
    }
    // NotOlderThan is checked against the revision storage answered at (no waiting, as etcd3's store).
    if (readRevision === 0 && rv > 0 && res.revision < rv) throw tooLargeResourceVersion(rv, res.revision, 0);
    revision = res.revision;
    let full = false;
    for (let i = 0; i < res.kvs.length; i++) {
      const kv = res.kvs[i];
      lastKey = kv.key;
      if (!pred.empty) {
        const obj = decodeStored(kv, def);
        if (!pred.matches(obj)) continue;
        items.push(convertToVersion(obj, def));
      }
      kvs.push(kv);
      if (limit && kvs.length === limit) {
        full = true;
        more = i < res.kvs.length - 1 || res.more;
        remaining = res.remaining + (res.kvs.length - 1 - i);
        break;
      }
    }
    if (full || !res.more) break;
    cursor = `${lastKey}\u0000`;
    if (batch && batch < MAX_BATCH) batch = Math.min(batch * 2, MAX_BATCH);
  }
  const metadata: KubeList['metadata'] = { resourceVersion: String(revision) };
  if (more) {
    metadata.continue = encodeContinue(lastKey, root, revision);
    if (pred.empty) metadata.remainingItemCount = remaining;
  }
  const list = listFromStored(def, kvs, metadata, cachedHints(core, kvs));
  if (!pred.empty) list.items = items;
  return list;
}

/**
 * A page of a storage list answered by the watch cache when its state is exactly the state storage would read (the
 * revision of a continue token or an Exact read, or storage's current revision for a consistent first page), and
 * that revision is not compacted: the same items, continue token and remainingItemCount, without the storage read.
 * A cache behind that revision on in-process storage (whose writes to other resources it has not heard of) is
 * waited for: storage answers its progress request within a turn, sooner than it reads the page (a revision storage
 * has not reached yet is storage's to refuse at once, as before). Anything else
 * (a resource changed since that revision, compacted revision, newest-revision continuation) reads storage.
 */
async function pageFromCache(core: StoreCore, def: ResourceDefinition, ctx: RequestContext, root: string, pred: Predicate, options: ListOptions, startKey: string, readRevision: number, current: boolean): Promise<KubeList | undefined> {
  const cache = core.cache;
  if (!cache?.ready() || (readRevision === 0 && !current)) return undefined;
  const at = readRevision > 0 ? readRevision : await core.storage.currentRevision();
  if (at < core.storage.compactedRevision()) return undefined;
  const now = core.storage.revisionNow?.();
  if (now !== undefined && at > cache.revision() && at <= now) {
    try {
      await cache.waitFresh(at, futureWaitMs(core), ctx.signal);
    } catch (e) {
      if (e instanceof CacheTooLargeError || e instanceof CacheNotReadyError) return undefined;
      throw e;
    }
  }
  const page = cache.pageAt(root, at, startKey, limitOf(options), cacheFilter(pred, options));
  if (!page) return undefined;
  const metadata: KubeList['metadata'] = { resourceVersion: String(at) };
  if (page.more) {
    metadata.continue = encodeContinue(page.objects[page.objects.length - 1].kv.key, root, at);
    if (pred.empty) metadata.remainingItemCount = page.remaining;
  }
  return listFromStored(
    def,
    page.objects.map((o) => o.kv),
    metadata,
    page.objects.map((o) => o.attrs),
  );
}

/** What the watch cache already holds of the objects read (their list item bytes), where it holds the same revision. */
function cachedHints(core: StoreCore, kvs: readonly KeyValue[]): (StoreAttrs | undefined)[] | undefined {
  const cache = core.cache;
  if (!cache?.ready() || kvs.length === 0) return undefined;
  const hints: (StoreAttrs | undefined)[] = new Array(kvs.length);
  for (let i = 0; i < kvs.length; i++) {
    const cached = cache.get(kvs[i].key);
    hints[i] = cached !== undefined && cached.kv.modRevision === kvs[i].modRevision ? cached.attrs : undefined;
  }
  return hints;
}

function expiredList(paging: boolean, startKey: string, root: string): StatusError {
  if (!paging) return new StatusError(410, 'Expired', LIST_TOO_OLD);
  try {
    // A fresh token at the same position that continues at the newest revision (rv -1), as kube offers.
    return new StatusErrorWithListMeta(410, 'Expired', CONTINUE_INCONSISTENT, { continue: encodeContinueAt(startKey, root, -1) });
  } catch {
    return new StatusError(410, 'Expired', CONTINUE_EXPIRED);
  }
}
