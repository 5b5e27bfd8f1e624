// The merge schema of a resource: the OpenAPI schema of its kind converted the way kube-openapi's schemaconv
// (ToSchemaFromOpenAPI) converts it for structured-merge-diff. Each type is an "atom": a scalar, a list
// (atomic, or associative: a set or a map keyed by fields) and/or a map (a struct with named fields and/or
// free-form elements; atomic or granular). Types are resolved lazily so recursive schemas work.

import type { SchemaNode } from '../apis/model-types.ts';
import { schemaByName } from '../apis/model.ts';
import type { ResourceDefinition } from '../registry/types.ts';

export type ScalarKind = 'string' | 'numeric' | 'boolean' | 'untyped';

export interface ListAtom {
  readonly elem: TypeRef;
  readonly atomic: boolean;
  /** Keys of an associative list of maps; empty for a set of scalars (or an atomic list). */
  readonly keys: readonly string[];
}

export interface FieldInfo {
  readonly type: TypeRef;
  /** The schema default, used for associative-list keys an item omits. */
  readonly default: unknown;
}

export interface MapAtom {
  readonly fields: ReadonlyMap<string, FieldInfo>;
  /** The type of keys that are not named fields; undefined: such keys are not declared in the schema. */
  readonly elem: TypeRef | undefined;
  readonly atomic: boolean;
}

export interface Atom {
  readonly scalar?: ScalarKind;
  readonly list?: ListAtom;
  readonly map?: MapAtom;
}

export interface TypeRef {
  readonly atom: Atom;
}

class LazyType implements TypeRef {
  private cached: Atom | undefined;
  private readonly make: () => Atom;
  constructor(make: () => Atom) {
    this.make = make;
  }
  get atom(): Atom {
    this.cached ??= this.make();
    return this.cached;
  }
}

function fixed(atom: Atom): TypeRef {
  return { atom };
}

// "__untyped_atomic_": anything, always a leaf.
export const UNTYPED: TypeRef = new LazyType(() => ({
  scalar: 'untyped',
  list: { elem: UNTYPED, atomic: true, keys: [] },
  map: { fields: new Map(), elem: UNTYPED, atomic: true },
}));

// "__untyped_deduced_": scalars are leaves, lists atomic, maps granular with deduced values.
export const DEDUCED: TypeRef = new LazyType(() => ({
  scalar: 'untyped',
  list: { elem: UNTYPED, atomic: true, keys: [] },
  map: { fields: new Map(), elem: DEDUCED, atomic: false },
}));

const QUANTITY = 'io.k8s.apimachinery.pkg.api.resource.Quantity';
const RAW_EXTENSION = 'io.k8s.apimachinery.pkg.runtime.RawExtension';
const OBJECT_META = 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta';

/**
 * Defaults of associative-list key fields of built-in types (+default markers in the Go types that the served
 * OpenAPI document leaves out): an item that omits the key is keyed by the default.
 */
const BUILTIN_KEY_DEFAULTS: Record<string, Record<string, unknown>> = {
  'io.k8s.api.core.v1.ContainerPort': { protocol: 'TCP' },
  'io.k8s.api.core.v1.ServicePort': { protocol: 'TCP' },
};

function listRelationship(node: SchemaNode): { atomic: boolean; keys: string[] } {
  if (node.listType !== undefined) {
    if (node.listType === 'set') return { atomic: false, keys: [] };
    if (node.listType === 'map') return { atomic: false, keys: [...(node.listMapKeys ?? [])] };
    return { atomic: true, keys: [] };
  }
  if (node.patchStrategy === 'merge' || node.patchStrategy === 'merge,retainKeys') {
    return { atomic: false, keys: node.patchMergeKey ? [node.patchMergeKey] : [] };
  }
  return { atomic: true, keys: [] };
}

function scalarOf(type: string, format: string | undefined): ScalarKind {
  switch (type) {
    case 'integer':
    case 'number':
      return 'numeric';
    case 'boolean':
      return 'boolean';
    case 'string':
      return !format || format === 'byte' ? 'string' : 'untyped';
    default:
      return 'untyped';
  }
}

