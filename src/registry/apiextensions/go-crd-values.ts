// Go's %#v of the apiextensions (internal) values kube puts in CRD field errors: the versions list of
// "spec.versions: Invalid value: []apiextensions.CustomResourceDefinitionVersion{...}", the root schema of the
// status-subresource check and a ValidationRule. Go prints a pointer nested in a struct as its address; a pointer to
// a struct (a schema, subresources, items, ...) keeps that shape here with a fixed, made-up address in place of the
// pointee, so the message reads like kube's without printing whole schemas, while a pointer to a scalar shows its
// pointee, e.g. `(*string)("x")` (this project's convention).

import { renderedBadValue, goStringsText } from '../../apis/errors.ts';
import { goText, goSlice } from '../../apis/go-bad-values.ts';
import { goQuote } from '../../encoding/go-format.ts';
import type { CrdColumn, CrdSelectableField, CrdVersion } from './crd-types.ts';
import type { CrdLayout } from './crd-layout.ts';
import type { JSONSchemaProps, ValidationRule } from './json-schema-props.ts';

/** The made-up address printed for a non-nil pointer to a struct. */
export const OPAQUE_ADDRESS = '0xc000a1b2c0';

const isSet = (v: unknown): boolean => v !== undefined && v !== null;
const goBool = (v: unknown): string => String(v === true);

/** A pointer to a struct: `(*T)(nil)` or `(*T)(0xc000a1b2c0)`. */
export const goOpaquePointer = (type: string, v: unknown): string => `(*${type})(${isSet(v) ? OPAQUE_ADDRESS : 'nil'})`;

/** A pointer to a scalar: `(*T)(nil)` or the pointee in place of the address. */
const goScalarPointer = (type: string, v: unknown, pointee: (x: unknown) => string): string => `(*${type})(${isSet(v) ? pointee(v) : 'nil'})`;

/** fmt's %v of a float64: strconv 'g' with the shortest digits, exponent form below 1e-4 and from 1e6 (eprec 6). */
export function goFloatV(n: number): string {
  if (!Number.isFinite(n)) return Number.isNaN(n) ? 'NaN' : n > 0 ? '+Inf' : '-Inf';
  if (n === 0) return Object.is(n, -0) ? '-0' : '0';
  const [mantissa, exp] = n.toExponential().split('e');
  const e = Number(exp);
  if (e < -4 || e >= 6) {
    const digits = String(Math.abs(e)).padStart(2, '0');
    return `${mantissa}e${e < 0 ? '-' : '+'}${digits}`;
  }
  return String(n);
}

/** %#v of an apiextensions.JSON (interface{}) holding decoded JSON: integral numbers are int64 there. */
export function goJSONValue(v: unknown): string {
  if (v === null || v === undefined) return 'interface {}(nil)';
  if (typeof v === 'string') return goQuote(v);
  if (typeof v === 'boolean') return String(v);
  if (typeof v === 'number') return Number.isInteger(v) ? String(v) : goFloatV(v);
  if (Array.isArray(v)) return `[]interface {}{${v.map(goJSONValue).join(', ')}}`;
  const o = v as Record<string, unknown>;
  return `map[string]interface {}{${Object.keys(o)
    .sort()
    .map((k) => `${goQuote(k)}:${goJSONValue(o[k])}`)
    .join(', ')}}`;
}

/** apiextensions.ValidationRule. */
export function goValidationRuleText(r: Partial<ValidationRule>): string {
  return (
    `apiextensions.ValidationRule{Rule:${goText(r.rule)}, Message:${goText(r.message)}, MessageExpression:${goText(r.messageExpression)}, ` +
    `Reason:${goScalarPointer('apiextensions.FieldValueErrorReason', r.reason, goText)}, FieldPath:${goText(r.fieldPath)}, ` +
    `OptionalOldSelf:${goScalarPointer('bool', r.optionalOldSelf, goBool)}}`
  );
}

export const goValidationRule = (r: Partial<ValidationRule>): unknown => renderedBadValue(goValidationRuleText(r));

