import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { JsonValue } from '../encoding/json-value.ts';
import { decodeJsonPatch, jsonPatch, JsonPatchApplyError, JsonPatchDecodeError, JsonPatchPanic } from './json-patch.ts';

interface SuiteCase {
  comment?: string;
  doc?: JsonValue;
  patch?: JsonValue;
  expected?: JsonValue;
  error?: string;
  disabled?: boolean;
}

const require = createRequire(import.meta.url);
const suiteDir = require.resolve('json-patch-test-suite/package.json').replace(/package\.json$/, '');
const load = (file: string): SuiteCase[] => JSON.parse(readFileSync(suiteDir + file, 'utf8')) as SuiteCase[];

/**
 * Cases where kube-apiserver (evanphx/json-patch v4, as kube vendors it) knowingly answers differently from the
 * suite. Each is still run, asserting kube's answer.
 */
const KUBE_DIFFERENCES: Record<string, { reason: string; expected?: JsonValue; error?: true | 'panic' }> = {
  'Out of bounds (lower)': {
    reason: 'the library accepts negative indices counting from the end (SupportNegativeIndices): -1 appends',
    expected: { bar: [1, 2, '5'] },
  },
  'replacing the root of the document is possible with add': {
    reason: 'the library cannot add at the root path ""; only replace and test address the whole document',
    error: true,
  },
  "missing 'value' parameter to add": {
    reason: 'the library does not require "value": a missing value is added as null',
    expected: [1, null],
  },
  "missing 'value' parameter to replace": {
    reason: 'the library does not require "value": a missing value replaces with null',
    expected: [null],
  },
  "missing 'value' parameter to test": {
    reason: 'an error all the same, but not a failed test: v4.12.0 dereferences the missing value and panics (500)',
    error: 'panic',
  },
};

function caseName(c: SuiteCase, file: string, i: number): string {
  return c.comment ?? c.error ?? `${file} #${i}`;
}

const usedDifferences = new Set<string>();

for (const file of ['tests.json', 'spec_tests.json']) {
  load(file).forEach((c, i) => {
    if (!('doc' in c)) return; // comment-only records
    const name = caseName(c, file, i);
    if (c.disabled) {
      test(`${file}: ${name}`, { skip: 'disabled by the suite' }, () => {});
      return;
    }
    const difference = KUBE_DIFFERENCES[name];
    if (difference) usedDifferences.add(name);
    test(`${file}: ${name}${difference ? ` (kube: ${difference.reason})` : ''}`, () => {
      const wantsError = difference ? difference.error : c.error !== undefined;
      const expected = difference ? difference.expected : 'expected' in c ? c.expected : c.doc;
      if (wantsError) {
        assert.throws(() => jsonPatch(c.doc!, c.patch), wantsError === 'panic' ? JsonPatchPanic : JsonPatchApplyError);
        return;
      }
      assert.deepEqual(jsonPatch(c.doc!, c.patch), expected);
    });
  });
}

test('every listed difference names a case of the suite', () => {
  assert.deepEqual([...usedDifferences].sort(), Object.keys(KUBE_DIFFERENCES).sort());
});

test('the suite documents are not modified by applying patches', () => {
  const doc = { foo: [1, 2], bar: { baz: 1 } };
  const before = structuredClone(doc);
  jsonPatch(doc, [
    { op: 'add', path: '/foo/-', value: 3 },
    { op: 'remove', path: '/bar/baz' },
  ]);
  assert.deepEqual(doc, before);
});

test('error messages are the library wording', () => {
  const cases: [JsonValue, JsonValue, string][] = [
    [{}, [{ op: 'spam', path: '/a' }], 'Unexpected kind: spam'],
    [{}, [{ path: '/a' }], 'Unexpected kind: unknown'],
    [{}, [null], 'Unexpected kind: unknown'],
    [{}, [{ op: 'add', path: '/a/b', value: 1 }], 'add operation does not apply: doc is missing path: "/a/b": missing value'],
    [{}, [{ op: 'add', value: 1 }], 'add operation failed to decode path: missing value'],
    [{}, [{ op: 'remove', path: '/a' }], "error in remove for path: '/a': Unable to remove nonexistent key: a: missing value"],
    [{ a: [1] }, [{ op: 'remove', path: '/a/5' }], "error in remove for path: '/a/5': Unable to access invalid index: 5: invalid index referenced"],
    [{ a: [1] }, [{ op: 'add', path: '/a/x', value: 1 }], `error in add for path: '/a/x': value was not a proper array index: 'x': strconv.Atoi: parsing "x": invalid syntax`],
    [{ a: [1] }, [{ op: 'replace', path: '/a/3', value: 1 }], 'replace operation does not apply: doc is missing key: /a/3: missing value'],
    [{ a: 1 }, [{ op: 'replace', value: 1 }], 'replace operation failed to decode path: operation missing path field: missing value'],
    [{ a: 1 }, [{ op: 'replace', path: 7, value: 1 }], 'replace operation failed to decode path: json: cannot unmarshal number into Go value of type string'],
    [{ a: 1 }, [{ op: 'test', path: '/a', value: 2 }], 'testing value /a failed: test failed'],
    [{ a: 1 }, [{ op: 'move', path: '/b' }], 'move operation failed to decode from: operation, missing from field: missing value'],
    [{ a: 1 }, [{ op: 'move', from: '/x/y', path: '/b' }], 'move operation does not apply: doc is missing from path: /x/y: missing value'],
    [{ a: 1 }, [{ op: 'copy', from: '/a', path: '/x/y' }], 'copy operation does not apply: doc is missing destination path: /x/y: missing value'],
    [{ a: [] }, [{ op: 'test', path: '/a/-', value: 1 }], `error in test for path: '/a/-': strconv.Atoi: parsing "-": invalid syntax`],
  ];
  for (const [doc, ops, message] of cases) {
    assert.throws(() => jsonPatch(doc, ops), (e: unknown) => e instanceof JsonPatchApplyError && e.message === message, JSON.stringify(ops));
  }
});

