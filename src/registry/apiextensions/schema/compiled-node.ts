// A JSONSchemaProps compiled once per CRD version into the tree the request path walks: patterns compiled,
// formats resolved to their checks (unsupported formats stripped as kube strips them), properties in a Map.

import type { JSONSchemaProps } from '../json-schema-props.ts';
import { compileGoRegexp, type CompiledPattern } from './go-regexp.ts';
import { FORMAT_CHECKS, supportedFormat, type FormatCheck } from './formats.ts';

export interface CompiledNode {
  readonly source: JSONSchemaProps;
  /** The schema's type ("" when unset). */
  readonly type: string;
  /** Types the value may have, as kube-openapi sees them: int-or-string is ["integer", "string"]. */
  readonly types: readonly string[];
  readonly typeLabel: string;
  readonly nullable: boolean;
  /** Format after StripUnsupportedFormatsPostProcess ("" when none or unsupported). */
  readonly format: string;
  readonly formatCheck?: FormatCheck;
  readonly enum?: readonly unknown[];
  readonly maximum?: number;
  readonly exclusiveMaximum: boolean;
  readonly minimum?: number;
  readonly exclusiveMinimum: boolean;
  readonly multipleOf?: number;
  readonly maxLength?: number;
  readonly minLength?: number;
  readonly pattern?: string;
  readonly patternRe?: CompiledPattern;
  readonly maxItems?: number;
  readonly minItems?: number;
  readonly uniqueItems: boolean;
  readonly maxProperties?: number;
  readonly minProperties?: number;
  readonly required?: readonly string[];
  /** Properties by name, in sorted order. */
  readonly properties?: ReadonlyMap<string, CompiledNode>;
  /** A schema for other keys, true (any value, unpruned only if preserve-unknown), false (no other keys). */
  readonly additionalProperties?: CompiledNode | boolean;
  readonly items?: CompiledNode;
  readonly allOf?: readonly CompiledNode[];
  readonly anyOf?: readonly CompiledNode[];
  readonly oneOf?: readonly CompiledNode[];
  readonly not?: CompiledNode;
  readonly hasDefault: boolean;
  readonly default?: unknown;
  readonly preserveUnknownFields: boolean;
  readonly embeddedResource: boolean;
  readonly intOrString: boolean;
  readonly listType?: string;
  readonly listMapKeys?: readonly string[];
  readonly mapType?: string;
  /** Properties carrying a default, for the defaulting walk. */
  readonly defaultedProperties: readonly (readonly [string, CompiledNode])[];
  /** Whether anything below this node (itself included) needs the list-set/map or embedded-resource walks. */
  readonly hasListInvariants: boolean;
  readonly hasEmbedded: boolean;
  /** Whether a default is set anywhere below this node (the defaulting walk skips subtrees without one). */
  readonly hasDefaultsBelow: boolean;
}

function compileList(list: JSONSchemaProps[] | undefined): CompiledNode[] | undefined {
  return list && list.length > 0 ? list.map(compileNode) : undefined;
}

export function compileNode(s: JSONSchemaProps): CompiledNode {
  const type = s.type ?? '';
  const intOrString = s['x-kubernetes-int-or-string'] === true;
  const types = intOrString ? ['integer', 'string'] : type ? [type] : [];
  const format = supportedFormat(intOrString ? '' : type, s.format);
  let properties: Map<string, CompiledNode> | undefined;
  if (s.properties && Object.keys(s.properties).length > 0) {
    properties = new Map();
    for (const k of Object.keys(s.properties).sort()) properties.set(k, compileNode(s.properties[k]));
  }
  const ap = s.additionalProperties;
  const additionalProperties = ap === undefined ? undefined : typeof ap === 'boolean' ? ap : compileNode(ap);
  const items = s.items && !Array.isArray(s.items) ? compileNode(s.items) : undefined;
  const children: CompiledNode[] = [...(properties?.values() ?? [])];
  if (typeof additionalProperties === 'object') children.push(additionalProperties);
  if (items) children.push(items);
  const listType = s['x-kubernetes-list-type'];
  return {
    source: s,
    type,
    types,
    typeLabel: types.join(','),
    nullable: s.nullable === true,
    format,
    formatCheck: format && (type === '' || type === 'string' || intOrString) ? FORMAT_CHECKS.get(format.replaceAll('-', '')) : undefined,
    enum: s.enum && s.enum.length > 0 ? s.enum : undefined,
    maximum: s.maximum,
    exclusiveMaximum: s.exclusiveMaximum === true,
    minimum: s.minimum,
    exclusiveMinimum: s.exclusiveMinimum === true,
    multipleOf: s.multipleOf,
    maxLength: s.maxLength,
    minLength: s.minLength,
    pattern: s.pattern || undefined,
    patternRe: s.pattern ? compileGoRegexp(s.pattern) : undefined,
    maxItems: s.maxItems,
    minItems: s.minItems,
    uniqueItems: s.uniqueItems === true,
    maxProperties: s.maxProperties,
    minProperties: s.minProperties,
    required: s.required && s.required.length > 0 ? s.required : undefined,
    properties,
    additionalProperties,
    items,
    allOf: compileList(s.allOf),
    anyOf: compileList(s.anyOf),
    oneOf: compileList(s.oneOf),
    not: s.not ? compileNode(s.not) : undefined,
    hasDefault: s.default !== undefined && s.default !== null,
    default: s.default,
    preserveUnknownFields: s['x-kubernetes-preserve-unknown-fields'] === true,
    embeddedResource: s['x-kubernetes-embedded-resource'] === true,
    intOrString,
    listType,
    listMapKeys: s['x-kubernetes-list-map-keys'],
    mapType: s['x-kubernetes-map-type'],
    defaultedProperties: properties ? [...properties].filter(([, p]) => p.hasDefault) : [],
    hasListInvariants: listType === 'set' || listType === 'map' || children.some((c) => c.hasListInvariants),
    hasEmbedded: s['x-kubernetes-embedded-resource'] === true || children.some((c) => c.hasEmbedded),
    hasDefaultsBelow: children.some((c) => c.hasDefault || c.hasDefaultsBelow),
  };
}
