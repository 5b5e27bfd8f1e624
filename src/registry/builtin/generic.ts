// The strategy skeleton every built-in type shares (k8s.io/apiserver rest.BeforeCreate/BeforeUpdate plus the
// usual per-type PrepareFor* patterns): system metadata carried over on update, generation 1 on create and +1
// on spec changes, status reset on main-resource writes and everything but status (and some metadata) kept on
// status writes. Type modules plug their defaulting, preparation and validation in through TypeHooks.

import type { FieldError } from '../../apis/errors.ts';
import type { KubeObject, RequestContext, Strategy, SubresourceStrategy } from '../types.ts';
import { metaOf } from '../store-meta.ts';
import { validateObjectMeta, validateObjectMetaUpdate } from '../validation/meta.ts';
import { clone, semanticEqual } from './object.ts';
import type { TypeRules } from './type-rules.ts';
import { dropDisabledTemplateFields } from './core/pod-disabled-fields.ts';

/** Strategy hooks some built-in types need beyond the Strategy contract (the store may call them when present). */
export interface BuiltinStrategy extends Strategy {
  /**
   * Called by a delete before deciding how to delete (namespaces: set status.phase Terminating; the store sets
   * deletionTimestamp and keeps the object while spec.finalizers or metadata.finalizers remain).
   */
  prepareForDelete?(obj: KubeObject, ctx: RequestContext): void;
  /**
   * kube's CheckGracefulDelete for pods: the grace period (seconds) a delete should use, given the one the
   * request asked for; 0 deletes at once.
   */
  gracefulDeletePeriod?(obj: KubeObject, requestedSeconds: number | undefined): number;
}

export interface TypeHooks {
  defaults?(obj: KubeObject): void;
  /** The status a create starts with (types with a status subresource): default {}; 'keep' leaves it. */
  initialStatus?(obj: KubeObject): unknown;
  prepareForCreate?(obj: KubeObject, ctx: RequestContext): void;
  prepareForUpdate?(obj: KubeObject, old: KubeObject, ctx: RequestContext): void;
  /** The pod template the object holds: the fields of disabled features leave it first, as kube's DropDisabledTemplateFields. */
  podTemplate?(obj: KubeObject): unknown;
  /** Does this update change what generation counts (default: anything outside metadata and status)? */
  generationChanged?(obj: KubeObject, old: KubeObject): boolean;
  /**
   * kube's validation of the type leaves ObjectMeta to the generic checks every write gets (path-segment names, no
   * core finalizer rule) and reports it only after the type's own errors (policy PodDisruptionBudgets).
   */
  genericMetaOnly?: boolean;
  /** The type's checks on create beyond ObjectMeta. */
  validate?(obj: KubeObject, ctx: RequestContext): FieldError[];
  /** The type's checks on update after ObjectMeta's update rules (default: the create checks of the new object). */
  validateUpdate?(obj: KubeObject, old: KubeObject, ctx: RequestContext, validateNew: () => FieldError[], validateMetaUpdate: () => FieldError[]): FieldError[];
  /**
   * validateUpdate reports ObjectMeta's update rules itself, through its validateMetaUpdate, where kube's
   * ValidateUpdate puts them (e.g. after the create checks of the new object).
   */
  placesMetaUpdate?: boolean;
  /** Metadata a status write may not change beyond the system fields (e.g. pods: ownerReferences). */
  resetMetaForStatus?(merged: KubeObject, old: KubeObject): void;
  /** What a status write changes beyond the written status (e.g. PersistentVolumes: the phase transition time). */
  prepareForStatusUpdate?(merged: KubeObject, old: KubeObject, ctx: RequestContext): void;
  validateStatusUpdate?(obj: KubeObject, old: KubeObject, ctx: RequestContext): FieldError[];
  /** WarningsOnCreate (old undefined) and WarningsOnUpdate: warnings for a valid write of the main resource. */
  warnings?(obj: KubeObject, old: KubeObject | undefined): string[];
  /** Subresources besides status (e.g. namespaces' finalize). */
  subresources?: Record<string, SubresourceStrategy>;
  prepareForDelete?(obj: KubeObject, ctx: RequestContext): void;
  refuseDelete?(name: string): Error | undefined;
  gracefulDeletePeriod?(obj: KubeObject, requestedSeconds: number | undefined): number;
}

export { metaOf };

/** rest.BeforeUpdate: generation, uid, creation and deletion fields come from the stored object. */
export function carrySystemMeta(obj: KubeObject, old: KubeObject): void {
  const m = metaOf(obj);
  const o = old.metadata ?? {};
  if (o.generation !== undefined) m.generation = o.generation;
  else delete m.generation;
  if (!m.uid && o.uid) m.uid = o.uid;
  if (o.creationTimestamp) m.creationTimestamp = o.creationTimestamp;
  if (o.deletionTimestamp) m.deletionTimestamp = o.deletionTimestamp;
  if (o.deletionGracePeriodSeconds !== undefined && m.deletionGracePeriodSeconds === undefined) {
    m.deletionGracePeriodSeconds = o.deletionGracePeriodSeconds;
  }
}

