// The generic store (k8s.io/apiserver pkg/registry/generic/registry/store.go): one per group/resource, serving
// every version of it through thin per-version views that share storage, prefix and strategy.

import { randomUUID } from 'node:crypto';
import { conflict, invalid, isStatusError, notFound, StatusError } from '../apis/errors.ts';
import { StorageError } from '../storage/types.ts';
import { generateName } from './names.ts';
import { apiVersionOf, convertToVersion, encodeForStorage, inKubeOrder, rfc3339, sameStoredContent, specChanged, writtenObject } from './store-codec.ts';
import { createCore, keyFor, readCurrent, type StoreCore, type StoreOptions } from './store-core.ts';
import { deleteObject } from './store-delete.ts';
import { generateNameConflict, parseResourceVersion } from './store-errors.ts';
import { metaOf, validateCreateMeta, validateUpdateMeta } from './store-meta.ts';
import { validateManagedFields } from './validation/meta.ts';
import { asStoredByKube, fillGoZeroValues } from './validation/go-zero-values.ts';
import { matchRequestNamespace } from './request-namespace.ts';
import { checkNamespaceForCreate, deleteNamespace, isNamespaceStore } from './store-namespaces.ts';
import { applyScale, scaleOf } from './store-scale.ts';
import { genericSubresourceStrategy } from './store-subresources.ts';
import { getObject, getStoredObject, listObjects } from './store-read.ts';
import { openWatch } from './store-watch.ts';
import { storageClaims } from './value-claims.ts';
import { cachedHolders, holdersAmong } from './held-values.ts';
import type {
  DeleteOptions,
  Holders,
  KubeList,
  KubeObject,
  ListOptions,
  RequestContext,
  ResourceDefinition,
  ResourceStore,
  TryUpdate,
  UpdateOptions,
  ValueClaims,
} from './types.ts';
import { cloneJson } from '../apis/json-clone.ts';

export type { StoreOptions } from './store-core.ts';

export interface GenericStore extends ResourceStore {
  readonly core: StoreCore;
  /** The same store serving another version of the group/resource. */
  forVersion(def: ResourceDefinition): GenericStore;
}

/** kube's maxNameGenerationCreateAttempts (RetryGenerateName, on by default in 1.31). */
const generateNameAttempts = 8;
const deleteCollectionPageSize = 10000;
const maxUpdateAttempts = 64;

export function createGenericStore(options: StoreOptions): GenericStore {
  return viewOf(createCore(options), options.definition);
}

const views = new WeakMap<StoreCore, Map<ResourceDefinition, GenericStore>>();

function viewOf(core: StoreCore, def: ResourceDefinition): GenericStore {
  let byDef = views.get(core);
  if (!byDef) views.set(core, (byDef = new Map()));
  const existing = byDef.get(def);
  if (existing) return existing;
  const remove: GenericStore['delete'] = (ctx, name, options) => (isNamespaceStore(core) ? deleteNamespace(core, def, ctx, name, options) : deleteObject(core, def, ctx, name, options));
  const refuseDelete = core.strategy.refuseDelete;
  const store: GenericStore = {
    definition: def,
    core,
    forVersion: (d) => viewOf(core, d),
    get: (ctx, name, options) => getObject(core, def, ctx, name, options),
    getStored: (ctx, name, options) => getStoredObject(core, def, ctx, name, options),
    list: (ctx, options) => listObjects(core, def, ctx, options),
    create: (ctx, obj) => createObject(core, def, ctx, obj),
    update: (ctx, name, tryUpdate, options) => updateObject(core, def, ctx, name, tryUpdate, options),
    delete: refuseDelete
      ? (ctx, name, options) => {
          const refusal = refuseDelete(name);
          return refusal ? Promise.reject(refusal) : remove(ctx, name, options);
        }
      : remove,
    deleteCollection: (ctx, listOptions, deleteOptions) => deleteCollection(store, remove, ctx, listOptions, deleteOptions),
    watch: (ctx, options) => openWatch(core, def, ctx, options),
  };
  byDef.set(def, store);
  return store;
}

function trackGeneration(core: StoreCore): boolean {
  return core.strategy.trackGeneration === true;
}

// ---- create ----

function isAlreadyExists(e: unknown): boolean {
  return isStatusError(e) && e.reason === 'AlreadyExists';
}

