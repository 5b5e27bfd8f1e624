// The field manager of kube-apiserver (managedfields.NewDefaultFieldManager) as two pure functions: the layers
// versionCheck -> lastAppliedUpdater -> lastAppliedManager -> skipNonApplied -> capManagers ->
// buildManagerInfo -> managedFieldsUpdater -> stripMeta -> structuredMerge, around decoding and encoding
// metadata.managedFields.

import { badRequest, StatusError } from '../apis/errors.ts';
import type { KubeObject, ManagedFieldsEntry, ResourceDefinition } from '../registry/types.ts';
import { conflictStatusError, ConflictsError } from './conflicts.ts';
import { FieldSet } from './field-set.ts';
import {
  allowedConflictsFromLastApplied,
  buildLastApplied,
  hasLastApplied,
  KUBECTL_MANAGER,
  setLastApplied,
} from './last-applied.ts';
import {
  copyManaged,
  decodeManagedFields,
  emptyManaged,
  encodeManagedFields,
  compareEntries,
  isResetManagedFields,
  managerIdentifier,
  normalizeTime,
  type Managed,
} from './managed-fields.ts';
import { fieldElement, valuesEqual } from './path-element.ts';
import { applyInPlace, changedInPlace, fieldsV1Has, setDecodes, skipTree, typedShapeOf, type SkipTree } from './in-place-changes.ts';
import { toFieldSet } from './typed-fieldset.ts';
import { resetFieldsFor } from './reset-fields.ts';
import { rootTypeOf } from './schema.ts';
import { typedView } from './typed-view.ts';
import { isValidTyped, validateTyped, validationErrorsString } from './typed-validate.ts';
import { isValueMap, type Value, type ValueMap } from './typed-values.ts';
import { applyManagers, updateManagers, type ManagerSets, type UpdaterContext } from './updater.ts';
import { cloneJson } from '../apis/json-clone.ts';

export interface UpdateManagedFieldsOptions {
  /** The field manager (from ?fieldManager= or the User-Agent). */
  manager: string;
  /** The group/version of the request, e.g. "apps/v1" or "v1". */
  apiVersion: string;
  /** "status", "scale"...; absent for the main resource. */
  subresource?: string;
  def: ResourceDefinition;
  /** The time of the request (RFC 3339). */
  now: string;
}

export interface ApplyOptions extends UpdateManagedFieldsOptions {
  force: boolean;
}

/** The manager name kube gives tracks made before the first apply to an object without managedFields. */
const BEFORE_FIRST_APPLY = 'before-first-apply';
/** Temporary name of the writer while its changes are computed (managedFieldsUpdater). */
const CURRENT_OPERATION = 'current-operation';
/** Bucket the oldest update managers are merged into beyond the cap. */
const ANCIENT_CHANGES = 'ancient-changes';
const MAX_UPDATE_MANAGERS = 10;

/** Fields of metadata never tracked in managedFields (stripMetaManager). */
const UNTRACKED_METADATA = ['name', 'namespace', 'creationTimestamp', 'selfLink', 'uid', 'clusterName', 'generation', 'managedFields', 'resourceVersion'];
/** Top-level fields never tracked. */
const UNTRACKED_TOP = ['apiVersion', 'kind'];
const STRIPPED = FieldSet.of(...[...UNTRACKED_TOP.map((k) => [k]), ['metadata'], ...UNTRACKED_METADATA.map((k) => ['metadata', k])].map((p) => p.map(fieldElement)));

interface Context {
  readonly updater: UpdaterContext;
  readonly def: ResourceDefinition;
  readonly apiVersion: string;
  readonly subresource: string;
  readonly now: string;
}

const updaters = new WeakMap<ResourceDefinition, Map<string, UpdaterContext>>();

