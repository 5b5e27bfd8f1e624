// Everything the CRD validation checks about one version's openAPIV3Schema except CEL rules
// (apiextensions-apiserver pkg/apis/apiextensions/validation/validation.go: validateCustomResourceDefinition-
// Validation and ValidateCustomResourceDefinitionOpenAPISchema), with kube's field paths, messages and order.

import { fieldErrors, goStringsValue, renderedBadValue, type FieldError } from '../../../apis/errors.ts';
import { goJSONSchemaProps } from '../go-crd-values.ts';
import type { JSONSchemaProps } from '../json-schema-props.ts';
import { validateDefaults } from './default-validation.ts';
import { structuralConversionError, validateStructural } from './structural.ts';

export interface CrdSchemaOptions {
  /** requireStructuralSchema: true for every v1 CRD create, and on update when the old CRD was structural. */
  requireStructural: boolean;
  /** The version has the status subresource: only some keywords are allowed at the root. */
  statusSubresource?: boolean;
  /** Defaults allowed (true in v1). */
  allowDefaults?: boolean;
  /** requirePrunedDefaults (true unless an update keeps an old CRD's unpruned defaults). */
  requirePrunedDefaults?: boolean;
  /** requireValidPropertyType, requireAtomicSetType, requireMapListKeysMapSetValidation: true on create. */
  requireValidPropertyType?: boolean;
  requireAtomicSetType?: boolean;
  requireMapListKeysMapSetValidation?: boolean;
}

export const OPENAPI_V3_TYPES = ['array', 'boolean', 'integer', 'number', 'object', 'string'];
const META_FIELDS = new Set(['metadata', 'kind', 'apiVersion']);

/** JSONSchemaProps fields in Go struct order, with the Go names the status-subresource message prints. */
const GO_FIELDS: readonly (readonly [keyof JSONSchemaProps, string])[] = [
  ['id', 'ID'],
  ['$schema', 'Schema'],
  ['$ref', 'Ref'],
  ['description', 'Description'],
  ['type', 'Type'],
  ['nullable', 'Nullable'],
  ['format', 'Format'],
  ['title', 'Title'],
  ['default', 'Default'],
  ['maximum', 'Maximum'],
  ['exclusiveMaximum', 'ExclusiveMaximum'],
  ['minimum', 'Minimum'],
  ['exclusiveMinimum', 'ExclusiveMinimum'],
  ['maxLength', 'MaxLength'],
  ['minLength', 'MinLength'],
  ['pattern', 'Pattern'],
  ['maxItems', 'MaxItems'],
  ['minItems', 'MinItems'],
  ['uniqueItems', 'UniqueItems'],
  ['multipleOf', 'MultipleOf'],
  ['enum', 'Enum'],
  ['maxProperties', 'MaxProperties'],
  ['minProperties', 'MinProperties'],
  ['required', 'Required'],
  ['items', 'Items'],
  ['allOf', 'AllOf'],
  ['oneOf', 'OneOf'],
  ['anyOf', 'AnyOf'],
  ['not', 'Not'],
  ['properties', 'Properties'],
  ['additionalProperties', 'AdditionalProperties'],
  ['patternProperties', 'PatternProperties'],
  ['dependencies', 'Dependencies'],
  ['additionalItems', 'AdditionalItems'],
  ['definitions', 'Definitions'],
  ['externalDocs', 'ExternalDocs'],
  ['example', 'Example'],
  ['x-kubernetes-preserve-unknown-fields', 'XPreserveUnknownFields'],
  ['x-kubernetes-embedded-resource', 'XEmbeddedResource'],
  ['x-kubernetes-int-or-string', 'XIntOrString'],
  ['x-kubernetes-list-map-keys', 'XListMapKeys'],
  ['x-kubernetes-list-type', 'XListType'],
  ['x-kubernetes-map-type', 'XMapType'],
  ['x-kubernetes-validations', 'XValidations'],
];
const ALLOWED_AT_ROOT_WITH_STATUS = [
  'Description', 'Type', 'Format', 'Title', 'Maximum', 'ExclusiveMaximum', 'Minimum', 'ExclusiveMinimum', 'MaxLength', 'MinLength', 'Pattern',
  'MaxItems', 'MinItems', 'UniqueItems', 'MultipleOf', 'Required', 'Items', 'Properties', 'ExternalDocs', 'Example', 'XPreserveUnknownFields',
  'XValidations',
];

