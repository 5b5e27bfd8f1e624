// DELETE of one object (k8s.io/apiserver generic registry Store.Delete): preconditions, garbage-collection
// finalizers from the propagation policy, "mark as deleting" while finalizers remain, otherwise removal.

import { conflict, fieldErrors, invalid, notFound, type FieldError } from '../apis/errors.ts';
import { StorageError } from '../storage/types.ts';
import { convertToVersion, rfc3339 } from './store-codec.ts';
import { guaranteedUpdate, keyFor, readCurrent, type StoreCore } from './store-core.ts';
import type { DeleteOptions, DeleteResult, KubeObject, Preconditions, RequestContext, ResourceDefinition } from './types.ts';
import { cloneJson } from '../apis/json-clone.ts';

const ORPHAN = 'orphan';
const FOREGROUND = 'foregroundDeletion';

/** validation.ValidateDeleteOptions: 422 DeleteOptions.meta.k8s.io. */
export function validateDeleteOptions(options: DeleteOptions): void {
  const errs: FieldError[] = [];
  const policy = options.propagationPolicy;
  if (options.orphanDependents !== undefined && policy !== undefined) {
    errs.push(fieldErrors.invalid('propagationPolicy', policy, 'orphanDependents and deletionPropagation cannot be both set'));
  }
  if (policy !== undefined && policy !== 'Foreground' && policy !== 'Background' && policy !== 'Orphan') {
    errs.push(fieldErrors.notSupported('propagationPolicy', policy, ['Foreground', 'Background', 'Orphan', 'nil']));
  }
  if (errs.length) throw invalid({ group: 'meta.k8s.io', kind: 'DeleteOptions' }, '', errs);
}

/** rest.BeforeDelete's early precondition check, worded on the kind as kube words it. */
export function checkDeletePreconditions(core: StoreCore, obj: KubeObject, pre: Preconditions | undefined): void {
  if (!pre) return;
  const on = { group: core.gk.group, resource: core.gk.kind };
  const name = obj.metadata.name ?? '';
  if (pre.uid !== undefined && pre.uid !== (obj.metadata.uid ?? '')) {
    throw conflict(
      on,
      name,
      `the UID in the precondition (${pre.uid}) does not match the UID in record (${obj.metadata.uid ?? ''}). The object might have been deleted and then recreated`,
    );
  }
  if (pre.resourceVersion !== undefined && pre.resourceVersion !== (obj.metadata.resourceVersion ?? '')) {
    throw conflict(
      on,
      name,
      `the ResourceVersion in the precondition (${pre.resourceVersion}) does not match the ResourceVersion in record (${obj.metadata.resourceVersion ?? ''}). The object might have been modified`,
    );
  }
}

function shouldOrphan(finalizers: readonly string[], options: DeleteOptions): boolean {
  if (options.orphanDependents !== undefined) return options.orphanDependents;
  if (options.propagationPolicy !== undefined) return options.propagationPolicy === 'Orphan';
  for (const f of finalizers) {
    if (f === ORPHAN) return true;
    if (f === FOREGROUND) return false;
  }
  return false;
}

function shouldDeleteDependents(finalizers: readonly string[], options: DeleteOptions): boolean {
  if (options.orphanDependents !== undefined) return false;
  if (options.propagationPolicy !== undefined) return options.propagationPolicy === 'Foreground';
  for (const f of finalizers) {
    if (f === FOREGROUND) return true;
    if (f === ORPHAN) return false;
  }
  return false;
}

/** deletionFinalizersForGarbageCollection: the finalizers the propagation policy asks for, and whether they changed. */
export function gcFinalizers(obj: KubeObject, options: DeleteOptions): { changed: boolean; finalizers: string[] } {
  const existing = obj.metadata.finalizers ?? [];
  const next = existing.filter((f) => f !== ORPHAN && f !== FOREGROUND);
  if (shouldOrphan(existing, options)) next.push(ORPHAN);
  if (shouldDeleteDependents(existing, options)) next.push(FOREGROUND);
  const a = new Set(existing);
  const b = new Set(next);
  const changed = a.size !== b.size || [...a].some((f) => !b.has(f));
  return { changed, finalizers: changed ? next : [...existing] };
}

/** markAsDeleting: deletionTimestamp now (unless already earlier), grace period 0, generation bumped once. */
export function markAsDeleting(obj: KubeObject, now: Date): void {
  const m = obj.metadata;
  if (!m.deletionTimestamp && typeof m.generation === 'number' && m.generation > 0) m.generation += 1;
  const nowText = rfc3339(now);
  if (!m.deletionTimestamp || Date.parse(m.deletionTimestamp) > now.getTime()) m.deletionTimestamp = nowText;
  m.deletionGracePeriodSeconds = 0;
}

/** The answer for an object that is gone: the object, or kube's Success Status for types that do not return it. */
export function deletedResult(core: StoreCore, def: ResourceDefinition, obj: KubeObject): DeleteResult {
  const result: DeleteResult = { object: convertToVersion(obj, def), deletedImmediately: true };
  const returnObject = core.options.returnDeletedObject ?? core.strategy.returnDeletedObject ?? false;
  if (!returnObject) {
    const details: Record<string, string> = { name: obj.metadata.name ?? '' };
    if (core.gr.group) details.group = core.gr.group;
    details.kind = core.gr.resource;
    if (obj.metadata.uid) details.uid = obj.metadata.uid;
    result.status = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', details };
  }
  return result;
}