/** The updater of a definition's endpoint (its type, reset fields and view), made once per definition and subresource. */
function updaterOf(def: ResourceDefinition, subresource: string): UpdaterContext {
  let bySub = updaters.get(def);
  if (!bySub) updaters.set(def, (bySub = new Map()));
  let updater = bySub.get(subresource);
  if (!updater) {
    let emptyView: Value | undefined;
    const view = (obj: Value): Value => (obj === EMPTY_OBJECT ? (emptyView ??= typedView(obj, def)) : typedView(obj, def));
    updater = { type: rootTypeOf(def), ignored: resetFieldsFor(def, subresource || undefined), view };
    bySub.set(subresource, updater);
  }
  return updater;
}

/** Whether a time is in metav1.Time's wire form (what the server's clock gives and encoding writes). */
function isWireTime(time: string): boolean {
  return time.length === 20 && time.charCodeAt(19) === 0x5a && time.charCodeAt(10) === 0x54;
}

/** metav1.Time's wire form, skipping the parse for a time already in it. */
function wireTime(now: string): string {
  return isWireTime(now) ? now : (normalizeTime(now) ?? now);
}

function contextOf(opts: UpdateManagedFieldsOptions): Context {
  const def = opts.def;
  return {
    updater: updaterOf(def, opts.subresource ?? ''),
    def,
    apiVersion: opts.apiVersion,
    subresource: opts.subresource ?? '',
    now: wireTime(opts.now),
  };
}

function withoutManagedFields(obj: ValueMap): ValueMap {
  if (isValueMap(obj.metadata) && Object.hasOwn(obj.metadata, 'managedFields')) {
    const { managedFields: _, ...meta } = obj.metadata;
    return { ...obj, metadata: meta };
  }
  return obj;
}

function withManagedFields(obj: ValueMap, managed: Managed): KubeObject {
  return withEntries(obj, encodeManagedFields(managed));
}

function withEntries(obj: ValueMap, entries: ManagedFieldsEntry[] | undefined): KubeObject {
  const meta: ValueMap = isValueMap(obj.metadata) ? { ...obj.metadata } : {};
  delete meta.managedFields;
  if (entries) meta.managedFields = entries;
  return { ...obj, metadata: meta } as KubeObject;
}

function stripMeta(fields: ManagerSets, manager: string): void {
  const vs = fields.get(manager);
  if (!vs) return;
  const set = vs.set.difference(STRIPPED);
  if (set.isEmpty()) fields.delete(manager);
  else fields.set(manager, { ...vs, set });
}

/** capManagersManager: merges the oldest update entries into per-version "ancient-changes" buckets. */
function capUpdateManagers(managed: Managed): void {
  const updaters = [...managed.fields].filter(([, vs]) => !vs.applied).map(([m]) => m);
  if (updaters.length <= MAX_UPDATE_MANAGERS) return;
  const seconds = (m: string) => {
    const t = managed.times.get(m);
    return t === undefined ? 0 : Math.floor(Date.parse(t) / 1000);
  };
  updaters.sort((a, b) => seconds(a) - seconds(b) || (a < b ? -1 : a > b ? 1 : 0));
  const firstOfVersion = new Map<string, string>();
  let length = updaters.length;
  for (let i = 0; i < updaters.length && length > MAX_UPDATE_MANAGERS; i++) {
    const manager = updaters[i]!;
    const vs = managed.fields.get(manager)!;
    const time = managed.times.get(manager);
    const bucket = managerIdentifier({ manager: ANCIENT_CHANGES, operation: 'Update', apiVersion: vs.apiVersion });
    const first = firstOfVersion.get(vs.apiVersion);
    if (first === undefined) {
      firstOfVersion.set(vs.apiVersion, manager);
      continue;
    }
    if (!managed.fields.has(bucket)) {
      managed.fields.set(bucket, managed.fields.get(first)!);
      managed.fields.delete(first);
    }
    managed.fields.set(bucket, { set: vs.set.union(managed.fields.get(bucket)!.set), apiVersion: vs.apiVersion, applied: vs.applied });
    managed.fields.delete(manager);
    length--;
    managed.times.set(bucket, time);
  }
}

