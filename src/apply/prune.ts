// Updater.prune (structured-merge-diff): after an apply is merged, the fields the applier owned last time and no
// longer applies are removed, unless another manager owns them, and then whatever the removal took that was not
// the applier's is put back.

import type { FieldSet } from './field-set.ts';
import type { VersionedSet } from './managed-fields.ts';
import type { TypeRef } from './schema.ts';
import { ensureNamedFieldsAreMembers, toFieldSet } from './typed-fieldset.ts';
import { removeItems } from './typed-remove.ts';
import type { Value } from './typed-values.ts';

/**
 * The merged object with what the applier dropped removed. `applied` is the field set of the applier's
 * configuration; `owned` every manager's set, the applier's new one included.
 */
export function prune(type: TypeRef, merged: Value, applied: FieldSet, owned: () => FieldSet, lastSet: VersionedSet | undefined): Value {
  if (!lastSet || lastSet.set.isEmpty()) return merged;
  if (prunesNothing(lastSet.set, applied)) return merged;
  return pruneDropped(type, merged, owned(), lastSet.set);
}

/**
 * Whether re-applying `applied` after `last` is sure to prune nothing: every field of `last` is applied again, and
 * every list item of `applied` has an applied field below it. Then each member of `applied` (named fields made
 * members) has all its ancestors as members, all owned, none removed by the add-back of owned items; each keeps a
 * field below it, so no item the walk empties turns null and loses its key; and the dangling step, which only
 * removes fields of `last` missing after that add-back, removes nothing.
 */
export function prunesNothing(last: FieldSet, applied: FieldSet): boolean {
  return last.difference(applied).isEmpty() && keyedItemsHaveFields(applied);
}

function keyedItemsHaveFields(set: FieldSet): boolean {
  for (const n of set.presentNodes()) {
    if (!n.children) {
      if (n.pe.kind === 'key') return false;
      continue;
    }
    if (!keyedItemsHaveFields(n.children)) return false;
  }
  return true;
}

/** The full prune: remove the last set, add back what anyone owns, then what dangled. */
export function pruneDropped(type: TypeRef, merged: Value, owned: FieldSet, lastSet: FieldSet): Value {
  // Both add-back steps start from the merged object's fields: computed once.
  const mergedSet = ensureNamedFieldsAreMembers(toFieldSet(merged, type), type);
  const last = ensureNamedFieldsAreMembers(lastSet, type);
  let pruned = removeItems(merged, last, type);
  pruned = addBackOwnedItems(type, merged, mergedSet, pruned, owned);
  return addBackDanglingItems(type, merged, mergedSet, pruned, last);
}

function addBackOwnedItems(type: TypeRef, merged: Value, mergedSet: FieldSet, pruned: Value, owned: FieldSet): Value {
  const prunedSet = ensureNamedFieldsAreMembers(toFieldSet(pruned, type), type);
  return removeItems(merged, mergedSet.difference(prunedSet.union(ensureNamedFieldsAreMembers(owned, type))), type);
}

function addBackDanglingItems(type: TypeRef, merged: Value, mergedSet: FieldSet, pruned: Value, last: FieldSet): Value {
  // Nothing was pruned (removeItems hands back its input when it removes nothing): nothing dangles.
  if (pruned === merged) return merged;
  const prunedSet = ensureNamedFieldsAreMembers(toFieldSet(pruned, type), type);
  return removeItems(merged, mergedSet.difference(prunedSet).intersection(last), type);
}
