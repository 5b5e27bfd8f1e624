// Comparison of two values of one type (structured-merge-diff TypedValue.Compare): the fields added,
// modified and removed by the right-hand side. Containers themselves count as added or removed when they
// appear or disappear; atomic containers and both-empty containers are compared as leaves. Duplicated keys
// of an associative list are compared as one atomic entry.

import { FieldSet } from './field-set.ts';
import { fieldElement, serializePathElement, valuesEqual, type PathElement } from './path-element.ts';
import { fieldType, isEmptyMap } from './merging-walk.ts';
import type { Atom, ListAtom, TypeRef } from './schema.ts';
import { asList, asMap, deduceAtom, listItemPathElement, sameAtom, type Value } from './typed-values.ts';

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

/**
 * One level of the comparison (mergingWalker with compare rules): `path` is the walk's own stack, pushed and
 * popped around each child; the field sets copy what they keep of it.
 */
function walk(lhs: Value, rhs: Value, type: TypeRef, path: PathElement[], c: Comparison): void {
  if (lhs === undefined && rhs === undefined) return;
  const al = deduceAtom(type.atom, lhs);
  const ar = deduceAtom(type.atom, rhs);
  let inLeaf: boolean;
  if (rhs === undefined) inLeaf = part(al, lhs, rhs, path, c);
  else if (lhs === undefined || sameAtom(al, ar)) inLeaf = part(ar, lhs, rhs, path, c);
  else {
    // The sides deduce to different parts: both are handled (comparing keeps no state per part).
    part(al, lhs, rhs, path, c);
    inLeaf = part(ar, lhs, rhs, path, c);
  }
  if (!inLeaf) {
    if (lhs === undefined) c.added.insertMut(path);
    else if (rhs === undefined) c.removed.insertMut(path);
  }
}

function leaf(lhs: Value, rhs: Value, path: PathElement[], c: Comparison): void {
  if (lhs === undefined) c.added.insertMut(path);
  else if (rhs === undefined) c.removed.insertMut(path);
  else if (!valuesEqual(rhs, lhs)) c.modified.insertMut(path);
}

/** One part of the type (maps first, then scalars, then lists); true when the level was compared as a leaf. */
function part(atom: Atom, lhs: Value, rhs: Value, path: PathElement[], c: Comparison): boolean {
  if (atom.map) {
    const t = atom.map;
    const l = asMap(lhs);
    const r = asMap(rhs);
    if (t.atomic || (isEmptyMap(l) && isEmptyMap(r))) {
      leaf(lhs, rhs, path, c);
      return true;
    }
    if (l) {
      for (const key of Object.keys(l)) {
        path.push(fieldElement(key));
        walk(l[key], r?.[key], fieldType(t, key), path, c);
        path.pop();
      }
    }
    if (r) {
      for (const key of Object.keys(r)) {
        if (l && Object.hasOwn(l, key)) continue;
        path.push(fieldElement(key));
        walk(undefined, r[key], fieldType(t, key), path, c);
        path.pop();
      }
    }
    return false;
  }
  if (atom.scalar !== undefined) {
    leaf(lhs, rhs, path, c);
    return true;
  }
  if (atom.list) {
    const l = asList(lhs);
    const r = asList(rhs);
    if (atom.list.atomic || ((!l || l.length === 0) && (!r || r.length === 0))) {
      leaf(lhs, rhs, path, c);
      return true;
    }
    visitList(atom.list, l, r, path, c);
  }
  return false;
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
    path.push(pe);
    if (l.length <= 1 && r.length <= 1) {
      walk(l[0], r[0], t.elem, path, c);
    } else if (l.length >= 2 && r.length >= 2) {
      if (l.length !== r.length || l.some((v, i) => !valuesEqual(v, r[i]))) c.modified.insertMut(path);
    } else if (l.length >= 2) {
      if (r.length > 0) walk(undefined, r[0], t.elem, path, c);
      c.removed.insertMut(path);
    } else {
      if (l.length > 0) walk(l[0], undefined, t.elem, path, c);
      c.added.insertMut(path);
    }
    path.pop();
  }
}
