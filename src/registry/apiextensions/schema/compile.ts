// The compiled form of one CRD version's schema for the request path: validation, pruning and defaulting walk a
// tree built once (see compiled-node.ts), and the SchemaNode the rest of the server reads.

import type { FieldError } from '../../../apis/errors.ts';
import type { SchemaNode } from '../../../apis/model-types.ts';
import type { JSONSchemaProps } from '../json-schema-props.ts';
import { compileNode, type CompiledNode } from './compiled-node.ts';
import { applyDefaults, pruneNonNullableNullsWithoutDefaults } from './defaulting.ts';
import { validateEmbeddedResources } from './embedded-resources.ts';
import { isPlainObject } from './go-values.ts';
import { validateListSetsAndMaps } from './list-invariants.ts';
import { validateAgainst } from './openapi-validate.ts';
import { pruneUnknown } from './prune.ts';
import { toSchemaNode } from './schema-node.ts';

export interface CompiledSchema {
  /**
   * Schema errors of a custom resource with kube's messages and paths: the OpenAPI validation (constraints the
   * schema puts on metadata.name/generateName included), then embedded resources' apiVersion/kind/metadata,
   * then list-type set/map uniqueness. The custom resource's ObjectMeta itself is the store's check.
   */
  validate(obj: unknown): FieldError[];
  /**
   * The same on update, ratcheting as kube 1.31 does: schema errors of values equal to their old value (fields
   * by name, list-type=map items by key) are dropped, and list-set/map duplicates are reported only when the
   * old object had none.
   */
  validateUpdate(obj: unknown, old: unknown): FieldError[];
  /** Drops unknown fields in place; returns the pruned paths sorted ("spec.foo", "spec.items[0].bar"). */
  prune(obj: unknown): string[];
  /** Applies schema defaults in place (non-nullable nulls without a default dropped, with a default replaced). */
  applyDefaults(obj: unknown): void;
  readonly node: SchemaNode;
  /** The compiled tree (for the CEL rules and other walkers that need the same view). */
  readonly root: CompiledNode;
}

export function compileSchema(schema: JSONSchemaProps): CompiledSchema {
  const root = compileNode(schema);
  let node: SchemaNode | undefined;
  return {
    root,
    get node(): SchemaNode {
      node ??= toSchemaNode(schema);
      return node;
    },
    validate(obj: unknown): FieldError[] {
      const errs = validateAgainst(root, obj);
      if (isPlainObject(obj)) {
        if (root.hasEmbedded) errs.push(...validateEmbeddedResources(root, obj));
        if (root.hasListInvariants) errs.push(...validateListSetsAndMaps(root, obj));
      }
      return errs;
    },
    validateUpdate(obj: unknown, old: unknown): FieldError[] {
      const errs = validateAgainst(root, obj, undefined, old);
      if (isPlainObject(obj)) {
        if (root.hasEmbedded) errs.push(...validateEmbeddedResources(root, obj));
        if (root.hasListInvariants && !(isPlainObject(old) && validateListSetsAndMaps(root, old).length > 0)) {
          errs.push(...validateListSetsAndMaps(root, obj));
        }
      }
      return errs;
    },
    prune(obj: unknown): string[] {
      return pruneUnknown(obj, root);
    },
    applyDefaults(obj: unknown): void {
      pruneNonNullableNullsWithoutDefaults(obj, root);
      applyDefaults(obj, root);
    },
  };
}
