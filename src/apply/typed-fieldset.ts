// The field set of a value (structured-merge-diff TypedValue.ToFieldSet) and the named-field closure of a set
// (Set.EnsureNamedFieldsAreMembers) used when pruning.

import { FieldSet } from './field-set.ts';
import { fieldElement, type PathElement } from './path-element.ts';
import { DEDUCED, type TypeRef } from './schema.ts';
import { asList, asMap, deduceAtom, listItemPathElement, type Value } from './typed-values.ts';

/**
 * Every leaf and every list item and map entry (not struct fields) of a value. Atomic lists and maps are
 * leaves. Items whose key cannot be computed are skipped (the value was validated before where it matters).
 */
export function toFieldSet(v: Value, type: TypeRef): FieldSet {
  const set = new FieldSet();
  walk(v, type, [], set);
  return set;
}

/** `path` is the walk's own stack: pushed and popped around each child (insertMut copies nothing from it). */
function walk(v: Value, type: TypeRef, path: PathElement[], set: FieldSet): void {
  // handleAtom's order: maps first, then scalars, then lists.
  const a = deduceAtom(type.atom, v);
  if (a.map) {
    const t = a.map;
    if (t.atomic) {
      set.insertMut(path);
      return;
    }
    const m = asMap(v);
    if (!m) return;
    for (const key of Object.keys(m)) {
      const val = m[key];
      if (val === undefined) continue;
      const field = t.fields.get(key);
      path.push(fieldElement(key));
      walk(val, field?.type ?? t.elem ?? DEDUCED, path, set);
      if (!field) set.insertMut(path);
      path.pop();
    }
  } else if (a.scalar !== undefined) {
    set.insertMut(path);
  } else if (a.list) {
    const t = a.list;
    if (t.atomic) {
      set.insertMut(path);
      return;
    }
    const list = asList(v);
    if (!list) return;
    for (let i = 0; i < list.length; i++) {
      const pe = listItemPathElement(t, i, list[i]);
      if (typeof pe === 'string') continue;
      path.push(pe);
      walk(list[i], t.elem, path, set);
      set.insertMut(path);
      path.pop();
    }
  }
}

/** Adds as members the named struct fields that have owned fields below them (not map keys). */
export function ensureNamedFieldsAreMembers(set: FieldSet, type: TypeRef | undefined): FieldSet {
  const atom = type?.atom;
  const nodes = set.presentNodes().map((n) => {
    let member = n.member;
    let childType: TypeRef | undefined;
    if (n.pe.kind === 'field' && atom?.map) {
      const field = atom.map.fields.get(n.pe.name);
      if (field && n.children) member = true;
      childType = field?.type ?? atom.map.elem;
    } else if (n.pe.kind === 'key' && atom?.list) {
      childType = atom.list.elem;
    }
    return { pe: n.pe, member, children: n.children ? ensureNamedFieldsAreMembers(n.children, childType) : undefined };
  });
  return FieldSet.fromNodes(nodes);
}
