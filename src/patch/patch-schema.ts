// Patch metadata lookup over the schema model: the role strategicpatch.LookupPatchMeta plays in kube, where it
// reads the Go struct tags `patchStrategy` and `patchMergeKey`. The model carries the same facts as the
// x-kubernetes-patch-strategy / x-kubernetes-patch-merge-key markers. List types (x-kubernetes-list-type) do not
// take part: kube's strategic merge patch ignores them too.

import type { SchemaNode } from '../apis/model-types.ts';

export interface PatchMeta {
  /** "merge", "replace", "retainKeys" ... as listed in the field's patch strategy. */
  strategies: string[];
  mergeKey: string;
}

export type ResolveRef = (ref: string) => SchemaNode | undefined;

/** The type of one JSON object or list element in the document, or an unknown one (no metadata anywhere). */
export class PatchSchema {
  readonly node: SchemaNode | undefined;
  /** Go type name of the struct ("PodSpec"), for kube's error messages. */
  readonly typeName: string;
  private readonly resolveRef: ResolveRef;

  constructor(node: SchemaNode | undefined, resolveRef: ResolveRef, typeName = '') {
    this.resolveRef = resolveRef;
    const resolved = resolve(node, resolveRef);
    this.node = resolved.node;
    this.typeName = resolved.name || typeName;
  }

  /** Go's reflect Kind name of the type, as PatchMetaFromStruct.Name() reports it. */
  get kindName(): string {
    const n = this.node;
    if (!n) return 'interface';
    if (n.properties) return 'struct';
    if (n.type === 'object' || n.additionalProperties) return 'map';
    if (n.type === 'array') return 'slice';
    return n.type ?? 'interface';
  }

  /** A field's metadata and the schema of its object value. undefined: a struct without that field. */
  lookupStruct(key: string): { schema: PatchSchema; meta: PatchMeta } | undefined {
    const field = this.field(key);
    if (field === undefined) return undefined;
    if (field === null) return { schema: this.unknown(), meta: EMPTY_META };
    return { schema: new PatchSchema(field.node, this.resolveRef), meta: field.meta };
  }

  /** A field's metadata and the schema of its list elements. undefined: a struct without that field. */
  lookupSlice(key: string): { schema: PatchSchema; meta: PatchMeta } | undefined {
    const field = this.field(key);
    if (field === undefined) return undefined;
    if (field === null) return { schema: this.unknown(), meta: EMPTY_META };
    const list = resolve(field.node, this.resolveRef).node;
    if (!list || list.type !== 'array') return { schema: this.unknown(), meta: field.meta };
    return { schema: new PatchSchema(list.items, this.resolveRef), meta: field.meta };
  }

  /** null: a type without field information (maps of anything, preserved unknown fields, unknown types). */
  private field(key: string): { node: SchemaNode; meta: PatchMeta } | null | undefined {
    const n = this.node;
    if (!n) return null;
    const prop = n.properties?.[key];
    if (prop) return { node: prop, meta: metaOf(prop) };
    if (n.additionalProperties && typeof n.additionalProperties === 'object') {
      return { node: n.additionalProperties, meta: EMPTY_META };
    }
    if (n.properties && !n.preserveUnknownFields && n.additionalProperties !== true) return undefined;
    return null;
  }

  private unknown(): PatchSchema {
    return new PatchSchema(undefined, this.resolveRef);
  }
}

const EMPTY_META: PatchMeta = { strategies: [], mergeKey: '' };

function metaOf(node: SchemaNode): PatchMeta {
  return {
    strategies: node.patchStrategy ? node.patchStrategy.split(',') : [],
    mergeKey: node.patchMergeKey ?? '',
  };
}

/** Follows refs (and single-element allOf wrappers) to the node that describes the type. */
function resolve(node: SchemaNode | undefined, resolveRef: ResolveRef): { node: SchemaNode | undefined; name: string } {
  let name = '';
  let current = node;
  for (let hops = 0; current && hops < 32; hops++) {
    if (current.ref) {
      name = current.ref.slice(current.ref.lastIndexOf('.') + 1);
      current = resolveRef(current.ref);
      continue;
    }
    if (!current.properties && !current.type && current.allOf?.length === 1) {
      current = current.allOf[0];
      continue;
    }
    break;
  }
  return { node: current, name };
}
