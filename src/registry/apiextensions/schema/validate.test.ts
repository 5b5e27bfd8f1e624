// Custom resource validation against compiled schemas: each expected line is kube-apiserver 1.31's text.
// Messages come from kube-openapi pkg/validation/errors/schema.go (via apiextensions-apiserver
// pkg/apiserver/validation/validation.go kubeOpenAPIResultToFieldErrors), schema_messages.go for the junctors,
// schema/listtype/validation.go and schema/objectmeta/validation.go.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fieldErrorString } from '../../../apis/errors.ts';
import type { JSONSchemaProps } from '../json-schema-props.ts';
import { compileSchema } from './compile.ts';

function specSchema(props: Record<string, JSONSchemaProps>, extra: JSONSchemaProps = {}): JSONSchemaProps {
  return { type: 'object', properties: { spec: { type: 'object', properties: props, ...extra } } };
}

function check(schema: JSONSchemaProps, spec: unknown): string[] {
  return compileSchema(schema).validate({ apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w' }, spec }).map(fieldErrorString);
}

interface Case {
  name: string;
  props: Record<string, JSONSchemaProps>;
  spec: unknown;
  want: string[];
  extra?: JSONSchemaProps;
}

const cases: Case[] = [
  // typeValidator: errors.InvalidType with the JSON type found (typeFailWithData)
  { name: 'type integer', props: { replicas: { type: 'integer' } }, spec: { replicas: 'x' }, want: ['spec.replicas: Invalid value: "string": spec.replicas in body must be of type integer: "string"'] },
  { name: 'type integer, float given', props: { replicas: { type: 'integer' } }, spec: { replicas: 1.5 }, want: ['spec.replicas: Invalid value: "number": spec.replicas in body must be of type integer: "number"'] },
  { name: 'type number accepts integers', props: { ratio: { type: 'number' } }, spec: { ratio: 2 }, want: [] },
  { name: 'type string', props: { s: { type: 'string' } }, spec: { s: true }, want: ['spec.s: Invalid value: "boolean": spec.s in body must be of type string: "boolean"'] },
  { name: 'type object', props: { o: { type: 'object' } }, spec: { o: [1] }, want: ['spec.o: Invalid value: "array": spec.o in body must be of type object: "array"'] },
  { name: 'type array', props: { a: { type: 'array', items: { type: 'string' } } }, spec: { a: {} }, want: ['spec.a: Invalid value: "object": spec.a in body must be of type array: "object"'] },
  { name: 'type boolean', props: { b: { type: 'boolean' } }, spec: { b: 'true' }, want: ['spec.b: Invalid value: "string": spec.b in body must be of type boolean: "string"'] },
  // a format on a non-string value names the format (typeValidator's first check)
  { name: 'format int32 on a float', props: { n: { type: 'integer', format: 'int32' } }, spec: { n: 1.5 }, want: ['spec.n: Invalid value: "float64": spec.n in body must be of type int32: "float64"'] },
  // null: nullable or a type error naming "null"
  { name: 'null, not nullable', props: { s: { type: 'string' } }, spec: { s: null }, want: ['spec.s: Invalid value: "null": spec.s in body must be of type string: "null"'] },
  { name: 'null, nullable', props: { s: { type: 'string', nullable: true } }, spec: { s: null }, want: [] },
  // formats: strfmt.Default, errors.InvalidType with the value
  { name: 'format date-time', props: { t: { type: 'string', format: 'date-time' } }, spec: { t: '2024-13-01T00:00:00Z' }, want: ['spec.t: Invalid value: "2024-13-01T00:00:00Z": spec.t in body must be of type date-time: "2024-13-01T00:00:00Z"'] },
  { name: 'format date-time ok', props: { t: { type: 'string', format: 'date-time' } }, spec: { t: '2024-02-29T23:59:59.5+02:00' }, want: [] },
  { name: 'format date', props: { d: { type: 'string', format: 'date' } }, spec: { d: '2023-02-29' }, want: ['spec.d: Invalid value: "2023-02-29": spec.d in body must be of type date: "2023-02-29"'] },
  { name: 'format duration', props: { d: { type: 'string', format: 'duration' } }, spec: { d: 'soon' }, want: ['spec.d: Invalid value: "soon": spec.d in body must be of type duration: "soon"'] },
  { name: 'format duration ok', props: { d: { type: 'string', format: 'duration' } }, spec: { d: '1h30m' }, want: [] },
  { name: 'format duration long units', props: { d: { type: 'string', format: 'duration' } }, spec: { d: '3 days' }, want: [] },
  { name: 'format uuid', props: { u: { type: 'string', format: 'uuid' } }, spec: { u: 'not-a-uuid' }, want: ['spec.u: Invalid value: "not-a-uuid": spec.u in body must be of type uuid: "not-a-uuid"'] },
  { name: 'format uuid ok', props: { u: { type: 'string', format: 'uuid' } }, spec: { u: '123E4567-E89B-12D3-A456-426614174000' }, want: [] },
  { name: 'format byte', props: { b: { type: 'string', format: 'byte' } }, spec: { b: 'abc' }, want: ['spec.b: Invalid value: "abc": spec.b in body must be of type byte: "abc"'] },
  { name: 'format ipv4', props: { ip: { type: 'string', format: 'ipv4' } }, spec: { ip: '::1' }, want: ['spec.ip: Invalid value: "::1": spec.ip in body must be of type ipv4: "::1"'] },
  { name: 'format ipv6 ok', props: { ip: { type: 'string', format: 'ipv6' } }, spec: { ip: 'fe80::1' }, want: [] },
  { name: 'format cidr', props: { c: { type: 'string', format: 'cidr' } }, spec: { c: '10.0.0.0/33' }, want: ['spec.c: Invalid value: "10.0.0.0/33": spec.c in body must be of type cidr: "10.0.0.0/33"'] },
  { name: 'format hostname', props: { h: { type: 'string', format: 'hostname' } }, spec: { h: 'a_b.example.com' }, want: ['spec.h: Invalid value: "a_b.example.com": spec.h in body must be of type hostname: "a_b.example.com"'] },
  { name: 'format email', props: { e: { type: 'string', format: 'email' } }, spec: { e: 'nobody' }, want: ['spec.e: Invalid value: "nobody": spec.e in body must be of type email: "nobody"'] },
  { name: 'format uri', props: { u: { type: 'string', format: 'uri' } }, spec: { u: 'relative/path' }, want: ['spec.u: Invalid value: "relative/path": spec.u in body must be of type uri: "relative/path"'] },
  { name: 'format mac', props: { m: { type: 'string', format: 'mac' } }, spec: { m: '00:00:5e:00:53' }, want: ['spec.m: Invalid value: "00:00:5e:00:53": spec.m in body must be of type mac: "00:00:5e:00:53"'] },
  // formats kube does not know are stripped (StripUnsupportedFormatsPostProcess): never checked
  { name: 'unknown format ignored', props: { s: { type: 'string', format: 'k8s-short-name' } }, spec: { s: 'Not Valid' }, want: [] },
  { name: 'int64 format on integers', props: { n: { type: 'integer', format: 'int64' } }, spec: { n: 5 }, want: [] },
  // enum: EnumFailCode -> field.NotSupported, non-strings listed as JSON
  { name: 'enum', props: { mode: { type: 'string', enum: ['a', 'b'] } }, spec: { mode: 'c' }, want: ['spec.mode: Unsupported value: "c": supported values: "a", "b"'] },
  // reflect conversion to the enum value's type: 1.5 converts to int64 1
  { name: 'enum compares after Go conversion', props: { n: { type: 'number', enum: [1, 2] } }, spec: { n: 1.5 }, want: [] },
  { name: 'enum numbers', props: { n: { type: 'integer', enum: [1, 2] } }, spec: { n: 3 }, want: ['spec.n: Unsupported value: 3: supported values: "1", "2"'] },
  // stringValidator: maxLength (TooLongFailCode -> field.TooLongMaxLength), minLength, pattern; first failure only
  { name: 'maxLength', props: { s: { type: 'string', maxLength: 3 } }, spec: { s: 'abcd' }, want: ['spec.s: Too long: may not be longer than 3'] },
  { name: 'maxLength counts runes', props: { s: { type: 'string', maxLength: 3 } }, spec: { s: 'äöü' }, want: [] },
  { name: 'minLength', props: { s: { type: 'string', minLength: 3 } }, spec: { s: 'ab' }, want: ['spec.s: Invalid value: "ab": spec.s in body should be at least 3 chars long'] },
  { name: 'pattern', props: { s: { type: 'string', pattern: '^[a-z]+$' } }, spec: { s: 'A1' }, want: ["spec.s: Invalid value: \"A1\": spec.s in body should match '^[a-z]+$'"] },
  { name: 'pattern unanchored', props: { s: { type: 'string', pattern: '[0-9]' } }, spec: { s: 'abc1' }, want: [] },
  { name: 'minLength before pattern', props: { s: { type: 'string', minLength: 3, pattern: '^[a-z]+$' } }, spec: { s: 'A' }, want: ['spec.s: Invalid value: "A": spec.s in body should be at least 3 chars long'] },
  // numberValidator: multipleOf, minimum, maximum (int64 data compares with the truncated bound)
  { name: 'minimum', props: { n: { type: 'integer', minimum: 1 } }, spec: { n: 0 }, want: ['spec.n: Invalid value: 0: spec.n in body should be greater than or equal to 1'] },
  { name: 'exclusiveMinimum', props: { n: { type: 'integer', minimum: 1, exclusiveMinimum: true } }, spec: { n: 1 }, want: ['spec.n: Invalid value: 1: spec.n in body should be greater than 1'] },
  { name: 'maximum', props: { n: { type: 'integer', maximum: 10 } }, spec: { n: 11 }, want: ['spec.n: Invalid value: 11: spec.n in body should be less than or equal to 10'] },
  { name: 'exclusiveMaximum', props: { n: { type: 'integer', maximum: 10, exclusiveMaximum: true } }, spec: { n: 10 }, want: ['spec.n: Invalid value: 10: spec.n in body should be less than 10'] },
  { name: 'maximum on a float', props: { n: { type: 'number', maximum: 1.5 } }, spec: { n: 2.25 }, want: ['spec.n: Invalid value: 2.25: spec.n in body should be less than or equal to 1.5'] },
  { name: 'multipleOf', props: { n: { type: 'integer', multipleOf: 5 } }, spec: { n: 12 }, want: ['spec.n: Invalid value: 12: spec.n in body should be a multiple of 5'] },
  { name: 'multipleOf a fraction', props: { n: { type: 'number', multipleOf: 0.5 } }, spec: { n: 1.25 }, want: ['spec.n: Invalid value: 1.25: spec.n in body should be a multiple of 0.5'] },
  { name: 'multipleOf a fraction ok', props: { n: { type: 'number', multipleOf: 0.1 } }, spec: { n: 0.3 }, want: [] },
  { name: 'min and max together', props: { n: { type: 'integer', minimum: 5, multipleOf: 2 } }, spec: { n: 3 }, want: ['spec.n: Invalid value: 3: spec.n in body should be a multiple of 2', 'spec.n: Invalid value: 3: spec.n in body should be greater than or equal to 5'] },
  // schemaSliceValidator: items first, then minItems, maxItems (MaxItemsFailCode -> field.TooMany), uniqueItems
  { name: 'minItems', props: { a: { type: 'array', minItems: 2, items: { type: 'string' } } }, spec: { a: ['x'] }, want: ['spec.a: Invalid value: 1: spec.a in body should have at least 2 items'] },
  { name: 'maxItems', props: { a: { type: 'array', maxItems: 3, items: { type: 'string' } } }, spec: { a: ['a', 'b', 'c', 'd'] }, want: ['spec.a: Too many: 4: must have at most 3 items'] },
  { name: 'items path', props: { a: { type: 'array', items: { type: 'object', properties: { n: { type: 'integer' } } } } }, spec: { a: [{ n: 1 }, { n: 'x' }] }, want: ['spec.a[1].n: Invalid value: "string": spec.a[1].n in body must be of type integer: "string"'] },
  { name: 'uniqueItems', props: { a: { type: 'array', uniqueItems: true, items: { type: 'object' } } }, spec: { a: [{ x: 1 }, { x: 1 }] }, want: ['spec.a: Invalid value: "": spec.a in body shouldn\'t contain duplicates'] },
  // objectValidator: min/maxProperties stop the object's other checks (TooManyPropertiesCode -> field.TooMany)
  { name: 'minProperties', props: { m: { type: 'object', minProperties: 1, additionalProperties: { type: 'string' } } }, spec: { m: {} }, want: ['spec.m: Invalid value: 0: spec.m in body should have at least 1 properties'] },
  { name: 'maxProperties', props: { m: { type: 'object', maxProperties: 1, additionalProperties: { type: 'string' } } }, spec: { m: { a: 'x', b: 1 } }, want: ['spec.m: Too many: 2: must have at most 1 items'] },
  { name: 'additionalProperties schema', props: { m: { type: 'object', additionalProperties: { type: 'string' } } }, spec: { m: { a: 'x', b: 1 } }, want: ['spec.m.b: Invalid value: "integer": spec.m.b in body must be of type string: "integer"'] },
  { name: 'additionalProperties false', props: { m: { type: 'object', additionalProperties: false } }, spec: { m: { a: 1 } }, want: ['spec.m: Invalid value: "a": spec.m.a in body is a forbidden property'] },
  // required: RequiredFailCode -> field.Required(path, "")
  { name: 'required', props: { s: { type: 'string' } }, spec: {}, extra: { required: ['s', 't'] }, want: ['spec.s: Required value', 'spec.t: Required value'] },
  // int-or-string: type ["integer","string"]
  { name: 'int-or-string int', props: { p: { 'x-kubernetes-int-or-string': true } }, spec: { p: 80 }, want: [] },
  { name: 'int-or-string string', props: { p: { 'x-kubernetes-int-or-string': true } }, spec: { p: 'http' }, want: [] },
  { name: 'int-or-string bool', props: { p: { 'x-kubernetes-int-or-string': true } }, spec: { p: true }, want: ['spec.p: Invalid value: "boolean": spec.p in body must be of type integer,string: "boolean"'] },
  {
    name: 'int-or-string with its anyOf',
    props: { p: { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }], pattern: '^\\d+%$' } },
    spec: { p: '50' },
    want: ["spec.p: Invalid value: \"50\": spec.p in body should match '^\\d+%$'"],
  },
  // junctors (schema_props.go): a composite error on fldPath (nil for a custom resource), then the best branch's errors
  {
    name: 'anyOf',
    props: { n: { type: 'integer', anyOf: [{ minimum: 10 }, { maximum: 1 }] } },
    spec: { n: 5 },
    want: ['<nil>: Invalid value: "": "spec.n" must validate at least one schema (anyOf)', 'spec.n: Invalid value: 5: spec.n in body should be greater than or equal to 10'],
  },
  { name: 'anyOf ok', props: { n: { type: 'integer', anyOf: [{ minimum: 10 }, { maximum: 5 }] } }, spec: { n: 5 }, want: [] },
  {
    name: 'oneOf none',
    props: { n: { type: 'integer', oneOf: [{ minimum: 10 }, { maximum: 1 }] } },
    spec: { n: 5 },
    want: ['<nil>: Invalid value: "": "spec.n" must validate one and only one schema (oneOf). Found none valid', 'spec.n: Invalid value: 5: spec.n in body should be greater than or equal to 10'],
  },
  {
    name: 'oneOf two',
    props: { n: { type: 'integer', oneOf: [{ minimum: 1 }, { maximum: 10 }] } },
    spec: { n: 5 },
    want: ['<nil>: Invalid value: "": "spec.n" must validate one and only one schema (oneOf). Found 2 valid alternatives'],
  },
  {
    name: 'allOf',
    props: { n: { type: 'integer', allOf: [{ minimum: 1 }, { maximum: 3 }] } },
    spec: { n: 5 },
    want: ['spec.n: Invalid value: 5: spec.n in body should be less than or equal to 3', '<nil>: Invalid value: "": "spec.n" must validate all the schemas (allOf)'],
  },
  {
    name: 'allOf none',
    props: { n: { type: 'integer', allOf: [{ minimum: 10 }, { maximum: 3 }] } },
    spec: { n: 5 },
    want: [
      'spec.n: Invalid value: 5: spec.n in body should be greater than or equal to 10',
      'spec.n: Invalid value: 5: spec.n in body should be less than or equal to 3',
      '<nil>: Invalid value: "": "spec.n" must validate all the schemas (allOf). None validated',
    ],
  },
  { name: 'not', props: { s: { type: 'string', not: { enum: ['forbidden'] } } }, spec: { s: 'forbidden' }, want: ['<nil>: Invalid value: "": "spec.s" must not validate the schema (not)'] },
  {
    name: 'required through anyOf',
    props: { a: { type: 'string' }, b: { type: 'string' } },
    extra: { anyOf: [{ required: ['a'] }, { required: ['b'] }] },
    spec: {},
    want: ['<nil>: Invalid value: "": "spec" must validate at least one schema (anyOf)', 'spec.a: Required value'],
  },
  // preserve-unknown-fields: known properties still validated
  { name: 'preserve unknown, known field checked', props: { free: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true, properties: { n: { type: 'integer' } } } }, spec: { free: { n: 'x', other: 1 } }, want: ['spec.free.n: Invalid value: "string": spec.free.n in body must be of type integer: "string"'] },
  // embedded resources (objectmeta/validation.go)
  {
    name: 'embedded resource without apiVersion and kind',
    props: { template: { type: 'object', 'x-kubernetes-embedded-resource': true, 'x-kubernetes-preserve-unknown-fields': true } },
    spec: { template: { metadata: { name: 'x' } } },
    want: ['spec.template.apiVersion: Required value', 'spec.template.kind: Required value'],
  },
  {
    name: 'embedded resource fields checked',
    props: { template: { type: 'object', 'x-kubernetes-embedded-resource': true, 'x-kubernetes-preserve-unknown-fields': true } },
    spec: { template: { apiVersion: 'a/b/c', kind: 'Bad_Kind', metadata: { name: 'x/y', labels: { 'a b': 'c' } } } },
    want: [
      'spec.template.apiVersion: Invalid value: "a/b/c": unexpected GroupVersion string: a/b/c',
      "spec.template.kind: Invalid value: \"Bad_Kind\": may have mixed case, but should otherwise match: a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')",
      "spec.template.metadata.name: Invalid value: \"x/y\": may not contain '/'",
      "spec.template.metadata.labels: Invalid value: \"a b\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
    ],
  },
  {
    name: 'embedded resource ok',
    props: { template: { type: 'object', 'x-kubernetes-embedded-resource': true, 'x-kubernetes-preserve-unknown-fields': true } },
    spec: { template: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' }, data: { a: 'b' } } },
    want: [],
  },
  // list types (listtype/validation.go): field.Duplicate on the second appearance
  {
    name: 'list-type set',
    props: { s: { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'string' } } },
    spec: { s: ['a', 'b', 'a', 'a'] },
    want: ['spec.s[2]: Duplicate value: "a"'],
  },
  {
    name: 'list-type map, one key',
    props: { ports: { type: 'array', 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['name'], items: { type: 'object', required: ['name'], properties: { name: { type: 'string' }, port: { type: 'integer' } } } } },
    spec: { ports: [{ name: 'a', port: 1 }, { name: 'b' }, { name: 'a', port: 2 }] },
    want: ['spec.ports[2]: Duplicate value: map[string]interface {}{"name":"a"}'],
  },
  {
    name: 'list-type map, two keys',
    props: {
      ports: {
        type: 'array',
        'x-kubernetes-list-type': 'map',
        'x-kubernetes-list-map-keys': ['port', 'protocol'],
        items: { type: 'object', required: ['port', 'protocol'], properties: { port: { type: 'integer' }, protocol: { type: 'string' } } },
      },
    },
    spec: { ports: [{ port: 80, protocol: 'TCP' }, { port: 80, protocol: 'UDP' }, { protocol: 'TCP', port: 80 }] },
    want: ['spec.ports[2]: Duplicate value: map[string]interface {}{"port":80, "protocol":"TCP"}'],
  },
];