/** capManagers -> buildManagerInfo -> managedFieldsUpdater -> stripMeta -> structuredMerge, for a write. */
function updateCore(ctx: Context, live: Value, updated: Value, input: Managed, manager: string): Managed {
  const identity = managerIdentifier({ manager: manager || 'unknown', operation: 'Update', apiVersion: ctx.apiVersion, subresource: ctx.subresource });
  const managed = copyManaged(input);
  const fields = updateManagers(ctx.updater, live, updated, ctx.apiVersion, managed.fields, CURRENT_OPERATION);
  stripMeta(fields, CURRENT_OPERATION);
  const current = fields.get(CURRENT_OPERATION);
  if (current) {
    fields.delete(CURRENT_OPERATION);
    const previous = fields.get(identity);
    fields.set(identity, previous ? { ...current, set: current.set.union(previous.set) } : current);
    managed.times.set(identity, ctx.now);
  }
  const result: Managed = { fields, times: managed.times };
  capUpdateManagers(result);
  return result;
}

/**
 * The object a create starts from: kube's empty object of the kind (typed zero values come from the view, which is
 * made once per definition). Shared and frozen: nothing writes to it.
 */
const EMPTY_OBJECT: ValueMap = Object.freeze({}) as ValueMap;

function emptyObject(): ValueMap {
  return EMPTY_OBJECT;
}

interface ApplyResult {
  object: ValueMap;
  managed: Managed;
}

/** skipNonApplied -> capManagers -> buildManagerInfo -> managedFieldsUpdater -> stripMeta -> structuredMerge. */
function applyCore(ctx: Context, live: ValueMap, applied: ValueMap, input: Managed, manager: string, force: boolean): ApplyResult {
  let managed = input;
  if (managed.fields.size === 0) managed = updateCore(ctx, emptyObject(), live, managed, BEFORE_FIRST_APPLY);
  managed = copyManaged(managed);
  const identity = managerIdentifier({ manager: manager || 'unknown', operation: 'Apply', subresource: ctx.subresource });

  const appliedMeta = applied.metadata;
  if (isValueMap(appliedMeta) && Array.isArray(appliedMeta.managedFields) && appliedMeta.managedFields.every(isValueMap)) {
    throw badRequest('metadata.managedFields must be nil');
  }
  const errs = validateTyped(applied, ctx.updater.type);
  if (errs.length > 0) {
    throw new StatusError(500, '', `failed to create typed patch object (${objectGVKNN(applied)}): ${validationErrorsString(errs)}`);
  }

  const outcome = applyManagers(ctx.updater, live, applied, ctx.apiVersion, managed.fields, identity, force);
  stripMeta(outcome.managers, identity);
  if (outcome.object !== undefined) managed.times.set(identity, ctx.now);
  const object = outcome.object !== undefined ? (outcome.object as ValueMap) : cloneJson(live);
  return { object, managed: { fields: outcome.managers, times: managed.times } };
}

function groupVersionOf(apiVersion: unknown): { group: string; version: string } | undefined {
  const s = typeof apiVersion === 'string' ? apiVersion : '';
  if (s === '') return { group: '', version: '' };
  const parts = s.split('/');
  if (parts.length === 1) return { group: '', version: s };
  if (parts.length === 2) return { group: parts[0]!, version: parts[1]! };
  return undefined;
}

export function gvkString(group: string, version: string, kind: string): string {
  return `${group}/${version}, Kind=${kind}`;
}

/** objectGVKNN: "namespace/name; group/version, Kind=Kind" of an unstructured object. */
export function objectGVKNN(obj: ValueMap): string {
  const meta = isValueMap(obj.metadata) ? obj.metadata : {};
  const str = (v: unknown) => (typeof v === 'string' ? v : '');
  const gv = groupVersionOf(obj.apiVersion);
  const gvk = gv ? gvkString(gv.group, gv.version, str(obj.kind)) : gvkString('', '', '');
  return `${str(meta.namespace)}/${str(meta.name)}; ${gvk}`;
}

