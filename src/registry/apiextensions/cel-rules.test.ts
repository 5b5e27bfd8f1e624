// x-kubernetes-validations compiled from a schema and run on objects, with kube 1.31's field paths and messages.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fieldErrors, fieldErrorString } from '../../apis/errors.ts';
import { compileValidationRules, escapeFieldName } from './cel-rules.ts';
import type { JSONSchemaProps } from './json-schema-props.ts';

const ROOT = 'spec.versions[0].schema.openAPIV3Schema';

function compile(schema: JSONSchemaProps) {
  const { errors, rules } = compileValidationRules(schema, ROOT);
  assert.deepEqual(errors.map(fieldErrorString), []);
  return rules;
}

function compileErrors(schema: JSONSchemaProps): string[] {
  return compileValidationRules(schema, ROOT).errors.map(fieldErrorString);
}

function validate(schema: JSONSchemaProps, obj: unknown, old?: unknown, costBudget?: number): string[] {
  return compile(schema).validate(obj, old, costBudget === undefined ? undefined : { costBudget }).map(fieldErrorString);
}

const cr = (spec: unknown, name = 'sample') => ({ apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name, namespace: 'default', uid: 'u' }, spec });

function withSpec(spec: JSONSchemaProps): JSONSchemaProps {
  return { type: 'object', properties: { spec } };
}

test('a schema without rules compiles to an empty rule set', () => {
  const rules = compile(withSpec({ type: 'object', properties: { a: { type: 'string' } } }));
  assert.equal(rules.empty, true);
  assert.deepEqual(rules.validate(cr({ a: 'x' }), undefined), []);
});

test('failed rules: message, default message, badValue is the schema type, <nil> at the root', () => {
  const schema: JSONSchemaProps = {
    type: 'object',
    'x-kubernetes-validations': [{ rule: "self.metadata.name.startsWith('my-')" }],
    properties: {
      spec: {
        type: 'object',
        'x-kubernetes-validations': [
          { rule: 'self.minReplicas <= self.maxReplicas', message: 'minReplicas must not exceed maxReplicas' },
          { rule: "self.mode == 'a' || self.mode == 'b'" },
        ],
        properties: {
          minReplicas: { type: 'integer' },
          maxReplicas: { type: 'integer' },
          mode: { type: 'string', 'x-kubernetes-validations': [{ rule: 'self.size() <= 3', message: '  too long  ' }] },
          tags: { type: 'array', items: { type: 'string', 'x-kubernetes-validations': [{ rule: "self != 'bad'" }] } },
          ratio: { type: 'number', 'x-kubernetes-validations': [{ rule: 'self < 1.0' }] },
        },
      },
    },
  };
  assert.deepEqual(validate(schema, cr({ minReplicas: 3, maxReplicas: 2, mode: 'abcd', tags: ['ok', 'bad'], ratio: 2 })), [
    `<nil>: Invalid value: "object": failed rule: self.metadata.name.startsWith('my-')`,
    'spec: Invalid value: "object": minReplicas must not exceed maxReplicas',
    `spec: Invalid value: "object": failed rule: self.mode == 'a' || self.mode == 'b'`,
    'spec.mode: Invalid value: "string": too long',
    `spec.tags[1]: Invalid value: "string": failed rule: self != 'bad'`,
    'spec.ratio: Invalid value: "number": failed rule: self < 1.0',
  ]);
  assert.deepEqual(validate(schema, cr({ minReplicas: 1, maxReplicas: 2, mode: 'a', tags: ['ok'], ratio: 0.5 }, 'my-widget')), []);
});