async function createObject(core: StoreCore, def: ResourceDefinition, ctx: RequestContext, input: KubeObject): Promise<KubeObject> {
  const meta = input.metadata ?? {};
  const generated = !!meta.generateName && !meta.name;
  const attempts = generated && core.options.featureGates?.RetryGenerateName !== false ? generateNameAttempts : 1;
  let last: unknown;
  for (let i = 0; i < attempts; i++) {
    try {
      return await createOnce(core, def, ctx, cloneJson(input));
    } catch (e) {
      if (!generated || !isAlreadyExists(e)) throw e;
      last = e;
    }
  }
  throw last;
}

/** What a write's Strategy.beginWrite reserved, released once the write is over. */
interface HeldWrite {
  release?: () => void;
}

/** Claims in the store's storage (Strategy.beginWrite's). */
function claimsOf(core: StoreCore): ValueClaims {
  return storageClaims(core.storage, core.now);
}

/** Which stored objects hold a value (Strategy.beginWrite's holders): the cache's index, else a scan of a list. */
function holdersOf(core: StoreCore, def: ResourceDefinition, ctx: RequestContext): () => Promise<Holders> {
  return async () => {
    const heldValues = core.strategy.heldValues;
    if (heldValues === undefined) return () => [];
    const cached = await cachedHolders(core, core.options.futureRevisionWaitMs ?? 3000, ctx.signal);
    return cached ?? holdersAmong((await listObjects(core, def, { ...ctx, namespace: '', warnings: [] })).items, heldValues);
  };
}

async function createOnce(core: StoreCore, def: ResourceDefinition, ctx: RequestContext, obj: KubeObject): Promise<KubeObject> {
  const held: HeldWrite = {};
  try {
    return await createPrepared(core, def, ctx, obj, held);
  } finally {
    held.release?.();
  }
}

/**
 * The etcd3 store's check on create: a resourceVersion that parses as a uint64 other than 0. One that does not parse
 * (ObjectResourceVersion's error) is not refused: the store replaces it with the written revision.
 */
function setResourceVersion(rv: string | undefined): boolean {
  return rv !== undefined && /^[0-9]{1,20}$/.test(rv) && BigInt(rv) !== 0n && BigInt(rv) <= 0xffffffffffffffffn;
}

async function createPrepared(core: StoreCore, def: ResourceDefinition, ctx: RequestContext, input: KubeObject, held: HeldWrite): Promise<KubeObject> {
  let obj = input;
  if (!obj.apiVersion) obj.apiVersion = apiVersionOf(def);
  if (!obj.kind) obj.kind = def.kind;
  if (!ctx.admit) await checkNamespaceForCreate(core, ctx, obj);
  matchRequestNamespace(metaOf(obj), core.namespaced ? ctx.namespace : '');
  const strategy = core.strategy;
  defaulted(core, def, obj);
  // The writer's managedFields entry covers what it sent (defaults included), not what mutating admission adds:
  // kube's create handler runs its field manager before admission.
  trackManagedFields(ctx, undefined, obj, '');
  if (ctx.admit) {
    // Mutating admission sees the decoded, defaulted object (no uid or creationTimestamp yet, as in kube).
    const tracked = obj.metadata.managedFields;
    const admitted = await ctx.admit(obj, undefined);
    if (admitted !== obj) {
      obj = admitted;
      matchRequestNamespace(metaOf(obj), core.namespaced ? ctx.namespace : '');
      defaulted(core, def, obj);
      // managedFields that admission left invalid are put back (kube's managedFields validating admission).
      if (validateManagedFields(obj.metadata.managedFields, 'metadata.managedFields').length > 0) {
        if (tracked) obj.metadata.managedFields = tracked;
        else delete obj.metadata.managedFields;
      }
    }
  }

  const meta = metaOf(obj);
  meta.creationTimestamp = rfc3339(core.now());
  meta.uid = randomUUID();
  if (!meta.name && meta.generateName) meta.name = generateName(meta.generateName);
  delete meta.deletionTimestamp;
  delete meta.deletionGracePeriodSeconds;
  if (trackGeneration(core)) meta.generation = 1;

  held.release = await strategy.beginWrite?.(obj, undefined, ctx, holdersOf(core, def, ctx), claimsOf(core));
  strategy.prepareForCreate?.(obj, ctx);
  fillGoZeroValues(obj);
  const name = obj.metadata.name ?? '';
  const typeErrs = strategy.validate?.(obj, ctx) ?? [];
  if (typeErrs.length) throw invalid(core.gk, name, typeErrs);
  const metaErrs = validateCreateMeta(obj.metadata, core.namespaced);
  if (metaErrs.length) throw invalid(core.gk, name, metaErrs);
  if (strategy.warnings) ctx.warnings.push(...strategy.warnings(obj, undefined));
  await ctx.validate?.(obj, undefined);
  if (!def.custom) asStoredByKube(obj);

  const key = keyFor(core, obj.metadata.namespace ?? '', name);
  if (ctx.dryRun) {
    const existing = await readCurrent(core, key, def);
    if (existing) throw existsError(core, obj, existing.object);
    return convertToVersion(inKubeOrder(obj), def);
  }
  if (setResourceVersion(obj.metadata.resourceVersion)) {
    // kube's storage refuses this with a plain error, which the apiserver answers as a bare 500.
    throw new StatusError(500, '', 'resourceVersion should not be set on objects to be created');
  }
  try {
    const kv = await core.storage.create(key, encodeForStorage(obj, def));
    return writtenObject(obj, kv, def);
  } catch (e) {
    if (e instanceof StorageError && e.code === 'KeyExists') {
      const existing = await readCurrent(core, key, def);
      throw existsError(core, obj, existing?.object);
    }
    throw e;
  }
}

