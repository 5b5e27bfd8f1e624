// The registry's contract: ResourceDefinition (the single source of truth for one group/version/resource,
// built-in or CRD), the per-type Strategy, and the ResourceStore API the endpoints call.

import type { FieldError, Status } from '../apis/errors.ts';
import type { SchemaNode, SubresourceFacts } from '../apis/model-types.ts';
import type { UserInfo } from '../auth/user.ts';
import type { KeyValue } from '../storage/types.ts';
import type { ItemKeyValue } from './item-key-value.ts';
import type { JsonLayout } from './list-json.ts';

export interface OwnerReference {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
}

export interface ManagedFieldsEntry {
  manager?: string;
  operation?: 'Apply' | 'Update';
  apiVersion?: string;
  time?: string;
  fieldsType?: string;
  fieldsV1?: Record<string, unknown>;
  subresource?: string;
}

export interface ObjectMeta {
  name?: string;
  generateName?: string;
  namespace?: string;
  selfLink?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: string | null;
  deletionTimestamp?: string;
  deletionGracePeriodSeconds?: number;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  ownerReferences?: OwnerReference[];
  finalizers?: string[];
  managedFields?: ManagedFieldsEntry[];
}

export interface KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
  [field: string]: unknown;
}

export interface ListMeta {
  resourceVersion?: string;
  continue?: string;
  remainingItemCount?: number;
  selfLink?: string;
}

export interface KubeList {
  apiVersion: string;
  kind: string;
  metadata: ListMeta;
  items: KubeObject[];
}

/** One column of the Table printer beyond kube's defaults; `cell` computes the value for one object. */
export interface PrinterColumn {
  name: string;
  /** OpenAPI type: "string", "integer", "number", "boolean", "date". */
  type: string;
  format?: string;
  description?: string;
  /** 0: shown by `kubectl get`; >0: only with -o wide. */
  priority: number;
  cell(obj: KubeObject): unknown;
}

/** Who asks, and how. Created per request by the endpoints; passed to the store, strategies and admission. */
export interface RequestContext {
  readonly user: UserInfo;
  /** The request's namespace; '' for cluster-scoped resources or all-namespace lists. */
  readonly namespace: string;
  readonly dryRun: boolean;
  /** From ?fieldManager=, else inferred from the User-Agent (as kube-apiserver does). */
  readonly fieldManager?: string;
  readonly userAgent?: string;
  /** Warnings to return as `Warning: 299 - "..."` headers. */
  readonly warnings: string[];
  /** Aborted when the client goes away or the request times out. */
  readonly signal?: AbortSignal;
  /**
   * Watches of in-process watchers that read nothing but metadata (the garbage collector): their events carry kind,
   * apiVersion and metadata only, parsed without the rest of the object and without metadata.managedFields.
   */
  readonly metadataOnly?: boolean;
  /**
   * Watches of in-process watchers that look at an event's object only when they need it (the simulation's
   * informers, which already hold what their own writes made): each event carries `peek`, and its object is
   * decoded when first read.
   */
  readonly lazyObjects?: boolean;
  /**
   * Records this write in metadata.managedFields (non-apply writes; server-side apply records its own, and only has
   * the old managedFields kept when nothing else changed but their timestamps). The store calls it after
   * defaulting, before validation, with the live object (undefined on create) and the new one.
   */
  readonly trackManagedFields?: (old: KubeObject | undefined, next: KubeObject, subresource: string) => KubeObject;
  /**
   * Mutating admission of this request (kube's admit): the store calls it after decoding and defaulting, before
   * the strategy's preparation and validation, with the new object and the current one (undefined on create).
   * It answers the object to go on with (the same one changed in place, or a new one). Throw a StatusError to refuse.
   */
  readonly admit?: (obj: KubeObject, old: KubeObject | undefined) => Promise<KubeObject>;
  /**
   * Validating admission of this request (kube's createValidation/updateValidation/deleteValidation): the store
   * calls it with the fully prepared object (create, update) and the current one (update, delete), right before
   * the write. Throw a StatusError to refuse.
   */
  readonly validate?: (obj: KubeObject | undefined, old: KubeObject | undefined) => Promise<void>;
}

/** Per-type behaviour, modelled on k8s.io/apiserver's RESTCreateStrategy/RESTUpdateStrategy. */
/**
 * Short-lived claims on values (a cluster IP, a node port) kept in storage, so that writes on every instance sharing
 * the storage respect them. A claim left behind by a crashed process expires (CLAIM_TTL_MS in value-claims.ts).
 */
