// The watch cache's contract. The cache knows keys, stored values, revisions and opaque per-object attributes
// (computed by a function its owner hands in, e.g. labels and selectable fields); it never decodes kinds itself.

import type { KeyValue, Storage } from '../types.ts';

/** One cached object: the stored kv (as storage returned it, or the form CacherOptions.held gives) and its attributes. */
export interface CachedObject<A> {
  readonly kv: KeyValue;
  readonly attrs: A;
}

/** A change the cache saw, kept in its ring of recent events. */
export interface CacheEvent<A> {
  readonly type: 'put' | 'delete';
  readonly revision: number;
  /** put: the new state; delete: the last state before the deletion. */
  readonly object: CachedObject<A>;
  /** put of an existing key: the state it replaced. */
  readonly prev: CachedObject<A> | undefined;
  /** When the cache recorded it (ms, the cache's clock). */
  readonly time: number;
}

/** What one watcher receives. */
export type CacheWatchEvent<A> =
  | {
      readonly type: 'ADDED' | 'MODIFIED' | 'DELETED';
      /** The object to show: for DELETED the last state (the deletion, or the state that stopped matching). */
      readonly object: CachedObject<A>;
      /** The resourceVersion to show the object at (the event's revision; for initial ADDED the object's). */
      readonly revision: number;
      /** The live or replayed event this comes from; undefined for initial (synthetic ADDED) events. */
      readonly source: CacheEvent<A> | undefined;
      /**
       * Scratch space for consumers (e.g. the decoded and encoded watch event), shared by every watcher a live event
       * is dispatched to in this shape, including those that deliver it later from their queue. It lives as long as
       * some watcher holds the event, not with the cache's ring.
       */
      memo?: Map<unknown, unknown>;
    }
  | {
      readonly type: 'BOOKMARK';
      readonly revision: number;
      /** The bookmark that ends the initial events of a sendInitialEvents watch. */
      readonly initialEventsEnd: boolean;
    };

export interface CacheFilter<A> {
  /** Does the object belong to the watcher's selection. */
  matches(obj: CachedObject<A>): boolean;
  /** Watchers with equal keys share one evaluation per event (e.g. the canonical selector text). */
  readonly key: string;
  /**
   * Label equalities every matching object has ([key, value]; implied by `matches`): a list can then look at the
   * objects carrying one of them (CacherOptions.labels) instead of every object under its prefix.
   */
  readonly labelTerms?: readonly (readonly [string, string])[];
}

export interface CacheWatchRequest<A> {
  /** Key prefix the watcher sees (the resource root or one namespace's). */
  readonly prefix: string;
  /** undefined: everything under prefix. */
  readonly filter: CacheFilter<A> | undefined;
  /**
   * 'state': first the current objects as ADDED (a snapshot), then changes after it.
   * A number: exactly the changes after that revision (410 when it is older than the cache's window).
   */
  readonly start: 'state' | number;
  /** Send an initial-events-end BOOKMARK right after the snapshot ('state' only). */
  readonly initialEventsEnd?: boolean;
  /** Periodic BOOKMARK events. */
  readonly bookmarks: boolean;
  /** When the stream will end (ms, cache clock): a bookmark is sent 2 s before it. */
  readonly deadline?: number;
  /**
   * Receives events in revision order. Returning false pauses delivery (later events queue, up to the cache's
   * per-watcher limit, past which the watcher is ended) until resume() is called.
   */
  onEvent(event: CacheWatchEvent<A>): boolean | void;
  /**
   * The watcher ended (dropped as too slow, cache reset or stopped); no more events follow. Not called after stop().
   * 'expired': storage compacted past the cache (a restore): `expired` holds the newest revision the watcher had
   * and the revision storage is compacted to.
   */
  onEnd(reason: 'overflow' | 'reset' | 'expired' | 'closed', expired?: { readonly requested: number; readonly compacted: number }): void;
}

export interface CacheWatcherHandle {
  /** Continue a paused delivery. */
  resume(): void;
  stop(): void;
}

/** A list served from the cache: objects under a prefix, at one revision. */
export interface CacheListResult<A> {
  readonly revision: number;
  readonly objects: CachedObject<A>[];
}