test('reason, fieldPath and messageExpression', () => {
  const schema = withSpec({
    type: 'object',
    properties: { name: { type: 'string' }, labels: { type: 'object', maxProperties: 10, additionalProperties: { type: 'string' } }, items: { type: 'array', items: { type: 'string' } }, zero: { type: 'integer' } },
    'x-kubernetes-validations': [
      { rule: 'has(self.name)', reason: 'FieldValueRequired', message: 'name is required', fieldPath: '.name' },
      { rule: "self.labels.all(k, k != 'x')", reason: 'FieldValueForbidden', messageExpression: "'label x is reserved in ' + string(self.labels.size()) + ' labels'", fieldPath: ".labels['x']" },
      { rule: 'self.items.size() == 0', reason: 'FieldValueDuplicate' },
      { rule: 'false', message: 'static', messageExpression: "'x' + string(1 / self.zero)" },
      { rule: 'false', message: 'fallback', messageExpression: "''" },
    ],
  });
  assert.deepEqual(validate(schema, cr({ labels: { x: 'y' }, items: ['a'], zero: 0 })), [
    'spec.name: Required value: name is required',
    'spec.labels[x]: Forbidden: label x is reserved in 1 labels',
    'spec: Duplicate value: "object"',
    'spec: Invalid value: "object": static',
    'spec: Invalid value: "object": fallback',
  ]);
});

test('messageExpression compile problems are reported at CRD write time', () => {
  assert.deepEqual(
    compileErrors(withSpec({ type: 'object', 'x-kubernetes-validations': [{ rule: 'true', messageExpression: '1 + 1' }] })),
    [
      `${ROOT}.properties[spec].x-kubernetes-validations[0].messageExpression: Invalid value: apiextensions.ValidationRule{Rule:"true", Message:"", MessageExpression:"1 + 1", Reason:(*apiextensions.FieldValueErrorReason)(nil), FieldPath:"", OptionalOldSelf:(*bool)(nil)}: messageExpression must evaluate to a string`,
    ],
  );
});

test('field names escaped as kube escapes them; only known fields are selectable', () => {
  assert.equal(escapeFieldName('foo-bar'), 'foo__dash__bar');
  assert.equal(escapeFieldName('a.b/c'), 'a__dot__b__slash__c');
  assert.equal(escapeFieldName('x__y'), 'x__underscores__y');
  assert.equal(escapeFieldName('namespace'), '__namespace__');
  assert.equal(escapeFieldName('1abc'), undefined);
  assert.equal(escapeFieldName('a b'), undefined);
  const schema = withSpec({
    type: 'object',
    'x-preserve-unknown-fields': undefined,
    properties: { 'foo-bar': { type: 'string' }, namespace: { type: 'string' }, 'a.b': { type: 'integer' } },
    'x-kubernetes-validations': [{ rule: "self.foo__dash__bar == self.__namespace__ && self.a__dot__b > 0" }],
  } as JSONSchemaProps);
  assert.deepEqual(validate(schema, cr({ 'foo-bar': 'x', namespace: 'x', 'a.b': 1 })), []);
  assert.equal(validate(schema, cr({ 'foo-bar': 'x', namespace: 'y', 'a.b': 1 })).length, 1);
});

test('apiVersion, kind, metadata.name and metadata.generateName only at resource roots', () => {
  const errors = compileErrors({
    type: 'object',
    'x-kubernetes-validations': [{ rule: "self.kind == 'Widget' && self.apiVersion != '' && self.metadata.generateName == ''" }, { rule: "self.metadata.namespace == 'x'" }],
    properties: {
      spec: { type: 'object', properties: { a: { type: 'string' } }, 'x-kubernetes-validations': [{ rule: "self.kind == 'x'" }] },
      template: { type: 'object', 'x-kubernetes-embedded-resource': true, 'x-kubernetes-preserve-unknown-fields': true, 'x-kubernetes-validations': [{ rule: "self.kind == 'Pod' && self.metadata.name != ''" }] },
    },
  });
  assert.deepEqual(errors, [
    // a node's rules after those of the nodes below it, as kube walks the schema
    `${ROOT}.properties[spec].x-kubernetes-validations[0].rule: Invalid value: apiextensions.ValidationRule{Rule:"self.kind == 'x'", Message:"", MessageExpression:"", Reason:(*apiextensions.FieldValueErrorReason)(nil), FieldPath:"", OptionalOldSelf:(*bool)(nil)}: compilation failed: ERROR: <input>:1:5: undefined field 'kind'\n | self.kind == 'x'\n | ....^`,
    `${ROOT}.x-kubernetes-validations[1].rule: Invalid value: apiextensions.ValidationRule{Rule:"self.metadata.namespace == 'x'", Message:"", MessageExpression:"", Reason:(*apiextensions.FieldValueErrorReason)(nil), FieldPath:"", OptionalOldSelf:(*bool)(nil)}: compilation failed: ERROR: <input>:1:14: undefined field 'namespace'\n | self.metadata.namespace == 'x'\n | .............^`,
  ]);
});