/** JSONSchemaProps fields that are pointers in Go: set (even to 0, false or "") means non-zero. */
const POINTER_FIELDS = new Set<string>([
  '$ref', 'default', 'maximum', 'minimum', 'maxLength', 'minLength', 'maxItems', 'minItems', 'multipleOf', 'maxProperties', 'minProperties',
  'items', 'not', 'additionalProperties', 'additionalItems', 'externalDocs', 'example', 'x-kubernetes-preserve-unknown-fields',
  'x-kubernetes-list-type', 'x-kubernetes-map-type',
]);

/** reflect.DeepEqual with the field's zero value, as the status-subresource check skips unset fields. */
function isZero(field: string, v: unknown): boolean {
  if (v === undefined || v === null) return true;
  if (POINTER_FIELDS.has(field)) return false;
  return v === false || v === '';
}

/** A *string bad value: the string, or "null" (quoted, as field.Error prints a nil pointer). */
function goStringPtr(v: string | undefined): unknown {
  return v === undefined ? renderedBadValue('"null"') : v;
}

interface Ssv {
  readonly allowDefaults: boolean;
  readonly disallowDefaultsReason: string;
  readonly insideResourceMeta: boolean;
}

/** specStandardValidatorV3.validate: keywords a CRD schema may not use. */
function standardValidator(s: JSONSchemaProps, path: string, ssv: Ssv, opts: Required<CrdSchemaOptions>, errs: FieldError[]): void {
  if (opts.requireValidPropertyType && s.type && !OPENAPI_V3_TYPES.includes(s.type)) errs.push(fieldErrors.notSupported(`${path}.type`, s.type, OPENAPI_V3_TYPES));
  if (s.default !== undefined && s.default !== null && !ssv.allowDefaults) {
    errs.push(fieldErrors.forbidden(`${path}.default`, ssv.disallowDefaultsReason ? `must not be set ${ssv.disallowDefaultsReason}` : 'must not be set'));
  }
  if (s.id) errs.push(fieldErrors.forbidden(`${path}.id`, 'id is not supported'));
  if (s.additionalItems !== undefined) errs.push(fieldErrors.forbidden(`${path}.additionalItems`, 'additionalItems is not supported'));
  if (s.patternProperties && Object.keys(s.patternProperties).length > 0) errs.push(fieldErrors.forbidden(`${path}.patternProperties`, 'patternProperties is not supported'));
  if (s.definitions && Object.keys(s.definitions).length > 0) errs.push(fieldErrors.forbidden(`${path}.definitions`, 'definitions is not supported'));
  if (s.dependencies !== undefined) errs.push(fieldErrors.forbidden(`${path}.dependencies`, 'dependencies is not supported'));
  if (s.$ref !== undefined) errs.push(fieldErrors.forbidden(`${path}.$ref`, '$ref is not supported'));
  if (s.type === 'null') errs.push(fieldErrors.forbidden(`${path}.type`, 'type cannot be set to null, use nullable as an alternative'));
  if (Array.isArray(s.items) && s.items.length > 0) errs.push(fieldErrors.forbidden(`${path}.items`, 'items must be a schema object and not an array'));
  if (ssv.insideResourceMeta && s['x-kubernetes-embedded-resource']) {
    errs.push(fieldErrors.forbidden(`${path}.x-kubernetes-embedded-resource`, 'must not be used inside of resource meta'));
  }
}