const NON_SPEC_KEYS = new Set(['apiVersion', 'kind', 'metadata', 'status']);

/** Whether anything but apiVersion, kind, metadata and status differs (what generation tracks). */
export function specChanged(obj: KubeObject, old: KubeObject): boolean {
  const keys = new Set([...Object.keys(obj), ...Object.keys(old)]);
  for (const k of keys) if (!NON_SPEC_KEYS.has(k) && !semanticEqual(obj[k], old[k])) return true;
  return false;
}

function restoreStatus(obj: KubeObject, old: KubeObject): void {
  if (old.status === undefined) delete obj.status;
  else obj.status = clone(old.status);
}

/** The status subresource: the stored object with the written status (and the written metadata, less system fields). */
export function statusSubresource(hooks: TypeHooks, rules: TypeRules): SubresourceStrategy {
  return {
    prepareForUpdate(obj, old, ctx) {
      // obj and old are the update's own copies (store.ts), so the merge takes their parts without copying them:
      // what follows changes only the merged metadata and status.
      const merged: KubeObject = { ...obj, metadata: { ...obj.metadata } };
      const keys = new Set([...Object.keys(obj), ...Object.keys(old)]);
      for (const k of keys) {
        if (k === 'metadata' || k === 'status' || k === 'apiVersion' || k === 'kind') continue;
        if (old[k] === undefined) delete merged[k];
        else merged[k] = old[k];
      }
      carrySystemMeta(merged, old);
      hooks.resetMetaForStatus?.(merged, old);
      hooks.prepareForStatusUpdate?.(merged, old, ctx);
      return merged;
    },
    validateUpdate(obj, old, ctx) {
      const metaErrs = hooks.genericMetaOnly ? [] : validateObjectMetaUpdate(obj.metadata, old.metadata, 'metadata', rules.kubeFinalizers);
      return [...metaErrs, ...(hooks.validateStatusUpdate?.(obj, old, ctx) ?? [])];
    },
  };
}

export function buildStrategy(rules: TypeRules, hooks: TypeHooks = {}): BuiltinStrategy {
  const validate = (obj: KubeObject, ctx: RequestContext): FieldError[] => [
    ...(hooks.genericMetaOnly ? [] : validateObjectMeta(obj.metadata, rules)),
    ...(hooks.validate?.(obj, ctx) ?? []),
  ];
  const subresources: Record<string, SubresourceStrategy> = { ...(hooks.subresources ?? {}) };
  if (rules.status) subresources.status = statusSubresource(hooks, rules);
  const strategy: BuiltinStrategy = {
    prepareForCreate(obj, ctx) {
      if (hooks.podTemplate) dropDisabledTemplateFields(hooks.podTemplate(obj), undefined, rules.featureGates);
      if (rules.status) {
        const status = hooks.initialStatus ? hooks.initialStatus(obj) : {};
        if (status === undefined) delete obj.status;
        else if (status !== 'keep') obj.status = status;
      }
      if (rules.generation) metaOf(obj).generation = 1;
      hooks.prepareForCreate?.(obj, ctx);
    },
    prepareForUpdate(obj, old, ctx) {
      if (hooks.podTemplate) dropDisabledTemplateFields(hooks.podTemplate(obj), hooks.podTemplate(old), rules.featureGates);
      carrySystemMeta(obj, old);
      if (rules.status) restoreStatus(obj, old);
      if (rules.generation) {
        const changed = hooks.generationChanged ? hooks.generationChanged(obj, old) : specChanged(obj, old);
        if (changed) metaOf(obj).generation = (old.metadata?.generation ?? 0) + 1;
      }
      hooks.prepareForUpdate?.(obj, old, ctx);
    },
    validate,
    validateUpdate(obj, old, ctx) {
      const validateMetaUpdate = () => (hooks.genericMetaOnly ? [] : validateObjectMetaUpdate(obj.metadata, old.metadata, 'metadata', rules.kubeFinalizers));
      const metaErrs = hooks.placesMetaUpdate ? [] : validateMetaUpdate();
      const typeErrs = hooks.validateUpdate ? hooks.validateUpdate(obj, old, ctx, () => validate(obj, ctx), validateMetaUpdate) : validate(obj, ctx);
      return [...metaErrs, ...typeErrs];
    },
    subresources,
    allowCreateOnUpdate: rules.allowCreateOnUpdate,
    allowUnconditionalUpdate: true,
  };
  if (hooks.defaults) strategy.defaults = hooks.defaults;
  if (hooks.warnings) strategy.warnings = hooks.warnings;
  if (hooks.prepareForDelete) strategy.prepareForDelete = hooks.prepareForDelete;
  if (hooks.refuseDelete) strategy.refuseDelete = hooks.refuseDelete;
  if (hooks.gracefulDeletePeriod) strategy.gracefulDeletePeriod = hooks.gracefulDeletePeriod;
  return strategy;
}