export interface CacherOptions<A> {
  readonly storage: Storage;
  /** Key prefix of the resource (ending in '/'). */
  readonly prefix: string;
  /** Attributes of a stored object; throwing marks the object as matching nothing but keeps it cached. */
  attributes(kv: KeyValue): A;
  /**
   * The KeyValue the cache holds for kv and its attributes: the same key, value and revisions, possibly in a more
   * compact form (e.g. one that reads its value back from bytes the attributes keep). Absent: kv itself.
   */
  held?(kv: KeyValue, attrs: A): KeyValue;
  /**
   * Attributes of kv when the cache held the same stored value at another revision with `previous` (a relist after
   * a restore brings back mostly unchanged values at new revisions). Absent: attributes(kv).
   */
  rebase?(previous: A, kv: KeyValue): A;
  /**
   * Values an object holds that must be unique among the current objects (e.g. a Service's cluster IPs and node
   * ports): the cache keeps an index from each value to the keys holding it, current with the objects (holders()).
   */
  indexed?(attrs: A): readonly (string | number)[] | undefined;
  /**
   * An object's labels. With it, lists whose filter names label equalities use an index of the label keys lists have
   * asked for (made on the first such list, then kept current with the objects), as informers' indexers do.
   */
  labels?(attrs: A): Readonly<Record<string, string>> | undefined;
  /** How long events stay in the ring (ms). Default 300 s. */
  readonly historyWindowMs?: number;
  /** Upper bound on ring events regardless of age. Default 100 000. */
  readonly maxEvents?: number;
  /** Periodic bookmark interval (ms). Default 60 s, kube's. */
  readonly bookmarkIntervalMs?: number;
  /** Events a paused watcher may queue before it is dropped. Default 10 000. */
  readonly maxQueuedEvents?: number;
  /** Clock (ms). */
  readonly now?: () => number;
  /** Called when the cache's storage watch fails (the cache then re-initializes). */
  readonly onError?: (err: unknown) => void;
}

export interface CachePage<A> {
  readonly objects: CachedObject<A>[];
  readonly more: boolean;
  readonly remaining: number;
}

export interface Cacher<A> {
  readonly prefix: string;
  /** True once the initial state is loaded (and again after a re-initialization). */
  ready(): boolean;
  /** Resolves when ready, or false after timeoutMs. */
  waitReady(timeoutMs: number, signal?: AbortSignal): Promise<boolean>;
  /** The newest revision the cache is known to reflect. */
  revision(): number;
  /**
   * Resolves once the cache reflects at least `revision` (asking storage for progress); rejects with
   * CacheTooLargeError after timeoutMs, CacheNotReadyError when the cache resets meanwhile.
   */
  waitFresh(revision: number, timeoutMs: number, signal?: AbortSignal): Promise<void>;
  /** Asks storage how far it is without waiting, so that revision() catches up with writes outside the prefix. */
  catchUp(): void;
  /** Current objects under prefix, ascending by key (synchronous: one consistent snapshot). */
  list(prefix: string, filter?: CacheFilter<A>): CacheListResult<A>;
  /**
   * One page of the objects under prefix as they were at `revision`, when the cache's current state is that state
   * (no change after it, and the cache has seen up to it); undefined otherwise. From the first key >= startKey, at
   * most `limit` objects matching the filter; `more` and `remaining` count the keys under prefix after the last
   * object returned when the page is full (as a storage range read page by page does).
   */
  pageAt(prefix: string, revision: number, startKey: string, limit: number, filter?: CacheFilter<A>): CachePage<A> | undefined;
  /** The current object of key, if cached. */
  get(key: string): CachedObject<A> | undefined;
  /** Keys of the current objects holding `value` (CacherOptions.indexed); empty without that option. */
  holders(value: string | number): readonly string[];
  /** Opens a watcher; throws CacheTooOldError when start is older than the window, CacheNotReadyError before ready. */
  watch(request: CacheWatchRequest<A>): CacheWatcherHandle;
  /** Open watchers. */
  watcherCount(): number;
  /** Objects and ring events held. */
  size(): { objects: number; events: number };
  /** Stops the storage watch and ends every watcher ('closed'). */
  stop(): void;
}

export class CacheTooOldError extends Error {
  readonly requested: number;
  /** The oldest revision a watch may start from (kube prints it in the 410 message). */
  readonly oldest: number;
  constructor(requested: number, oldest: number) {
    super(`too old resource version: ${requested} (${oldest})`);
    this.name = 'CacheTooOldError';
    this.requested = requested;
    this.oldest = oldest;
  }
}

export class CacheTooLargeError extends Error {
  readonly requested: number;
  readonly current: number;
  constructor(requested: number, current: number) {
    super(`Too large resource version: ${requested}, current: ${current}`);
    this.name = 'CacheTooLargeError';
    this.requested = requested;
    this.current = current;
  }
}

export class CacheNotReadyError extends Error {
  constructor(message = 'watch cache is not ready') {
    super(message);
    this.name = 'CacheNotReadyError';
  }
}
