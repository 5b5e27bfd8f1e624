import { test } from 'node:test';
import assert from 'node:assert/strict';
import { changedInPlace, fieldsV1Has, setDecodes, skipTree, typedShapeOf } from './in-place-changes.ts';
import { fieldElement } from './path-element.ts';
import { rootTypeOf } from './schema.ts';
import { builtinDef } from './test-fixtures.ts';
import type { ValueMap } from './typed-values.ts';

const podType = rootTypeOf(builtinDef('', 'v1', 'pods'));
const skip = skipTree([['metadata', 'resourceVersion'], ['spec']].map((p) => p.map(fieldElement)))!;
const pod = (status: Record<string, unknown>, extra: Record<string, unknown> = {}): ValueMap =>
  ({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', labels: { app: 'p' }, ...extra }, spec: { containers: [{ name: 'c', image: 'i' }] }, status }) as ValueMap;
const status = (ready: string, restarts: number, more: unknown[] = []) => ({
  phase: 'Running',
  conditions: [{ type: 'Ready', status: ready }, ...more],
  containerStatuses: [{ name: 'c', ready: true, restartCount: restarts, image: 'i', imageID: 'x' }],
});

test('the fields changed in place are found where the typed comparison reports them', () => {
  assert.deepEqual(changedInPlace(pod(status('True', 1)), pod(status('False', 1)), podType, skip), [['f:status', 'f:conditions', 'k:{"type":"Ready"}', 'f:status']]);
  // An atomic list is one field.
  assert.deepEqual(changedInPlace(pod(status('True', 1)), pod(status('True', 2)), podType, skip), [['f:status', 'f:containerStatuses']]);
  assert.deepEqual(changedInPlace(pod(status('True', 1)), pod(status('True', 1)), podType, skip), []);
  // Skipped fields are not looked at: spec here, and the resourceVersion.
  const other = { ...pod(status('True', 1), { resourceVersion: '9' }), spec: { containers: [] } };
  assert.deepEqual(changedInPlace(pod(status('True', 1)), other, podType, skip), []);
});

test('added or removed fields and items, zeros, nulls and emptied values are another shape', () => {
  const base = pod(status('True', 1));
  assert.equal(changedInPlace(base, pod(status('True', 1, [{ type: 'Initialized', status: 'True' }])), podType, skip), undefined);
  assert.equal(changedInPlace(base, pod(status('', 1)), podType, skip), undefined);
  assert.equal(changedInPlace(base, pod({ ...status('True', 1), containerStatuses: [] }), podType, skip), undefined);
  assert.equal(changedInPlace(base, pod({ ...status('True', 1), podIP: '10.0.0.1' }), podType, skip), undefined);
  assert.equal(changedInPlace(base, pod(status('True', 1), { labels: { app: 'p', more: 'x' } }), podType, skip), undefined);
  assert.equal(changedInPlace(pod({ ...status('True', 1), qosClass: 'Burstable', startTime: '2024-01-01T00:00:00Z' }), pod({ ...status('True', 1), qosClass: 'Burstable', startTime: null }), podType, skip), undefined);
  // Items known by their keys: another key is another item.
  assert.equal(changedInPlace(base, pod({ ...status('True', 1), conditions: [{ type: 'Other', status: 'True' }] }), podType, skip), undefined);
});

test('sets in their fieldsV1 form: which fields they hold, whether they decode', () => {
  const set = { 'f:status': { 'f:conditions': { 'k:{"type":"Ready"}': { '.': {}, 'f:status': {} } } } };
  assert.equal(fieldsV1Has(set, ['f:status', 'f:conditions', 'k:{"type":"Ready"}', 'f:status']), true);
  assert.equal(fieldsV1Has(set, ['f:status', 'f:conditions', 'k:{"type":"Other"}', 'f:status']), false);
  assert.equal(fieldsV1Has(set, ['f:status', 'f:phase']), false);
  assert.equal(setDecodes(set), true);
  assert.equal(setDecodes({ 'f:status': { 'i:z': {} } }), false);
  // A path that is not made of field names cannot be skipped by name.
  assert.equal(skipTree([[fieldElement('status'), { kind: 'index', index: 0 }]]), undefined);
});

test('typedShapeOf: one shape for objects whose field sets are the same, another when keys, fields or zeros differ', () => {
  const p = (containers: unknown[], labels: Record<string, string> = { app: 'p' }): ValueMap => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', labels }, spec: { containers } }) as ValueMap;
  const c = (name: string, port?: number, extra: Record<string, unknown> = {}) => ({ name, image: 'i', ...(port === undefined ? {} : { ports: [{ containerPort: port, protocol: 'TCP' }] }), ...extra });
  const shape = (v: ValueMap) => typedShapeOf(v, podType);
  // other scalar values, same fields: one shape
  assert.equal(shape(p([c('a', 80)])), shape({ ...p([{ ...c('a', 80), image: 'other' }]), metadata: { name: 'q', labels: { app: 'q' } } }));
  // list items are known by their key values, map keys by name
  assert.notEqual(shape(p([c('a', 80)])), shape(p([c('b', 80)])));
  assert.notEqual(shape(p([c('a', 80)])), shape(p([c('a', 81)])));
  assert.notEqual(shape(p([c('a')])), shape(p([c('a', 80)])));
  assert.notEqual(shape(p([c('a')])), shape(p([c('a')], { app: 'p', 'x"y': 'z' })));
  assert.notEqual(shape(p([c('a')], { 'a:b': 'x' })), shape(p([c('a')], { a: 'x' })));
  // a zero is another shape (a field set to "" or 0 is still a field, but the shape keeps zeros apart)
  assert.notEqual(shape(p([c('a', undefined, { workingDir: '' })])), shape(p([c('a', undefined, { workingDir: '/w' })])));
  // an item that is not of its list's kind gives the value's JSON: no two such lists share a shape
  assert.equal(shape(p(['x' as unknown as object])), shape(p(['x' as unknown as object])));
  assert.notEqual(shape(p(['x' as unknown as object])), shape(p(['y' as unknown as object])));
});
