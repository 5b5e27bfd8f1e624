// Structural schema rules checked at CRD write time (apiextensions-apiserver pkg/apiserver/schema:
// convert.go's NewStructural, validation.go's ValidateStructural and complete.go), on JSONSchemaProps as the
// CRD carries them. The errors come back sorted by their text, as kube sorts them.

import { fieldErrors, fieldErrorString, type FieldError } from '../../../apis/errors.ts';
import type { JSONSchemaProps } from '../json-schema-props.ts';
import { compileGoRegexp } from './go-regexp.ts';

type Level = 'root' | 'item' | 'field';

const key = (path: string, k: string): string => `${path}[${k}]`;

/** NewStructural's refusal (shown by kube only when no other error is found), or undefined. */
export function structuralConversionError(s: JSONSchemaProps | undefined): string | undefined {
  if (!s) return undefined;
  if (s.id) return "OpenAPIV3Schema 'id' is not supported";
  if (s.$schema) return "OpenAPIV3Schema 'schema' is not supported";
  if (s.$ref) return "OpenAPIV3Schema '$ref' is not supported";
  if (s.patternProperties && Object.keys(s.patternProperties).length > 0) return "OpenAPIV3Schema 'patternProperties' is not supported";
  if (s.dependencies && Object.keys(s.dependencies).length > 0) return "OpenAPIV3Schema 'dependencies' is not supported";
  if (s.additionalItems !== undefined) return "OpenAPIV3Schema 'additionalItems' is not supported";
  if (s.definitions && Object.keys(s.definitions).length > 0) return "OpenAPIV3Schema 'definitions' is not supported";
  if (s['x-kubernetes-preserve-unknown-fields'] === false) return "internal error: 'x-kubernetes-preserve-unknown-fields' must be true or undefined";
  if (Array.isArray(s.items) && s.items.length > 0) return "OpenAPIV3Schema 'items' must be a schema, but is an array";
  const nested: (JSONSchemaProps | undefined)[] = [Array.isArray(s.items) ? undefined : s.items, s.not, ...(s.allOf ?? []), ...(s.anyOf ?? []), ...(s.oneOf ?? [])];
  if (typeof s.additionalProperties === 'object') nested.push(s.additionalProperties);
  for (const p of Object.values(s.properties ?? {})) nested.push(p);
  for (const n of nested) {
    const e = structuralConversionError(n);
    if (e) return e;
  }
  return undefined;
}

function isTypeOnly(s: JSONSchemaProps, type: string): boolean {
  const keys = Object.keys(s).filter((k) => (s as Record<string, unknown>)[k] !== undefined);
  return keys.length === 1 && s.type === type;
}

/** anyOf: [{type: integer}, {type: string}] exactly. */
function isIntOrStringAnyOf(anyOf: JSONSchemaProps[] | undefined): boolean {
  return anyOf !== undefined && anyOf.length === 2 && isTypeOnly(anyOf[0], 'integer') && isTypeOnly(anyOf[1], 'string');
}

function hasValueValidation(s: JSONSchemaProps): boolean {
  return (s.allOf?.length ?? 0) > 0 || (s.anyOf?.length ?? 0) > 0 || (s.oneOf?.length ?? 0) > 0 || s.not !== undefined;
}

function patternError(s: JSONSchemaProps, path: string, errs: FieldError[]): void {
  if (!s.pattern) return;
  const c = compileGoRegexp(s.pattern);
  if (c.error) errs.push(fieldErrors.invalid(`${path}.pattern`, s.pattern, `must be a valid regular expression, but isn't: ${c.error}`));
}

/** validateValueValidation: the junctors of a node (and the pattern of that node). */
function valueValidation(s: JSONSchemaProps, skipAnyOf: boolean, skipFirstAllOfAnyOf: boolean, lvl: Level, path: string, errs: FieldError[]): void {
  if (!skipAnyOf) s.anyOf?.forEach((x, i) => nestedValueValidation(x, false, lvl, `${path}.anyOf[${i}]`, errs));
  s.allOf?.forEach((x, i) => nestedValueValidation(x, skipFirstAllOfAnyOf && i === 0, lvl, `${path}.allOf[${i}]`, errs));
  s.oneOf?.forEach((x, i) => nestedValueValidation(x, false, lvl, `${path}.oneOf[${i}]`, errs));
  if (s.not) nestedValueValidation(s.not, false, lvl, `${path}.not`, errs);
  patternError(s, path, errs);
}