/** AlreadyExists as kube words it: a generateName clash, and "object is being deleted: " for a terminating one. */
function existsError(core: StoreCore, obj: KubeObject, existing: KubeObject | undefined): StatusError {
  const name = obj.metadata.name ?? '';
  const err = obj.metadata.generateName
    ? generateNameConflict(core.gr, name)
    : new StatusError(409, 'AlreadyExists', `${core.gr.group ? `${core.gr.resource}.${core.gr.group}` : core.gr.resource} ${JSON.stringify(name)} already exists`, {
        name,
        ...(core.gr.group ? { group: core.gr.group } : {}),
        kind: core.gr.resource,
      });
  if (existing?.metadata.deletionTimestamp) return new StatusError(err.code, err.reason, `object is being deleted: ${err.message}`, err.details);
  return err;
}

// ---- update ----

function resourceVersionRequired(core: StoreCore, name: string): StatusError {
  // kube reports this on {group, kind: <resource>} and prints the uint64 zero as Go's %#v does.
  const gk = core.gr.group ? `${core.gr.resource}.${core.gr.group}` : core.gr.resource;
  const body = 'Invalid value: 0x0: must be specified for an update';
  return new StatusError(422, 'Invalid', `${gk} ${JSON.stringify(name)} is invalid: metadata.resourceVersion: ${body}`, {
    name,
    ...(core.gr.group ? { group: core.gr.group } : {}),
    kind: core.gr.resource,
    causes: [{ reason: 'FieldValueInvalid', message: body, field: 'metadata.resourceVersion' }],
  });
}

function hasStatusSubresource(def: ResourceDefinition): boolean {
  return def.subresources.some((s) => s.name === 'status');
}

/** rest.BeforeUpdate and the strategy: the object to store, or a 400/422. */
function prepareUpdate(core: StoreCore, def: ResourceDefinition, ctx: RequestContext, obj: KubeObject, old: KubeObject, subresource: string): KubeObject {
  const meta = metaOf(obj);
  if (!obj.apiVersion) obj.apiVersion = apiVersionOf(def);
  if (!obj.kind) obj.kind = def.kind;
  matchRequestNamespace(meta, core.namespaced ? ctx.namespace : '');
  if (old.metadata.generation !== undefined) meta.generation = old.metadata.generation;
  else delete meta.generation;

  const strategy = core.strategy;
  let next: KubeObject;
  const sub = subresource ? (strategy.subresources?.[subresource] ?? genericSubresourceStrategy(subresource)) : undefined;
  if (subresource) {
    if (!sub) throw notFound(core.gr, old.metadata.name ?? '');
    next = sub.prepareForUpdate(obj, old, ctx);
    fillGoZeroValues(next);
    trackManagedFields(ctx, old, next, subresource);
  } else {
    defaulted(core, def, obj);
    trackManagedFields(ctx, old, obj, '');
    // The status of a type with a status subresource is written through it only.
    if (hasStatusSubresource(def)) {
      if (old.status !== undefined) obj.status = cloneJson(old.status);
      else delete obj.status;
    }
    strategy.prepareForUpdate?.(obj, old, ctx);
    fillGoZeroValues(obj);
    next = obj;
  }

  // System fields an update cannot change.
  const nm = metaOf(next);
  if (!nm.uid) nm.uid = old.metadata.uid;
  if (old.metadata.creationTimestamp) nm.creationTimestamp = old.metadata.creationTimestamp;
  // An update never removes or changes a deletion timestamp or grace period; one it sets is refused by validation.
  if (old.metadata.deletionTimestamp) nm.deletionTimestamp = old.metadata.deletionTimestamp;
  if (old.metadata.deletionGracePeriodSeconds !== undefined && nm.deletionGracePeriodSeconds === undefined) {
    nm.deletionGracePeriodSeconds = old.metadata.deletionGracePeriodSeconds;
  }
  if (!subresource && trackGeneration(core) && nm.generation === old.metadata.generation && specChanged(next, old)) {
    nm.generation = (old.metadata.generation ?? 0) + 1;
  }

  const errs = [
    ...validateUpdateMeta(nm, old.metadata, core.namespaced),
    ...((sub ? sub.validateUpdate?.(next, old, ctx) : strategy.validateUpdate?.(next, old, ctx)) ?? []),
  ];
  if (errs.length) throw invalid(core.gk, nm.name ?? '', errs);
  if (!sub && strategy.warnings) ctx.warnings.push(...strategy.warnings(next, old));
  return next;
}

