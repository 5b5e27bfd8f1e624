// The validation options a CRD update takes from the stored CRD (apiextensions validation.go's requireX helpers):
// a rule the old CRD already broke is not enforced on its update, so CRDs written by older servers stay writable.

import type { FieldError } from '../../../apis/errors.ts';
import { cloneJson } from '../../../apis/json-clone.ts';
import type { JSONSchemaProps } from '../json-schema-props.ts';
import { compileNode } from './compiled-node.ts';
import { mapListKeysMapSet, OPENAPI_V3_TYPES } from './crd-schema-validation.ts';
import { jsonEqual } from './go-values.ts';
import { pruneValue } from './prune.ts';
import { structuralConversionError, validateStructural } from './structural.ts';

const isSchema = (v: unknown): v is JSONSchemaProps => v !== null && typeof v === 'object' && !Array.isArray(v);

/** SchemaHas: whether the predicate holds anywhere in the schema, junctors, definitions and dependencies included. */
export function schemaHas(s: JSONSchemaProps | undefined, pred: (s: JSONSchemaProps) => boolean): boolean {
  if (!isSchema(s)) return false;
  if (pred(s)) return true;
  const nested: unknown[] = [
    ...(Array.isArray(s.items) ? s.items : [s.items]),
    ...(s.allOf ?? []),
    ...(s.anyOf ?? []),
    ...(s.oneOf ?? []),
    s.not,
    ...Object.values(s.properties ?? {}),
    s.additionalProperties,
    ...Object.values(s.patternProperties ?? {}),
    s.additionalItems,
    ...Object.values(s.definitions ?? {}),
    ...Object.values(s.dependencies ?? {}),
  ];
  return nested.some((n) => isSchema(n) && schemaHas(n, pred));
}

export const hasDefaults = (s: JSONSchemaProps | undefined): boolean => schemaHas(s, (n) => n.default !== undefined && n.default !== null);

/** schemaHasKubernetesExtensions: any x-kubernetes-* extension that needs a structural schema. */
export const hasKubernetesExtensions = (s: JSONSchemaProps | undefined): boolean =>
  schemaHas(
    s,
    (n) =>
      n['x-kubernetes-embedded-resource'] === true ||
      n['x-kubernetes-preserve-unknown-fields'] !== undefined ||
      n['x-kubernetes-int-or-string'] === true ||
      (n['x-kubernetes-list-map-keys']?.length ?? 0) > 0 ||
      n['x-kubernetes-list-type'] !== undefined ||
      (n['x-kubernetes-validations']?.length ?? 0) > 0,
  );

const hasInvalidType = (s: JSONSchemaProps | undefined): boolean => schemaHas(s, (n) => !!n.type && !OPENAPI_V3_TYPES.includes(n.type));

function isNonStructural(s: JSONSchemaProps | undefined): boolean {
  if (!isSchema(s)) return false;
  return structuralConversionError(s) !== undefined || validateStructural(s, '').length > 0;
}

/** x-kubernetes-list-type=set whose items are not atomic. */
const hasNonAtomicSetType = (s: JSONSchemaProps | undefined): boolean =>
  schemaHas(s, (n) => {
    const items = isSchema(n.items) ? n.items : undefined;
    if (n['x-kubernetes-list-type'] !== 'set' || !items) return false;
    if (items.type === 'array') return items['x-kubernetes-list-type'] !== undefined && items['x-kubernetes-list-type'] !== 'atomic';
    if (items.type === 'object') return items['x-kubernetes-map-type'] !== 'atomic';
    return false;
  });

const hasInvalidMapListKeysMapSet = (s: JSONSchemaProps | undefined): boolean =>
  schemaHas(s, (n) => {
    const errs: FieldError[] = [];
    mapListKeysMapSet(n, '', errs);
    return errs.length > 0;
  });

/** A default that pruning changes, somewhere in a structural schema (schemaHasUnprunedDefaults). */
function hasUnprunedDefaults(s: JSONSchemaProps | undefined): boolean {
  if (!hasDefaults(s) || isNonStructural(s)) return false;
  const walk = (n: JSONSchemaProps): boolean => {
    if (n.default !== undefined && n.default !== null) {
      const pruned = cloneJson(n.default);
      pruneValue(pruned, compileNode(n));
      if (!jsonEqual(pruned, n.default)) return true;
    }
    if (isSchema(n.items) && walk(n.items)) return true;
    if (isSchema(n.additionalProperties) && walk(n.additionalProperties)) return true;
    return Object.values(n.properties ?? {}).some((p) => isSchema(p) && walk(p));
  };
  return walk(s as JSONSchemaProps);
}

export interface SchemaRatchets {
  requireOpenAPISchema: boolean;
  requireValidPropertyType: boolean;
  requireStructural: boolean;
  requirePrunedDefaults: boolean;
  requireAtomicSetType: boolean;
  requireMapListKeysMapSetValidation: boolean;
}

/** Every rule required, as on create. */
export const STRICT_RATCHETS: SchemaRatchets = {
  requireOpenAPISchema: true,
  requireValidPropertyType: true,
  requireStructural: true,
  requirePrunedDefaults: true,
  requireAtomicSetType: true,
  requireMapListKeysMapSetValidation: true,
};

/** The options of ValidateCustomResourceDefinitionUpdate, from the stored CRD's schemas (one per version). */
export function ratchetsFromOld(oldSchemas: readonly (JSONSchemaProps | undefined)[]): SchemaRatchets {
  const any = (pred: (s: JSONSchemaProps | undefined) => boolean) => oldSchemas.some(pred);
  return {
    requireOpenAPISchema: oldSchemas.every(isSchema),
    requireValidPropertyType: !any(hasInvalidType),
    requireStructural: !any(isNonStructural),
    requirePrunedDefaults: !any(hasUnprunedDefaults),
    requireAtomicSetType: !any(hasNonAtomicSetType),
    requireMapListKeysMapSetValidation: !any(hasInvalidMapListKeysMapSet),
  };
}