test('library behaviours kube clients observe', () => {
  // replace of an absent object member adds it.
  assert.deepEqual(jsonPatch({ a: 1 }, [{ op: 'replace', path: '/b', value: 2 }]), { a: 1, b: 2 });
  // test of an absent member against null passes.
  assert.deepEqual(jsonPatch({ a: 1 }, [{ op: 'test', path: '/b', value: null }]), { a: 1 });
  // copy from an absent object member copies null.
  assert.deepEqual(jsonPatch({ a: 1 }, [{ op: 'copy', from: '/x', path: '/b' }]), { a: 1, b: null });
  // negative indices count from the end for remove, replace and test too.
  assert.deepEqual(jsonPatch({ a: [1, 2, 3] }, [{ op: 'remove', path: '/a/-1' }]), { a: [1, 2] });
  assert.deepEqual(jsonPatch({ a: [1, 2, 3] }, [{ op: 'replace', path: '/a/-3', value: 9 }]), { a: [9, 2, 3] });
  assert.throws(() => jsonPatch({ a: [1] }, [{ op: 'remove', path: '/a/-2' }]), JsonPatchApplyError);
  // the first path token is not checked: "a/b" addresses member b of the root.
  assert.deepEqual(jsonPatch({}, [{ op: 'add', path: 'x/b', value: 1 }]), { b: 1 });
  // leading zeros and a plus sign are accepted by strconv.Atoi.
  assert.deepEqual(jsonPatch({ a: [1, 2] }, [{ op: 'replace', path: '/a/+01', value: 5 }]), { a: [1, 5] });
  // test compares objects regardless of member order, and whole documents at "".
  assert.deepEqual(jsonPatch({ a: { x: 1, y: [1, { z: 2 }] } }, [{ op: 'test', path: '', value: { a: { y: [1, { z: 2 }], x: 1 } } }]), {
    a: { x: 1, y: [1, { z: 2 }] },
  });
  // replace at "" swaps the whole document; by a scalar or null it is ignored.
  assert.deepEqual(jsonPatch({ a: 1 }, [{ op: 'replace', path: '', value: [1] }]), [1]);
  assert.deepEqual(jsonPatch({ a: 1 }, [{ op: 'replace', path: '', value: 'x' }]), { a: 1 });
  assert.deepEqual(jsonPatch({ a: 1 }, [{ op: 'replace', path: '', value: null }]), { a: 1 });
  // where v4.12.0 dereferences a missing value, it crashes.
  assert.throws(() => jsonPatch({ a: 1 }, [{ op: 'replace', path: '' }]), JsonPatchPanic);
  assert.throws(() => jsonPatch({ a: null }, [{ op: 'test', path: '/a' }]), JsonPatchPanic);
  assert.throws(() => jsonPatch({ a: 1 }, [{ op: 'test', path: '/a' }]), JsonPatchApplyError);
  // ~01 decodes to "~1", not "/".
  assert.deepEqual(jsonPatch({ '~1': 1 }, [{ op: 'remove', path: '/~01' }]), {});
  // "__proto__" is an ordinary member name.
  const withProto = jsonPatch({}, [{ op: 'add', path: '/__proto__', value: { polluted: true } }]) as Record<string, unknown>;
  assert.deepEqual(Object.keys(withProto), ['__proto__']);
  assert.equal(({} as Record<string, unknown>)['polluted'], undefined);
});

test('copy is limited to 3 MiB of accumulated copies', () => {
  const big = 'x'.repeat(1024 * 1024);
  const ops = [0, 1, 2].map((i) => ({ op: 'copy', from: '/big', path: `/c${i}` }));
  assert.doesNotThrow(() => jsonPatch({ big }, ops.slice(0, 2)));
  assert.throws(
    () => jsonPatch({ big }, ops),
    (e: unknown) => e instanceof JsonPatchApplyError && /^Unable to complete the copy, the accumulated size increase of copy is 3145734, exceeding the limit 3145728$/.test(e.message),
  );
});

test('decodeJsonPatch accepts only null or an array of objects and nulls', () => {
  assert.deepEqual(decodeJsonPatch(null), []);
  assert.deepEqual(decodeJsonPatch([null, { op: 'add' }]), [null, { op: 'add' }]);
  assert.throws(() => decodeJsonPatch({ op: 'add' }), (e: unknown) => e instanceof JsonPatchDecodeError && e.message === 'json: cannot unmarshal object into Go value of type jsonpatch.Patch');
  assert.throws(() => decodeJsonPatch(['x']), (e: unknown) => e instanceof JsonPatchDecodeError && e.message === 'json: cannot unmarshal string into Go value of type jsonpatch.Operation');
});