for (const c of cases) {
  test(`validate: ${c.name}`, () => {
    assert.deepEqual(check(specSchema(c.props, c.extra), c.spec), c.want);
  });
}

test('validate: constraints on metadata.name are checked, other metadata is the store\'s', () => {
  const schema: JSONSchemaProps = { type: 'object', properties: { metadata: { type: 'object', properties: { name: { type: 'string', maxLength: 5 } } } } };
  const errs = compileSchema(schema).validate({ apiVersion: 'a/v1', kind: 'K', metadata: { name: 'too-long-name', labels: { 'bad key': 'x' } } });
  assert.deepEqual(errs.map(fieldErrorString), ['metadata.name: Too long: may not be longer than 5']);
});

test('validate: errors carry kube cause types', () => {
  const errs = compileSchema(specSchema({ n: { type: 'integer', maximum: 1 }, s: { type: 'string', maxLength: 1 }, t: { type: 'boolean' } })).validate({ spec: { n: 2, s: 'ab', t: 1 } });
  assert.deepEqual(
    errs.map((e) => [e.field, e.type]),
    [
      ['spec.n', 'FieldValueInvalid'],
      ['spec.s', 'FieldValueTooLong'],
      ['spec.t', 'FieldValueTypeInvalid'],
    ],
  );
});

