// The fields Go's encoding writes even when a built-in object leaves them out. kube-apiserver decodes every write
// into its typed object and stores that object's encoding, so a field without omitempty is always there: a nil
// list, map or pointer and a zero time as null, a scalar as its zero (`reportingComponent: ""`, `desiredReplicas:
// 0`), a struct value as {} with its own such fields (`status: {loadBalancer: {}}`, a template's `metadata:
// {creationTimestamp: null}`), a Quantity as "0" and an IntOrString as 0. The facts come from apis/go-fields.ts;
// a struct without them is left as it is. Custom resources keep what they were sent.

import { goFieldsOf, type GoFieldCode } from '../../apis/go-fields.ts';
import type { SchemaNode } from '../../apis/model-types.ts';
import { followRefs as resolve, schemaByName, schemaNameForKind } from '../../apis/model.ts';
import type { KubeObject } from '../types.ts';

const QUANTITY = 'io.k8s.apimachinery.pkg.api.resource.Quantity';
const INT_OR_STRING = 'io.k8s.apimachinery.pkg.util.intstr.IntOrString';
const RAW_EXTENSION = 'io.k8s.apimachinery.pkg.runtime.RawExtension';

/** Fills, in place, what a value of one schema node leaves out. */
type Filler = (value: unknown) => void;