export interface ValueClaims {
  /** Claims `key` for `holder`; false when another write holds it. */
  claim(key: string, holder: string): Promise<boolean>;
  /** Drops a claim (in the background; a failure only leaves it to expire). */
  release(key: string): void;
}

/** The stored objects holding a value (Strategy.heldValues), as "namespace/name" ("/name" when cluster-scoped). */
export type Holders = (value: string | number) => readonly string[];

export interface Strategy {
  /** Server-side defaulting of a decoded object, before validation (create and update). */
  defaults?(obj: KubeObject): void;
  /**
   * Values an object holds that no other object of the resource may hold (a Service's cluster IPs and node ports):
   * the store keeps them indexed for beginWrite's `holders`.
   */
  heldValues?(obj: KubeObject): readonly (string | number)[];
  /**
   * kube's BeginCreate/BeginUpdate (the Service allocators): async work that needs the resource's other objects,
   * run on create after defaults (before prepareForCreate) and on a main-resource update before
   * prepareForUpdate (so before defaults). `holders` reads (consistently: every object stored before the call
   * counts) which stored objects hold each of heldValues' values. It may set values
   * (e.g. spec.clusterIP) or throw a StatusError; the function it returns, if any, is called once the write is
   * over (stored, refused or failed) to release what it reserved.
   */
  beginWrite?(obj: KubeObject, old: KubeObject | undefined, ctx: RequestContext, holders: () => Promise<Holders>, claims: ValueClaims): Promise<(() => void) | undefined>;
  /** Clear or set fields before create (e.g. drop status, set generation 1). */
  prepareForCreate?(obj: KubeObject, ctx: RequestContext): void;
  /** Before an update of the main resource: typically restore status from old, bump generation on spec changes. */
  prepareForUpdate?(obj: KubeObject, old: KubeObject, ctx: RequestContext): void;
  validate?(obj: KubeObject, ctx: RequestContext): FieldError[];
  validateUpdate?(obj: KubeObject, old: KubeObject, ctx: RequestContext): FieldError[];
  /**
   * kube's WarningsOnCreate (old undefined) and WarningsOnUpdate of the main resource: sent as Warning headers with a
   * write that passed validation, before validating admission.
   */
  warnings?(obj: KubeObject, old: KubeObject | undefined): string[];
  /** Subresource strategies by name ("status"): what a write to the subresource may change. */
  subresources?: Record<string, SubresourceStrategy>;
  /** PUT may create a missing object (true for e.g. namespaced leases? false for most). */
  allowCreateOnUpdate?: boolean;
  /** PUT without metadata.resourceVersion is accepted (true for most built-in types). */
  allowUnconditionalUpdate?: boolean;
  /** kube's ReturnDeletedObject: DELETE answers with the deleted object (pods, namespaces...) instead of a Success Status. */
  returnDeletedObject?: boolean;
  /**
   * The store keeps metadata.generation itself: 1 on create, +1 when anything outside metadata and status
   * changes. Default false: the strategy's prepareFor* hooks decide, as kube's per-type strategies do.
   */
  trackGeneration?: boolean;
  /**
   * Finalizers the first delete adds before deciding (the CRD's customresourcecleanup): the object then stays,
   * marked as deleting, until a controller removes them.
   */
  deleteFinalizers?: readonly string[];
  /** Called on the stored object when a delete starts (namespaces: status.phase Terminating). */
  prepareForDelete?(obj: KubeObject, ctx: RequestContext): void;
  /**
   * A type's REST.Delete refusal, before the object is read (the system PriorityClasses): the error to answer a
   * DELETE of this name with. As in kube, a deletecollection does not ask (it deletes through the generic store).
   */
  refuseDelete?(name: string): Error | undefined;
  /**
   * kube's CheckGracefulDelete (pods): the grace period in seconds a delete uses, given the one the request asked
   * for; 0 deletes at once. Absent: no graceful deletion.
   */
  gracefulDeletePeriod?(obj: KubeObject, requestedSeconds: number | undefined): number;
}

export interface SubresourceStrategy {
  /**
   * Merge the subresource write into the old object: e.g. for status, keep old spec and metadata except
   * labels/annotations. obj and old are the update's own copies: the result may share their parts.
   */
  prepareForUpdate(obj: KubeObject, old: KubeObject, ctx: RequestContext): KubeObject;
  validateUpdate?(obj: KubeObject, old: KubeObject, ctx: RequestContext): FieldError[];
}