// Ratcheting (CRDValidationRatcheting, beta and on in 1.31): unchanged invalid values pass on update.
test('validateUpdate: unchanged invalid fields pass, changed ones fail', () => {
  const c = compileSchema(specSchema({ n: { type: 'integer', maximum: 5 }, m: { type: 'integer', maximum: 5 } }));
  const old = { spec: { n: 10, m: 1 } };
  assert.deepEqual(c.validateUpdate({ spec: { n: 10, m: 2 } }, old).map(fieldErrorString), []);
  assert.deepEqual(c.validateUpdate({ spec: { n: 11, m: 2 } }, old).map(fieldErrorString), ['spec.n: Invalid value: 11: spec.n in body should be less than or equal to 5']);
  assert.deepEqual(c.validate({ spec: { n: 10, m: 2 } }).map(fieldErrorString), ['spec.n: Invalid value: 10: spec.n in body should be less than or equal to 5']);
});

test('validateUpdate: items correlate by key in list-type maps, not in other lists', () => {
  const item: JSONSchemaProps = { type: 'object', required: ['name'], properties: { name: { type: 'string' }, port: { type: 'integer', maximum: 100 } } };
  const c = compileSchema(
    specSchema({
      byKey: { type: 'array', 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['name'], items: item },
      byIndex: { type: 'array', items: item },
      atomic: { type: 'array', 'x-kubernetes-list-type': 'atomic', items: item },
    }),
  );
  const bad = { name: 'a', port: 500 };
  const old = { spec: { byKey: [bad], byIndex: [bad], atomic: [bad] } };
  const updated = { spec: { byKey: [{ name: 'b', port: 1 }, bad], byIndex: [bad, { name: 'b', port: 1 }], atomic: [bad] } };
  assert.deepEqual(c.validateUpdate(updated, old).map(fieldErrorString), ['spec.byIndex[0].port: Invalid value: 500: spec.byIndex[0].port in body should be less than or equal to 100']);
  // an unchanged list of any type is ratcheted as a whole
  assert.deepEqual(c.validateUpdate({ spec: { byKey: [bad], byIndex: [bad], atomic: [bad] } }, old), []);
});

test('validateUpdate: a reordered list-type map keeps its ratcheted list-level errors', () => {
  const c = compileSchema(
    specSchema({
      ports: { type: 'array', maxItems: 1, 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['name'], items: { type: 'object', required: ['name'], properties: { name: { type: 'string' } } } },
    }),
  );
  assert.deepEqual(c.validateUpdate({ spec: { ports: [{ name: 'b' }, { name: 'a' }] } }, { spec: { ports: [{ name: 'a' }, { name: 'b' }] } }), []);
});

test('validateUpdate: list duplicates already in the old object are not reported', () => {
  const c = compileSchema(specSchema({ s: { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'string' } } }));
  assert.deepEqual(c.validateUpdate({ spec: { s: ['a', 'a', 'b', 'b'] } }, { spec: { s: ['a', 'a'] } }).map(fieldErrorString), []);
  assert.deepEqual(c.validateUpdate({ spec: { s: ['a', 'a'] } }, { spec: { s: ['a'] } }).map(fieldErrorString), ['spec.s[1]: Duplicate value: "a"']);
});