const goFloatPointer = (v: unknown) => goScalarPointer('float64', v, (x) => goFloatV(Number(x)));
const goIntPointer = (v: unknown) => goScalarPointer('int64', v, (x) => String(x));
const goStringList = (v: unknown) => goStringsText(Array.isArray(v) ? v : null);

/** A map[string]JSONSchemaProps (or a named map type), keys sorted as fmt prints them. */
function goSchemaMap(type: string, v: unknown): string {
  if (!v || typeof v !== 'object' || Array.isArray(v)) return `${type}(nil)`;
  const o = v as Record<string, JSONSchemaProps>;
  const entries = Object.keys(o)
    .sort()
    .map((k) => `${goQuote(k)}:${goJSONSchemaPropsText(o[k])}`);
  return `${type}{${entries.join(', ')}}`;
}

const goSchemaSlice = (v: unknown) => goSlice('apiextensions.JSONSchemaProps', v, (x) => goJSONSchemaPropsText(x as JSONSchemaProps));

/** apiextensions.JSONSchemaProps, in the internal struct's field order. */
export function goJSONSchemaPropsText(s: JSONSchemaProps): string {
  const fields: [string, string][] = [
    ['ID', goText(s.id)],
    ['Schema', goText(s.$schema)],
    ['Ref', goScalarPointer('string', s.$ref, goText)],
    ['Description', goText(s.description)],
    ['Type', goText(s.type)],
    ['Nullable', goBool(s.nullable)],
    ['Format', goText(s.format)],
    ['Title', goText(s.title)],
    ['Default', goOpaquePointer('apiextensions.JSON', s.default)],
    ['Maximum', goFloatPointer(s.maximum)],
    ['ExclusiveMaximum', goBool(s.exclusiveMaximum)],
    ['Minimum', goFloatPointer(s.minimum)],
    ['ExclusiveMinimum', goBool(s.exclusiveMinimum)],
    ['MaxLength', goIntPointer(s.maxLength)],
    ['MinLength', goIntPointer(s.minLength)],
    ['Pattern', goText(s.pattern)],
    ['MaxItems', goIntPointer(s.maxItems)],
    ['MinItems', goIntPointer(s.minItems)],
    ['UniqueItems', goBool(s.uniqueItems)],
    ['MultipleOf', goFloatPointer(s.multipleOf)],
    ['Enum', goSlice('apiextensions.JSON', s.enum, goJSONValue)],
    ['MaxProperties', goIntPointer(s.maxProperties)],
    ['MinProperties', goIntPointer(s.minProperties)],
    ['Required', goStringList(s.required)],
    ['Items', goOpaquePointer('apiextensions.JSONSchemaPropsOrArray', s.items)],
    ['AllOf', goSchemaSlice(s.allOf)],
    ['OneOf', goSchemaSlice(s.oneOf)],
    ['AnyOf', goSchemaSlice(s.anyOf)],
    ['Not', goOpaquePointer('apiextensions.JSONSchemaProps', s.not)],
    ['Properties', goSchemaMap('map[string]apiextensions.JSONSchemaProps', s.properties)],
    ['AdditionalProperties', goOpaquePointer('apiextensions.JSONSchemaPropsOrBool', s.additionalProperties)],
    ['PatternProperties', goSchemaMap('map[string]apiextensions.JSONSchemaProps', s.patternProperties)],
    ['Dependencies', isSet(s.dependencies) ? `apiextensions.JSONSchemaDependencies{${goDependencies(s.dependencies)}}` : 'apiextensions.JSONSchemaDependencies(nil)'],
    ['AdditionalItems', goOpaquePointer('apiextensions.JSONSchemaPropsOrBool', s.additionalItems)],
    ['Definitions', goSchemaMap('apiextensions.JSONSchemaDefinitions', s.definitions)],
    ['ExternalDocs', goOpaquePointer('apiextensions.ExternalDocumentation', s.externalDocs)],
    ['Example', goOpaquePointer('apiextensions.JSON', s.example)],
    ['XPreserveUnknownFields', goScalarPointer('bool', s['x-kubernetes-preserve-unknown-fields'], goBool)],
    ['XEmbeddedResource', goBool(s['x-kubernetes-embedded-resource'])],
    ['XIntOrString', goBool(s['x-kubernetes-int-or-string'])],
    ['XListMapKeys', goStringList(s['x-kubernetes-list-map-keys'])],
    ['XListType', goScalarPointer('string', s['x-kubernetes-list-type'], goText)],
    ['XMapType', goScalarPointer('string', s['x-kubernetes-map-type'], goText)],
    ['XValidations', Array.isArray(s['x-kubernetes-validations']) ? `apiextensions.ValidationRules{${s['x-kubernetes-validations'].map(goValidationRuleText).join(', ')}}` : 'apiextensions.ValidationRules(nil)'],
  ];
  return `apiextensions.JSONSchemaProps{${fields.map(([k, v]) => `${k}:${v}`).join(', ')}}`;
}

