// Walks along an object's type that let field-manager.ts skip the full managedFields computation where its outcome
// is plain:
// - changedInPlace: whether an update keeps the object's shape (the same fields, list items of the same identities,
//   the same empty and zero values) and, if so, which fields' values differ, as the typed comparison reports them;
// - applyInPlace: whether applying a configuration only replaces values in place, and which;
// - typedShapeOf: the shape a create's field set depends on, written out (the key of the create memo).

import { FieldSet } from './field-set.ts';
import { fieldType, isEmptyMap } from './merging-walk.ts';
import { comparePathElements, serializePathElement, valuesEqual, type PathElement } from './path-element.ts';
import type { ListAtom, TypeRef } from './schema.ts';
import { deduceAtom, isValueMap, listItemPathElement, sameAtom, type Value, type ValueMap } from './typed-values.ts';

/** Fields a walk of an object leaves out, as a tree of field names: true leaves out the field and all below it. */
export type SkipTree = { readonly [field: string]: SkipTree | true };

/** The tree of the paths given; undefined when one is not made of field names alone. */
export function skipTree(paths: readonly (readonly PathElement[])[]): SkipTree | undefined {
  type Node = { [field: string]: Node | true };
  const node = (): Node => Object.create(null) as Node;
  const tree = node();
  let byName = true;
  for (const path of paths) {
    let at = tree;
    for (let i = 0; i < path.length; i++) {
      const pe = path[i]!;
      if (pe.kind !== 'field') byName = false;
      if (pe.kind !== 'field' || at[pe.name] === true) break;
      if (i === path.length - 1) at[pe.name] = true;
      else at = (at[pe.name] as Node | undefined) ?? (at[pe.name] = node());
    }
  }
  return byName ? tree : undefined;
}

/** A walk of two objects: where it is and the fields it found changed (as fieldsV1 keys). */
interface ShapeWalk {
  readonly path: (string | PathElement)[];
  readonly changed: string[][];
}

/** A leaf of the walk (a scalar or an atomic container) of the same shape on both sides: changed when unequal. */
function leafShaped(sameShape: boolean, a: unknown, b: unknown, walk: ShapeWalk): boolean {
  if (sameShape && !valuesEqual(a, b)) walk.changed.push(walk.path.map((pe) => (typeof pe === 'string' ? pe : serializePathElement(pe))));
  return sameShape;
}

/** Lists this long find twice-named items by their keys' text rather than item by item. */
const PAIRWISE_ITEMS = 16;

/** Whether a list's items (their path elements) name one item twice. */
function namesAnItemTwice(items: readonly PathElement[]): boolean {
  if (items.length > PAIRWISE_ITEMS) return new Set(items.map(serializePathElement)).size !== items.length;
  for (let i = 1; i < items.length; i++) for (let j = 0; j < i; j++) if (comparePathElements(items[i]!, items[j]!) === 0) return true;
  return false;
}

/**
 * The items of two lists of items known by keys or values (their path elements) when both name the same items in
 * the same order, none twice (items twice in a list are compared as one atomic entry: the full computation's case).
 */
function sameItems(t: ListAtom, a: readonly unknown[], b: readonly unknown[]): PathElement[] | undefined {
  if (a.length !== b.length) return undefined;
  const items: PathElement[] = [];
  for (let i = 0; i < a.length; i++) {
    const pa = listItemPathElement(t, i, a[i] as Value);
    const pb = listItemPathElement(t, i, b[i] as Value);
    if (typeof pa === 'string' || typeof pb === 'string' || comparePathElements(pa, pb) !== 0) return undefined;
    items.push(pa);
  }
  return namesAnItemTwice(items) ? undefined : items;
}

/** Two maps with the same keys outside the fields skipped (key order aside), whose values `same` finds alike. */
function sameMapsShaped(a: ValueMap, b: ValueMap, walk: ShapeWalk, skip: SkipTree | undefined, same: (a: unknown, b: unknown, key: string, skip: SkipTree | undefined) => boolean): boolean {
  let count = 0;
  for (const k in a) {
    const below = skip?.[k];
    if (a[k] === undefined || below === true) continue;
    walk.path.push(`f:${k}`);
    const alike = b[k] !== undefined && same(a[k], b[k], k, below);
    walk.path.pop();
    if (!alike) return false;
    count++;
  }
  for (const k in b) if (b[k] !== undefined && skip?.[k] !== true) count--;
  return count === 0;
}

