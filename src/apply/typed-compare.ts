// Comparison of two values of one type (structured-merge-diff TypedValue.Compare): the fields added,
// modified and removed by the right-hand side. Containers themselves count as added or removed when they
// appear or disappear; atomic containers and both-empty containers are compared as leaves. Duplicated keys
// of an associative list are compared as one atomic entry.

import { FieldSet } from './field-set.ts';
import { fieldElement, serializePathElement, valuesEqual, type PathElement } from './path-element.ts';
import { forEachKey, walkLevel, type LevelRules } from './merging-walk.ts';
import type { ListAtom, TypeRef } from './schema.ts';
import { listItemPathElement, type Value } from './typed-values.ts';

export interface Comparison {
  added: FieldSet;
  modified: FieldSet;
  removed: FieldSet;
}

export function compareTyped(lhs: Value, rhs: Value, type: TypeRef): Comparison {
  const c: Comparison = { added: new FieldSet(), modified: new FieldSet(), removed: new FieldSet() };
  walk(lhs, rhs, type, [], c);
  return c;
}

/** Comparison.ExcludeFields: each set minus the given fields and everything below them. */
export function excludeFields(c: Comparison, fields: FieldSet): Comparison {
  if (fields.isEmpty()) return c;
  return {
    added: c.added.recursiveDifference(fields),
    modified: c.modified.recursiveDifference(fields),
    removed: c.removed.recursiveDifference(fields),
  };
}

function walk(lhs: Value, rhs: Value, type: TypeRef, path: PathElement[], c: Comparison): void {
  if (lhs === undefined && rhs === undefined) return;
  const rules: LevelRules = {
    leaf: () => {
      if (lhs === undefined) c.added.insertMut(path);
      else if (rhs === undefined) c.removed.insertMut(path);
      else if (!valuesEqual(rhs, lhs)) c.modified.insertMut(path);
    },
    list: (t, l, r) => visitList(t, l, r, path, c),
    map: (t, l, r) => forEachKey(t, l, r, (key, lv, rv, ft) => walk(lv, rv, ft, [...path, fieldElement(key)], c)),
  };
  // Comparing keeps no state per handled part, so both sides' parts use the same rules.
  const inLeaf = walkLevel(lhs, rhs, type, rules, () => rules);
  if (!inLeaf) {
    if (lhs === undefined) c.added.insertMut(path);
    else if (rhs === undefined) c.removed.insertMut(path);
  }
}

interface Occurrences {
  pe: PathElement;
  values: Value[];
}

function index(t: ListAtom, list: unknown[] | undefined, into: Map<string, Occurrences>, order: PathElement[], skipKnown?: Map<string, Occurrences>): void {
  if (!list) return;
  for (let i = 0; i < list.length; i++) {
    const pe = listItemPathElement(t, i, list[i]);
    if (typeof pe === 'string') continue;
    const key = serializePathElement(pe);
    const seen = into.get(key);
    if (seen) seen.values.push(list[i]);
    else {
      into.set(key, { pe, values: [list[i]] });
      if (!skipKnown?.has(key)) order.push(pe);
    }
  }
}

function visitList(t: ListAtom, lhs: unknown[] | undefined, rhs: unknown[] | undefined, path: PathElement[], c: Comparison): void {
  const lValues = new Map<string, Occurrences>();
  const rValues = new Map<string, Occurrences>();
  const all: PathElement[] = [];
  index(t, lhs, lValues, all);
  index(t, rhs, rValues, all, lValues);
  for (const pe of all) {
    const key = serializePathElement(pe);
    const l = lValues.get(key)?.values ?? [];
    const r = rValues.get(key)?.values ?? [];
    const itemPath = [...path, pe];
    if (l.length <= 1 && r.length <= 1) {
      walk(l[0], r[0], t.elem, itemPath, c);
    } else if (l.length >= 2 && r.length >= 2) {
      if (l.length !== r.length || l.some((v, i) => !valuesEqual(v, r[i]))) c.modified.insertMut(itemPath);
    } else if (l.length >= 2) {
      if (r.length > 0) walk(undefined, r[0], t.elem, itemPath, c);
      c.removed.insertMut(itemPath);
    } else {
      if (l.length > 0) walk(l[0], undefined, t.elem, itemPath, c);
      c.added.insertMut(itemPath);
    }
  }
}