export interface ResourceDefinition {
  readonly group: string;
  readonly version: string;
  /** Plural name. */
  readonly resource: string;
  readonly singularName: string;
  readonly kind: string;
  readonly listKind: string;
  readonly namespaced: boolean;
  readonly verbs: readonly string[];
  readonly shortNames: readonly string[];
  readonly categories: readonly string[];
  readonly subresources: readonly SubresourceFacts[];
  /** Objects of all served versions of this group/resource share storage under this prefix, e.g. "/registry/apps/deployments". */
  readonly storagePrefix: string;
  /**
   * The apiVersion objects are stored in (e.g. "autoscaling/v2"; "v1" for events.k8s.io events, which share core
   * events' storage). Absent: objects keep the version they were written in (versions share one shape).
   */
  readonly storageVersion?: string;
  /**
   * Converts an object of any version sharing this definition's storage to `apiVersion` (kube's scheme
   * conversion). Pure: returns a new object, never changes its input. Absent: only apiVersion is rewritten.
   */
  convert?(obj: KubeObject, apiVersion: string): KubeObject;
  /**
   * A conversion that needs a round trip (a CRD's conversion webhook): the registry then serves this version
   * through the storage version's store, converting objects on the way in and out. `convert` still rewrites
   * apiVersion for what must stay synchronous (storage keys, bookmarks).
   */
  convertAsync?(objects: readonly KubeObject[], apiVersion: string): Promise<KubeObject[]>;
  /**
   * Defaults applied, in place, to every object read from storage before it is converted or served (a CRD with
   * schema defaults: those of the version the object is stored in, as kube's storage decoder applies them). They
   * are not written back. Absent: stored objects are served as they are stored.
   */
  readDefaults?(obj: KubeObject): void;
  /** The root schema of the kind (properties inline or by ref). */
  readonly schema: SchemaNode;
  /** Resolves a `ref` in `schema` (the built-in model's definitions, or none for CRDs whose schemas are inline). */
  resolveRef(ref: string): SchemaNode | undefined;
  readonly strategy: Strategy;
  /** Table columns after Name (kube's per-type printers); empty: Name and Created At only. */
  readonly printerColumns: readonly PrinterColumn[];
  /** Field selector fields beyond metadata.name and metadata.namespace, with their extractors. */
  readonly selectableFields: Readonly<Record<string, (obj: KubeObject) => string | undefined>>;
  /** True for definitions created from a CustomResourceDefinition. */
  readonly custom: boolean;
  /**
   * Where the scale subresource reads and writes (CRDs' subresources.scale); absent: spec.replicas,
   * status.replicas and spec.selector as the built-in workloads have them.
   */
  readonly scale?: ScalePaths;
  /** Sent as a Warning header on every request to this version (a deprecated CRD version). */
  readonly deprecationWarning?: string;
  /** A deprecated built-in version's planned removal ("1.32"): the removed_release label and audit annotation. */
  readonly removedRelease?: string;
  /**
   * Where discovery places a group served in process as an APIService would be (the simulated metrics API: its
   * APIService's groupPriorityMinimum and versionPriority). Absent: built-in order, or a CRD's.
   */
  readonly discoveryPriority?: { readonly group: number; readonly version: number };
}

/** JSON paths (".spec.replicas") of a scale subresource. */
export interface ScalePaths {
  readonly specReplicasPath: string;
  readonly statusReplicasPath: string;
  readonly labelSelectorPath?: string;
}

export interface GetOptions {
  resourceVersion?: string;
  /** "" or absent for the main resource; "status" (the whole object), "scale" (an autoscaling/v1 Scale built by the store). */
  subresource?: string;
}

export interface ListOptions {
  labelSelector?: string;
  fieldSelector?: string;
  resourceVersion?: string;
  resourceVersionMatch?: string;
  limit?: number;
  continue?: string;
  timeoutSeconds?: number;
  allowWatchBookmarks?: boolean;
  sendInitialEvents?: boolean;
}

export interface Preconditions {
  uid?: string;
  resourceVersion?: string;
}

export interface DeleteOptions {
  gracePeriodSeconds?: number;
  preconditions?: Preconditions;
  propagationPolicy?: 'Orphan' | 'Background' | 'Foreground';
  orphanDependents?: boolean;
}

export interface UpdateOptions {
  /** "" for the main resource, "status", "scale"... */
  subresource?: string;
  /** Allow creating a missing object (server-side apply). */
  forceAllowCreate?: boolean;
  /**
   * The uid a PUT's body names (kube's UpdatedObjectInfo preconditions): the write fails with a Conflict unless the
   * stored object has it, before anything else is checked. A patch has none: a uid it changes is refused by validation.
   */
  preconditionUid?: string;
}