test('lists, maps, int-or-string, quantities and formats are typed from the schema', () => {
  const schema = withSpec({
    type: 'object',
    properties: {
      ports: { type: 'array', maxItems: 100, items: { type: 'integer' } },
      env: { type: 'object', maxProperties: 100, additionalProperties: { type: 'string', maxLength: 100 } },
      port: { 'x-kubernetes-int-or-string': true },
      memory: { type: 'string' },
      created: { type: 'string', format: 'date-time' },
      timeout: { type: 'string', format: 'duration' },
      extra: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
    },
    'x-kubernetes-validations': [
      { rule: 'self.ports.all(p, p > 0 && p < 65536) && self.ports.sum() == 8523' },
      { rule: "self.env.all(k, k.matches('^[A-Z_]+$')) && self.env['HOME'] == '/root'" },
      { rule: "type(self.port) == string ? self.port.endsWith('%') : self.port < 100" },
      { rule: "quantity(self.memory).isLessThan(quantity('1Gi'))" },
      { rule: "self.created < timestamp('2030-01-01T00:00:00Z') && self.timeout < duration('1h')" },
    ],
  });
  assert.deepEqual(validate(schema, cr({ ports: [80, 8443], env: { HOME: '/root' }, port: '50%', memory: '512Mi', created: '2024-05-01T10:00:00Z', timeout: '30s', extra: { any: 1 } })), []);
  assert.deepEqual(validate(schema, cr({ ports: [80, 8443], env: { HOME: '/root' }, port: 120, memory: '2Gi', created: '2024-05-01T10:00:00Z', timeout: '2h' })), [
    `spec: Invalid value: "object": failed rule: type(self.port) == string ? self.port.endsWith('%') : self.port < 100`,
    `spec: Invalid value: "object": failed rule: quantity(self.memory).isLessThan(quantity('1Gi'))`,
    `spec: Invalid value: "object": failed rule: self.created < timestamp('2030-01-01T00:00:00Z') && self.timeout < duration('1h')`,
  ]);
  assert.deepEqual(compileErrors(withSpec({ type: 'object', properties: { extra: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true, 'x-kubernetes-validations': [{ rule: 'self.any == 1' }] } } })).map((e) => e.split('\n')[0]), [
    `${ROOT}.properties[spec].properties[extra].x-kubernetes-validations[0].rule: Invalid value: apiextensions.ValidationRule{Rule:"self.any == 1", Message:"", MessageExpression:"", Reason:(*apiextensions.FieldValueErrorReason)(nil), FieldPath:"", OptionalOldSelf:(*bool)(nil)}: compilation failed: ERROR: <input>:1:5: undefined field 'any'`,
  ]);
});

test('runtime errors: no such key, no such overload', () => {
  const schema = withSpec({
    type: 'object',
    properties: { a: { type: 'string' }, v: { 'x-kubernetes-int-or-string': true } },
    'x-kubernetes-validations': [{ rule: "self.a == 'x'", message: 'a must be x' }, { rule: 'self.v > 1' }],
  });
  assert.deepEqual(validate(schema, cr({ v: 'str' })), [
    'spec: Invalid value: "object": no such key: a evaluating rule: a must be x',
    `spec: Invalid value: "object": 'no such overload': call arguments did not match a supported operator, function or macro signature for rule: self.v > 1`,
  ]);
});

