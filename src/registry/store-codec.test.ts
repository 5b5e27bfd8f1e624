import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decodeFromStorage, encodeForStorage, jsonEqual, readDefaultsChange, storedFormOf, writtenObject } from './store-codec.ts';
import { encodeJson, goEscape } from '../encoding/json.ts';
import { itemJson } from './list-json.ts';
import { definition } from './store-testing.ts';
import type { KubeObject } from './types.ts';

test('writtenObject answers a write exactly as reading the stored value back would, key order included', () => {
  const def = definition({ group: '', version: 'v1', resource: 'configmaps', kind: 'ConfigMap' });
  const obj: KubeObject = {
    data: { a: '1' },
    metadata: { labels: { x: 'y' }, selfLink: '/gone', resourceVersion: '3', name: 'c', namespace: 'default', uid: 'u', annotations: undefined },
    apiVersion: 'v1',
    kind: 'ConfigMap',
  };
  const kv = { key: '/registry/configmaps/default/c', value: encodeForStorage(obj, def), createRevision: 9, modRevision: 9 };
  const read = decodeFromStorage(kv);
  const written = writtenObject(obj, kv, def);
  assert.equal(JSON.stringify(written), JSON.stringify(read));
  assert.equal(written.metadata.resourceVersion, '9');
});

test("a write's answer spliced from its stored value is the answer's own JSON, byte for byte", () => {
  const def = definition({ group: '', version: 'v1', resource: 'configmaps', kind: 'ConfigMap' });
  const obj: KubeObject = {
    data: { html: '<b>&amp;</b>', separators: 'a\u2028b\u2029c', emoji: '🚢', quote: '"\\' },
    metadata: { finalizers: [], labels: { x: 'y' }, selfLink: '/gone', name: 'c', namespace: 'default', uid: 'u', generation: 2 },
    kind: 'ConfigMap',
    apiVersion: 'v1',
  };
  const kv = { key: '/registry/configmaps/default/c', value: encodeForStorage(obj, def), createRevision: 9, modRevision: 12 };
  const written = writtenObject(obj, kv, def);
  assert.equal(storedFormOf(written), kv);
  assert.equal(`${goEscape(itemJson(kv.value, kv.modRevision, { apiVersion: 'v1' })!)}\n`, encodeJson(written));
  // Objects it did not make are not known: the handler encodes them.
  assert.equal(storedFormOf({ ...written }), undefined);
  // A definition that converts on read answers with the converted object, not the stored text.
  const converting = { ...def, version: 'v2', storageVersion: 'v1', convert: (o: KubeObject, apiVersion: string) => ({ ...o, apiVersion }) };
  assert.equal(storedFormOf(writtenObject(obj, kv, converting)), undefined);
});

test('read defaults: whether they change a stored object is checked once per stored value and defaults function', () => {
  let calls = 0;
  const addMode = (obj: KubeObject) => {
    calls++;
    const spec = (obj.spec ??= {}) as Record<string, unknown>;
    spec.mode ??= 'fast';
  };
  const without = { key: '/k/a', value: '{"apiVersion":"example.com/v1","kind":"Task","metadata":{"name":"a"},"spec":{"size":1}}', createRevision: 2, modRevision: 2 };
  const withMode = { key: '/k/b', value: '{"apiVersion":"example.com/v1","kind":"Task","metadata":{"name":"b"},"spec":{"size":1,"mode":"slow"}}', createRevision: 3, modRevision: 3 };
  const def = { group: 'example.com', version: 'v1', readDefaults: addMode };
  assert.equal(readDefaultsChange(without, def), true);
  assert.equal(readDefaultsChange(withMode, def), false);
  assert.equal(readDefaultsChange(without, def), true);
  assert.equal(calls, 2, 'memoized per stored value');
  // A CRD's new generation brings a new function: checked again.
  const generation2 = { ...def, readDefaults: (obj: KubeObject) => addMode(obj) };
  assert.equal(readDefaultsChange(withMode, generation2), false);
  assert.equal(calls, 3);
  assert.equal(readDefaultsChange(without, { group: 'example.com', version: 'v1' }), false, 'no read defaults');
});

test('jsonEqual: deep, key order ignored, keys holding undefined as if absent', () => {
  assert.equal(jsonEqual({ a: 1, b: [1, { c: 'x' }] }, { b: [1, { c: 'x' }], a: 1 }), true);
  assert.equal(jsonEqual({ a: 1, u: undefined }, { a: 1 }), true);
  assert.equal(jsonEqual({ a: 1 }, { a: 1, u: undefined }), true);
  assert.equal(jsonEqual({ a: 1, u: undefined }, { a: 1, v: 2 }), false);
  assert.equal(jsonEqual({ a: 1 }, { a: 1, b: 2 }), false);
  assert.equal(jsonEqual({ a: 1, b: 2 }, { a: 1 }), false);
  assert.equal(jsonEqual({ a: undefined }, { b: undefined }), true);
  assert.equal(jsonEqual({ a: null }, { a: undefined }), false);
  assert.equal(jsonEqual([1, 2], { 0: 1, 1: 2 }), false);
  assert.equal(jsonEqual({ a: [1, 2] }, { a: [2, 1] }), false);
});