class Resolver {
  private readonly named = new Map<string, TypeRef>();
  private readonly inline: [WeakMap<SchemaNode, TypeRef>, WeakMap<SchemaNode, TypeRef>] = [new WeakMap(), new WeakMap()];
  private readonly lookup: (name: string) => SchemaNode | undefined;

  constructor(lookup: (name: string) => SchemaNode | undefined) {
    this.lookup = lookup;
  }

  named_(name: string): TypeRef {
    let t = this.named.get(name);
    if (t) return t;
    if (name === QUANTITY) t = fixed({ scalar: 'untyped' });
    else if (name === RAW_EXTENSION) t = UNTYPED;
    else {
      const node = this.lookup(name);
      t = node ? new LazyType(() => this.parse(node, false, name)) : DEDUCED;
    }
    this.named.set(name, t);
    return t;
  }

  node(node: SchemaNode, preserve: boolean): TypeRef {
    const ref = node.ref ?? (node.allOf?.length === 1 ? node.allOf[0]!.ref : undefined);
    if (ref !== undefined) {
      const target = this.named_(ref);
      if (node.mapType === undefined) return target;
      const atomic = node.mapType === 'atomic';
      return new LazyType(() => {
        const a = target.atom;
        return a.map ? { ...a, map: { ...a.map, atomic } } : a;
      });
    }
    const cache = this.inline[preserve ? 1 : 0];
    let t = cache.get(node);
    if (!t) {
      t = new LazyType(() => this.parse(node, preserve, undefined));
      cache.set(node, t);
    }
    return t;
  }

  private parse(node: SchemaNode, inherited: boolean, defName: string | undefined): Atom {
    const preserve = inherited || node.preserveUnknownFields === true;
    switch (node.type) {
      case undefined:
        return { scalar: 'untyped', list: this.list(node, preserve), map: this.object(node, preserve, defName) };
      case 'object':
        return { map: this.object(node, preserve, defName) };
      case 'array':
        return { list: this.list(node, preserve) };
      default:
        return { scalar: scalarOf(node.type, node.format) };
    }
  }

  private object(node: SchemaNode, preserve: boolean, defName: string | undefined): MapAtom {
    const fields = new Map<string, FieldInfo>();
    const keyDefaults = defName ? BUILTIN_KEY_DEFAULTS[defName] : undefined;
    const props = node.properties ?? {};
    for (const [name, prop] of Object.entries(props)) {
      fields.set(name, { type: this.node(prop, preserve), default: prop.default ?? keyDefaults?.[name] });
    }
    let elem: TypeRef | undefined;
    const ap = node.additionalProperties;
    if (ap === undefined) elem = preserve || fields.size === 0 ? DEDUCED : undefined;
    else if (ap === true) elem = DEDUCED;
    else if (ap === false) elem = undefined;
    else elem = this.node(ap, preserve);
    return { fields, elem, atomic: node.mapType === 'atomic' };
  }

  private list(node: SchemaNode, preserve: boolean): ListAtom {
    const rel = listRelationship(node);
    return { elem: node.items ? this.node(node.items, preserve) : UNTYPED, atomic: rel.atomic, keys: rel.keys };
  }
}

const roots = new WeakMap<ResourceDefinition, TypeRef>();

/**
 * The merge type of a definition's objects. `metadata` is always ObjectMeta and `apiVersion`/`kind` strings,
 * as for CRDs, whose published schema kube builds with those fields.
 */
export function rootTypeOf(def: ResourceDefinition): TypeRef {
  let t = roots.get(def);
  if (t) return t;
  const resolver = new Resolver((name) => def.resolveRef(name) ?? schemaByName(name));
  const base = resolver.node(def.schema, false);
  t = new LazyType(() => {
    const a = base.atom;
    const fields = new Map(a.map?.fields ?? []);
    fields.set('metadata', { type: resolver.named_(OBJECT_META), default: undefined });
    for (const f of ['apiVersion', 'kind']) if (!fields.has(f)) fields.set(f, { type: fixed({ scalar: 'string' }), default: undefined });
    return { map: { fields, elem: a.map?.elem, atomic: false } };
  });
  roots.set(def, t);
  return t;
}