test('transition rules run on update only, where the old value correlates', () => {
  const schema = withSpec({
    type: 'object',
    properties: {
      name: { type: 'string', 'x-kubernetes-validations': [{ rule: 'self == oldSelf', message: 'name is immutable' }] },
      replicas: { type: 'integer', 'x-kubernetes-validations': [{ rule: 'self >= oldSelf', message: 'replicas may only grow' }] },
      first: { type: 'string', 'x-kubernetes-validations': [{ rule: "oldSelf.hasValue() || self == 'init'", optionalOldSelf: true, message: 'must start as init' }] },
      items: {
        type: 'array',
        'x-kubernetes-list-type': 'map',
        'x-kubernetes-list-map-keys': ['key'],
        maxItems: 100,
        items: { type: 'object', required: ['key'], properties: { key: { type: 'string', maxLength: 64 }, value: { type: 'string', maxLength: 64 } }, 'x-kubernetes-validations': [{ rule: 'self.value == oldSelf.value', message: 'value is immutable' }] },
      },
      env: { type: 'object', maxProperties: 50, additionalProperties: { type: 'string', maxLength: 100, 'x-kubernetes-validations': [{ rule: 'self == oldSelf', message: 'env values are immutable' }] } },
    },
  });
  // create: no old object, transition rules do not run; optionalOldSelf rules do, with oldSelf = optional.none()
  assert.deepEqual(validate(schema, cr({ name: 'a', replicas: 1, first: 'other' })), ['spec.first: Invalid value: "string": must start as init']);
  const old = cr({ name: 'a', replicas: 3, first: 'init', items: [{ key: 'k1', value: 'v1' }, { key: 'k2', value: 'v2' }], env: { A: '1' } });
  const updated = cr({ name: 'b', replicas: 2, first: 'changed', items: [{ key: 'k2', value: 'v2' }, { key: 'k1', value: 'changed' }, { key: 'k3', value: 'new' }], env: { A: '2', B: 'new' } });
  assert.deepEqual(validate(schema, updated, old), [
    'spec.name: Invalid value: "string": name is immutable',
    'spec.replicas: Invalid value: "integer": replicas may only grow',
    'spec.items[1]: Invalid value: "object": value is immutable',
    'spec.env[A]: Invalid value: "string": env values are immutable',
  ]);
});

test('oldSelf below a list that does not correlate, and optionalOldSelf without oldSelf, are rejected', () => {
  assert.deepEqual(
    compileErrors(
      withSpec({
        type: 'object',
        'x-kubernetes-validations': [{ rule: 'self.size() > 0', optionalOldSelf: true }],
        properties: { list: { type: 'array', maxItems: 10, items: { type: 'string', maxLength: 10, 'x-kubernetes-validations': [{ rule: 'self == oldSelf' }] } } },
      }),
    ),
    [
      `${ROOT}.properties[spec].properties[list].items.x-kubernetes-validations[0].rule: Invalid value: "self == oldSelf": oldSelf cannot be used on the uncorrelatable portion of the schema within ${ROOT}.properties[spec].properties[list]`,
      `${ROOT}.properties[spec].x-kubernetes-validations[0].optionalOldSelf: Invalid value: true: may not be set if oldSelf is not used in rule`,
    ],
  );
});