/** validateNestedValueValidation: inside allOf/anyOf/oneOf/not only value validations may appear. */
function nestedValueValidation(v: JSONSchemaProps, skipAnyOf: boolean, lvl: Level, path: string, errs: FieldError[]): void {
  valueValidation(v, skipAnyOf, false, lvl, path, errs);
  if (v.items && !Array.isArray(v.items)) nestedValueValidation(v.items, false, lvl, `${path}.items`, errs);
  for (const k of Object.keys(v.properties ?? {})) nestedValueValidation((v.properties as Record<string, JSONSchemaProps>)[k], false, 'field', key(`${path}.properties`, k), errs);
  if (v.type) errs.push(fieldErrors.forbidden(`${path}.type`, 'must be empty to be structural'));
  if (v.additionalProperties !== undefined) errs.push(fieldErrors.forbidden(`${path}.additionalProperties`, 'must be undefined to be structural'));
  if (v.default !== undefined && v.default !== null) errs.push(fieldErrors.forbidden(`${path}.default`, 'must be undefined to be structural'));
  if (v.title) errs.push(fieldErrors.forbidden(`${path}.title`, 'must be empty to be structural'));
  if (v.description) errs.push(fieldErrors.forbidden(`${path}.description`, 'must be empty to be structural'));
  if (v.nullable) errs.push(fieldErrors.forbidden(`${path}.nullable`, 'must be false to be structural'));
  if (v['x-kubernetes-preserve-unknown-fields']) errs.push(fieldErrors.forbidden(`${path}.x-kubernetes-preserve-unknown-fields`, 'must be false to be structural'));
  if (v['x-kubernetes-embedded-resource']) errs.push(fieldErrors.forbidden(`${path}.x-kubernetes-embedded-resource`, 'must be false to be structural'));
  if (v['x-kubernetes-int-or-string']) errs.push(fieldErrors.forbidden(`${path}.x-kubernetes-int-or-string`, 'must be false to be structural'));
  if (v['x-kubernetes-list-map-keys']?.length) errs.push(fieldErrors.forbidden(`${path}.x-kubernetes-list-map-keys`, 'must be empty to be structural'));
  if (v['x-kubernetes-list-type'] !== undefined) errs.push(fieldErrors.forbidden(`${path}.x-kubernetes-list-type`, 'must be undefined to be structural'));
  if (v['x-kubernetes-map-type'] !== undefined) errs.push(fieldErrors.forbidden(`${path}.x-kubernetes-map-type`, 'must be undefined to be structural'));
  if (v['x-kubernetes-validations']?.length) errs.push(fieldErrors.forbidden(`${path}.x-kubernetes-validations`, 'must be empty to be structural'));
  if (v.properties && Object.hasOwn(v.properties, 'metadata')) {
    errs.push(fieldErrors.forbidden(key(`${path}.properties`, 'metadata'), 'must not be specified in a nested context'));
  }
}

/** validateStructuralMetadataInvariants: at the root only name and generateName may be restricted. */
function metadataInvariants(m: JSONSchemaProps, checkMetadata: boolean, lvl: Level, path: string, errs: FieldError[]): void {
  if (checkMetadata && m.type !== 'object') errs.push(fieldErrors.invalid(`${path}.type`, m.type ?? '', 'must be object'));
  if (lvl !== 'root') return;
  const props = Object.keys(m.properties ?? {});
  const onlyNames = props.every((p) => p === 'name' || p === 'generateName');
  const ignored = new Set(['type', 'default', 'example', 'externalDocs', ...(onlyNames ? ['properties'] : [])]);
  const rest = Object.keys(m).filter((k) => {
    const v = (m as Record<string, unknown>)[k];
    if (v === undefined || ignored.has(k)) return false;
    // Zero values are what NewStructural leaves out.
    if (v === false || v === '' || (Array.isArray(v) && v.length === 0)) return false;
    if (k === 'properties' && Object.keys(v as object).length === 0) return false;
    return true;
  });
  if (rest.length > 0) {
    errs.push(fieldErrors.forbidden(path, 'must not specify anything other than name and generateName, but metadata is implicitly specified'));
  }
}

