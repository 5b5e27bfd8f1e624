// CRD write-time checks of a version's openAPIV3Schema. Expected texts are kube-apiserver 1.31's, from
// apiextensions-apiserver pkg/apiserver/schema/validation.go and complete.go (structural rules, sorted),
// schema/defaulting/validation.go (defaults), and pkg/apis/apiextensions/validation/validation.go
// (ValidateCustomResourceDefinitionOpenAPISchema and specStandardValidatorV3).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fieldErrorString } from '../../../apis/errors.ts';
import type { JSONSchemaProps } from '../json-schema-props.ts';
import { validateCrdSchema, type CrdSchemaOptions } from './crd-schema-validation.ts';

const P = 'spec.versions[0].schema.openAPIV3Schema';

function check(schema: JSONSchemaProps | undefined, opts: Partial<CrdSchemaOptions> = {}): string[] {
  return validateCrdSchema(schema, P, { requireStructural: true, ...opts }).map(fieldErrorString);
}

function withProps(props: Record<string, JSONSchemaProps>, extra: JSONSchemaProps = {}): JSONSchemaProps {
  return { type: 'object', properties: props, ...extra };
}

const cases: { name: string; schema: JSONSchemaProps | undefined; want: string[]; opts?: Partial<CrdSchemaOptions> }[] = [
  { name: 'a valid schema', schema: withProps({ spec: { type: 'object', properties: { a: { type: 'string' } } } }), want: [] },
  // validateCustomResourceDefinition (requireOpenAPISchema)
  { name: 'no schema', schema: undefined, want: [`${P}: Required value: schemas are required`] },
  // validateStructuralInvariants
  { name: 'untyped root', schema: { properties: { a: { type: 'string' } } }, want: [`${P}.type: Required value: must not be empty at the root`] },
  { name: 'root not an object', schema: { type: 'string' }, want: [`${P}.type: Invalid value: "string": must be object at the root`] },
  { name: 'untyped field', schema: withProps({ a: {} }), want: [`${P}.properties[a].type: Required value: must not be empty for specified object fields`] },
  {
    name: 'array without items, untyped items',
    schema: withProps({ a: { type: 'array' }, b: { type: 'array', items: {} } }),
    want: [`${P}.properties[a].items: Required value: must be specified`, `${P}.properties[b].items.type: Required value: must not be empty for specified array items`],
  },
  { name: 'preserve-unknown or int-or-string need no type', schema: withProps({ a: { 'x-kubernetes-preserve-unknown-fields': true }, b: { 'x-kubernetes-int-or-string': true } }), want: [] },
  { name: 'additionalProperties at the root', schema: { type: 'object', additionalProperties: { type: 'string' } }, want: [`${P}.additionalProperties: Forbidden: must not be used at the root`] },
  {
    name: 'int-or-string with preserve-unknown and embedded',
    schema: withProps({ a: { 'x-kubernetes-int-or-string': true, 'x-kubernetes-preserve-unknown-fields': true }, b: { type: 'object', 'x-kubernetes-int-or-string': true, 'x-kubernetes-embedded-resource': true, 'x-kubernetes-preserve-unknown-fields': true } }),
    want: [
      `${P}.properties[a].x-kubernetes-preserve-unknown-fields: Invalid value: true: must be false if x-kubernetes-int-or-string is true`,
      `${P}.properties[b].x-kubernetes-embedded-resource: Invalid value: true: must be false if x-kubernetes-int-or-string is true`,
      `${P}.properties[b].x-kubernetes-preserve-unknown-fields: Invalid value: true: must be false if x-kubernetes-int-or-string is true`,
    ],
  },
  { name: 'int-or-string anyOf pattern is structural', schema: withProps({ p: { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] } }), want: [] },
  {
    name: 'int-or-string allOf pattern is structural',
    schema: withProps({ p: { 'x-kubernetes-int-or-string': true, allOf: [{ anyOf: [{ type: 'integer' }, { type: 'string' }] }, { pattern: 'x' }] } }),
    want: [],
  },
  {
    name: 'embedded resource rules',
    schema: withProps({ a: { 'x-kubernetes-embedded-resource': true }, b: { type: 'string', 'x-kubernetes-embedded-resource': true }, c: { type: 'object', 'x-kubernetes-embedded-resource': true } }),
    want: [
      `${P}.properties[a].properties: Required value: must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields`,
      `${P}.properties[a].type: Required value: must be object if x-kubernetes-embedded-resource is true`,
      `${P}.properties[b].properties: Required value: must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields`,
      `${P}.properties[b].type: Invalid value: "string": must be object if x-kubernetes-embedded-resource is true`,
      `${P}.properties[c].properties: Required value: must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields`,
    ],
  },
  {
    name: 'embedded resource kind and apiVersion must be strings',
    schema: withProps({ t: { type: 'object', 'x-kubernetes-embedded-resource': true, properties: { kind: { type: 'integer' }, apiVersion: { type: 'string' } } } }),
    want: [`${P}.properties[t].properties[kind].type: Invalid value: "integer": must be string`],
  },
  // metadata at the root: only name and generateName
  { name: 'metadata restricting name', schema: withProps({ metadata: { type: 'object', properties: { name: { type: 'string', maxLength: 10 } } } }), want: [] },
  {
    name: 'metadata restricting labels',
    schema: withProps({ metadata: { type: 'object', properties: { labels: { type: 'object' } } } }),
    want: [`${P}.properties[metadata]: Forbidden: must not specify anything other than name and generateName, but metadata is implicitly specified`],
  },
  { name: 'metadata not an object', schema: withProps({ metadata: { type: 'string' } }), want: [`${P}.properties[metadata].type: Invalid value: "string": must be object`] },
  // value validations (validateNestedValueValidation)
  {
    name: 'generic keywords inside value validation',
    schema: withProps({ a: { type: 'string', anyOf: [{ type: 'string', description: 'd', nullable: true, default: 'x', title: 't' }] } }),
    want: [
      `${P}.properties[a].anyOf[0].default: Forbidden: must be undefined to be structural`,
      `${P}.properties[a].anyOf[0].description: Forbidden: must be empty to be structural`,
      `${P}.properties[a].anyOf[0].nullable: Forbidden: must be false to be structural`,
      `${P}.properties[a].anyOf[0].title: Forbidden: must be empty to be structural`,
      `${P}.properties[a].anyOf[0].type: Forbidden: must be empty to be structural`,
    ],
  },
  {
    name: 'extensions inside value validation',
    schema: withProps({
      a: {
        type: 'object',
        allOf: [{ additionalProperties: { type: 'string' }, 'x-kubernetes-preserve-unknown-fields': true, 'x-kubernetes-map-type': 'atomic', properties: { metadata: {} } }],
        oneOf: [{ 'x-kubernetes-list-type': 'atomic', 'x-kubernetes-int-or-string': true, 'x-kubernetes-embedded-resource': true }],
        not: { 'x-kubernetes-list-map-keys': ['k'] },
      },
    }),
    want: [
      `${P}.properties[a].allOf[0].additionalProperties: Forbidden: must be undefined to be structural`,
      `${P}.properties[a].allOf[0].properties[metadata]: Forbidden: must not be specified in a nested context`,
      `${P}.properties[a].allOf[0].x-kubernetes-map-type: Forbidden: must be undefined to be structural`,
      `${P}.properties[a].allOf[0].x-kubernetes-preserve-unknown-fields: Forbidden: must be false to be structural`,
      `${P}.properties[a].not.x-kubernetes-list-map-keys: Forbidden: must be empty to be structural`,
      `${P}.properties[a].oneOf[0].x-kubernetes-embedded-resource: Forbidden: must be false to be structural`,
      `${P}.properties[a].oneOf[0].x-kubernetes-int-or-string: Forbidden: must be false to be structural`,
      `${P}.properties[a].oneOf[0].x-kubernetes-list-type: Forbidden: must be undefined to be structural`,
      // then the OpenAPI schema rules, which recurse into the junctors too
      `${P}.properties[a].not.x-kubernetes-list-type: Required value: must be map if x-kubernetes-list-map-keys is non-empty`,
      `${P}.properties[a].allOf[0].additionalProperties: Forbidden: additionalProperties and properties are mutual exclusive`,
      `${P}.properties[a].allOf[0].type: Required value: must be object if x-kubernetes-map-type is specified`,
      `${P}.properties[a].oneOf[0].type: Required value: must be array if x-kubernetes-list-type is specified`,
    ],
  },
  // complete.go
  {
    name: 'value validation specifying fields the schema does not',
    schema: withProps({ a: { type: 'string' } }, { anyOf: [{ properties: { a: { pattern: 'x' }, b: {} } }], allOf: [{ properties: { a: { items: { pattern: 'y' } } } }] }),
    want: [
      `${P}.properties[a].items: Required value: because it is defined in ${P}.allOf[0].properties[a].items`,
      `${P}.properties[b]: Required value: because it is defined in ${P}.anyOf[0].properties[b]`,
    ],
  },
  {
    name: 'invalid pattern',
    schema: withProps({ a: { type: 'string', pattern: '(abc' } }),
    want: [`${P}.properties[a].pattern: Invalid value: "(abc": must be a valid regular expression, but isn't: error parsing regexp: missing closing ): \`(abc\``],
  },
  // specStandardValidatorV3 and ValidateCustomResourceDefinitionOpenAPISchema
  { name: 'uniqueItems', schema: withProps({ a: { type: 'array', uniqueItems: true, items: { type: 'string' } } }), want: [`${P}.properties[a].uniqueItems: Forbidden: uniqueItems cannot be set to true since the runtime complexity becomes quadratic`] },
  {
    name: 'additionalProperties beside properties',
    schema: withProps({ a: { type: 'object', properties: { x: { type: 'string' } }, additionalProperties: { type: 'string' } }, b: { type: 'object', properties: { x: { type: 'string' } }, additionalProperties: true } }),
    want: [`${P}.properties[a].additionalProperties: Forbidden: additionalProperties and properties are mutual exclusive`],
  },
  { name: '$ref', schema: withProps({ a: { $ref: '#/definitions/x' } }), want: [`${P}.properties[a].$ref: Forbidden: $ref is not supported`] },
  {
    name: 'definitions, dependencies, patternProperties, additionalItems, id',
    schema: withProps({
      a: { type: 'object', definitions: { x: { type: 'string' } }, dependencies: { y: ['z'] }, patternProperties: { '^x': { type: 'string' } } },
      b: { type: 'array', items: { type: 'string' }, additionalItems: false, id: 'b' },
    }),
    want: [
      `${P}.properties[a].patternProperties: Forbidden: patternProperties is not supported`,
      `${P}.properties[a].definitions: Forbidden: definitions is not supported`,
      `${P}.properties[a].dependencies: Forbidden: dependencies is not supported`,
      `${P}.properties[b].id: Forbidden: id is not supported`,
      `${P}.properties[b].additionalItems: Forbidden: additionalItems is not supported`,
    ],
  },
  { name: 'items as an array', schema: withProps({ a: { type: 'array', items: [{ type: 'string' }] } }), want: [`${P}.properties[a].items: Forbidden: items must be a schema object and not an array`] },
  { name: 'items as an empty array', schema: withProps({ a: { type: 'array', items: [] } }), want: [`${P}.properties[a].items: Required value: must be specified`] },
  { name: '$schema only fails the structural conversion', schema: withProps({ a: { type: 'string', $schema: 'http://json-schema.org/draft-04/schema#' } }), want: [`${P}: Invalid value: "": OpenAPIV3Schema 'schema' is not supported`] },
  {
    name: 'type null',
    schema: withProps({ a: { type: 'null' } }),
    want: [
      `${P}.properties[a].type: Unsupported value: "null": supported values: "array", "boolean", "integer", "number", "object", "string"`,
      `${P}.properties[a].type: Forbidden: type cannot be set to null, use nullable as an alternative`,
    ],
  },
  { name: 'nullable root', schema: { type: 'object', nullable: true }, want: [`${P}.nullable: Forbidden: nullable cannot be true at the root`] },
  { name: 'preserve-unknown-fields false', schema: withProps({ a: { type: 'object', 'x-kubernetes-preserve-unknown-fields': false } }), want: [`${P}.properties[a].x-kubernetes-preserve-unknown-fields: Invalid value: false: must be true or undefined`] },
  // list and map types
  {
    name: 'list-type and map-type on the wrong types',
    schema: withProps({ a: { type: 'string', 'x-kubernetes-list-type': 'set' }, b: { type: 'array', items: { type: 'string' }, 'x-kubernetes-map-type': 'granular' }, c: { type: 'array', items: { type: 'string' }, 'x-kubernetes-list-type': 'bag' }, d: { type: 'object', 'x-kubernetes-map-type': 'x' } }),
    want: [
      `${P}.properties[a].type: Invalid value: "string": must be array if x-kubernetes-list-type is specified`,
      `${P}.properties[b].type: Invalid value: "array": must be object if x-kubernetes-map-type is specified`,
      `${P}.properties[c].x-kubernetes-list-type: Unsupported value: "bag": supported values: "atomic", "set", "map"`,
      `${P}.properties[d].x-kubernetes-map-type: Unsupported value: "x": supported values: "atomic", "granular"`,
    ],
  },
  {
    name: 'list-map keys',
    schema: withProps({
      a: { type: 'array', 'x-kubernetes-list-type': 'map', items: { type: 'object', properties: { k: { type: 'string' } } } },
      b: { type: 'array', 'x-kubernetes-list-map-keys': ['k'], items: { type: 'object', required: ['k'], properties: { k: { type: 'string' } } } },
      c: { type: 'array', 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['k', 'missing', 'k'], items: { type: 'object', required: ['k'], properties: { k: { type: 'string' } } } },
      d: { type: 'array', 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['o'], items: { type: 'object', required: ['o'], properties: { o: { type: 'object' } } } },
      e: { type: 'array', 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['k'], items: { type: 'string' } },
    }),
    want: [
      `${P}.properties[a].x-kubernetes-list-map-keys: Required value: must not be empty if x-kubernetes-list-type is map`,
      `${P}.properties[b].x-kubernetes-list-type: Required value: must be map if x-kubernetes-list-map-keys is non-empty`,
      `${P}.properties[c].x-kubernetes-list-map-keys: Invalid value: []string{"k", "missing", "k"}: entries must all be names of item properties`,
      `${P}.properties[c].x-kubernetes-list-map-keys: Invalid value: []string{"k", "missing", "k"}: must not contain duplicate entries`,
      `${P}.properties[d].items.properties[o].type: Invalid value: "object": must be a scalar type if parent array's x-kubernetes-list-type is map`,
      `${P}.properties[e].items.type: Invalid value: "string": must be object if parent array's x-kubernetes-list-type is map`,
    ],
  },
  {
    name: 'list-map keys required or defaulted, not nullable; set and map items not nullable',
    schema: withProps({
      a: { type: 'array', 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['k'], items: { type: 'object', nullable: true, properties: { k: { type: 'string', nullable: true } } } },
      b: { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'string', nullable: true } },
    }),
    want: [
      `${P}.properties[a].items.nullable: Forbidden: cannot be nullable when x-kubernetes-list-type is map`,
      `${P}.properties[a].items.properties[k].default: Required value: this property is in x-kubernetes-list-map-keys, so it must have a default or be a required property`,
      `${P}.properties[a].items.properties[k].nullable: Forbidden: this property is in x-kubernetes-list-map-keys, so it cannot be nullable`,
      `${P}.properties[b].items.nullable: Forbidden: cannot be nullable when x-kubernetes-list-type is set`,
    ],
  },
  {
    name: 'set items must be atomic',
    schema: withProps({
      a: { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'object', properties: { x: { type: 'string' } } } },
      b: { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'string' } } },
      c: { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'object', 'x-kubernetes-map-type': 'atomic', properties: { x: { type: 'string' } } } },
    }),
    want: [
      `${P}.properties[a].items.x-kubernetes-map-type: Invalid value: "null": must be atomic as item of a list with x-kubernetes-list-type=set`,
      `${P}.properties[b].items.x-kubernetes-list-type: Invalid value: "set": must be atomic as item of a list with x-kubernetes-list-type=set`,
    ],
  },
  // defaults (defaulting/validation.go, then the standard validator's forbidden defaults)
  {
    name: 'default of the wrong type',
    schema: withProps({ spec: { type: 'object', properties: { replicas: { type: 'integer', default: 'one' } } } }),
    want: [`${P}.properties[spec].properties[replicas].default: Invalid value: "string":  in body must be of type integer: "string"`],
  },
  {
    name: 'default violating a constraint',
    schema: withProps({ spec: { type: 'object', properties: { name: { type: 'string', maxLength: 2, default: 'abc' } } } }),
    want: [`${P}.properties[spec].properties[name].default: Too long: may not be longer than 2`],
  },
  {
    name: 'default with unknown fields',
    schema: withProps({ spec: { type: 'object', properties: { a: { type: 'string' } }, default: { a: 'x', b: 'y' } } }),
    want: [`${P}.properties[spec].default: Invalid value: map[string]interface {}{"a":"x", "b":"y"}: must not have unknown fields`],
  },
  {
    name: 'default object checked against nested schemas',
    schema: withProps({ spec: { type: 'object', properties: { n: { type: 'integer', minimum: 1 } }, default: { n: 0 } } }),
    want: [`${P}.properties[spec].default.n: Invalid value: 0: n in body should be greater than or equal to 1`],
  },
  {
    name: 'defaults in top-level metadata',
    schema: withProps({ metadata: { type: 'object', properties: { name: { type: 'string', default: 'x' } } } }),
    want: [`${P}.properties[metadata].properties[name].default: Forbidden: must not be set in top-level metadata`],
  },
  {
    name: 'embedded resource inside resource meta, defaults in metadata maps',
    schema: withProps({
      t: {
        type: 'object',
        'x-kubernetes-embedded-resource': true,
        properties: {
          metadata: { type: 'object', properties: { x: { type: 'object', 'x-kubernetes-embedded-resource': true, 'x-kubernetes-preserve-unknown-fields': true } } },
          kind: { type: 'string' },
        },
      },
    }),
    want: [`${P}.properties[t].properties[metadata].properties[x].x-kubernetes-embedded-resource: Forbidden: must not be used inside of resource meta`],
    opts: { requireStructural: false },
  },
  {
    name: 'defaults inside additionalProperties of resource meta',
    schema: withProps({ t: { type: 'object', 'x-kubernetes-embedded-resource': true, properties: { metadata: { type: 'object', additionalProperties: { type: 'string', default: 'x' } } } } }),
    want: [`${P}.properties[t].properties[metadata].additionalProperties.default: Forbidden: must not be set inside additionalProperties applying to object metadata`],
    opts: { requireStructural: false },
  },
  {
    name: 'defaults inside an embedded resource\'s TypeMeta and ObjectMeta result in valid metadata',
    schema: withProps({
      t: {
        type: 'object',
        'x-kubernetes-embedded-resource': true,
        properties: {
          apiVersion: { type: 'string', default: 'v1' },
          kind: { type: 'string', default: 'Bad_Kind' },
          metadata: { type: 'object', properties: { labels: { type: 'object', additionalProperties: { type: 'string' }, default: { 'a b': 'c' } } } },
        },
      },
    }),
    want: [
      `${P}.properties[t].properties[kind].default: Invalid value: "Bad_Kind": must result in valid metadata: kind: Invalid value: "Bad_Kind": may have mixed case, but should otherwise match: a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')`,
      `${P}.properties[t].properties[metadata].properties[labels].default: Invalid value: map[string]interface {}{"a b":"c"}: must result in valid metadata: metadata.labels: Invalid value: "a b": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`,
    ],
  },
  {
    name: 'default of an embedded resource missing its kind',
    schema: withProps({ t: { type: 'object', 'x-kubernetes-embedded-resource': true, 'x-kubernetes-preserve-unknown-fields': true, default: { apiVersion: 'v1' } } }),
    want: [`${P}.properties[t].default.kind: Required value`],
  },
  { name: 'defaults not allowed', schema: withProps({ a: { type: 'string', default: 'x' } }), opts: { allowDefaults: false }, want: [`${P}.properties[a].default: Forbidden: must not be set`] },
  { name: 'valid defaults', schema: withProps({ spec: { type: 'object', default: {}, properties: { n: { type: 'integer', default: 1 }, m: { type: 'object', additionalProperties: { type: 'string' }, default: { a: 'b' } } } } }), want: [] },
  // the status subresource restricts the root
  {
    name: 'status subresource: root type',
    schema: { type: 'object', properties: {} },
    opts: { statusSubresource: true },
    want: [],
  },
  {
    name: 'status subresource: root not an object',
    schema: { type: 'array', items: { type: 'string' } },
    opts: { statusSubresource: true },
    want: [
      `${P}.type: Invalid value: "array": only "object" is allowed as the type at the root of the schema if the status subresource is enabled`,
      `${P}.type: Invalid value: "array": must be object at the root`,
    ],
  },
  { name: 'not structural: no structural errors when not required', schema: withProps({ a: {} }), opts: { requireStructural: false }, want: [] },
];

for (const c of cases) {
  test(`CRD schema: ${c.name}`, () => {
    assert.deepEqual(check(c.schema, c.opts), c.want);
  });
}

test('CRD schema: the status subresource allows only some keywords at the root', () => {
  // minProperties is a pointer in Go: set to 0 it still counts
  const errs = validateCrdSchema({ type: 'object', minProperties: 0, properties: {} }, P, { requireStructural: true, statusSubresource: true });
  assert.equal(errs.length, 1);
  assert.equal(errs[0].field, P);
  assert.equal(
    errs[0].detail,
    'only [Description Type Format Title Maximum ExclusiveMaximum Minimum ExclusiveMinimum MaxLength MinLength Pattern MaxItems MinItems UniqueItems MultipleOf Required Items Properties ExternalDocs Example XPreserveUnknownFields XValidations] fields are allowed at the root of the schema if the status subresource is enabled',
  );
});