/** validateMapListKeysMapSet: set/map items not nullable, map keys required or defaulted and not nullable. */
export function mapListKeysMapSet(s: JSONSchemaProps, path: string, errs: FieldError[]): void {
  const items = s.items && !Array.isArray(s.items) ? s.items : undefined;
  const listType = s['x-kubernetes-list-type'];
  if (!items || (listType !== 'set' && listType !== 'map')) return;
  if (items.nullable) errs.push(fieldErrors.forbidden(`${path}.items.nullable`, `cannot be nullable when x-kubernetes-list-type is ${listType}`));
  if (listType !== 'map') return;
  const required = new Set(items.required ?? []);
  for (const k of s['x-kubernetes-list-map-keys'] ?? []) {
    const p = items.properties && Object.hasOwn(items.properties, k) ? items.properties[k] : undefined;
    if (!p) continue;
    if (!required.has(k) && (p.default === undefined || p.default === null)) {
      errs.push(
        fieldErrors.required(`${path}.items.properties[${k}].default`, 'this property is in x-kubernetes-list-map-keys, so it must have a default or be a required property'),
      );
    }
    if (p.nullable) errs.push(fieldErrors.forbidden(`${path}.items.properties[${k}].nullable`, 'this property is in x-kubernetes-list-map-keys, so it cannot be nullable'));
  }
}

function listAndMapTypes(s: JSONSchemaProps, path: string, opts: Required<CrdSchemaOptions>, errs: FieldError[]): void {
  const type = s.type ?? '';
  const mapType = s['x-kubernetes-map-type'];
  const listType = s['x-kubernetes-list-type'];
  const keys = s['x-kubernetes-list-map-keys'] ?? [];
  const items = s.items && !Array.isArray(s.items) ? s.items : undefined;
  if (mapType !== undefined && type !== 'object') {
    if (type === '') errs.push(fieldErrors.required(`${path}.type`, 'must be object if x-kubernetes-map-type is specified'));
    else errs.push(fieldErrors.invalid(`${path}.type`, type, 'must be object if x-kubernetes-map-type is specified'));
  }
  if (mapType !== undefined && mapType !== 'atomic' && mapType !== 'granular') {
    errs.push(fieldErrors.notSupported(`${path}.x-kubernetes-map-type`, mapType, ['atomic', 'granular']));
  }
  if (listType !== undefined && type !== 'array') {
    if (type === '') errs.push(fieldErrors.required(`${path}.type`, 'must be array if x-kubernetes-list-type is specified'));
    else errs.push(fieldErrors.invalid(`${path}.type`, type, 'must be array if x-kubernetes-list-type is specified'));
  } else if (opts.requireAtomicSetType && listType === 'set' && items) {
    if (items.type === 'array') {
      const itemListType = items['x-kubernetes-list-type'];
      if (itemListType !== undefined && itemListType !== 'atomic') {
        errs.push(fieldErrors.invalid(`${path}.items.x-kubernetes-list-type`, itemListType, 'must be atomic as item of a list with x-kubernetes-list-type=set'));
      }
    } else if (items.type === 'object' && items['x-kubernetes-map-type'] !== 'atomic') {
      // kube reports the item's list type here, not its map type
      errs.push(fieldErrors.invalid(`${path}.items.x-kubernetes-map-type`, goStringPtr(items['x-kubernetes-list-type']), 'must be atomic as item of a list with x-kubernetes-list-type=set'));
    }
  }
  if (listType !== undefined && listType !== 'atomic' && listType !== 'set' && listType !== 'map') {
    errs.push(fieldErrors.notSupported(`${path}.x-kubernetes-list-type`, listType, ['atomic', 'set', 'map']));
  }
  if (keys.length > 0) {
    if (listType === undefined) errs.push(fieldErrors.required(`${path}.x-kubernetes-list-type`, 'must be map if x-kubernetes-list-map-keys is non-empty'));
    else if (listType !== 'map') errs.push(fieldErrors.invalid(`${path}.x-kubernetes-list-type`, listType, 'must be map if x-kubernetes-list-map-keys is non-empty'));
  }
  if (listType === 'map') {
    if (keys.length === 0) errs.push(fieldErrors.required(`${path}.x-kubernetes-list-map-keys`, 'must not be empty if x-kubernetes-list-type is map'));
    if (s.items === undefined) errs.push(fieldErrors.required(`${path}.items`, 'must have a schema if x-kubernetes-list-type is map'));
    if (Array.isArray(s.items)) errs.push(fieldErrors.invalid(`${path}.items`, s.items, 'must only have a single schema if x-kubernetes-list-type is map'));
    if (items && items.type !== 'object') errs.push(fieldErrors.invalid(`${path}.items.type`, items.type ?? '', "must be object if parent array's x-kubernetes-list-type is map"));
    if (items && items.type === 'object') {
      const seen = new Set<string>();
      for (const k of keys) {
        const p = items.properties && Object.hasOwn(items.properties, k) ? items.properties[k] : undefined;
        if (p) {
          if (p.type === 'array' || p.type === 'object') {
            // kube reports the item's type here, not the key's
            errs.push(fieldErrors.invalid(`${path}.items.properties[${k}].type`, items.type, "must be a scalar type if parent array's x-kubernetes-list-type is map"));
          }
        } else {
          errs.push(fieldErrors.invalid(`${path}.x-kubernetes-list-map-keys`, goStringsValue(keys), 'entries must all be names of item properties'));
        }
        if (seen.has(k)) errs.push(fieldErrors.invalid(`${path}.x-kubernetes-list-map-keys`, goStringsValue(keys), 'must not contain duplicate entries'));
        seen.add(k);
      }
    }
  }
  if (opts.requireMapListKeysMapSetValidation) mapListKeysMapSet(s, path, errs);
}

