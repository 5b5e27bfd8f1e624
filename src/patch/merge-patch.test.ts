import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { JsonValue } from '../encoding/json-value.ts';
import { mergePatch, MergePatchError } from './merge-patch.ts';

// RFC 7386, Appendix A: [original, patch, result]. A result of MergePatchError marks the two examples where
// kube's library refuses the patch (a null or scalar patch is "Invalid JSON Patch", answered with 400).
const APPENDIX_A: [JsonValue, JsonValue, JsonValue | typeof MergePatchError][] = [
  [{ a: 'b' }, { a: 'c' }, { a: 'c' }],
  [{ a: 'b' }, { b: 'c' }, { a: 'b', b: 'c' }],
  [{ a: 'b' }, { a: null }, {}],
  [{ a: 'b', b: 'c' }, { a: null }, { b: 'c' }],
  [{ a: ['b'] }, { a: 'c' }, { a: 'c' }],
  [{ a: 'c' }, { a: ['b'] }, { a: ['b'] }],
  [{ a: { b: 'c' } }, { a: { b: 'd', c: null } }, { a: { b: 'd' } }],
  [{ a: [{ b: 'c' }] }, { a: [1] }, { a: [1] }],
  [['a', 'b'], ['c', 'd'], ['c', 'd']],
  [{ a: 'b' }, ['c'], ['c']],
  [{ a: 'foo' }, null, MergePatchError],
  [{ a: 'foo' }, 'bar', MergePatchError],
  [{ e: null }, { a: 1 }, { e: null, a: 1 }],
  [[1, 2], { a: 'b', c: null }, { a: 'b' }],
  [{}, { a: { bb: { ccc: null } } }, { a: { bb: {} } }],
];

APPENDIX_A.forEach(([original, patch, result], i) => {
  test(`RFC 7386 appendix A example ${i + 1}: ${JSON.stringify(original)} + ${JSON.stringify(patch)}`, () => {
    if (result === MergePatchError) {
      assert.throws(() => mergePatch(original, patch), (e: unknown) => e instanceof MergePatchError && e.message === 'Invalid JSON Patch');
      return;
    }
    assert.deepEqual(mergePatch(original, patch), result);
  });
});

test('RFC 7386 section 3 example', () => {
  const original = {
    title: 'Goodbye!',
    author: { givenName: 'John', familyName: 'Doe' },
    tags: ['example', 'sample'],
    content: 'This will be unchanged',
  };
  const patch = { title: 'Hello!', phoneNumber: '+01-123-456-7890', author: { familyName: null }, tags: ['example'] };
  assert.deepEqual(mergePatch(original, patch), {
    title: 'Hello!',
    author: { givenName: 'John' },
    tags: ['example'],
    content: 'This will be unchanged',
    phoneNumber: '+01-123-456-7890',
  });
});

test('neither the document nor the patch is modified', () => {
  const original = { a: { b: 1 }, c: [1] };
  const patch = { a: { b: null, d: { e: null } } };
  const before = [structuredClone(original), structuredClone(patch)];
  assert.deepEqual(mergePatch(original, patch), { a: { d: {} }, c: [1] });
  assert.deepEqual([original, patch], before);
});

test('library details: null handling inside inserted values', () => {
  // null members of inserted objects are pruned, also inside arrays; null array elements stay.
  assert.deepEqual(mergePatch({}, { a: [null, { x: null, y: 1 }] }), { a: [null, { y: 1 }] });
  // a null member in the document counts as absent: the patch value is pruned and inserted.
  assert.deepEqual(mergePatch({ a: null }, { a: { b: null, c: 1 } }), { a: { c: 1 } });
  // a scalar replaced by an array: the array is pruned.
  assert.deepEqual(mergePatch({ a: 1 }, { a: [{ x: null }] }), { a: [{}] });
  // an object replaced by a non-object: the patch value is kept exactly as sent.
  assert.deepEqual(mergePatch({ a: {} }, { a: [{ x: null }] }), { a: [{ x: null }] });
  // deleting an absent member is no error.
  assert.deepEqual(mergePatch({ a: 1 }, { b: null }), { a: 1 });
});

test('"__proto__" is an ordinary member name', () => {
  const result = mergePatch({}, JSON.parse('{"__proto__":{"x":1}}') as JsonValue) as Record<string, unknown>;
  assert.deepEqual(Object.keys(result), ['__proto__']);
  assert.equal(Object.getPrototypeOf(result), Object.prototype);
});