/**
 * Called with the current object (undefined when absent and creation is allowed); returns the desired object. May be
 * retried on conflict. One declared without a parameter is handed nothing, sparing the store a copy of the object.
 */
export type TryUpdate = (current: KubeObject | undefined) => KubeObject | Promise<KubeObject>;

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';

/**
 * One watch event. Shared by every watcher that receives it: encoders memoize their bytes in `encoded`
 * (keyed by media type), so an event is serialized once per encoding, not once per watcher.
 */
export interface WatchEvent {
  readonly type: WatchEventType;
  readonly object: KubeObject | Status;
  encoded?: Map<string, Uint8Array>;
  /** Watches with lazyObjects: which object changed, and at what revision, known without decoding it. */
  readonly peek?: { readonly namespace: string; readonly name: string; readonly revision: number };
}

export interface WatchStream {
  /**
   * Receives events in order until stop() or the end of the stream (onEnd). onEvent may return false to ask for
   * a pause (its consumer's buffer is full): a stream with flow control then holds further events until resume().
   */
  start(onEvent: (event: WatchEvent) => void | boolean, onEnd: (err?: Error) => void): void;
  stop(): void;
  /** Continue after onEvent returned false (streams without flow control do not have it). */
  resume?(): void;
}

export interface DeleteResult {
  object: KubeObject;
  /**
   * False when finalizers (or graceful deletion) keep the object. kube answers 200 with the object, 202 only
   * when the request set orphanDependents=false.
   */
  deletedImmediately: boolean;
  /**
   * When set, the response body kube sends instead of the object: a Success Status with details
   * {name, group, kind: <resource>, uid}, for types without returnDeletedObject whose object is gone.
   */
  status?: Omit<Status, 'code'> & { code?: number };
}

/** The generic store of one resource definition. Every write, controllers' included, goes through it. */
/** An object as stored, servable without conversion: its value, where its metadata is, and the version served. */
/**
 * A stored object a get serves as it is: spliced at `layout`, or, without one, a held object whose response is
 * copied from the watch cache's item bytes (item-key-value.ts).
 */
export type StoredObject =
  | { readonly stored: KeyValue; readonly layout: JsonLayout; readonly apiVersion: string }
  | { readonly stored: ItemKeyValue; readonly layout: undefined; readonly apiVersion: string };

export interface ResourceStore {
  readonly definition: ResourceDefinition;
  get(ctx: RequestContext, name: string, options?: GetOptions): Promise<KubeObject>;
  /**
   * get, answered with the stored value when it can be served as it is, else with the object get would return.
   * Absent on stores that transform what they read.
   */
  getStored?(ctx: RequestContext, name: string, options?: GetOptions): Promise<StoredObject | KubeObject>;
  list(ctx: RequestContext, options?: ListOptions): Promise<KubeList>;
  create(ctx: RequestContext, obj: KubeObject): Promise<KubeObject>;
  /** Guaranteed update: read, tryUpdate, compare-and-swap, retried on conflict when the request was unconditional. */
  update(ctx: RequestContext, name: string, tryUpdate: TryUpdate, options?: UpdateOptions): Promise<{ object: KubeObject; created: boolean }>;
  delete(ctx: RequestContext, name: string, options?: DeleteOptions): Promise<DeleteResult>;
  deleteCollection(ctx: RequestContext, listOptions: ListOptions, deleteOptions: DeleteOptions): Promise<KubeList>;
  watch(ctx: RequestContext, options: ListOptions): Promise<WatchStream>;
  /** POST to a subresource that makes something from the object (serviceaccounts/token); absent: not served. */
  createSubresource?(ctx: RequestContext, name: string, subresource: string, obj: KubeObject): Promise<KubeObject>;
}

/** Makes the store of a definition served without storage (the review kinds, the simulated metrics API). */
export type StoreFactory = (def: ResourceDefinition) => ResourceStore;

/** All served definitions; CRDs add and remove definitions at run time. */
export interface Registry {
  /** Every served definition, in discovery order. */
  all(): readonly ResourceDefinition[];
  lookup(group: string, version: string, resource: string): ResourceDefinition | undefined;
  /** The store serving a definition (one store per group/resource, shared by its versions' definitions). */
  store(def: ResourceDefinition): ResourceStore;
  /**
   * A namespace as admission and create checks read it: from the watch cache (else storage), shared between
   * readers (never to be modified); undefined when it does not exist.
   */
  readNamespace?(name: string): Promise<KubeObject | undefined>;
  /** Called after definitions are added or removed (discovery and OpenAPI caches listen). */
  onChange(listener: () => void): () => void;
}
