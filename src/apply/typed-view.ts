// The shape kube-apiserver's field manager sees for a built-in object: a Go struct turned into a value.
// omitempty fields that are null or empty lists/maps disappear, fields without omitempty are always there (nil
// lists/maps/pointers as null), and non-pointer struct fields are always there (as {} at least): the Go field facts
// (apis/go-fields.ts) tell which is which; a struct without them goes by the schema's required list.
// Comparing these views instead of raw JSON makes "." (the container itself) appear in managedFields exactly
// where kube records it, e.g. no "." on f:spec or f:template of a created Deployment.

import { goFieldsOf } from '../apis/go-fields.ts';
import type { SchemaNode } from '../apis/model-types.ts';
import { followRefs, schemaByName } from '../apis/model.ts';
import type { ResourceDefinition } from '../registry/types.ts';
import { isValueMap, type Value, type ValueMap } from './typed-values.ts';

/** Top-level value structs of every built-in kind. */
const ROOT_VALUE_FIELDS = ['metadata', 'spec', 'status'];

type Resolved = ReturnType<typeof followRefs>;

type Lookup = (name: string) => SchemaNode | undefined;

const resolve = followRefs;

function isStruct(n: SchemaNode): boolean {
  return n.type === 'object' && n.properties !== undefined;
}

function isGoMap(n: SchemaNode): boolean {
  return n.type === 'object' && n.properties === undefined && n.additionalProperties !== undefined && n.additionalProperties !== false;
}

/** The value a missing field without omitempty (or a value struct) has in Go's zero object; undefined: leave it out. */
function zeroOf(prop: SchemaNode, lookup: Lookup, code: string | undefined): Value {
  if (code === 'p') return null;
  const r = resolve(prop, lookup);
  if (isStruct(r.node)) return view({}, r, lookup, false);
  if (r.node.type === 'array' || isGoMap(r.node)) return null;
  return undefined;
}

const written = new Map<string, ReadonlySet<string>>();

/** The fields whose zero Go's encoding writes: those without omitempty, and the struct values. */
function writtenFields(name: string, codes: ReadonlyMap<string, string>): ReadonlySet<string> {
  let fields = written.get(name);
  if (!fields) {
    fields = new Set([...codes].filter(([, c]) => !c.endsWith('?')).map(([k]) => k));
    written.set(name, fields);
  }
  return fields;
}

function view(v: Value, r: Resolved, lookup: Lookup, root: boolean): Value {
  const n = r.node;
  if (Array.isArray(v)) {
    if (n.type !== 'array' || !n.items) return v;
    const items = resolve(n.items, lookup);
    return v.map((item) => view(item, items, lookup, false));
  }
  if (!isValueMap(v)) return v;
  if (isGoMap(n) && typeof n.additionalProperties === 'object') {
    const elem = resolve(n.additionalProperties, lookup);
    const out: ValueMap = {};
    for (const [k, val] of Object.entries(v)) if (val !== undefined) out[k] = view(val, elem, lookup, false);
    return out;
  }
  if (!isStruct(n)) return v;
  const props = n.properties!;
  const codes = r.name ? goFieldsOf(r.name) : undefined;
  const kept = codes ? writtenFields(r.name!, codes) : new Set(n.required ?? []);
  const out: ValueMap = {};
  for (const [k, val] of Object.entries(v)) {
    if (val === undefined) continue;
    const prop = props[k];
    if (!prop) {
      out[k] = val;
      continue;
    }
    const pr = resolve(prop, lookup);
    if (!kept.has(k) || codes?.get(k) === 'o') {
      if (val === null) continue;
      if (Array.isArray(val) && val.length === 0) continue;
      if (isGoMap(pr.node) && isValueMap(val) && Object.keys(val).length === 0) continue;
    }
    out[k] = view(val, pr, lookup, false);
  }
  for (const k of root ? [...kept, ...ROOT_VALUE_FIELDS] : kept) {
    if (Object.hasOwn(out, k) || !props[k]) continue;
    const zero = zeroOf(props[k], lookup, codes?.get(k));
    if (zero !== undefined) out[k] = zero;
  }
  return out;
}

/** The typed view of an object of a built-in definition; custom resources are compared as they are. */
export function typedView(obj: Value, def: ResourceDefinition): Value {
  if (def.custom) return obj;
  const lookup: Lookup = (name) => def.resolveRef(name) ?? schemaByName(name);
  return view(obj, resolve(def.schema, lookup), lookup, true);
}
