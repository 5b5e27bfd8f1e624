// The storage contract: an MVCC key-value store with one global revision, shaped like etcd's.
// It knows keys, values and revisions, nothing about Kubernetes kinds.

export interface KeyValue {
  readonly key: string;
  /** The stored bytes, as a string (Capstan stores JSON). */
  readonly value: string;
  /** Revision at which the key was (last) created. */
  readonly createRevision: number;
  /** Revision of the last write to the key. For a deleted key's event kv: the deletion revision. */
  readonly modRevision: number;
}

export interface RangeOptions {
  /** Read at this revision (0 or absent: the current one). Older than the compacted revision: StorageError 'Compacted'. */
  readonly revision?: number;
  /** Inclusive start key (for paging); must lie within the prefix. Default: the prefix itself. */
  readonly startKey?: string;
  /** At most this many kvs (0 or absent: no limit). */
  readonly limit?: number;
}

export interface RangeResult {
  /** Live keys under the prefix at the read revision, ascending by key, from startKey, at most limit. */
  readonly kvs: KeyValue[];
  /** True when more keys follow the last returned one. */
  readonly more: boolean;
  /** How many keys remain after the returned ones (exact). */
  readonly remaining: number;
  /** The revision the read was served at. */
  readonly revision: number;
}

export interface GetResult {
  readonly kv: KeyValue | undefined;
  readonly revision: number;
}

export type WatchEventType = 'put' | 'delete';

export interface StorageEvent {
  readonly type: WatchEventType;
  /** For put: the new kv. For delete: key plus deletion revision as modRevision, value = the last value before deletion. */
  readonly kv: KeyValue;
  /** The kv as it was before this event (absent for a create). */
  readonly prevKv?: KeyValue;
}

export interface WatchHandle {
  /** Stop the watch and free its resources. Idempotent. */
  stop(): void;
  /**
   * Ask for a progress notification (etcd's RequestProgress): once every event up to the current revision has been
   * delivered, onProgress is called with that revision. Optional: backends without it never call onProgress.
   */
  requestProgress?(): void;
}

export interface WatchCallbacks {
  /**
   * Events in revision order, each revision exactly once, never events at or below the start revision.
   * Called asynchronously (never inside a write call), with the events of one event-loop turn batched; the array
   * may be shared by every watcher of the same prefix, so do not modify it.
   */
  onEvents(events: StorageEvent[]): void;
  /** The watch cannot continue (e.g. start revision compacted away: StorageError 'Compacted'). No more events follow. */
  onError(err: StorageError): void;
  /** Every event at or below `revision` has been delivered (answers WatchHandle.requestProgress). */
  onProgress?(revision: number): void;
}

export type StorageErrorCode = 'KeyExists' | 'NotFound' | 'Conflict' | 'Compacted' | 'FutureRevision' | 'Unavailable';

export class StorageError extends Error {
  readonly code: StorageErrorCode;
  readonly key: string;
  /** For Conflict: the current kv. For Compacted: the compacted revision in `revision`. */
  readonly current: KeyValue | undefined;
  readonly revision: number;
  constructor(code: StorageErrorCode, key: string, message: string, current?: KeyValue, revision = 0) {
    super(message);
    this.name = 'StorageError';
    this.code = code;
    this.key = key;
    this.current = current;
    this.revision = revision;
  }
}

/** Every live key at one revision (test controls' snapshot/restore). KeyValues are immutable and may be shared. */
export interface StorageSnapshot {
  readonly revision: number;
  /** Ascending by key. */
  readonly kvs: readonly KeyValue[];
}

export interface Storage {
  /** Backend name for logs and health checks: "memory", "sqlite", "etcd". */
  readonly name: string;
  get(key: string, revision?: number): Promise<GetResult>;
  /** All live keys that start with `prefix`. */
  range(prefix: string, options?: RangeOptions): Promise<RangeResult>;
  /** Count live keys under prefix at the current revision. */
  count(prefix: string): Promise<number>;
  /** Create when absent; StorageError 'KeyExists' otherwise. Returns the stored kv (createRevision = modRevision = new revision). */
  create(key: string, value: string): Promise<KeyValue>;
  /** Replace when the key's modRevision equals expectedModRevision; 'Conflict' (with current) or 'NotFound' otherwise. */
  update(key: string, value: string, expectedModRevision: number): Promise<KeyValue>;
  /**
   * Delete, guarded by expectedModRevision when given; 'Conflict' or 'NotFound' otherwise.
   * Returns the deleted kv: its last value, with modRevision = the deletion revision.
   */
  delete(key: string, expectedModRevision?: number): Promise<KeyValue>;
  /**
   * Writes a value that the backend deletes by itself `ttlSeconds` after this write unless it is written again
   * (kube's TTL writes, used for the apiservers' master leases). Guarded as create (expectedModRevision 0:
   * 'KeyExists' when present) or as update ('Conflict' or 'NotFound'). Optional: only a backend several processes
   * share (etcd) has it.
   */
  writeWithTtl?(key: string, value: string, expectedModRevision: number, ttlSeconds: number): Promise<KeyValue>;
  /** The newest revision (0 for a fresh store). */
  currentRevision(): Promise<number>;
  /**
   * The newest revision, known without a round trip. Only in-process backends have it: the registry then serves a
   * consistent get from a watch cache that has seen it, as it would read storage.
   */
  revisionNow?(): number;
  /**
   * The revision history was last compacted to (0: nothing compacted). Reads at revisions >= it still succeed,
   * and so do watches with fromRevision >= it (their first possible event is compactedRevision() + 1).
   */
  compactedRevision(): number;
  /** Drop history at and below `revision` (keeping the live value of every key). */
  compact(revision: number): Promise<void>;
  /**
   * Watch keys under prefix for changes after `fromRevision` (exclusive). Events already in history are replayed first.
   * fromRevision below the compacted revision: onError('Compacted'). fromRevision 0 replays all retained history
   * (so it only works while nothing is compacted); to see only new changes, pass the current revision.
   */
  watch(prefix: string, fromRevision: number, callbacks: WatchCallbacks): WatchHandle;
  /** The live keys now (test controls). Optional: a backend without it cannot be snapshot. */
  snapshot?(): Promise<StorageSnapshot>;
  /**
   * Makes the snapshot's keys the only live ones (test controls). Revisions move forward: each restored key is
   * written at a new revision (ascending by key) and all history up to the last one is compacted away, so every
   * open watch ends with 'Compacted', as after a compaction. Returns the new current revision.
   */
  restore?(snapshot: StorageSnapshot): Promise<number>;
  /** Readiness of the backend (for /readyz). Throws or resolves false when not ready. */
  ready(): Promise<boolean>;
  close(): Promise<void>;
}
