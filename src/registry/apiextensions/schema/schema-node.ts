// A CRD schema as the project's SchemaNode (src/apis/model-types.ts), the shape apply, patch, OpenAPI
// publishing and explain read for built-in types as well.

import type { SchemaNode } from '../../../apis/model-types.ts';
import type { JSONSchemaProps } from '../json-schema-props.ts';

const SCHEMA_TYPES = new Set(['object', 'array', 'string', 'integer', 'number', 'boolean']);

export function toSchemaNode(s: JSONSchemaProps): SchemaNode {
  const n: SchemaNode = {};
  if (s.description) n.description = s.description;
  if (s.type && SCHEMA_TYPES.has(s.type)) n.type = s.type as SchemaNode['type'];
  if (s.format) n.format = s.format;
  if (s.properties) {
    n.properties = {};
    for (const k of Object.keys(s.properties)) n.properties[k] = toSchemaNode(s.properties[k]);
  }
  if (s.additionalProperties !== undefined) {
    n.additionalProperties = typeof s.additionalProperties === 'boolean' ? s.additionalProperties : toSchemaNode(s.additionalProperties);
  }
  if (s.items && !Array.isArray(s.items)) n.items = toSchemaNode(s.items);
  if (s.required?.length) n.required = [...s.required];
  if (s.enum) n.enum = s.enum as SchemaNode['enum'];
  if (s.default !== undefined) n.default = s.default;
  if (s.nullable) n.nullable = true;
  const listType = s['x-kubernetes-list-type'];
  if (listType === 'atomic' || listType === 'set' || listType === 'map') n.listType = listType;
  if (s['x-kubernetes-list-map-keys']?.length) n.listMapKeys = [...s['x-kubernetes-list-map-keys']];
  const mapType = s['x-kubernetes-map-type'];
  if (mapType === 'atomic' || mapType === 'granular') n.mapType = mapType;
  if (s['x-kubernetes-int-or-string']) n.intOrString = true;
  if (s['x-kubernetes-preserve-unknown-fields']) n.preserveUnknownFields = true;
  if (s['x-kubernetes-embedded-resource']) n.embeddedResource = true;
  if (s.minimum !== undefined) n.minimum = s.minimum;
  if (s.maximum !== undefined) n.maximum = s.maximum;
  if (s.exclusiveMinimum) n.exclusiveMinimum = true;
  if (s.exclusiveMaximum) n.exclusiveMaximum = true;
  if (s.minLength !== undefined) n.minLength = s.minLength;
  if (s.maxLength !== undefined) n.maxLength = s.maxLength;
  if (s.pattern) n.pattern = s.pattern;
  if (s.minItems !== undefined) n.minItems = s.minItems;
  if (s.maxItems !== undefined) n.maxItems = s.maxItems;
  if (s.minProperties !== undefined) n.minProperties = s.minProperties;
  if (s.maxProperties !== undefined) n.maxProperties = s.maxProperties;
  if (s.uniqueItems) n.uniqueItems = true;
  if (s.multipleOf !== undefined) n.multipleOf = s.multipleOf;
  if (s.allOf?.length) n.allOf = s.allOf.map(toSchemaNode);
  if (s.anyOf?.length) n.anyOf = s.anyOf.map(toSchemaNode);
  if (s.oneOf?.length) n.oneOf = s.oneOf.map(toSchemaNode);
  if (s.not) n.not = toSchemaNode(s.not);
  if (s['x-kubernetes-validations']?.length) n['x-kubernetes-validations'] = s['x-kubernetes-validations'].map((r) => ({ ...r }));
  return n;
}