test('ratcheting: an unchanged value whose rule fails passes on update', () => {
  const schema = withSpec({
    type: 'object',
    properties: {
      a: { type: 'string', 'x-kubernetes-validations': [{ rule: "self != 'bad'", message: 'a is bad' }] },
      b: { type: 'string', 'x-kubernetes-validations': [{ rule: "self != 'bad'", message: 'b is bad' }] },
      tags: { type: 'array', maxItems: 10, items: { type: 'string', 'x-kubernetes-validations': [{ rule: "self != 'bad'", message: 'tag is bad' }] } },
    },
  });
  const old = cr({ a: 'bad', b: 'good', tags: ['bad'] });
  assert.deepEqual(validate(schema, cr({ a: 'bad', b: 'bad', tags: ['bad'] }), old), ['spec.b: Invalid value: "string": b is bad']);
  // an atomic list item ratchets with its list: unchanged list passes, changed list fails
  assert.deepEqual(validate(schema, cr({ a: 'bad', b: 'good', tags: ['bad', 'x'] }), old), ['spec.tags[0]: Invalid value: "string": tag is bad']);
  assert.deepEqual(validate(schema, cr({ a: 'bad', b: 'good', tags: ['bad'] }), undefined), ['spec.a: Invalid value: "string": a is bad', 'spec.tags[0]: Invalid value: "string": tag is bad']);
});

test('the per-object cost budget and the per-expression limit stop validation with kube messages', () => {
  const schema = withSpec({
    type: 'object',
    properties: { a: { type: 'string', 'x-kubernetes-validations': [{ rule: "self != 'x'" }] }, b: { type: 'string', 'x-kubernetes-validations': [{ rule: "self != 'x'" }] } },
  });
  assert.deepEqual(validate(schema, cr({ a: 'y', b: 'y' }), undefined, 1), ['spec.b: Invalid value: "string": validation failed due to running out of cost budget, no further validation rules will be run']);
  const quadratic = withSpec({
    type: 'object',
    properties: { list: { type: 'array', maxItems: 1000, items: { type: 'integer' }, 'x-kubernetes-validations': [{ rule: 'self.all(x, self.all(y, x + y >= 0))', message: 'all sums non-negative' }] } },
  });
  const list = Array.from({ length: 1000 }, (_, i) => i);
  assert.deepEqual(validate(quadratic, cr({ list })), [
    `spec.list: Invalid value: "array": 'operation cancelled: actual cost limit exceeded': no further validation rules will be run due to call cost exceeds limit for rule: all sums non-negative`,
  ]);
});

test('compile problems at CRD write time, with kube field paths and messages', () => {
  const schema = withSpec({
    type: 'object',
    properties: { list: { type: 'array', items: { type: 'string' } }, n: { type: 'integer' } },
    'x-kubernetes-validations': [
      { rule: 'self.n +' },
      { rule: 'self.n' },
      { rule: ' ' },
      { rule: 'true', message: 'a\nb' },
      { rule: 'self.n > 0\n&& true' },
      { rule: 'true', reason: 'Bogus' as never },
      { rule: 'true', fieldPath: '.nope' },
      { rule: 'self.list.all(a, self.list.all(b, a == b))' },
    ],
  });
  const rule = (i: number) => `${ROOT}.properties[spec].x-kubernetes-validations[${i}]`;
  const problems = [
    `${rule(2)}.rule: Required value: rule is not specified`,
    `${rule(3)}.message: Invalid value: "a\\nb": message must not contain line breaks`,
    `${rule(4)}.message: Required value: message must be specified if rule contains line breaks`,
    `${rule(5)}.reason: Unsupported value: "Bogus": supported values: "FieldValueDuplicate", "FieldValueForbidden", "FieldValueInvalid", "FieldValueRequired"`,
    `${rule(6)}.fieldPath: Invalid value: ".nope": fieldPath must be a valid path`,
  ];
  // compiled for evaluation, each sound rule compiles (the rule fields' problems first, as kube lists schema errors)
  assert.deepEqual(compileErrors(schema), [
    ...problems,
    `${rule(0)}.rule: Invalid value: apiextensions.ValidationRule{Rule:"self.n +", Message:"", MessageExpression:"", Reason:(*apiextensions.FieldValueErrorReason)(nil), FieldPath:"", OptionalOldSelf:(*bool)(nil)}: compilation failed: ERROR: <input>:1:8: Syntax error: found + but expecting end of input\n | self.n +\n | .......^`,
    `${rule(1)}.rule: Invalid value: apiextensions.ValidationRule{Rule:"self.n", Message:"", MessageExpression:"", Reason:(*apiextensions.FieldValueErrorReason)(nil), FieldPath:"", OptionalOldSelf:(*bool)(nil)}: cel expression must evaluate to a bool`,
    `${rule(7)}.rule: Forbidden: estimated rule cost exceeds budget by factor of more than 100x (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)`,
    `${rule(7)}.rule: Forbidden: contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema`,
    `${ROOT}: Forbidden: x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema exceeds budget by factor of more than 100x (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)`,
  ]);
  // at a CRD write, a node with a schema error at or below it compiles none of its rules, as kube's
  const gate = { celAllowed: true, nodeErrors: [] };
  assert.deepEqual(compileValidationRules(schema, ROOT, { gate }).errors.map(fieldErrorString), problems);
});