/** Remove the object now (preconditions re-checked against the newest state). */
export async function removeNow(core: StoreCore, def: ResourceDefinition, ctx: RequestContext, key: string, name: string, pre: Preconditions | undefined): Promise<DeleteResult> {
  for (;;) {
    const current = await readCurrent(core, key, def);
    if (!current) throw notFound(core.gr, name);
    checkDeletePreconditions(core, current.object, pre);
    if (ctx.dryRun) return deletedResult(core, def, current.object);
    try {
      await core.storage.delete(key, current.kv.modRevision);
      return deletedResult(core, def, current.object);
    } catch (e) {
      if (e instanceof StorageError && e.code === 'Conflict') continue;
      if (e instanceof StorageError && e.code === 'NotFound') throw notFound(core.gr, name);
      throw e;
    }
  }
}

/**
 * rest.BeforeDelete for types with graceful deletion (a gracefulDeletePeriod hook): sets deletionTimestamp and
 * deletionGracePeriodSeconds on obj. `pending`: a graceful deletion with a period no longer than asked is on.
 */
export function beforeGracefulDelete(core: StoreCore, obj: KubeObject, options: DeleteOptions, now: Date): { graceful: boolean; pending: boolean } {
  const hook = core.strategy.gracefulDeletePeriod;
  if (!hook) return { graceful: false, pending: false };
  const m = obj.metadata;
  let requested = options.gracePeriodSeconds;
  if (requested !== undefined && requested < 0) requested = 1;
  if (m.deletionGracePeriodSeconds !== undefined && m.deletionGracePeriodSeconds < 0) m.deletionGracePeriodSeconds = 1;
  if (m.deletionTimestamp) {
    const current = m.deletionGracePeriodSeconds;
    if (current === undefined || current === 0) return { graceful: false, pending: false };
    if (requested === undefined || requested >= current) return { graceful: false, pending: true };
    // Only a shorter grace period may be asked for.
    m.deletionTimestamp = rfc3339(new Date(Date.parse(m.deletionTimestamp) + (requested - current) * 1000));
    m.deletionGracePeriodSeconds = requested;
    return { graceful: true, pending: false };
  }
  const period = Math.max(0, Math.floor(hook(obj, requested)));
  m.deletionTimestamp = rfc3339(new Date(now.getTime() + period * 1000));
  m.deletionGracePeriodSeconds = period;
  if (typeof m.generation === 'number' && m.generation > 0) m.generation += 1;
  return { graceful: true, pending: false };
}

/** The strategy's deletion finalizers an object not yet being deleted lacks. */
function missingDeleteFinalizers(core: StoreCore, obj: KubeObject): readonly string[] {
  const wanted = core.strategy.deleteFinalizers;
  if (!wanted || obj.metadata.deletionTimestamp) return [];
  const have = obj.metadata.finalizers ?? [];
  return wanted.filter((f) => !have.includes(f));
}

/** A delete of an object whose graceful deletion is already under way: it stays as it is. */
function alreadyDeleting(core: StoreCore, def: ResourceDefinition, obj: KubeObject): DeleteResult {
  return { ...deletedResult(core, def, obj), deletedImmediately: false };
}

export async function deleteObject(core: StoreCore, def: ResourceDefinition, ctx: RequestContext, name: string, options: DeleteOptions = {}): Promise<DeleteResult> {
  validateDeleteOptions(options);
  const key = keyFor(core, ctx.namespace, name);
  const current = await readCurrent(core, key, def);
  if (!current) throw notFound(core.gr, name);
  checkDeletePreconditions(core, current.object, options.preconditions);
  await ctx.validate?.(undefined, convertToVersion(current.object, def));

  const probe = cloneJson(current.object);
  const first = beforeGracefulDelete(core, probe, options, core.now());
  if (first.pending) return alreadyDeleting(core, def, current.object);
  const pendingFinalizers = (current.object.metadata.finalizers?.length ?? 0) > 0 || missingDeleteFinalizers(core, current.object).length > 0;
  if (first.graceful || pendingFinalizers || gcFinalizers(current.object, options).changed) {
    let deleteNow = false;
    let pending = false;
    let keep = false;
    const res = await guaranteedUpdate(
      core,
      def,
      key,
      name,
      ({ object }) => {
        checkDeletePreconditions(core, object, options.preconditions);
        const g = beforeGracefulDelete(core, object, options, core.now());
        if (g.pending) {
          pending = true;
          return 'unchanged';
        }
        const gc = gcFinalizers(object, options);
        if (gc.changed) object.metadata.finalizers = gc.finalizers;
        const added = missingDeleteFinalizers(core, object);
        if (added.length > 0) object.metadata.finalizers = [...(object.metadata.finalizers ?? []), ...added];
        const hasFinalizers = (object.metadata.finalizers?.length ?? 0) > 0;
        if (!g.graceful && !hasFinalizers) {
          deleteNow = true;
          return 'unchanged';
        }
        if (!g.graceful) markAsDeleting(object, core.now());
        core.strategy.prepareForDelete?.(object, ctx);
        // Finalizers keep the object; so does a grace period still running.
        keep = hasFinalizers || (object.metadata.deletionGracePeriodSeconds ?? 0) > 0;
        return object;
      },
      ctx.dryRun,
    );
    if (pending) return alreadyDeleting(core, def, res.object);
    if (!deleteNow && keep) return { object: convertToVersion(res.object, def), deletedImmediately: false };
    if (ctx.dryRun) return deletedResult(core, def, res.object);
    // Our own write moved the resourceVersion a precondition named.
    if (res.written && options.preconditions?.resourceVersion !== undefined) {
      return removeNow(core, def, ctx, key, name, { ...options.preconditions, resourceVersion: res.object.metadata.resourceVersion });
    }
  }
  return removeNow(core, def, ctx, key, name, options.preconditions);
}
