import { test } from 'node:test';
import assert from 'node:assert/strict';
import { rootTypeOf } from './schema.ts';
import { compareTyped } from './typed-compare.ts';
import { toFieldSet } from './typed-fieldset.ts';
import { mergeTyped } from './typed-merge.ts';
import { removeItems } from './typed-remove.ts';
import { FieldSet } from './field-set.ts';
import { fieldElement, keyElement } from './path-element.ts';
import { builtinDef, widgetDef } from './test-fixtures.ts';

const widgets = rootTypeOf(widgetDef());
const deployments = rootTypeOf(builtinDef('apps', 'v1', 'deployments'));
const w = (spec: unknown) => ({ spec });
const ports = (names: string[]) => w({ ports: names.map((name) => ({ name })) });
const names = (v: unknown) => ((v as { spec: { ports: { name: string }[] } }).spec.ports).map((p) => p.name);

test('merging map lists keeps both orders where they agree', () => {
  assert.deepEqual(names(mergeTyped(ports(['a', 'b', 'c']), ports(['c', 'a']), widgets)), ['b', 'c', 'a']);
  assert.deepEqual(names(mergeTyped(ports(['a', 'b']), ports(['a', 'x', 'b']), widgets)), ['a', 'x', 'b']);
  assert.deepEqual(names(mergeTyped(ports(['a', 'b']), ports(['z']), widgets)), ['a', 'b', 'z']);
});

test('merging: right side wins at leaves, atomic lists and maps are replaced, granular maps merge', () => {
  const out = mergeTyped(
    w({ replicas: 1, tags: ['a', 'b'], selector: { x: '1', y: '2' }, labels: { x: '1' } }),
    w({ replicas: 2, tags: ['c'], selector: { z: '3' }, labels: { y: '2' } }),
    widgets,
  );
  assert.deepEqual(out, w({ replicas: 2, tags: ['c'], selector: { z: '3' }, labels: { x: '1', y: '2' } }));
});

test('comparison: added containers are recorded, modified leaves, removed fields', () => {
  const c = compareTyped(w({ replicas: 1, tags: ['a'], labels: { x: '1' } }), w({ replicas: 2, tags: ['a'], ports: [{ name: 'p' }] }), widgets);
  assert.equal(JSON.stringify(c.modified.toFieldsV1()), '{"f:spec":{"f:replicas":{}}}');
  assert.equal(JSON.stringify(c.added.toFieldsV1()), '{"f:spec":{"f:ports":{".":{},"k:{\\"name\\":\\"p\\"}":{".":{},"f:name":{}}}}}');
  assert.equal(JSON.stringify(c.removed.toFieldsV1()), '{"f:spec":{"f:labels":{".":{},"f:x":{}}}}');
});

test('comparison: empty and null containers on both sides are leaves (null differs from empty)', () => {
  const c = compareTyped(w({ labels: null }), w({ labels: {} }), widgets);
  assert.equal(JSON.stringify(c.modified.toFieldsV1()), '{"f:spec":{"f:labels":{}}}');
  assert.ok(compareTyped(w({ labels: {} }), w({ labels: {} }), widgets).modified.isEmpty());
});

test('field sets of values: list items are members, struct fields are not, atomic things are leaves', () => {
  const s = toFieldSet({ spec: { template: { spec: { containers: [{ name: 'c', image: 'i' }], nodeSelector: { a: 'b' } } } } }, deployments);
  assert.equal(JSON.stringify(s.toFieldsV1()), '{"f:spec":{"f:template":{"f:spec":{"f:containers":{"k:{\\"name\\":\\"c\\"}":{".":{},"f:image":{},"f:name":{}}},"f:nodeSelector":{}}}}}');
});

test('removing items: members go, emptied containers become null', () => {
  const set = FieldSet.of([fieldElement('spec'), fieldElement('ports'), keyElement([['name', 'a']])], [fieldElement('spec'), fieldElement('labels'), fieldElement('x')]);
  assert.deepEqual(removeItems(w({ ports: [{ name: 'a' }, { name: 'b' }], labels: { x: '1' }, replicas: 1 }), set, widgets), w({ ports: [{ name: 'b' }], labels: null, replicas: 1 }));
});

test('walkers survive data that does not fit the schema', () => {
  const odd = { spec: { replicas: 'x', ports: 'nope', tags: { a: 1 }, labels: [1], config: [[{}]] }, metadata: 'm' };
  assert.doesNotThrow(() => toFieldSet(odd, widgets));
  assert.doesNotThrow(() => compareTyped(odd, w({ ports: [{ name: 'a' }, { port: 1 }, null] }), widgets));
  assert.doesNotThrow(() => mergeTyped(w({ ports: [{ port: 1 }, 5, { name: 'a' }] }), odd, widgets));
  assert.deepEqual(mergeTyped(w({ ports: [{ port: 1 }, { name: 'a' }] }), ports(['a', 'b']), widgets), w({ ports: [{ port: 1 }, { name: 'a' }, { name: 'b' }] }));
});

test('free-form values are walked once per level (no blow-up on one-sided nesting)', { timeout: 5000 }, () => {
  let v: unknown = 1;
  for (let i = 0; i < 200; i++) v = { a: v };
  const merged = mergeTyped(undefined, w({ config: v }), widgets);
  assert.deepEqual(merged, w({ config: v }));
  assert.deepEqual(mergeTyped(w({ config: v }), undefined, widgets), w({ config: v }));
});