function isStruct(n: SchemaNode): boolean {
  return n.properties !== undefined;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

const NOTHING: Filler = () => {};

/** What one pass does to a struct's own fields, given its Go facts and schema properties (NOTHING for nothing). */
type StructStep = (codes: ReadonlyMap<string, GoFieldCode> | undefined, props: Record<string, SchemaNode>) => Filler;

/** A pass over built-in objects: a struct step run on every struct with Go facts, wherever it sits. */
interface Pass {
  fillerOf(node: SchemaNode): Filler;
  structFiller(name: string, node: SchemaNode): Filler;
}

function makePass(step: StructStep): Pass {
  /** Fillers by schema node: the model's nodes live as long as the process. */
  const fillers = new WeakMap<SchemaNode, Filler>();
  const structFillers = new Map<string, Filler>();

  /** The filler of a value the node describes; NOTHING where no struct with facts can be below. */
  function fillerOf(node: SchemaNode): Filler {
    const known = fillers.get(node);
    if (known) return known;
    // Set before building: the schema is recursive (JSONSchemaProps, for one).
    let built: Filler = NOTHING;
    fillers.set(node, (v) => built(v));
    const r = resolve(node);
    const n = r.node;
    if (n.type === 'array' && n.items) {
      const item = fillerOf(n.items);
      if (item !== NOTHING) built = (v) => Array.isArray(v) && v.forEach(item);
    } else if (isStruct(n)) {
      built = r.name !== undefined ? structFiller(r.name, n) : fieldsFiller(undefined, n);
    } else if (typeof n.additionalProperties === 'object') {
      const value = fillerOf(n.additionalProperties);
      if (value !== NOTHING) built = (v) => isObject(v) && Object.values(v).forEach(value);
    }
    fillers.set(node, built);
    return built;
  }

  function structFiller(name: string, node: SchemaNode): Filler {
    const known = structFillers.get(name);
    if (known) return known;
    let built: Filler = NOTHING;
    structFillers.set(name, (v) => built(v));
    built = fieldsFiller(name, node);
    structFillers.set(name, built);
    return built;
  }

  /** A struct's filler: the step on its own fields, then what its present fields hold. */
  function fieldsFiller(name: string | undefined, node: SchemaNode): Filler {
    const props = node.properties ?? {};
    const own = step(name !== undefined ? goFieldsOf(name) : undefined, props);
    const children = new Map<string, Filler>();
    for (const [key, prop] of Object.entries(props)) {
      const f = fillerOf(prop);
      if (f !== NOTHING) children.set(key, f);
    }
    if (own === NOTHING && children.size === 0) return NOTHING;
    return (v) => {
      if (!isObject(v)) return;
      own(v);
      for (const [key, f] of children) {
        const child = v[key];
        if (child !== undefined && child !== null) f(child);
      }
    };
  }

  return { fillerOf, structFiller };
}

/** The zeros pass: a missing field gets the zero Go writes for it. */
const zeros: Pass = makePass((codes, props) => {
  const makers: Array<[string, () => unknown]> = [];
  for (const [key, code] of codes ?? []) {
    const prop = Object.hasOwn(props, key) ? props[key] : undefined;
    const zero = prop && zeroMaker(prop, code);
    if (zero) makers.push([key, zero]);
  }
  if (makers.length === 0) return NOTHING;
  return (v) => {
    const o = v as Record<string, unknown>;
    for (const [key, zero] of makers) if (o[key] === undefined) o[key] = zero();
  };
});

/**
 * The stored pass: kube-apiserver stores built-in objects as Protobuf, where an empty repeated field or map is not
 * written, so what it reads back (the create or update answer, gets, watches) holds nil there: an empty list or map
 * of a field without omitempty comes back null (an EndpointSlice without endpoints: `endpoints: null`, a Role made
 * with `rules: []`: `rules: null`). Base64 byte strings are not lists: they stay.
 */
const stored: Pass = makePass((codes) => {
  const lists: string[] = [];
  const maps: string[] = [];
  for (const [key, code] of codes ?? []) {
    if (code === 's') lists.push(key);
    else if (code === 'm') maps.push(key);
  }
  if (lists.length === 0 && maps.length === 0) return NOTHING;
  return (v) => {
    const o = v as Record<string, unknown>;
    for (const key of lists) {
      const value = o[key];
      if (Array.isArray(value) && value.length === 0) o[key] = null;
    }
    for (const key of maps) {
      const value = o[key];
      if (isObject(value) && Object.keys(value).length === 0) o[key] = null;
    }
  };
});

/** What makes the zero Go writes for a missing field of this code; undefined for one it leaves out. */
function zeroMaker(prop: SchemaNode, code: GoFieldCode): (() => unknown) | undefined {
  switch (code) {
    case 'p':
    case 's':
    case 'm':
    case 't':
      return () => null;
    case 'v': {
      const n = resolve(prop).node;
      if (n.type === 'string') return () => '';
      if (n.type === 'integer' || n.type === 'number') return () => 0;
      if (n.type === 'boolean') return () => false;
      return undefined;
    }
    case 'o': {
      const r = resolve(prop);
      if (r.name === QUANTITY) return () => '0';
      if (r.name === INT_OR_STRING) return () => 0;
      if (r.name === RAW_EXTENSION) return () => null;
      if (!isStruct(r.node)) return undefined;
      const fill = zeros.fillerOf(prop);
      return () => {
        const zero = {};
        fill(zero);
        return zero;
      };
    }
    default:
      return undefined;
  }
}

/** A pass's filler for the kind and version an object names (NOTHING for one the model has no definition of). */
function rootFiller(pass: Pass, roots: Map<string, Filler>, obj: KubeObject): Filler {
  const { apiVersion, kind } = obj;
  if (typeof apiVersion !== 'string' || typeof kind !== 'string') return NOTHING;
  const key = `${apiVersion}/${kind}`;
  let fill = roots.get(key);
  if (!fill) {
    const slash = apiVersion.indexOf('/');
    const name = schemaNameForKind(slash < 0 ? '' : apiVersion.slice(0, slash), apiVersion.slice(slash + 1), kind);
    const node = name !== undefined ? schemaByName(name) : undefined;
    fill = name !== undefined && node ? pass.structFiller(name, node) : NOTHING;
    roots.set(key, fill);
  }
  return fill;
}

const zeroRoots = new Map<string, Filler>();
const storedRoots = new Map<string, Filler>();

/**
 * Adds, in place, the fields Go's encoding would write for a built-in object of the kind and version it names
 * (what the model has no definition of, a custom resource's, is left alone).
 */
export function fillGoZeroValues(obj: KubeObject): void {
  rootFiller(zeros, zeroRoots, obj)(obj);
}

/**
 * Makes, in place, a built-in object what kube-apiserver reads back from its Protobuf storage: empty lists and maps
 * of fields without omitempty null (see `stored`). Run on what is about to be stored, after validation.
 */
export function asStoredByKube(obj: KubeObject): void {
  rootFiller(stored, storedRoots, obj)(obj);
}