test('at a CRD write, rules compile node by node: a schema error blocks its node and those above it, not its siblings', () => {
  const schema = withSpec({
    type: 'object',
    'x-kubernetes-validations': [{ rule: 'self.a' }],
    properties: {
      a: { type: 'string', 'x-kubernetes-validations': [{ rule: 'self' }] },
      b: { type: 'string', 'x-kubernetes-validations': [{ rule: 'self.size()' }] },
      c: { type: 'object', 'x-kubernetes-validations': [{ rule: 'true', reason: 'Nope' as never }], properties: { d: { type: 'string', 'x-kubernetes-validations': [{ rule: 'self == 1' }] } } },
    },
  });
  const node = (p: string) => `${ROOT}.properties[spec]${p}.x-kubernetes-validations[0]`;
  const unsupported = fieldErrors.notSupported(`${ROOT}.properties[spec].properties[a].type`, 'text', ['array', 'boolean', 'integer', 'number', 'object', 'string']);
  const errors = compileValidationRules(schema, ROOT, { gate: { celAllowed: true, nodeErrors: [unsupported] } }).errors.map(fieldErrorString);
  assert.deepEqual(errors, [
    `${node('.properties[c]')}.reason: Unsupported value: "Nope": supported values: "FieldValueDuplicate", "FieldValueForbidden", "FieldValueInvalid", "FieldValueRequired"`,
    // b compiles; a (its type refused), c (a rule field refused) and spec above them do not; d, below c, does
    `${node('.properties[b]')}.rule: Invalid value: apiextensions.ValidationRule{Rule:"self.size()", Message:"", MessageExpression:"", Reason:(*apiextensions.FieldValueErrorReason)(nil), FieldPath:"", OptionalOldSelf:(*bool)(nil)}: cel expression must evaluate to a bool`,
    `${node('.properties[c].properties[d]')}.rule: Invalid value: apiextensions.ValidationRule{Rule:"self == 1", Message:"", MessageExpression:"", Reason:(*apiextensions.FieldValueErrorReason)(nil), FieldPath:"", OptionalOldSelf:(*bool)(nil)}: compilation failed: ERROR: <input>:1:6: found no matching overload for '_==_' applied to '(string, int)'\n | self == 1\n | .....^`,
  ]);
  // a schema that failed its structural checks compiles nothing
  assert.deepEqual(compileValidationRules(schema, ROOT, { gate: { celAllowed: false, nodeErrors: [] } }).errors.map(fieldErrorString), [errors[0]]);
});