/** versionCheckManager: the applied object must be of the endpoint's group, version and kind. */
function checkAppliedKind(applied: ValueMap, ctx: Context): void {
  const expected = groupVersionOf(ctx.apiVersion) ?? { group: ctx.def.group, version: ctx.apiVersion };
  const got = groupVersionOf(applied.apiVersion);
  const kind = got && typeof applied.kind === 'string' ? applied.kind : '';
  const gvk = got ? gvkString(got.group, got.version, kind) : gvkString('', '', '');
  if (!got || got.group !== expected.group || got.version !== expected.version || kind !== ctx.def.kind) {
    throw badRequest(`invalid object type: ${gvk}`);
  }
}

/** lastAppliedManager: for kubectl, conflicts explained by the client-side apply annotation are forced. */
function applyWithLastApplied(ctx: Context, live: ValueMap, applied: ValueMap, managed: Managed, manager: string, force: boolean): ApplyResult {
  try {
    return applyCore(ctx, live, applied, managed, manager, force);
  } catch (e) {
    if (manager !== KUBECTL_MANAGER || !(e instanceof ConflictsError)) throw e;
    const allowed = allowedConflictsFromLastApplied(live, ctx.updater.view(live), ctx.updater.type, ctx.apiVersion);
    if (!allowed) throw e;
    const remaining = e.conflicts.filter((c) => !allowed.has(c.path));
    if (remaining.length > 0) throw new ConflictsError(remaining);
    return applyCore(ctx, live, applied, managed, manager, true);
  }
}

/**
 * Server-side apply of `applied` (the request body) onto `current` (undefined: the object does not exist
 * and is created). Returns the new object with metadata.managedFields updated.
 * Throws StatusError: 400 for a body of another kind or one carrying managedFields, 409 for conflicts
 * with other managers (unless forced), 500 for a body the schema rejects (as kube does). `shortcuts: false`
 * always takes the full computation (the tests compare the two).
 */
export function applyServerSide(current: KubeObject | undefined, applied: KubeObject, opts: ApplyOptions, shortcuts = true): KubeObject {
  if (shortcuts) {
    try {
      const made = inPlaceApply(current, applied, opts);
      if (made) return made;
    } catch {
      // The full computation decides.
    }
  }
  try {
    return applyOrThrow(current, applied, opts);
  } catch (e) {
    if (e instanceof StatusError) throw e;
    // Anything else (e.g. a body nested too deeply to walk) is kube's plain 500.
    throw new StatusError(500, '', e instanceof Error ? e.message : String(e));
  }
}

/**
 * An apply that only changes values in place, told without the full computation: the manager's Apply entry (of this
 * version and endpoint) holds just the fields the configuration sets, the object holds all of them already, and no
 * other entry owns a field whose value the configuration changes. The merge then replaces those values (scalars,
 * atomic lists and maps whole), nothing is pruned, nobody conflicts, and only the manager's time moves (if a value
 * changed). Undefined when the apply needs the full computation (which gives the same, or the error: the tests hold
 * them equal).
 */
export function inPlaceApply(current: KubeObject | undefined, applied: KubeObject, opts: ApplyOptions): KubeObject | undefined {
  const live: unknown = current?.metadata?.managedFields;
  if (!current?.metadata?.uid || !Array.isArray(live) || live.length === 0 || !live.every(isEncodedEntry) || !isValueMap(applied)) return undefined;
  if (!isValueMap(applied.metadata) || applied.metadata.managedFields !== undefined) return undefined;
  // kubectl's last-applied annotation is rewritten from the configuration: the full way.
  if (opts.manager === KUBECTL_MANAGER && hasLastApplied(current)) return undefined;
  const ctx = contextOf(opts);
  const subresource = ctx.subresource;
  const name = opts.manager || 'unknown';
  const owners = live.filter((e) => e.operation === 'Apply' && e.manager === name && (e.subresource ?? '') === subresource);
  const own = owners.length === 1 ? owners[0]! : undefined;
  if (own?.apiVersion !== ctx.apiVersion) return undefined;
  try {
    checkAppliedKind(applied, ctx);
  } catch {
    return undefined;
  }
  const type = ctx.updater.type;
  if (!isValidTyped(applied, type)) return undefined;
  const replaced = applyInPlace(withoutManagedFields(applied), withoutManagedFields(current as ValueMap), type);
  if (!replaced || replaced.some((r) => live.some((e) => e !== own && fieldsV1Has(e.fieldsV1, r.field)))) return undefined;
  const set = toFieldSet(applied, type).recursiveDifference(ctx.updater.ignored).difference(STRIPPED);
  if (JSON.stringify(set.toFieldsV1()) !== JSON.stringify(own.fieldsV1) || !live.every((e) => setDecodes(e.fieldsV1))) return undefined;
  const merged = withoutManagedFields(cloneJson(current) as ValueMap);
  for (const r of replaced) setAt(merged, r.at, cloneJson(r.value));
  const moved = replaced.length > 0;
  const result = withEntries(merged, live.map((e) => entryCopy(e, e === own && moved ? ctx.now : undefined)).sort(compareEntries));
  if (!moved) unchanged.add(result);
  return result;
}