/** ValidateCustomResourceDefinitionOpenAPISchema without the CEL part. */
function openAPISchema(s: JSONSchemaProps | undefined, path: string, ssv: Ssv, isRoot: boolean, opts: Required<CrdSchemaOptions>, errs: FieldError[]): void {
  if (!s) return;
  standardValidator(s, path, ssv, opts, errs);
  if (s.uniqueItems) errs.push(fieldErrors.forbidden(`${path}.uniqueItems`, 'uniqueItems cannot be set to true since the runtime complexity becomes quadratic'));
  const props = s.properties ?? {};
  const propKeys = Object.keys(props).sort();
  if (s.additionalProperties !== undefined) {
    if (propKeys.length > 0 && s.additionalProperties !== true) {
      errs.push(fieldErrors.forbidden(`${path}.additionalProperties`, 'additionalProperties and properties are mutual exclusive'));
    }
    const sub = ssv.insideResourceMeta ? { ...ssv, allowDefaults: false, disallowDefaultsReason: 'inside additionalProperties applying to object metadata' } : ssv;
    if (typeof s.additionalProperties === 'object') openAPISchema(s.additionalProperties, `${path}.additionalProperties`, sub, false, opts, errs);
  }
  for (const k of propKeys) {
    let sub = ssv;
    if ((isRoot || s['x-kubernetes-embedded-resource']) && META_FIELDS.has(k)) {
      sub = { ...sub, insideResourceMeta: true };
      if (isRoot) sub = { ...sub, allowDefaults: false, disallowDefaultsReason: `in top-level ${k}` };
    }
    openAPISchema(props[k], `${path}.properties[${k}]`, sub, false, opts, errs);
  }
  openAPISchema(s.not, `${path}.not`, ssv, false, opts, errs);
  s.allOf?.forEach((x, i) => openAPISchema(x, `${path}.allOf[${i}]`, ssv, false, opts, errs));
  s.oneOf?.forEach((x, i) => openAPISchema(x, `${path}.oneOf[${i}]`, ssv, false, opts, errs));
  s.anyOf?.forEach((x, i) => openAPISchema(x, `${path}.anyOf[${i}]`, ssv, false, opts, errs));
  for (const k of Object.keys(s.definitions ?? {}).sort()) openAPISchema(s.definitions?.[k], `${path}.definitions[${k}]`, ssv, false, opts, errs);
  if (s.items !== undefined) {
    if (Array.isArray(s.items)) s.items.forEach((x, i) => openAPISchema(x, `${path}.items[${i}]`, ssv, false, opts, errs));
    else openAPISchema(s.items, `${path}.items`, ssv, false, opts, errs);
  }
  for (const k of Object.keys(s.dependencies ?? {}).sort()) {
    const d = s.dependencies?.[k];
    if (d && !Array.isArray(d)) openAPISchema(d, `${path}.dependencies[${k}]`, ssv, false, opts, errs);
  }
  if (s['x-kubernetes-preserve-unknown-fields'] === false) {
    errs.push(fieldErrors.invalid(`${path}.x-kubernetes-preserve-unknown-fields`, false, 'must be true or undefined'));
  }
  listAndMapTypes(s, path, opts, errs);
}