test('maxItems and maxLength bound the estimated cost as kube does', () => {
  const nested = (maxItems: number | undefined, maxLength: number | undefined) =>
    withSpec({ type: 'object', properties: { list: { type: 'array', maxItems, items: { type: 'string', maxLength } } }, 'x-kubernetes-validations': [{ rule: 'self.list.all(a, self.list.all(b, a == b))' }] });
  assert.equal(compileErrors(nested(undefined, undefined)).length, 3);
  assert.deepEqual(compileErrors(nested(100, 64)), []);
  // rules below lists are multiplied by the number of items the list can hold: `self.contains('gpu')` on strings of
  // maxLength 63 (252 bytes) costs 27-30 per item (cel-go measures 30), accepted for 25 items, refused unbounded
  const perItem = (maxItems: number | undefined) =>
    withSpec({ type: 'object', properties: { list: { type: 'array', maxItems, items: { type: 'string', maxLength: 63, 'x-kubernetes-validations': [{ rule: "self.contains('gpu')" }] } } } });
  assert.deepEqual(compileErrors(perItem(25)), []);
  assert.deepEqual(compileErrors(perItem(undefined)), [
    `${ROOT}.properties[spec].properties[list].items.x-kubernetes-validations[0].rule: Forbidden: estimated rule cost exceeds budget by factor of 2.9x (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)`,
  ]);
});

test('rules under allOf apply to the value, with the node structure', () => {
  const schema = withSpec({
    type: 'object',
    properties: { a: { type: 'integer' }, b: { type: 'integer' } },
    allOf: [{ 'x-kubernetes-validations': [{ rule: 'self.a < self.b', message: 'a must be below b' }] }, { properties: { a: { 'x-kubernetes-validations': [{ rule: 'self > 0' }] } } }],
  });
  assert.deepEqual(validate(schema, cr({ a: 0, b: 0 })), ['spec: Invalid value: "object": a must be below b', 'spec.a: Invalid value: "integer": failed rule: self > 0']);
  assert.deepEqual(compileErrors(withSpec({ type: 'object', allOf: [{ 'x-kubernetes-validations': [{ rule: 'self.nope' }] }] })).map((e) => e.split(':')[0]), [`${ROOT}.properties[spec].allOf[0].x-kubernetes-validations[0].rule`]);
});

test('malformed rules and values never throw', () => {
  const odd = { type: 'object', 'x-kubernetes-validations': [{ rule: 42 }, null, { rule: '('.repeat(5000) }], properties: { spec: { type: 'object', properties: null, items: [] } } } as unknown as JSONSchemaProps;
  const { errors, rules } = compileValidationRules(odd, ROOT);
  assert.deepEqual(errors.map((e) => `${e.field}: ${e.type}`), [`${ROOT}.x-kubernetes-validations[0].rule: FieldValueRequired`, `${ROOT}.x-kubernetes-validations[2].rule: FieldValueInvalid`]);
  assert.deepEqual(rules.validate({ spec: 'not an object' }, 17), []);
  const typed = compile(withSpec({ type: 'object', properties: { n: { type: 'integer' } }, 'x-kubernetes-validations': [{ rule: 'self.n > 0' }] }));
  assert.deepEqual(typed.validate(cr({ n: 'x' }), undefined).map(fieldErrorString), [`spec: Invalid value: "object": 'no such overload': call arguments did not match a supported operator, function or macro signature for rule: self.n > 0`]);
});

