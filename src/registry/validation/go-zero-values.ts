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

/** A struct's filler: its missing fields' zeros, then what its present fields hold. */
function fieldsFiller(name: string | undefined, node: SchemaNode): Filler {
  const props = node.properties ?? {};
  const codes = name !== undefined ? goFieldsOf(name) : undefined;
  const zeros: Array<[string, () => unknown]> = [];
  for (const [key, code] of codes ?? []) {
    const prop = Object.hasOwn(props, key) ? props[key] : undefined;
    const zero = prop && zeroMaker(prop, code);
    if (zero) zeros.push([key, zero]);
  }
  const children = new Map<string, Filler>();
  for (const [key, prop] of Object.entries(props)) {
    const f = fillerOf(prop);
    if (f !== NOTHING) children.set(key, f);
  }
  if (zeros.length === 0 && children.size === 0) return NOTHING;
  return (v) => {
    if (!isObject(v)) return;
    for (const [key, zero] of zeros) if (v[key] === undefined) v[key] = zero();
    for (const [key, f] of children) {
      const child = v[key];
      if (child !== undefined && child !== null) f(child);
    }
  };
}

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
      const fill = fillerOf(prop);
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

const roots = new Map<string, Filler>();

/**
 * Adds, in place, the fields Go's encoding would write for a built-in object of the kind and version it names
 * (what the model has no definition of, a custom resource's, is left alone).
 */
export function fillGoZeroValues(obj: KubeObject): void {
  const { apiVersion, kind } = obj;
  if (typeof apiVersion !== 'string' || typeof kind !== 'string') return;
  const key = `${apiVersion}/${kind}`;
  let fill = roots.get(key);
  if (!fill) {
    const slash = apiVersion.indexOf('/');
    const name = schemaNameForKind(slash < 0 ? '' : apiVersion.slice(0, slash), apiVersion.slice(slash + 1), kind);
    const node = name !== undefined ? schemaByName(name) : undefined;
    fill = name !== undefined && node ? structFiller(name, node) : NOTHING;
    roots.set(key, fill);
  }
  fill(obj);
}