/**
 * Whether two values of a type have the same shape: the same fields, list items of the same identities (keys or
 * values) in the same order, containers and scalars that are empty or zero on both sides or on neither (a zero a
 * view may leave out), the same booleans. What differs is a field changed in place, recorded at the level the typed
 * comparison records it (atomic containers whole). A value its type does not describe is another shape.
 */
function sameTypedShape(a: unknown, b: unknown, type: TypeRef, walk: ShapeWalk, skip: SkipTree | undefined): boolean {
  if (a === null || b === null) return a === b;
  const atom = deduceAtom(type.atom, a as Value);
  if (!sameAtom(atom, deduceAtom(type.atom, b as Value))) return false;
  if (isValueMap(a)) {
    const t = atom.map;
    if (!isValueMap(b) || !t) return false;
    if (t.atomic) return leafShaped(isEmptyMap(a) === isEmptyMap(b), a, b, walk);
    return sameMapsShaped(a, b, walk, skip, (x, y, k, below) => sameTypedShape(x, y, fieldType(t, k), walk, below));
  }
  if (Array.isArray(a)) {
    const t = atom.list;
    if (!Array.isArray(b) || !t) return false;
    if (t.atomic) return leafShaped((a.length === 0) === (b.length === 0), a, b, walk);
    const items = sameItems(t, a, b);
    if (!items) return false;
    for (let i = 0; i < a.length; i++) {
      walk.path.push(items[i]!);
      const alike = sameTypedShape(a[i], b[i], t.elem, walk, undefined);
      walk.path.pop();
      if (!alike) return false;
    }
    return true;
  }
  if (atom.scalar === undefined || typeof a !== typeof b) return false;
  switch (typeof a) {
    case 'string':
      return leafShaped((a === '') === (b === ''), a, b, walk);
    case 'number':
      return leafShaped((a === 0) === (b === 0), a, b, walk);
    default:
      return a === b;
  }
}

/**
 * Two objects of a type compared outside the fields skipped: undefined when their shapes differ, else the fields
 * whose values changed in place (as fieldsV1 keys, the paths the typed comparison would report as modified).
 */
export function changedInPlace(a: ValueMap, b: ValueMap, type: TypeRef, skip: SkipTree): string[][] | undefined {
  const root = type.atom.map;
  if (!root) return undefined;
  const walk: ShapeWalk = { path: [], changed: [] };
  return sameMapsShaped(a, b, walk, skip, (x, y, k, below) => sameTypedShape(x, y, fieldType(root, k), walk, below)) ? walk.changed : undefined;
}

/** Sets (fieldsV1 texts) seen to decode, the newest kept: an object's entries are mostly as its last write left them. */
const decodingSets = new Set<string>();
const MAX_DECODING_SETS = 256;
/** Longer texts are decoded each time: 256 of them could hold megabytes. */
const MAX_REMEMBERED_TEXT = 16 * 1024;

/** Whether a set in its fieldsV1 form decodes (FieldSet.fromFieldsV1 takes it). */
export function setDecodes(fields: ValueMap): boolean {
  const text = JSON.stringify(fields);
  if (decodingSets.has(text)) return true;
  try {
    FieldSet.fromFieldsV1(fields);
  } catch {
    return false;
  }
  if (text.length > MAX_REMEMBERED_TEXT) return true;
  if (decodingSets.size >= MAX_DECODING_SETS) decodingSets.delete(decodingSets.values().next().value!);
  decodingSets.add(text);
  return true;
}

/** Whether a set in its fieldsV1 form holds a field (its path as fieldsV1 keys). */
export function fieldsV1Has(fields: ValueMap, path: readonly string[]): boolean {
  let at: unknown = fields;
  for (const key of path) {
    if (!isValueMap(at) || !Object.hasOwn(at, key)) return false;
    at = at[key];
  }
  return true;
}

/** A value the merge of a configuration replaces: where it is, in the object and as a field, and the new value. */
export interface Replaced {
  readonly at: readonly (string | number)[];
  readonly field: readonly string[];
  readonly value: Value;
}

/**
 * What applying `config` onto `live` changes, when the merge only replaces values in place: the values replaced, or
 * undefined when it does more or cannot tell. Every field of the configuration must be in live (nothing added), lists
 * of keyed items must hold the same items in the same order, sets must be equal, and the configuration must set no
 * null. Scalars, atomic lists and atomic maps that differ are replaced by the configuration's, as the merge replaces
 * them (an atomic map the configuration holds less of, like a fieldRef whose apiVersion the server defaulted, too).
 */
