// The step at one level that merging and comparing share (structured-merge-diff's mergingWalker): which
// side's part of the type is handled, and when a container is taken as a single leaf.

import { DEDUCED, type ListAtom, type MapAtom, type TypeRef } from './schema.ts';
import { asList, asMap, deduceAtom, sameAtom, type Value, type ValueMap } from './typed-values.ts';

/** What a walk does at one level. */
export interface LevelRules {
  /** The level as one value: a scalar, an atomic container, or a container empty or absent on both sides. */
  leaf(): void;
  list(t: ListAtom, lhs: unknown[] | undefined, rhs: unknown[] | undefined): void;
  map(t: MapAtom, lhs: ValueMap | undefined, rhs: ValueMap | undefined): void;
}

/**
 * Handles one level by the part of the type each side deduces to. With one side absent only the present
 * side's part is handled (free-form values are then not walked twice); when the sides deduce to different
 * parts, the left side's is handled first with rules from `spare`, then the right side's with `main`.
 * Returns whether `main` took the level as a leaf.
 */
export function walkLevel(lhs: Value, rhs: Value, type: TypeRef, main: LevelRules, spare: () => LevelRules): boolean {
  const al = deduceAtom(type.atom, lhs);
  const ar = deduceAtom(type.atom, rhs);
  if (rhs === undefined) return handlePart(al, lhs, rhs, main);
  if (lhs === undefined || sameAtom(al, ar)) return handlePart(ar, lhs, rhs, main);
  handlePart(al, lhs, rhs, spare());
  return handlePart(ar, lhs, rhs, main);
}

function handlePart(atom: TypeRef['atom'], lhs: Value, rhs: Value, rules: LevelRules): boolean {
  // handleAtom's order: maps first, then scalars, then lists.
  if (atom.map) {
    const l = asMap(lhs);
    const r = asMap(rhs);
    if (atom.map.atomic || (isEmptyMap(l) && isEmptyMap(r))) {
      rules.leaf();
      return true;
    }
    rules.map(atom.map, l, r);
    return false;
  }
  if (atom.scalar !== undefined) {
    rules.leaf();
    return true;
  }
  if (atom.list) {
    const l = asList(lhs);
    const r = asList(rhs);
    if (atom.list.atomic || ((!l || l.length === 0) && (!r || r.length === 0))) {
      rules.leaf();
      return true;
    }
    rules.list(atom.list, l, r);
  }
  return false;
}

export function isEmptyMap(m: ValueMap | undefined): boolean {
  if (!m) return true;
  for (const _ in m) return false;
  return true;
}

/** Each key of either side's map, left side's first, with both values and the key's type. */
export function forEachKey(t: MapAtom, lhs: ValueMap | undefined, rhs: ValueMap | undefined, visit: (key: string, l: Value, r: Value, type: TypeRef) => void): void {
  if (lhs) for (const key of Object.keys(lhs)) visit(key, lhs[key], rhs?.[key], fieldType(t, key));
  if (rhs) for (const key of Object.keys(rhs)) if (!lhs || !Object.hasOwn(lhs, key)) visit(key, undefined, rhs[key], fieldType(t, key));
}

/** The type of a map's key: its field's, else the map's element type, else deduced from the value. */
export function fieldType(t: MapAtom, key: string): TypeRef {
  return t.fields.get(key)?.type ?? t.elem ?? DEDUCED;
}
