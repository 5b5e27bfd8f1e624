import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FieldSet } from './field-set.ts';
import { compareGoStrings, goJsonMarshal, goValueSharpV } from './go-format.ts';
import { deserializePathElement, fieldElement, keyElement, pathString, serializePathElement, type PathElement } from './path-element.ts';

const f = fieldElement;
const v = (value: string | number | boolean): PathElement => ({ kind: 'value', value });
const i = (index: number): PathElement => ({ kind: 'index', index });

test('FieldsV1: "." first, then fields, keys, values (numbers < strings < booleans) and indexes in order', () => {
  const s = FieldSet.of(
    [f('spec'), f('b')],
    [f('spec'), f('a')],
    [f('spec'), keyElement([['protocol', 'TCP'], ['port', 80]])],
    [f('spec'), keyElement([['protocol', 'TCP'], ['port', 80]]), f('port')],
    [f('spec'), v(true)],
    [f('spec'), v('x')],
    [f('spec'), v(10)],
    [f('spec'), v(2)],
    [f('spec'), i(3)],
    [f('spec')],
  );
  assert.equal(
    JSON.stringify(s.toFieldsV1()),
    '{"f:spec":{".":{},"f:a":{},"f:b":{},"k:{\\"port\\":80,\\"protocol\\":\\"TCP\\"}":{".":{},"f:port":{}},"v:2":{},"v:10":{},"v:\\"x\\"":{},"v:true":{},"i:3":{}}}',
  );
});

test('FieldsV1: field names sort by bytes, keys are Go JSON (HTML-escaped)', () => {
  const s = FieldSet.of([f('b')], [f('B')], [f('a.b')], [keyElement([['name', 'a<b&c']])]);
  assert.deepEqual(Object.keys(s.toFieldsV1()), ['f:B', 'f:a.b', 'f:b', 'k:{"name":"a\\u003cb\\u0026c"}']);
});

test('FieldsV1 parse: nested members, "." markers, null as {}, unknown element types dropped', () => {
  const s = FieldSet.fromFieldsV1({ 'f:a': { '.': {}, 'f:b': null }, 'f:c': {}, 'x:future': {}, 'f:d': { 'x:future': {} } });
  assert.ok(s.has([f('a')]));
  assert.ok(s.has([f('a'), f('b')]));
  assert.ok(s.has([f('c')]));
  assert.ok(s.has([f('d')]), 'a node whose children are all unknown is a member');
  assert.equal(JSON.stringify(s.toFieldsV1()), '{"f:a":{".":{},"f:b":{}},"f:c":{},"f:d":{}}');
});

test('FieldsV1 parse errors', () => {
  assert.throws(() => FieldSet.fromFieldsV1({ 'i:x': {} }), /strconv.Atoi: parsing "x": invalid syntax/);
  assert.throws(() => FieldSet.fromFieldsV1({ 'k:{bad': {} }), /parsing key as path element/);
  assert.throws(() => FieldSet.fromFieldsV1({ 'fx': {} }), /missing colon: fx/);
  assert.throws(() => FieldSet.fromFieldsV1({ f: {} }), /key must be 2 characters long/);
  assert.throws(() => FieldSet.fromFieldsV1({ 'f:a': 3 }), /ReadMapCB/);
});

test('path elements round-trip through their serialization', () => {
  for (const pe of [f('x'), keyElement([['b', 1], ['a', 'y']]), v('s'), v(1.5), v(false), i(0)]) {
    const text = serializePathElement(pe);
    assert.equal(serializePathElement(deserializePathElement(text)), text);
  }
  assert.equal(serializePathElement(keyElement([['b', 1], ['a', 'y']])), 'k:{"a":"y","b":1}');
});

test('paths print as kube prints them in conflicts', () => {
  assert.equal(pathString([f('spec'), f('containers'), keyElement([['name', 'nginx']]), f('ports'), keyElement([['protocol', 'TCP'], ['containerPort', 80]])]), '.spec.containers[name="nginx"].ports[containerPort=80,protocol="TCP"]');
  assert.equal(pathString([f('metadata'), f('finalizers'), v('a/b')]), '.metadata.finalizers[="a/b"]');
  assert.equal(pathString([f('list'), i(2), f('x')]), '.list[2].x');
});

test('set algebra: difference keeps children of a removed member, recursive difference drops them', () => {
  const s = FieldSet.of([f('a')], [f('a'), f('b')], [f('c')]);
  const parent = FieldSet.of([f('a')]);
  assert.equal(JSON.stringify(s.difference(parent).toFieldsV1()), '{"f:a":{"f:b":{}},"f:c":{}}');
  assert.equal(JSON.stringify(s.recursiveDifference(parent).toFieldsV1()), '{"f:c":{}}');
  const child = FieldSet.of([f('a'), f('b')]);
  assert.equal(JSON.stringify(s.difference(child).toFieldsV1()), '{"f:a":{},"f:c":{}}');
});

test('set algebra: union, intersection, withPrefix, emptiness, iteration order', () => {
  const x = FieldSet.of([f('a'), f('x')], [f('b')]);
  const y = FieldSet.of([f('a'), f('y')], [f('b')]);
  assert.equal(JSON.stringify(x.union(y).toFieldsV1()), '{"f:a":{"f:x":{},"f:y":{}},"f:b":{}}');
  assert.equal(JSON.stringify(x.intersection(y).toFieldsV1()), '{"f:b":{}}');
  assert.ok(x.intersection(FieldSet.of([f('a'), f('z')])).isEmpty());
  assert.equal(JSON.stringify(x.withPrefix(f('a')).toFieldsV1()), '{"f:x":{}}');
  assert.ok(x.withPrefix(f('none')).isEmpty());
  assert.ok(new FieldSet().isEmpty());
  assert.ok(x.equals(FieldSet.of([f('b')], [f('a'), f('x')])));
  const order = FieldSet.of([f('z'), f('q')], [f('b')], [f('a'), f('c')], [f('a')]).paths().map(pathString);
  assert.deepEqual(order, ['.a', '.b', '.a.c', '.z.q']);
});

test('Go formats: JSON, string order, %#v', () => {
  assert.equal(goJsonMarshal({ b: [1, 'x<y'], a: { d: null, c: true } }), '{"a":{"c":true,"d":null},"b":[1,"x\\u003cy"]}');
  assert.equal(compareGoStrings('\u{1F600}', '\uFFFD'), 1, 'code point order, not UTF-16 order');
  assert.equal(compareGoStrings('a', 'ab'), -1);
  assert.equal(goValueSharpV({ b: ['x', 1.5], a: true }), 'map[string]interface {}{"a":true, "b":[]interface {}{"x", 1.5}}');
});