/** Objects of applies that changed no value of the live object (its copy, with the same managedFields). */
const unchanged = new WeakSet<object>();

/** Whether an apply's object is the live object unchanged (so written as it was already). */
export function changedNothing(obj: KubeObject): boolean {
  return unchanged.has(obj);
}

/** Sets the value at a path of keys and indexes that exists in the object. */
function setAt(obj: ValueMap, at: readonly (string | number)[], value: Value): void {
  let parent: Record<string | number, unknown> = obj;
  for (let i = 0; i < at.length - 1; i++) parent = parent[at[i]!] as Record<string | number, unknown>;
  parent[at[at.length - 1]!] = value;
}

function applyOrThrow(current: KubeObject | undefined, applied: KubeObject, opts: ApplyOptions): KubeObject {
  const ctx = contextOf(opts);
  if (!isValueMap(applied)) throw badRequest('error decoding YAML: the applied configuration is not an object');
  let managed: Managed;
  try {
    managed = decodeManagedFields(current?.metadata?.managedFields);
  } catch (e) {
    throw new StatusError(500, '', `failed to decode managed fields: ${(e as Error).message}`);
  }
  const config = cloneJson(applied) as ValueMap;
  checkAppliedKind(config, ctx);
  const live = current ? withoutManagedFields(cloneJson(current) as ValueMap) : emptyObject();

  let result: ApplyResult;
  try {
    result = applyWithLastApplied(ctx, live, config, managed, opts.manager, opts.force);
  } catch (e) {
    if (e instanceof ConflictsError) throw conflictStatusError(e.conflicts);
    throw e;
  }
  // lastAppliedUpdater: keep kubectl's annotation in step with what it applied server-side.
  if (opts.manager === KUBECTL_MANAGER && hasLastApplied(result.object)) {
    setLastApplied(result.object, buildLastApplied(config));
  }
  return withManagedFields(result.object, result.managed);
}

/** decodeLiveOrNew: the managedFields a non-apply write starts from. */
function managedForWrite(old: KubeObject | undefined, updated: KubeObject, isSubresource: boolean): Managed {
  const fromLive = () => {
    try {
      return decodeManagedFields(old?.metadata?.managedFields);
    } catch {
      return emptyManaged();
    }
  };
  if (isSubresource) return fromLive();
  const requested = updated.metadata?.managedFields;
  if (isResetManagedFields(requested)) return emptyManaged();
  try {
    const managed = decodeManagedFields(requested);
    if (managed.fields.size > 0) return managed;
  } catch {
    // An invalid list in the request is ignored: the live object's managedFields are kept.
  }
  return fromLive();
}

// A create's managedFields are its manager's Update entry owning every field of the object: a function of the
// object's shape as its type sees it (its keys and nesting, which values are null or zero, the identities of keyed
// list items, the values of sets, whether atomic lists and maps are empty), not of its other values. Creates of objects shaped alike (a controller's, a client's in a loop)
// share the entry, computed once; the time is the request's.
const createdEntries = new WeakMap<UpdaterContext, Map<string, ManagedFieldsEntry[] | undefined>>();
/** Shapes kept per endpoint; past it the memo starts over. */
const MAX_CREATED_SHAPES = 256;
const MAX_SHAPE_LENGTH = 8192;