/**
 * The strategy's defaults and the zero values Go's encoding writes: kube defaults the typed object its decoder made,
 * so what the defaults add is written as Go writes it too.
 */
function defaulted(core: StoreCore, def: ResourceDefinition, obj: KubeObject): void {
  core.strategy.defaults?.(obj);
  if (!def.custom) fillGoZeroValues(obj);
}

/** Lets the request's field manager record the write in metadata.managedFields (in place). */
function trackManagedFields(ctx: RequestContext, old: KubeObject | undefined, obj: KubeObject, subresource: string): void {
  if (!ctx.trackManagedFields) return;
  const managed = ctx.trackManagedFields(old, obj, subresource).metadata.managedFields;
  if (managed && managed.length > 0) obj.metadata.managedFields = managed;
  else delete obj.metadata.managedFields;
}

/** ShouldDeleteDuringUpdate: a terminating object whose last finalizer this update removed. */
function shouldDeleteDuringUpdate(core: StoreCore, obj: KubeObject, old: KubeObject): boolean {
  if ((obj.metadata.finalizers?.length ?? 0) > 0) return false;
  if (!old.metadata.deletionTimestamp) return false;
  const grace = old.metadata.deletionGracePeriodSeconds;
  if (grace !== undefined && grace !== 0) return false;
  return core.options.shouldDeleteDuringUpdate ? core.options.shouldDeleteDuringUpdate(obj) : true;
}

async function updateObject(
  core: StoreCore,
  def: ResourceDefinition,
  ctx: RequestContext,
  name: string,
  tryUpdate: TryUpdate,
  options: UpdateOptions = {},
): Promise<{ object: KubeObject; created: boolean }> {
  const held: HeldWrite = {};
  try {
    return await updateAttempts(core, def, ctx, name, tryUpdate, options, held);
  } finally {
    held.release?.();
  }
}

