// The shape kube-apiserver's field manager sees for a built-in object: a Go struct turned into a value.
// Optional fields that are null or empty lists/maps disappear (omitempty), required fields are always there
// (nil lists/maps/pointers as null), and non-pointer struct fields are always there (as {} at least).
// Comparing these views instead of raw JSON makes "." (the container itself) appear in managedFields exactly
// where kube records it, e.g. no "." on f:spec or f:template of a created Deployment.

import type { SchemaNode } from '../apis/model-types.ts';
import { schemaByName } from '../apis/model.ts';
import type { ResourceDefinition } from '../registry/types.ts';
import { isValueMap, type Value, type ValueMap } from './typed-values.ts';

/** Struct-typed fields that are Go values (not pointers) although optional, by definition. */
const VALUE_STRUCT_FIELDS: Record<string, readonly string[]> = {
  'io.k8s.api.core.v1.PodTemplateSpec': ['metadata', 'spec'],
  'io.k8s.api.batch.v1.JobTemplateSpec': ['metadata', 'spec'],
  'io.k8s.api.apps.v1.DeploymentSpec': ['strategy'],
  'io.k8s.api.apps.v1.StatefulSetSpec': ['updateStrategy'],
  'io.k8s.api.apps.v1.DaemonSetSpec': ['updateStrategy'],
  'io.k8s.api.core.v1.Container': ['resources'],
  'io.k8s.api.core.v1.EphemeralContainer': ['resources'],
  'io.k8s.api.core.v1.PersistentVolumeClaimSpec': ['resources'],
  'io.k8s.api.core.v1.Event': ['source'],
  'io.k8s.api.core.v1.NodeStatus': ['daemonEndpoints', 'nodeInfo'],
  'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.CustomResourceDefinitionStatus': ['acceptedNames'],
};

/**
 * Optional list fields whose json tag has no omitempty, by definition: a nil one is there as null, an empty one as
 * [] (a new CRD's status.conditions is null until the controllers set it, so their first write adds no "." for it).
 */
const NO_OMITEMPTY_FIELDS: Record<string, readonly string[]> = {
  'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.CustomResourceDefinitionStatus': ['conditions', 'storedVersions'],
};

/** Top-level value structs of every built-in kind. */
const ROOT_VALUE_FIELDS = ['metadata', 'spec', 'status'];

const POINTER_STRUCTS = new Set(['io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelector']);

interface Resolved {
  node: SchemaNode;
  name: string | undefined;
}

type Lookup = (name: string) => SchemaNode | undefined;

function resolve(node: SchemaNode, lookup: Lookup): Resolved {
  let name: string | undefined;
  let n = node;
  for (let i = 0; i < 8 && n.ref !== undefined; i++) {
    name = n.ref;
    const target = lookup(n.ref);
    if (!target) break;
    n = target;
  }
  return { node: n, name };
}

function isStruct(n: SchemaNode): boolean {
  return n.type === 'object' && n.properties !== undefined;
}

function isGoMap(n: SchemaNode): boolean {
  return n.type === 'object' && n.properties === undefined && n.additionalProperties !== undefined && n.additionalProperties !== false;
}

/** The value a missing required or value-struct field has in Go's zero object; undefined: leave it out. */
function zeroOf(prop: SchemaNode, lookup: Lookup): Value {
  const r = resolve(prop, lookup);
  if (r.name && POINTER_STRUCTS.has(r.name)) return null;
  if (isStruct(r.node)) return view({}, r, lookup, false);
  if (r.node.type === 'array' || isGoMap(r.node)) return null;
  return undefined;
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
  const required = new Set(n.required ?? []);
  const kept = (r.name && NO_OMITEMPTY_FIELDS[r.name]) || [];
  const out: ValueMap = {};
  for (const [k, val] of Object.entries(v)) {
    if (val === undefined) continue;
    const prop = props[k];
    if (!prop) {
      out[k] = val;
      continue;
    }
    const pr = resolve(prop, lookup);
    if (!required.has(k) && !kept.includes(k)) {
      if (val === null) continue;
      if (Array.isArray(val) && val.length === 0) continue;
      if (isGoMap(pr.node) && isValueMap(val) && Object.keys(val).length === 0) continue;
    }
    out[k] = view(val, pr, lookup, false);
  }
  const valueStructs = root ? ROOT_VALUE_FIELDS : r.name ? VALUE_STRUCT_FIELDS[r.name] ?? [] : [];
  for (const k of [...required, ...valueStructs, ...kept]) {
    if (Object.hasOwn(out, k) || !props[k]) continue;
    const zero = zeroOf(props[k], lookup);
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