/** The status-subresource restriction: only some keywords at the root, and type object. */
function statusRootErrors(s: JSONSchemaProps, path: string): FieldError[] {
  for (const [json, goName] of GO_FIELDS) {
    if (isZero(json, s[json])) continue;
    if (goName === 'Type') {
      if (s.type !== 'object') return [fieldErrors.invalid(`${path}.type`, s.type, 'only "object" is allowed as the type at the root of the schema if the status subresource is enabled')];
      continue;
    }
    if (!ALLOWED_AT_ROOT_WITH_STATUS.includes(goName)) {
      return [fieldErrors.invalid(path, goJSONSchemaProps(s), `only [${ALLOWED_AT_ROOT_WITH_STATUS.join(' ')}] fields are allowed at the root of the schema if the status subresource is enabled`)];
    }
  }
  return [];
}

/**
 * validateCustomResourceDefinitionValidation for one version's schema: `fieldPath` names the schema itself,
 * e.g. "spec.versions[0].schema.openAPIV3Schema". CEL rules (x-kubernetes-validations) are not checked here.
 */
export function validateCrdSchema(schema: JSONSchemaProps | undefined, fieldPath: string, options: CrdSchemaOptions): FieldError[] {
  return checkCrdSchema(schema, fieldPath, options).errors;
}

/** What decides where a schema's CEL rules compile (kube's CELSchemaContext and the errors of each node). */
export interface CrdSchemaCheck {
  readonly errors: FieldError[];
  /** The schema converted to a structural one and passed its structural and default checks: CEL rules may compile. */
  readonly celAllowed: boolean;
  /** The errors ValidateCustomResourceDefinitionOpenAPISchema finds node by node: a rule compiles only where none lies at or below its node. */
  readonly nodeErrors: readonly FieldError[];
}

export function checkCrdSchema(schema: JSONSchemaProps | undefined, fieldPath: string, options: CrdSchemaOptions): CrdSchemaCheck {
  if (!schema) return { errors: [fieldErrors.required(fieldPath, 'schemas are required')], celAllowed: false, nodeErrors: [] };
  const opts: Required<CrdSchemaOptions> = {
    statusSubresource: false,
    allowDefaults: true,
    requirePrunedDefaults: true,
    requireValidPropertyType: true,
    requireAtomicSetType: true,
    requireMapListKeysMapSetValidation: true,
    ...options,
  };
  const errs: FieldError[] = [];
  if (opts.statusSubresource) errs.push(...statusRootErrors(schema, fieldPath));
  if (schema.nullable) errs.push(fieldErrors.forbidden(`${fieldPath}.nullable`, 'nullable cannot be true at the root'));
  let conversionError: string | undefined;
  let celAllowed = false;
  if (opts.requireStructural) {
    conversionError = structuralConversionError(schema);
    if (conversionError === undefined) {
      const structural = validateStructural(schema, fieldPath);
      if (structural.length > 0) errs.push(...structural);
      else {
        const defaults = validateDefaults(schema, fieldPath, opts.requirePrunedDefaults);
        errs.push(...defaults);
        celAllowed = defaults.length === 0;
      }
    }
  }
  const nodeErrors: FieldError[] = [];
  openAPISchema(schema, fieldPath, { allowDefaults: opts.allowDefaults, disallowDefaultsReason: '', insideResourceMeta: false }, true, opts, nodeErrors);
  errs.push(...nodeErrors);
  if (errs.length === 0 && conversionError !== undefined) errs.push(fieldErrors.invalid(fieldPath, '', conversionError));
  return { errors: errs, celAllowed, nodeErrors };
}