const skipTrees = new WeakMap<UpdaterContext, SkipTree | undefined>();

/** What an endpoint's field sets never see: the untracked fields and those the endpoint resets (status, through the main resource). */
function skipTreeOf(updater: UpdaterContext): SkipTree | undefined {
  if (!skipTrees.has(updater)) {
    const untracked = [...UNTRACKED_TOP.map((k) => [k]), ...UNTRACKED_METADATA.map((k) => ['metadata', k])].map((p) => p.map(fieldElement));
    skipTrees.set(updater, skipTree([...untracked, ...updater.ignored.paths()]));
  }
  return skipTrees.get(updater);
}

/**
 * The entries a create of `next` (shaped `shape`) gets, but for their time: computed once per shape and kept.
 * The memo's own objects: read them, never hand them out.
 */
function createdEntriesOf(ctx: Context, next: ValueMap, shape: string, manager: string): readonly ManagedFieldsEntry[] | undefined {
  let memo = createdEntries.get(ctx.updater);
  if (!memo) createdEntries.set(ctx.updater, (memo = new Map()));
  const key = `${manager}\u0000${ctx.apiVersion}\u0000${shape}`;
  if (memo.has(key)) return memo.get(key);
  const made = encodeManagedFields(updateCore(ctx, emptyObject(), next, emptyManaged(), manager));
  if (memo.size >= MAX_CREATED_SHAPES) memo.clear();
  memo.set(key, made);
  return made;
}

/** A copy of an entry of the memo or of the live object, at the time given (when it has one). */
function entryCopy(e: ManagedFieldsEntry, time: string | undefined): ManagedFieldsEntry {
  return { ...e, ...(time !== undefined && { time }), fieldsV1: cloneJson(e.fieldsV1) };
}

/** The managedFields of a create that brought none: the memoized entry of its shape, at this request's time. */
function createdManagedFields(ctx: Context, next: ValueMap, manager: string): KubeObject {
  const compute = () => withManagedFields(next, updateCore(ctx, emptyObject(), next, emptyManaged(), manager));
  let shape: string;
  try {
    shape = typedShapeOf(next, ctx.updater.type, skipTreeOf(ctx.updater));
  } catch {
    return compute();
  }
  // Large shapes (long lists) are rarely repeated: not worth their memory.
  if (shape.length > MAX_SHAPE_LENGTH) return compute();
  return withEntries(next, createdEntriesOf(ctx, next, shape, manager)?.map((e) => entryCopy(e, e.time !== undefined ? ctx.now : undefined)));
}

const ENTRY_KEYS = ['manager', 'operation', 'apiVersion', 'time', 'fieldsType', 'fieldsV1', 'subresource'];

/** An entry exactly as encoding writes it (the stored ones are): decoding and encoding it again gives it back. */
function isEncodedEntry(e: unknown): e is ManagedFieldsEntry & { fieldsV1: ValueMap } {
  if (!isValueMap(e)) return false;
  let at = 0;
  for (const k in e) {
    while (at < ENTRY_KEYS.length && ENTRY_KEYS[at] !== k) at++;
    if (at === ENTRY_KEYS.length) return false;
  }
  const { manager, operation, apiVersion, time, fieldsType, fieldsV1, subresource } = e;
  return (
    (manager === undefined || (typeof manager === 'string' && manager !== '')) &&
    (operation === 'Update' || operation === 'Apply') &&
    typeof apiVersion === 'string' &&
    apiVersion !== '' &&
    (time === undefined || (typeof time === 'string' && isWireTime(time))) &&
    fieldsType === 'FieldsV1' &&
    isValueMap(fieldsV1) &&
    (subresource === undefined || (typeof subresource === 'string' && subresource !== ''))
  );
}

