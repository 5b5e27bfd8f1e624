// ObjectMeta of embedded resources round-trips through the typed struct in kube (objectmeta/coerce.go:
// GetObjectMetaWithOptions then SetObjectMeta), so fields ObjectMeta does not know disappear and are reported
// as unknown fields ("spec.template.metadata.foo"). Known fields are those of META_DEFINITIONS.

import type { SchemaNode } from '../../../apis/model-types.ts';
import { META_DEFINITIONS, OBJECT_META_REF } from '../../validation/object-meta-schema.ts';
import { isPlainObject } from './go-values.ts';

function resolve(n: SchemaNode): SchemaNode {
  return n.ref ? (META_DEFINITIONS[n.ref] ?? {}) : n;
}

function walk(v: unknown, node: SchemaNode, path: string, unknown: string[]): void {
  const n = resolve(node);
  if (Array.isArray(v)) {
    if (n.items) v.forEach((x, i) => walk(x, n.items as SchemaNode, `${path}[${i}]`, unknown));
    return;
  }
  if (!isPlainObject(v)) return;
  if (n.properties) {
    for (const k of Object.keys(v)) {
      const p = n.properties[k];
      if (p) walk(v[k], p, `${path}.${k}`, unknown);
      else {
        unknown.push(`${path}.${k}`);
        delete v[k];
      }
    }
  } else if (typeof n.additionalProperties === 'object') {
    for (const k of Object.keys(v)) walk(v[k], n.additionalProperties, `${path}.${k}`, unknown);
  }
}

/** Drops the fields ObjectMeta does not know from `metadata` (at `path`); returns their paths. */
export function pruneObjectMeta(metadata: unknown, path: string): string[] {
  const unknown: string[] = [];
  walk(metadata, { ref: OBJECT_META_REF }, path, unknown);
  return unknown;
}
