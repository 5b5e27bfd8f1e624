// Malformed schemas (the JSONSchemaPropsOr* fields accept any JSON at decode time) and odd objects never throw.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { JSONSchemaProps } from '../json-schema-props.ts';
import { compileSchema } from './compile.ts';
import { validateCrdSchema } from './crd-schema-validation.ts';

const odd: unknown[] = [
  { type: 'object', properties: { a: { type: 'array', items: 'x' } } },
  { type: 'object', properties: { a: { type: 'array', items: [1, 'x', null] } } },
  { type: 'object', properties: { a: { type: 'object', additionalProperties: 5 } } },
  { type: 'object', properties: { a: { type: 'object', additionalItems: 'x', dependencies: { b: 'c' } } } },
  { type: 'object', properties: { a: { type: 'array', 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['k'], items: [{ type: 'object' }] } } },
  { type: 'object', properties: { a: { type: 'string', pattern: '(' } } },
];
const objects: unknown[] = [null, 5, 'x', [], {}, { spec: null }, { spec: { a: [null, 1, 'x', { k: 1 }] } }, { spec: { a: { b: [[{}]] } } }, { a: [{}, {}] }];

test('malformed schemas give field errors, never exceptions', () => {
  for (const s of odd) {
    assert.doesNotThrow(() => validateCrdSchema(s as JSONSchemaProps, 'p', { requireStructural: true }), JSON.stringify(s));
    const c = compileSchema(s as JSONSchemaProps);
    for (const o of objects) {
      assert.doesNotThrow(() => {
        c.validate(structuredClone(o));
        c.validateUpdate(structuredClone(o), structuredClone(o));
        c.prune(structuredClone(o));
        c.applyDefaults(structuredClone(o));
      }, `${JSON.stringify(s)} ${JSON.stringify(o)}`);
    }
  }
});