function invariants(s: JSONSchemaProps, lvl: Level, path: string, errs: FieldError[]): void {
  const items = s.items && !Array.isArray(s.items) ? s.items : undefined;
  if (s.type === 'array' && !items) errs.push(fieldErrors.required(`${path}.items`, 'must be specified'));
  if (items) invariants(items, 'item', `${path}.items`, errs);
  for (const k of Object.keys(s.properties ?? {})) invariants((s.properties as Record<string, JSONSchemaProps>)[k], 'field', key(`${path}.properties`, k), errs);
  if (s.additionalProperties !== undefined) {
    if (lvl === 'root') errs.push(fieldErrors.forbidden(`${path}.additionalProperties`, 'must not be used at the root'));
    if (typeof s.additionalProperties === 'object') invariants(s.additionalProperties, 'field', `${path}.additionalProperties`, errs);
  }
  const intOrString = s['x-kubernetes-int-or-string'] === true;
  const preserve = s['x-kubernetes-preserve-unknown-fields'] === true;
  const embedded = s['x-kubernetes-embedded-resource'] === true;
  if (intOrString && preserve) errs.push(fieldErrors.invalid(`${path}.x-kubernetes-preserve-unknown-fields`, true, 'must be false if x-kubernetes-int-or-string is true'));
  if (intOrString && embedded) errs.push(fieldErrors.invalid(`${path}.x-kubernetes-embedded-resource`, true, 'must be false if x-kubernetes-int-or-string is true'));
  const skipAnyOf = isIntOrStringAnyOf(s.anyOf);
  const skipFirstAllOfAnyOf = (s.allOf?.length ?? 0) >= 1 && isIntOrStringAnyOf(s.allOf?.[0].anyOf);
  valueValidation(s, skipAnyOf, skipFirstAllOfAnyOf, lvl, path, errs);
  const checkMetadata = lvl === 'root' || embedded;
  const type = s.type ?? '';
  if (embedded && type !== 'object') {
    if (type === '') errs.push(fieldErrors.required(`${path}.type`, 'must be object if x-kubernetes-embedded-resource is true'));
    else errs.push(fieldErrors.invalid(`${path}.type`, type, 'must be object if x-kubernetes-embedded-resource is true'));
  } else if (type === '' && !intOrString && !preserve) {
    const where = lvl === 'root' ? 'at the root' : lvl === 'item' ? 'for specified array items' : 'for specified object fields';
    errs.push(fieldErrors.required(`${path}.type`, `must not be empty ${where}`));
  }
  if (embedded && s.additionalProperties !== undefined) {
    errs.push(fieldErrors.forbidden(`${path}.additionalProperties`, 'must not be used if x-kubernetes-embedded-resource is set'));
  }
  if (lvl === 'root' && type !== '' && type !== 'object') errs.push(fieldErrors.invalid(`${path}.type`, type, 'must be object at the root'));
  const props = s.properties ?? {};
  if (checkMetadata && Object.hasOwn(props, 'kind') && props.kind.type !== 'string') {
    errs.push(fieldErrors.invalid(`${key(`${path}.properties`, 'kind')}.type`, props.kind.type ?? '', 'must be string'));
  }
  if (checkMetadata && Object.hasOwn(props, 'apiVersion') && props.apiVersion.type !== 'string') {
    errs.push(fieldErrors.invalid(`${key(`${path}.properties`, 'apiVersion')}.type`, props.apiVersion.type ?? '', 'must be string'));
  }
  if (Object.hasOwn(props, 'metadata')) metadataInvariants(props.metadata, checkMetadata, lvl, key(`${path}.properties`, 'metadata'), errs);
  if (embedded && !preserve && Object.keys(props).length === 0) {
    errs.push(fieldErrors.required(`${path}.properties`, 'must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields'));
  }
}

/** complete.go: whatever a junctor specifies (properties, items) the structural part must specify too. */
function nestedCompleteness(v: JSONSchemaProps, s: JSONSchemaProps | undefined, sPath: string, vPath: string, errs: FieldError[]): void {
  if (!s) {
    errs.push(fieldErrors.required(sPath, `because it is defined in ${vPath}`));
    return;
  }
  valueCompleteness(v, s, sPath, vPath, errs);
  if (v.items && !Array.isArray(v.items)) {
    const sItems = s.items && !Array.isArray(s.items) ? s.items : undefined;
    nestedCompleteness(v.items, sItems, `${sPath}.items`, `${vPath}.items`, errs);
  }
  for (const k of Object.keys(v.properties ?? {})) {
    const vFld = (v.properties as Record<string, JSONSchemaProps>)[k];
    const sFld = s.properties && Object.hasOwn(s.properties, k) ? s.properties[k] : undefined;
    if (!sFld) errs.push(fieldErrors.required(key(`${sPath}.properties`, k), `because it is defined in ${key(`${vPath}.properties`, k)}`));
    else nestedCompleteness(vFld, sFld, key(`${sPath}.properties`, k), key(`${vPath}.properties`, k), errs);
  }
}

function valueCompleteness(v: JSONSchemaProps, s: JSONSchemaProps, sPath: string, vPath: string, errs: FieldError[]): void {
  if (v.not) nestedCompleteness(v.not, s, sPath, `${vPath}.not`, errs);
  v.allOf?.forEach((x, i) => nestedCompleteness(x, s, sPath, `${vPath}.allOf[${i}]`, errs));
  v.anyOf?.forEach((x, i) => nestedCompleteness(x, s, sPath, `${vPath}.anyOf[${i}]`, errs));
  v.oneOf?.forEach((x, i) => nestedCompleteness(x, s, sPath, `${vPath}.oneOf[${i}]`, errs));
}

/** ValidateStructural: invariants and completeness, sorted by error text. */
export function validateStructural(s: JSONSchemaProps, path: string): FieldError[] {
  const errs: FieldError[] = [];
  invariants(s, 'root', path, errs);
  if (hasValueValidation(s)) valueCompleteness(s, s, path, path, errs);
  const text = new Map(errs.map((e) => [e, fieldErrorString(e)]));
  return errs.sort((a, b) => {
    const x = text.get(a) as string;
    const y = text.get(b) as string;
    return x < y ? -1 : x > y ? 1 : 0;
  });
}
