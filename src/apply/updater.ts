// The ownership engine (structured-merge-diff merge.Updater): how an update or an apply moves fields between
// managers, when an apply conflicts, and which fields an apply removes because its manager stopped applying
// them. Objects of every served version share one schema here (no conversion between versions).

import { ConflictsError, type Conflict } from './conflicts.ts';
import { FieldSet } from './field-set.ts';
import type { VersionedSet } from './managed-fields.ts';
import type { TypeRef } from './schema.ts';
import { compareTyped, excludeFields, type Comparison } from './typed-compare.ts';
import { toFieldSet } from './typed-fieldset.ts';
import { mergeTyped } from './typed-merge.ts';
import { prune } from './prune.ts';
import type { Value } from './typed-values.ts';
import { valuesEqual } from './path-element.ts';

export type ManagerSets = Map<string, VersionedSet>;

export interface UpdaterContext {
  readonly type: TypeRef;
  /** Fields reset by the strategy of the endpoint written to: never owned through it. */
  readonly ignored: FieldSet;
  /** The form objects are compared in (the typed view of built-in objects). */
  readonly view: (obj: Value) => Value;
}

/** Removes changed fields from the other managers; throws ConflictsError when not forced. */
function updateOthers(ctx: UpdaterContext, oldObj: Value, newObj: Value, managers: ManagerSets, workflow: string, force: boolean): Comparison {
  const compare = excludeFields(compareTyped(ctx.view(oldObj), ctx.view(newObj), ctx.type), ctx.ignored);
  const changed = compare.modified.union(compare.added);
  const conflicts = new Map<string, FieldSet>();
  for (const [manager, vs] of managers) {
    if (manager === workflow) continue;
    const conflictSet = vs.set.intersection(changed);
    if (!conflictSet.isEmpty()) conflicts.set(manager, conflictSet);
  }
  if (!force && conflicts.size > 0) {
    const list: Conflict[] = [];
    for (const manager of [...conflicts.keys()].sort()) {
      for (const path of conflicts.get(manager)!.paths()) list.push({ manager, path });
    }
    throw new ConflictsError(list);
  }
  for (const [manager, vs] of managers) {
    if (manager === workflow) continue;
    let set = vs.set;
    const conflictSet = conflicts.get(manager);
    if (conflictSet) set = set.difference(conflictSet);
    if (!compare.removed.isEmpty()) set = set.difference(compare.removed);
    if (set !== vs.set) managers.set(manager, { ...vs, set });
  }
  dropEmptyManagers(managers);
  return compare;
}

/** Updater.Update: the manager of a non-apply write takes the fields it changed; nobody else keeps them. */
export function updateManagers(ctx: UpdaterContext, liveObj: Value, newObj: Value, version: string, input: ManagerSets, manager: string): ManagerSets {
  const managers: ManagerSets = new Map(input);
  const compare = updateOthers(ctx, liveObj, newObj, managers, manager, true);
  const previous = managers.get(manager)?.set ?? new FieldSet();
  const set = previous.difference(compare.removed).union(compare.modified).union(compare.added).recursiveDifference(ctx.ignored);
  if (set.isEmpty()) managers.delete(manager);
  else managers.set(manager, { set, apiVersion: version, applied: false });
  return managers;
}

export interface ApplyOutcome {
  /** The merged object; undefined when it equals the live object. */
  object: Value;
  managers: ManagerSets;
}

/** Updater.Apply: merges the configuration, prunes what the applier dropped, settles ownership. */
export function applyManagers(ctx: UpdaterContext, liveObj: Value, config: Value, version: string, input: ManagerSets, manager: string, force: boolean): ApplyOutcome {
  const managers: ManagerSets = new Map(input);
  let newObj = mergeTyped(liveObj, config, ctx.type);
  const lastSet = managers.get(manager);
  const set = toFieldSet(config, ctx.type).recursiveDifference(ctx.ignored);
  managers.set(manager, { set, apiVersion: version, applied: true });
  newObj = prune(ctx.type, newObj, set, () => ownedByAnyone(managers), lastSet);
  const unchanged = valuesEqual(liveObj, newObj);
  // An unchanged object compares equal everywhere: no conflicts, nothing moves between managers.
  if (unchanged) dropEmptyManagers(managers);
  else updateOthers(ctx, liveObj, newObj, managers, manager, force);
  return { object: unchanged ? undefined : newObj, managers };
}

function dropEmptyManagers(managers: ManagerSets): void {
  for (const [manager, vs] of [...managers]) if (vs.set.isEmpty()) managers.delete(manager);
}

function ownedByAnyone(managers: ManagerSets): FieldSet {
  let owned: FieldSet | undefined;
  for (const vs of managers.values()) owned = owned ? owned.union(vs.set) : vs.set;
  return owned ?? new FieldSet();
}
