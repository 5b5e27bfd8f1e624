import assert from 'node:assert/strict';
import { test } from 'node:test';
import { cloneJson } from './json-clone.ts';

test('cloneJson copies deeply and keeps key order, leaving the input untouched', () => {
  const input = { b: [1, { c: 'x' }, null], a: { d: true, e: 1.5 }, z: '' };
  const copy = cloneJson(input);
  assert.deepEqual(copy, input);
  assert.deepEqual(Object.keys(copy), ['b', 'a', 'z']);
  copy.b[1] = { c: 'y' };
  copy.a.d = false;
  assert.deepEqual(input, { b: [1, { c: 'x' }, null], a: { d: true, e: 1.5 }, z: '' });
});

test('cloneJson returns primitives as they are', () => {
  assert.equal(cloneJson('s'), 's');
  assert.equal(cloneJson(0), 0);
  assert.equal(cloneJson(null), null);
});

test('cloneJson keeps "__proto__" an ordinary member, as JSON.parse makes it', () => {
  const input = JSON.parse('{"__proto__": {"polluted": true}, "a": 1}') as Record<string, unknown>;
  const copy = cloneJson(input);
  assert.equal(Object.getPrototypeOf(copy), Object.prototype);
  assert.deepEqual(Object.keys(copy), ['__proto__', 'a']);
  assert.equal(JSON.stringify(copy), '{"__proto__":{"polluted":true},"a":1}');
});

test('cloneJson copies 10000 levels (kube decoders\' limit) without exhausting the stack', () => {
  const deep = JSON.parse('['.repeat(5000) + '{"a":'.repeat(5000) + '{"__proto__":1,"k":[2]}' + '}'.repeat(5000) + ']'.repeat(5000)) as unknown;
  let copy = cloneJson(deep) as unknown;
  let original = deep;
  for (let i = 0; i < 10000; i++) {
    assert.notEqual(copy, original);
    copy = Array.isArray(copy) ? copy[0] : (copy as Record<string, unknown>).a;
    original = Array.isArray(original) ? original[0] : (original as Record<string, unknown>).a;
  }
  assert.deepEqual(copy, { ['__proto__']: 1, k: [2] });
  assert.deepEqual(Object.keys(copy as object), ['__proto__', 'k']);
});