/**
 * The managedFields of an update that keeps the object's shape where this endpoint's field sets see it, when its
 * outcome is plain without the full computation. Such a write adds and removes no field: it changes fields in place.
 * If the writer's entry owns every field changed and no other entry owns any of them, no field changes hands, and
 * only the writer's time moves (kube's Update semantics); a write that changed no field changes nothing. Undefined
 * when the write needs the full computation, which gives the same (the tests hold them equal).
 */
export function sameShapeUpdate(old: KubeObject, updated: KubeObject, opts: UpdateManagedFieldsOptions): KubeObject | undefined {
  const live: unknown = old.metadata?.managedFields;
  if (!Array.isArray(live) || live.length === 0 || !old.metadata?.uid) return undefined;
  const subresource = opts.subresource ?? '';
  const requested = updated.metadata?.managedFields;
  // A main-resource write that brings managedFields other than the live ones sets them.
  if (subresource === '' && requested !== undefined && requested !== null && !valuesEqual(requested, live)) return undefined;
  const ctx = contextOf(opts);
  const skip = skipTreeOf(ctx.updater);
  if (!skip || !live.every(isEncodedEntry)) return undefined;
  const changed = changedInPlace(old as ValueMap, updated as ValueMap, ctx.updater.type, skip);
  if (!changed) return undefined;
  const entries = live as (ManagedFieldsEntry & { fieldsV1: ValueMap })[];
  let own: (typeof entries)[number] | undefined;
  if (changed.length > 0) {
    const name = opts.manager || 'unknown';
    const owners = entries.filter((e) => e.operation === 'Update' && e.manager === name && e.apiVersion === ctx.apiVersion && (e.subresource ?? '') === subresource);
    own = owners.length === 1 ? owners[0] : undefined;
    if (own?.time === undefined) return undefined;
    for (const path of changed) {
      if (!fieldsV1Has(own.fieldsV1, path)) return undefined;
      if (entries.some((e) => e !== own && fieldsV1Has(e.fieldsV1, path))) return undefined;
    }
  }
  // A set that does not decode leaves the object untracked, the full way.
  if (!entries.every((e) => setDecodes(e.fieldsV1))) return undefined;
  const next = withoutManagedFields(cloneJson(updated) as ValueMap);
  const copies = entries.map((e) => entryCopy(e, e === own ? ctx.now : undefined));
  return withEntries(next, copies.sort(compareEntries));
}

/**
 * managedFields for a non-apply write (create, update, patch, subresource writes): the fields that changed
 * from `old` (undefined for a create) to `updated` become the manager's, in its Update entry. A request that
 * carries managedFields replaces them (when valid); `[]` or `[{}]` clears them. `shortcuts: false` always takes
 * the full computation (the tests compare the two).
 */
export function updateManagedFields(old: KubeObject | undefined, updated: KubeObject, opts: UpdateManagedFieldsOptions, shortcuts = true): KubeObject {
  if (shortcuts && old) {
    try {
      const made = sameShapeUpdate(old, updated, opts);
      if (made) return made;
    } catch {
      // The full computation decides.
    }
  }
  try {
    const next = withoutManagedFields(cloneJson(updated) as ValueMap);
    const ctx = contextOf(opts);
    const managed = managedForWrite(old, updated, ctx.subresource !== '');
    // skipNonAppliedManager: an existing object without managedFields stays untracked until applied to.
    const isCreate = !old || !isValueMap(old.metadata) || !old.metadata.uid;
    if (managed.fields.size === 0 && !isCreate) return withManagedFields(next, managed);
    if (!old && managed.fields.size === 0 && shortcuts) return createdManagedFields(ctx, next, opts.manager);
    const live = old ? withoutManagedFields(cloneJson(old) as ValueMap) : emptyObject();
    return withManagedFields(next, updateCore(ctx, live, next, managed, opts.manager));
  } catch {
    // UpdateNoErrors: a failure to track never fails the write; the object is stored without managedFields.
    return withoutManagedFields(updated as ValueMap) as KubeObject;
  }
}
