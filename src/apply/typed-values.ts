// Helpers shared by the typed walkers (structured-merge-diff typed/helpers.go): choosing which part of a type
// applies to a value, and naming list items by their path element.

import type { JsonValue, PathElement } from './path-element.ts';
import { keyElement } from './path-element.ts';
import type { Atom, ListAtom, MapAtom, ScalarKind } from './schema.ts';

/** A JSON value; undefined is "absent" (as opposed to an explicit null). */
export type Value = unknown;

export type ValueMap = Record<string, unknown>;

export function isValueMap(v: unknown): v is ValueMap {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function isScalar(v: unknown): boolean {
  return typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean';
}

/** deduceAtom: the part of the type that fits the value, or the whole type when none does (or no value). */
export function deduceAtom(atom: Atom, v: Value): Atom {
  if (v === undefined || v === null) return atom;
  if (isScalar(v)) return atom.scalar !== undefined ? narrowed(atom).scalar : atom;
  if (Array.isArray(v)) return atom.list ? narrowed(atom).list : atom;
  if (isValueMap(v)) return atom.map ? narrowed(atom).map : atom;
  return atom;
}

interface Parts {
  readonly scalar: Atom;
  readonly list: Atom;
  readonly map: Atom;
}

// Each part of an atom is made once: walks deduce at every level of every object.
const parts = new WeakMap<Atom, Parts>();

function narrowed(atom: Atom): Parts {
  let p = parts.get(atom);
  if (!p) {
    const only = (part: Atom): Atom => (sameAtom(part, atom) ? atom : part);
    p = { scalar: only({ scalar: atom.scalar }), list: only({ list: atom.list }), map: only({ map: atom.map }) };
    parts.set(atom, p);
  }
  return p;
}

export function sameAtom(a: Atom, b: Atom): boolean {
  return a.scalar === b.scalar && a.list === b.list && a.map === b.map;
}

export interface AtomHandler {
  scalar(t: ScalarKind): void;
  list(t: ListAtom): void;
  map(t: MapAtom): void;
}

/** handleAtom: maps first, then scalars, then lists. Returns false for a type with none of them. */
export function handleAtom(a: Atom, h: AtomHandler): boolean {
  if (a.map) h.map(a.map);
  else if (a.scalar !== undefined) h.scalar(a.scalar);
  else if (a.list) h.list(a.list);
  else return false;
  return true;
}

/** The list behind a value: undefined for null, absent or non-list values (listValue, errors ignored). */
export function asList(v: Value): unknown[] | undefined {
  return Array.isArray(v) ? v : undefined;
}

export function asMap(v: Value): ValueMap | undefined {
  return isValueMap(v) ? v : undefined;
}

/** listItemToPathElement: the item's key, set value or index; a string is the error. */
export function listItemPathElement(t: ListAtom, index: number, item: Value): PathElement | string {
  if (t.atomic) return { kind: 'index', index };
  if (t.keys.length > 0) {
    if (item === null) return 'associative list with keys may not have a null element';
    if (!isValueMap(item)) return 'associative list with keys may not have non-map elements';
    const fields: [string, JsonValue][] = [];
    for (const name of t.keys) {
      if (Object.hasOwn(item, name) && item[name] !== undefined) {
        fields.push([name, item[name] as JsonValue]);
        continue;
      }
      const elem = t.elem.atom;
      if (!elem.map) return `couldn't find default value for ${name}: associative list may not have non-map types`;
      const def = elem.map.fields.get(name)?.default;
      if (def === undefined || def === null) {
        return `associative list with keys has an element that omits key field ${JSON.stringify(name)} (and doesn't have default value)`;
      }
      fields.push([name, def as JsonValue]);
    }
    return keyElement(fields);
  }
  if (isValueMap(item)) return "associative list without keys has an element that's a map type";
  if (Array.isArray(item)) return 'not supported: associative list with lists as elements';
  if (item === null) return "associative list without keys has an element that's an explicit null";
  return { kind: 'value', value: item as JsonValue };
}
