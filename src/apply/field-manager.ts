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
  isResetManagedFields,
  managerIdentifier,
  normalizeTime,
  type Managed,
} from './managed-fields.ts';
import { fieldElement } from './path-element.ts';
import { resetFieldsFor } from './reset-fields.ts';
import { rootTypeOf } from './schema.ts';
import { typedView } from './typed-view.ts';
import { validateTyped, validationErrorsString } from './typed-validate.ts';
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

/** Fields never tracked in managedFields (stripMetaManager). */
const STRIPPED = FieldSet.of(
  ...[
    ['apiVersion'],
    ['kind'],
    ['metadata'],
    ['metadata', 'name'],
    ['metadata', 'namespace'],
    ['metadata', 'creationTimestamp'],
    ['metadata', 'selfLink'],
    ['metadata', 'uid'],
    ['metadata', 'clusterName'],
    ['metadata', 'generation'],
    ['metadata', 'managedFields'],
    ['metadata', 'resourceVersion'],
  ].map((p) => p.map(fieldElement)),
);

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

/** metav1.Time's wire form, skipping the parse for a time already in it (what the server's clock gives). */
function wireTime(now: string): string {
  return now.length === 20 && now.charCodeAt(19) === 0x5a && now.charCodeAt(10) === 0x54 ? now : (normalizeTime(now) ?? now);
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

function gvkString(group: string, version: string, kind: string): string {
  return `${group}/${version}, Kind=${kind}`;
}

/** objectGVKNN: "namespace/name; group/version, Kind=Kind" of an unstructured object. */
function objectGVKNN(obj: ValueMap): string {
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
 * with other managers (unless forced), 500 for a body the schema rejects (as kube does).
 */
export function applyServerSide(current: KubeObject | undefined, applied: KubeObject, opts: ApplyOptions): KubeObject {
  try {
    return applyOrThrow(current, applied, opts);
  } catch (e) {
    if (e instanceof StatusError) throw e;
    // Anything else (e.g. a body nested too deeply to walk) is kube's plain 500.
    throw new StatusError(500, '', e instanceof Error ? e.message : String(e));
  }
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
// object's shape (its keys and nesting, which values are null or zero, and the elements of its lists, whose keys
// name list items), not of its other values. Creates of objects shaped alike (a controller's, a client's in a loop)
// share the entry, computed once; the time is the request's.
const createdEntries = new WeakMap<UpdaterContext, Map<string, ManagedFieldsEntry[] | undefined>>();
/** Shapes kept per endpoint; past it the memo starts over. */
const MAX_CREATED_SHAPES = 256;
const MAX_SHAPE_LENGTH = 8192;

/** The shape of a JSON value: lists as they are, scalars elsewhere as their type and whether they are zero. */
function shapeOf(v: unknown): string {
  switch (typeof v) {
    case 'string':
      return v === '' ? 'e' : 's';
    case 'number':
      return v === 0 ? 'z' : 'n';
    case 'boolean':
      return v ? 't' : 'f';
    case 'object': {
      if (v === null) return '0';
      if (Array.isArray(v)) return JSON.stringify(v);
      let out = '{';
      for (const k in v) {
        const x = (v as Record<string, unknown>)[k];
        if (x !== undefined) out += `${JSON.stringify(k)}:${shapeOf(x)},`;
      }
      return `${out}}`;
    }
    default:
      return '?';
  }
}

/** The managedFields of a create that brought none: the memoized entry of its shape, at this request's time. */
function createdManagedFields(ctx: Context, next: ValueMap, manager: string): KubeObject {
  const compute = () => withManagedFields(next, updateCore(ctx, emptyObject(), next, emptyManaged(), manager));
  let shape: string;
  try {
    shape = shapeOf(next);
  } catch {
    return compute();
  }
  // Large shapes (long lists) are rarely repeated: not worth their memory.
  if (shape.length > MAX_SHAPE_LENGTH) return compute();
  let memo = createdEntries.get(ctx.updater);
  if (!memo) createdEntries.set(ctx.updater, (memo = new Map()));
  const key = `${manager}\u0000${ctx.apiVersion}\u0000${shape}`;
  if (!memo.has(key)) {
    const made = compute();
    if (memo.size >= MAX_CREATED_SHAPES) memo.clear();
    // A copy: the object created goes on to the store and to in-process callers, which may change it.
    memo.set(key, made.metadata.managedFields && cloneJson(made.metadata.managedFields));
    return made;
  }
  const entries = memo.get(key);
  return withEntries(next, entries?.map((e) => ({ ...e, ...(e.time !== undefined && { time: ctx.now }), fieldsV1: cloneJson(e.fieldsV1) })));
}

/**
 * managedFields for a non-apply write (create, update, patch, subresource writes): the fields that changed
 * from `old` (undefined for a create) to `updated` become the manager's, in its Update entry. A request that
 * carries managedFields replaces them (when valid); `[]` or `[{}]` clears them.
 */
export function updateManagedFields(old: KubeObject | undefined, updated: KubeObject, opts: UpdateManagedFieldsOptions): KubeObject {
  try {
    const next = withoutManagedFields(cloneJson(updated) as ValueMap);
    const ctx = contextOf(opts);
    const managed = managedForWrite(old, updated, ctx.subresource !== '');
    // skipNonAppliedManager: an existing object without managedFields stays untracked until applied to.
    const isCreate = !old || !isValueMap(old.metadata) || !old.metadata.uid;
    if (managed.fields.size === 0 && !isCreate) return withManagedFields(next, managed);
    if (!old && managed.fields.size === 0) return createdManagedFields(ctx, next, opts.manager);
    const live = old ? withoutManagedFields(cloneJson(old) as ValueMap) : emptyObject();
    return withManagedFields(next, updateCore(ctx, live, next, managed, opts.manager));
  } catch {
    // UpdateNoErrors: a failure to track never fails the write; the object is stored without managedFields.
    return withoutManagedFields(updated as ValueMap) as KubeObject;
  }
}