export function applyInPlace(config: ValueMap, live: ValueMap, type: TypeRef): Replaced[] | undefined {
  const replaced: Replaced[] = [];
  return appliesInPlace(config, live, type, { at: [], field: [], replaced }) ? replaced : undefined;
}

interface ApplyWalk {
  readonly at: (string | number)[];
  readonly field: (string | PathElement)[];
  readonly replaced: Replaced[];
}

function replace(walk: ApplyWalk, config: Value, live: Value): true {
  if (!valuesEqual(config, live)) walk.replaced.push({ at: [...walk.at], field: walk.field.map((pe) => (typeof pe === 'string' ? pe : serializePathElement(pe))), value: config });
  return true;
}

function appliesInPlace(config: unknown, live: unknown, type: TypeRef, walk: ApplyWalk): boolean {
  if (config === null || live === null || config === undefined || live === undefined) return false;
  const atom = deduceAtom(type.atom, config as Value);
  if (!sameAtom(atom, deduceAtom(type.atom, live as Value))) return false;
  if (isValueMap(config)) {
    const t = atom.map;
    if (!isValueMap(live) || !t) return false;
    if (t.atomic) return replace(walk, config, live);
    for (const k in config) {
      if (config[k] === undefined) continue;
      walk.at.push(k);
      walk.field.push(`f:${k}`);
      const inPlace = appliesInPlace(config[k], live[k], fieldType(t, k), walk);
      walk.at.pop();
      walk.field.pop();
      if (!inPlace) return false;
    }
    return true;
  }
  if (Array.isArray(config)) {
    const t = atom.list;
    if (!Array.isArray(live) || !t) return false;
    if (t.atomic) return replace(walk, config, live);
    // A set merges as a union: only an equal one changes nothing.
    if (t.keys.length === 0) return valuesEqual(config, live);
    const items = sameItems(t, config, live);
    if (!items) return false;
    for (let i = 0; i < config.length; i++) {
      walk.at.push(i);
      walk.field.push(items[i]!);
      const inPlace = appliesInPlace(config[i], live[i], t.elem, walk);
      walk.at.pop();
      walk.field.pop();
      if (!inPlace) return false;
    }
    return true;
  }
  return atom.scalar !== undefined && replace(walk, config, live);
}

/**
 * The shape of a value as its type sees it, written out: what decides the field set a create of it gets. Maps by
 * their keys (outside the fields skipped), atomic lists and maps by whether they are empty, other lists by their
 * items' identities (keys, or values for sets) and shapes, scalars by their type and whether they are zero.
 * Values that decide no field (an atomic list's items, a scalar's non-zero value) are left out.
 */
export function typedShapeOf(v: unknown, type: TypeRef, skip?: SkipTree): string {
  if (v === null || v === undefined) return '0';
  if (isValueMap(v)) {
    // deduceAtom's part for a map is the type's map (so for a list below)
    const t = type.atom.map;
    if (!t) return JSON.stringify(v);
    if (t.atomic) return isEmptyMap(v) ? 'M0' : 'M1';
    let out = '{';
    for (const k in v) {
      const below = skip?.[k];
      if (v[k] !== undefined && below !== true) out += `${quotedKey(k)}:${typedShapeOf(v[k], fieldType(t, k), below)},`;
    }
    return `${out}}`;
  }
  if (Array.isArray(v)) {
    const t = type.atom.list;
    if (!t) return JSON.stringify(v);
    if (t.atomic) return v.length === 0 ? 'L0' : 'L1';
    let out = '[';
    for (let i = 0; i < v.length; i++) {
      const pe = listItemPathElement(t, i, v[i] as Value);
      if (typeof pe === 'string') return JSON.stringify(v);
      // The item's identity: its key fields' values (their names are the type's) or its value.
      const id = pe.kind === 'key' ? JSON.stringify(pe.fields) : pe.kind === 'value' ? JSON.stringify(pe.value) : `i${pe.kind === 'index' ? pe.index : ''}`;
      out += `${id}=${typedShapeOf(v[i], t.elem)},`;
    }
    return `${out}]`;
  }
  switch (typeof v) {
    case 'string':
      return v === '' ? 'e' : 's';
    case 'number':
      return v === 0 ? 'z' : 'n';
    case 'boolean':
      return v ? 't' : 'f';
    default:
      return '?';
  }
}

// Field names are mostly plain: quoted as they are, the rest as JSON.
const PLAIN_KEY = /^[\w./-]*$/;

function quotedKey(k: string): string {
  return PLAIN_KEY.test(k) ? `"${k}"` : JSON.stringify(k);
}