test('set and map lists compare as kube compares them: order does not matter', () => {
  const schema = withSpec({
    type: 'object',
    properties: {
      set: { type: 'array', maxItems: 10, 'x-kubernetes-list-type': 'set', items: { type: 'string', maxLength: 10 }, 'x-kubernetes-validations': [{ rule: 'self == oldSelf', message: 'set is immutable' }] },
      map: {
        type: 'array',
        maxItems: 10,
        'x-kubernetes-list-type': 'map',
        'x-kubernetes-list-map-keys': ['k'],
        items: { type: 'object', required: ['k'], properties: { k: { type: 'string', maxLength: 10 }, v: { type: 'integer' } } },
        'x-kubernetes-validations': [{ rule: 'self == oldSelf', message: 'map is immutable' }],
      },
      atomic: { type: 'array', maxItems: 10, items: { type: 'string', maxLength: 10 }, 'x-kubernetes-validations': [{ rule: 'self == oldSelf', message: 'atomic is immutable' }] },
    },
  });
  const old = cr({ set: ['a', 'b'], map: [{ k: 'x', v: 1 }, { k: 'y', v: 2 }], atomic: ['a', 'b'] });
  assert.deepEqual(validate(schema, cr({ set: ['b', 'a'], map: [{ k: 'y', v: 2 }, { k: 'x', v: 1 }], atomic: ['b', 'a'] }), old), ['spec.atomic: Invalid value: "array": atomic is immutable']);
  assert.deepEqual(validate(schema, cr({ set: ['a', 'c'], map: [{ k: 'y', v: 3 }, { k: 'x', v: 1 }], atomic: ['a', 'b'] }), old), ['spec.set: Invalid value: "array": set is immutable', 'spec.map: Invalid value: "array": map is immutable']);
});

test('a rule whose result is an int-or-string value is not a bool', () => {
  const errors = compileErrors(withSpec({ type: 'object', properties: { port: { 'x-kubernetes-int-or-string': true } }, 'x-kubernetes-validations': [{ rule: 'self.port' }, { rule: 'self.port == 80' }] }));
  assert.deepEqual(errors, [
    `${ROOT}.properties[spec].x-kubernetes-validations[0].rule: Invalid value: apiextensions.ValidationRule{Rule:"self.port", Message:"", MessageExpression:"", Reason:(*apiextensions.FieldValueErrorReason)(nil), FieldPath:"", OptionalOldSelf:(*bool)(nil)}: cel expression must evaluate to a bool`,
  ]);
});

test('calls no overload takes, and non-bool logical operands, are refused with cel-go words; dyn operands pass', () => {
  const rules = ['self.replicas == "3"', 'self.name.size() > 0 && self.name', "self.port == 80 || self.name.startsWith(1)", 'self.port.size() > 0', 'self.when < timestamp("2024-01-01T00:00:00Z")'];
  const props = { replicas: { type: 'integer' }, name: { type: 'string' }, port: { 'x-kubernetes-int-or-string': true }, when: { type: 'string', format: 'date-time' } } as const;
  const errors = compileErrors(withSpec({ type: 'object', properties: props, 'x-kubernetes-validations': rules.map((rule) => ({ rule })) }));
  assert.deepEqual(
    errors.map((e) => e.replace(/^.*?(x-kubernetes-validations\[\d\])\.rule: Invalid value: .*?\}: /, '$1: ').split('\n')[0]),
    [
      `x-kubernetes-validations[0]: compilation failed: ERROR: <input>:1:15: found no matching overload for '_==_' applied to '(int, string)'`,
      `x-kubernetes-validations[1]: compilation failed: ERROR: <input>:1:29: expected type 'bool' but found 'string'`,
      `x-kubernetes-validations[2]: compilation failed: ERROR: <input>:1:40: found no matching overload for 'startsWith' applied to 'string.(int)'`,
    ],
  );
});

test('a messageExpression whose result is an int-or-string value is not a string', () => {
  const errors = compileErrors(withSpec({ type: 'object', properties: { port: { 'x-kubernetes-int-or-string': true } }, 'x-kubernetes-validations': [{ rule: 'true', messageExpression: 'self.port' }, { rule: 'true', messageExpression: 'string(self.port)' }] }));
  assert.deepEqual(errors, [
    `${ROOT}.properties[spec].x-kubernetes-validations[0].messageExpression: Invalid value: apiextensions.ValidationRule{Rule:"true", Message:"", MessageExpression:"self.port", Reason:(*apiextensions.FieldValueErrorReason)(nil), FieldPath:"", OptionalOldSelf:(*bool)(nil)}: messageExpression must evaluate to a string`,
  ]);
});