async function updateAttempts(
  core: StoreCore,
  def: ResourceDefinition,
  ctx: RequestContext,
  name: string,
  tryUpdate: TryUpdate,
  options: UpdateOptions,
  held: HeldWrite,
): Promise<{ object: KubeObject; created: boolean }> {
  const subresource = options.subresource ?? '';
  if (subresource === 'scale') {
    // Admission sees the Scale (kind autoscaling/v1 Scale on <resource>/scale), not the parent it is written to; the
    // parent's managedFields record the write as the scale subresource's (kube's ScaleHandler).
    const track = ctx.trackManagedFields;
    const parentCtx: RequestContext = { ...ctx, admit: undefined, validate: undefined, trackManagedFields: track && ((old, next) => track(old, next, 'scale')) };
    const res = await updateObject(core, def, parentCtx, name, async (current) => {
      if (!current) throw notFound(core.gr, name);
      const oldScale = scaleOf(core, current, def.scale);
      let scale = await tryUpdate(cloneJson(oldScale));
      if (ctx.admit) scale = await ctx.admit(scale, oldScale);
      const parent = applyScale(core, current, scale, def.scale);
      await ctx.validate?.(scale, oldScale);
      return parent;
    });
    return { object: scaleOf(core, res.object, def.scale), created: false };
  }
  const key = keyFor(core, ctx.namespace, name);
  for (let attempt = 0; attempt < maxUpdateAttempts; attempt++) {
    const current = await readCurrent(core, key, def);
    const uid = options.preconditionUid;
    if (uid !== undefined && uid !== (current?.object.metadata.uid ?? '')) {
      throw conflict(core.gr, name, `Precondition failed: UID in precondition: ${uid}, UID in object meta: ${current?.object.metadata.uid ?? ''}`);
    }
    if (!current) {
      if (subresource || !(core.strategy.allowCreateOnUpdate || options.forceAllowCreate)) throw notFound(core.gr, name);
      const obj = cloneJson(await tryUpdate(undefined));
      const meta = metaOf(obj);
      if (!meta.name) meta.name = name;
      try {
        return { object: await createOnce(core, def, ctx, obj), created: true };
      } catch (e) {
        // Lost a create race: the object appeared meanwhile, so go round again as an update.
        if (isAlreadyExists(e) && !obj.metadata.generateName) continue;
        throw e;
      }
    }
    // The strategy compares old and new in the version the request speaks.
    const old = convertToVersion(current.object, def);
    // tryUpdate gets its own copy of the current object (a deep copy costs a quarter of decoding the value again),
    // unless it takes no parameter, as a PUT's, which answers its body whatever is stored.
    const obj = cloneJson(await tryUpdate(tryUpdate.length === 0 ? undefined : convertToVersion(cloneJson(current.object), def)));
    const meta = metaOf(obj);
    const currentRV = String(current.kv.modRevision);
    if (meta.resourceVersion) {
      parseResourceVersion(meta.resourceVersion);
      if (meta.resourceVersion !== currentRV) throw conflict(core.gr, name);
    } else if (core.strategy.allowUnconditionalUpdate === false) {
      throw resourceVersionRequired(core, name);
    } else {
      // An unconditional update goes on as if it had named the current version (validation expects one).
      meta.resourceVersion = currentRV;
    }
    let input = obj;
    if (ctx.admit) {
      if (!subresource) defaulted(core, def, input);
      input = await ctx.admit(input, convertToVersion(old, def));
    }
    if (!subresource && core.strategy.beginWrite) {
      held.release?.();
      held.release = await core.strategy.beginWrite(input, old, ctx, holdersOf(core, def, ctx), claimsOf(core));
    }
    const next = prepareUpdate(core, def, ctx, input, old, subresource);
    await ctx.validate?.(next, convertToVersion(old, def));
    if (!def.custom) asStoredByKube(next);

    if (shouldDeleteDuringUpdate(core, next, old)) {
      if (ctx.dryRun) return { object: convertToVersion(next, def), created: false };
      try {
        await core.storage.delete(key, current.kv.modRevision);
      } catch (e) {
        if (e instanceof StorageError && e.code === 'Conflict') continue;
        if (!(e instanceof StorageError && e.code === 'NotFound')) throw e;
      }
      return { object: convertToVersion(next, def), created: false };
    }
    if (!current.defaultedOnRead && sameStoredContent(next, old)) return { object: convertToVersion(old, def), created: false };
    if (ctx.dryRun) {
      next.metadata.resourceVersion = currentRV;
      return { object: convertToVersion(inKubeOrder(next), def), created: false };
    }
    try {
      const kv = await core.storage.update(key, encodeForStorage(next, def), current.kv.modRevision);
      return { object: writtenObject(next, kv, def), created: false };
    } catch (e) {
      if (e instanceof StorageError && (e.code === 'Conflict' || e.code === 'NotFound')) continue;
      throw e;
    }
  }
  throw conflict(core.gr, name);
}

// ---- deletecollection ----

async function deleteCollection(store: GenericStore, remove: GenericStore['delete'], ctx: RequestContext, listOptions: ListOptions, deleteOptions: DeleteOptions): Promise<KubeList> {
  const options: ListOptions = { ...listOptions };
  const hasLimit = (options.limit ?? 0) > 0;
  if (!hasLimit) options.limit = deleteCollectionPageSize;
  const items: KubeObject[] = [];
  let first: KubeList | undefined;
  for (;;) {
    const page = await store.list(ctx, options);
    for (const item of page.items) {
      const itemCtx = store.definition.namespaced && !ctx.namespace ? { ...ctx, namespace: item.metadata.namespace ?? '' } : ctx;
      try {
        await remove(itemCtx, item.metadata.name ?? '', deleteOptions);
      } catch (e) {
        if (!(isStatusError(e) && e.code === 404)) throw e;
      }
    }
    items.push(...page.items);
    if (hasLimit) return page;
    first ??= page;
    if (!page.metadata.continue) return { ...first, items };
    options.continue = page.metadata.continue;
    options.resourceVersion = '';
    options.resourceVersionMatch = '';
  }
}
