// The step at one level that merging and comparing share (structured-merge-diff's mergingWalker): which
// side's part of the type is handled, and when a container is taken as a single leaf.

import { DEDUCED, type ListAtom, type MapAtom, type TypeRef } from './schema.ts';
import { asList, asMap, deduceAtom, handleAtom, sameAtom, type Value, type ValueMap } from './typed-values.ts';

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
  let inLeaf = false;
  const leaf = () => {
    inLeaf = true;
    rules.leaf();
  };
  handleAtom(atom, {
    scalar: leaf,
    list: (t) => {
      const l = asList(lhs);
      const r = asList(rhs);
      if (t.atomic || ((!l || l.length === 0) && (!r || r.length === 0))) leaf();
      else rules.list(t, l, r);
    },
    map: (t) => {
      const l = asMap(lhs);
      const r = asMap(rhs);
      const lEmpty = !l || Object.keys(l).length === 0;
      const rEmpty = !r || Object.keys(r).length === 0;
      if (t.atomic || (lEmpty && rEmpty)) leaf();
      else rules.map(t, l, r);
    },
  });
  return inLeaf;
}

/** Each key of either side's map, left side's first, with both values and the key's type. */
export function forEachKey(t: MapAtom, lhs: ValueMap | undefined, rhs: ValueMap | undefined, visit: (key: string, l: Value, r: Value, type: TypeRef) => void): void {
  const keys = new Set([...Object.keys(lhs ?? {}), ...Object.keys(rhs ?? {})]);
  for (const key of keys) visit(key, lhs?.[key], rhs?.[key], t.fields.get(key)?.type ?? t.elem ?? DEDUCED);
}