function goDependencies(deps: JSONSchemaProps['dependencies']): string {
  const o = deps ?? {};
  return Object.keys(o)
    .sort()
    .map((k) => {
      const d = o[k];
      const schema = Array.isArray(d) ? 'nil' : OPAQUE_ADDRESS;
      return `${goQuote(k)}:apiextensions.JSONSchemaPropsOrStringArray{Schema:(*apiextensions.JSONSchemaProps)(${schema}), Property:${goStringList(Array.isArray(d) ? d : undefined)}}`;
    })
    .join(', ');
}

/** A JSONSchemaProps bad value (the root schema of the status-subresource check). */
export const goJSONSchemaProps = (s: JSONSchemaProps): unknown => renderedBadValue(goJSONSchemaPropsText(s));

const goColumn = (c: unknown): string => {
  const col = (c ?? {}) as CrdColumn;
  return `apiextensions.CustomResourceColumnDefinition{Name:${goText(col.name)}, Type:${goText(col.type)}, Format:${goText(col.format)}, Description:${goText(col.description)}, Priority:${typeof col.priority === 'number' ? col.priority : 0}, JSONPath:${goText(col.jsonPath)}}`;
};

const goSelectableField = (f: unknown): string => `apiextensions.SelectableField{JSONPath:${goText((f as CrdSelectableField | null)?.jsonPath)}}`;

/** A nil or empty Go slice prints `[]T(nil)` once decoding dropped it (omitempty lists decode to nil when absent). */
const orNil = <T>(list: T[] | undefined): T[] | undefined => (list && list.length > 0 ? list : undefined);

/**
 * One version as kube validates it: the internal form, where a schema, subresources, columns or selectable fields
 * that every version shares moved to the top level and are nil in the version.
 */
function goVersion(v: CrdVersion, layout: CrdLayout): string {
  const schema = layout.schema.hoisted ? undefined : v.schema;
  const subresources = layout.subresources.hoisted ? undefined : v.subresources;
  const columns = layout.columns.hoisted ? undefined : orNil(v.additionalPrinterColumns);
  const selectable = layout.selectableFields.hoisted ? undefined : orNil(v.selectableFields);
  return (
    `apiextensions.CustomResourceDefinitionVersion{Name:${goText(v.name)}, Served:${goBool(v.served)}, Storage:${goBool(v.storage)}, ` +
    `Deprecated:${goBool(v.deprecated)}, DeprecationWarning:${goScalarPointer('string', v.deprecationWarning, goText)}, ` +
    `Schema:${goOpaquePointer('apiextensions.CustomResourceValidation', schema)}, ` +
    `Subresources:${goOpaquePointer('apiextensions.CustomResourceSubresources', subresources)}, ` +
    `AdditionalPrinterColumns:${goSlice('apiextensions.CustomResourceColumnDefinition', columns, goColumn)}, ` +
    `SelectableFields:${goSlice('apiextensions.SelectableField', selectable, goSelectableField)}}`
  );
}

/** spec.versions as a bad value: `[]apiextensions.CustomResourceDefinitionVersion{...}`. */
export function goCrdVersions(versions: readonly CrdVersion[] | undefined, layout: CrdLayout): unknown {
  const list = versions && versions.length > 0 ? [...versions] : undefined;
  return renderedBadValue(goSlice('apiextensions.CustomResourceDefinitionVersion', list, (v) => goVersion(v as CrdVersion, layout)));
}
