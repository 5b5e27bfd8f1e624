// Pruning and defaulting of custom resources: apiextensions-apiserver pkg/apiserver/schema/pruning/algorithm.go
// (pruned paths sorted, as PruneWithOptions returns them) and schema/defaulting (algorithm.go, prunenulls.go).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { JSONSchemaProps } from '../json-schema-props.ts';
import { compileSchema } from './compile.ts';

const schema: JSONSchemaProps = {
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      properties: {
        name: { type: 'string' },
        items: { type: 'array', items: { type: 'object', properties: { a: { type: 'string' } } } },
        labels: { type: 'object', additionalProperties: { type: 'object', properties: { v: { type: 'string' } } } },
        free: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true, properties: { strict: { type: 'object', properties: { k: { type: 'string' } } } } },
        freeList: { type: 'array', items: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
        template: { type: 'object', 'x-kubernetes-embedded-resource': true, properties: { spec: { type: 'object', properties: { x: { type: 'string' } } } } },
        anyMap: { type: 'object', additionalProperties: true },
      },
    },
    status: { type: 'object', properties: { ready: { type: 'boolean' } } },
  },
};

test('prune: unknown fields dropped in place at any depth, paths sorted', () => {
  const obj = {
    apiVersion: 'example.com/v1',
    kind: 'Widget',
    metadata: { name: 'w', unknownMeta: 1 },
    zzz: 1,
    spec: {
      name: 'n',
      bogus: true,
      items: [{ a: 'x', b: 1 }, { c: { d: 1 } }],
      labels: { one: { v: 'x', w: 'y' } },
      free: { anything: { deep: 1 }, strict: { k: 'v', drop: 1 } },
      freeList: [{ kept: 1 }],
      template: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', bogus: 1, ownerReferences: [{ name: 'o', extra: true }] }, spec: { x: 'y', y: 'z' }, other: 1 },
      anyMap: { k: { nested: 1 }, s: 'scalar' },
    },
    status: { ready: true, phase: 'x' },
  };
  const pruned = compileSchema(schema).prune(obj);
  assert.deepEqual(pruned, [
    // embedded ObjectMeta coercion first (objectmeta/coerce.go), then the sorted pruned paths
    'spec.template.metadata.bogus',
    'spec.template.metadata.ownerReferences[0].extra',
    'spec.anyMap.k.nested',
    'spec.bogus',
    'spec.free.strict.drop',
    'spec.items[0].b',
    'spec.items[1].c',
    'spec.labels.one.w',
    'spec.template.other',
    'spec.template.spec.y',
    'status.phase',
    'zzz',
  ]);
  assert.deepEqual(obj, {
    apiVersion: 'example.com/v1',
    kind: 'Widget',
    metadata: { name: 'w', unknownMeta: 1 },
    spec: {
      name: 'n',
      items: [{ a: 'x' }, {}],
      labels: { one: { v: 'x' } },
      free: { anything: { deep: 1 }, strict: { k: 'v' } },
      freeList: [{ kept: 1 }],
      template: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', ownerReferences: [{ name: 'o' }] }, spec: { x: 'y' } },
      anyMap: { k: {}, s: 'scalar' },
    },
    status: { ready: true },
  });
});

test('prune: preserve-unknown-fields at the root keeps everything but what known properties reject', () => {
  const s = compileSchema({ type: 'object', 'x-kubernetes-preserve-unknown-fields': true, properties: { spec: { type: 'object', properties: { a: { type: 'string' } } } } });
  const obj = { kind: 'K', other: { x: 1 }, spec: { a: 'x', b: 1 } };
  assert.deepEqual(s.prune(obj), ['spec.b']);
  assert.deepEqual(obj, { kind: 'K', other: { x: 1 }, spec: { a: 'x' } });
});

const defaulting: JSONSchemaProps = {
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      default: {},
      properties: {
        replicas: { type: 'integer', default: 1 },
        mode: { type: 'string', default: 'auto' },
        optional: { type: 'string', nullable: true, default: 'x' },
        plain: { type: 'string' },
        plainNullable: { type: 'string', nullable: true },
        nested: { type: 'object', default: { a: 'b' }, properties: { a: { type: 'string' }, c: { type: 'integer', default: 3 } } },
        list: { type: 'array', items: { type: 'object', properties: { p: { type: 'integer', default: 80 } } } },
        listOfStrings: { type: 'array', items: { type: 'string', default: 'd' } },
        map: { type: 'object', additionalProperties: { type: 'object', properties: { on: { type: 'boolean', default: true } } } },
      },
    },
  },
};

test('defaults: missing fields get defaults at any depth, defaults of defaults applied', () => {
  const obj: Record<string, unknown> = { apiVersion: 'a/v1', kind: 'K', metadata: { name: 'x' } };
  compileSchema(defaulting).applyDefaults(obj);
  assert.deepEqual(obj.spec, { replicas: 1, mode: 'auto', optional: 'x', nested: { a: 'b', c: 3 } });
});

test('defaults: nulls as kube handles them (non-nullable: defaulted or dropped; nullable: kept)', () => {
  const obj = {
    spec: {
      replicas: null,
      optional: null,
      plain: null,
      plainNullable: null,
      list: [{ p: null }, {}, null],
      listOfStrings: ['a', null],
      map: { one: {}, two: null },
    },
  };
  compileSchema(defaulting).applyDefaults(obj);
  assert.deepEqual(obj.spec, {
    replicas: 1,
    optional: null,
    plainNullable: null,
    mode: 'auto',
    nested: { a: 'b', c: 3 },
    list: [{ p: 80 }, { p: 80 }, null],
    listOfStrings: ['a', 'd'],
    map: { one: { on: true } },
  });
});

test('defaults: each object gets its own copy of an object default', () => {
  const c = compileSchema(defaulting);
  const a: Record<string, Record<string, Record<string, unknown>>> = { spec: {} };
  const b: Record<string, Record<string, Record<string, unknown>>> = { spec: {} };
  c.applyDefaults(a);
  c.applyDefaults(b);
  a.spec.nested.a = 'changed';
  assert.equal(b.spec.nested.a, 'b');
});

test('node: the schema as a SchemaNode with its markers', () => {
  const c = compileSchema({
    type: 'object',
    properties: {
      spec: {
        type: 'object',
        properties: {
          ports: { type: 'array', 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['name'], items: { type: 'object', properties: { name: { type: 'string' } } } },
          port: { 'x-kubernetes-int-or-string': true },
          labels: { type: 'object', additionalProperties: { type: 'string' }, 'x-kubernetes-map-type': 'atomic' },
        },
      },
    },
  });
  assert.deepEqual(c.node, {
    type: 'object',
    properties: {
      spec: {
        type: 'object',
        properties: {
          ports: { type: 'array', listType: 'map', listMapKeys: ['name'], items: { type: 'object', properties: { name: { type: 'string' } } } },
          port: { intOrString: true },
          labels: { type: 'object', additionalProperties: { type: 'string' }, mapType: 'atomic' },
        },
      },
    },
  });
});
