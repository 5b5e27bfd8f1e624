import { test } from 'node:test';
import assert from 'node:assert/strict';
import { HandlerPanic, StatusError, type Status } from '../apis/errors.ts';
import { resourceFacts } from '../apis/model.ts';
import { builtinDefinition } from '../registry/registry.ts';
import { definition as testDefinition } from '../registry/store-testing.ts';
import type { KubeObject, ResourceDefinition } from '../registry/types.ts';
import { acceptedPatchMediaTypes, applyPatch, type ApplyPatchOptions, type PatchType } from './apply-patch.ts';

function definition(custom: boolean): ResourceDefinition {
  if (!custom) return builtinDefinition(resourceFacts('', 'v1', 'pods')!);
  return testDefinition({ group: 'example.com', version: 'v1', resource: 'widgets', kind: 'Widget', schema: { type: 'object', preserveUnknownFields: true }, custom: true });
}

const POD_DEF = definition(false);
const CR_DEF = definition(true);

function pod(): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'p', namespace: 'default', labels: { app: 'x' } },
    spec: { containers: [{ name: 'a', image: 'a:1' }, { name: 'b', image: 'b:1' }] },
  };
}

function statusOf(fn: () => unknown): Status {
  try {
    fn();
  } catch (e) {
    assert.ok(e instanceof StatusError, `expected a StatusError, got ${String(e)}`);
    return e.toStatus();
  }
  assert.fail('expected the patch to fail');
}

function expectStatus(patchType: PatchType, body: string, code: number, reason: string | undefined, message: string, options?: ApplyPatchOptions): void {
  const status = statusOf(() => applyPatch(patchType, pod(), body, POD_DEF, options));
  assert.equal(status.code, code, body);
  assert.equal(status.reason, reason, body);
  assert.equal(status.message, message, body);
}

const IGNORE: ApplyPatchOptions = { fieldValidation: 'Ignore' };
const GENERIC_422 = 'the server rejected our request due to an error in our request';

test('each patch type produces the patched object and leaves the current one alone', () => {
  const current = pod();
  const before = structuredClone(current);
  assert.deepEqual(applyPatch('json', current, '[{"op":"replace","path":"/spec/containers/0/image","value":"a:2"}]', POD_DEF).spec, {
    containers: [{ name: 'a', image: 'a:2' }, { name: 'b', image: 'b:1' }],
  });
  assert.deepEqual(applyPatch('merge', current, '{"metadata":{"labels":{"app":null,"tier":"web"}}}', POD_DEF).metadata.labels, { tier: 'web' });
  assert.deepEqual(applyPatch('strategic', current, '{"spec":{"containers":[{"name":"b","image":"b:2"}]}}', POD_DEF).spec, {
    containers: [{ name: 'a', image: 'a:1' }, { name: 'b', image: 'b:2' }],
  });
  // Merge patch replaces lists: the contrast with the strategic merge above.
  assert.deepEqual(applyPatch('merge', current, '{"spec":{"containers":[{"name":"b","image":"b:2"}]}}', POD_DEF).spec, {
    containers: [{ name: 'b', image: 'b:2' }],
  });
  assert.deepEqual(current, before);
});

test('custom resources refuse strategic merge patch with 415', () => {
  const status = statusOf(() => applyPatch('strategic', { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w' } }, '{}', CR_DEF));
  assert.equal(status.code, 415);
  assert.equal(status.reason, 'UnsupportedMediaType');
  assert.equal(
    status.message,
    'the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml',
  );
  const merged = applyPatch('merge', { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w' }, spec: { a: [1] } }, '{"spec":{"a":[2]}}', CR_DEF);
  assert.deepEqual(merged.spec, { a: [2] });
});

test('JSON patch: malformed bodies are 400, worded by field validation mode', () => {
  expectStatus('json', '[{', 400, 'BadRequest', 'error decoding patch: unexpected end of JSON input');
  expectStatus('json', '[{', 400, 'BadRequest', 'unexpected end of JSON input', IGNORE);
  expectStatus('json', '{"op":"add"}', 400, 'BadRequest', 'error decoding patch: json: cannot unmarshal object into Go value of type []handlers.jsonPatchOp');
  expectStatus('json', '{"op":"add"}', 400, 'BadRequest', 'json: cannot unmarshal object into Go value of type jsonpatch.Patch', IGNORE);
  expectStatus('json', '["x"]', 400, 'BadRequest', 'error decoding patch: json: cannot unmarshal string into Go value of type handlers.jsonPatchOp');
  expectStatus('json', '["x"]', 400, 'BadRequest', 'json: cannot unmarshal string into Go value of type jsonpatch.Operation', IGNORE);
  expectStatus('json', '[{"op":1,"path":"/a"}]', 400, 'BadRequest', 'error decoding patch: json: cannot unmarshal number into Go struct field jsonPatchOp.op of type string');
  // Without the strict decode the same operation only fails when applied.
  expectStatus('json', '[{"op":1,"path":"/a"}]', 422, 'Invalid', GENERIC_422, IGNORE);
});

test('JSON patch: failing operations are 422 with the generic message and empty details', () => {
  const status = statusOf(() => applyPatch('json', pod(), '[{"op":"test","path":"/metadata/name","value":"q"}]', POD_DEF));
  assert.deepEqual(status, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: GENERIC_422, reason: 'Invalid', details: {}, code: 422 });
  expectStatus('json', '[{"op":"remove","path":"/spec/nothing"}]', 422, 'Invalid', GENERIC_422);
  expectStatus('json', '[{"op":"add","path":"","value":{}}]', 422, 'Invalid', GENERIC_422);
  // Where kube's library crashes on a missing value, kube-apiserver panics (its panic filter answers 500).
  assert.throws(() => applyPatch('json', pod(), '[{"op":"test","path":"/spec/nodeName"}]', POD_DEF), (e) => e instanceof HandlerPanic && e.message === 'runtime error: invalid memory address or nil pointer dereference');
});

test('accepted patch media types follow kube, per kind of resource', () => {
  assert.deepEqual(acceptedPatchMediaTypes(POD_DEF), [
    'application/json-patch+json',
    'application/merge-patch+json',
    'application/strategic-merge-patch+json',
    'application/apply-patch+yaml',
  ]);
  assert.deepEqual(acceptedPatchMediaTypes(CR_DEF), ['application/json-patch+json', 'application/merge-patch+json', 'application/apply-patch+yaml']);
});

test('JSON patch: more than 10000 operations is 413', () => {
  const ops = JSON.stringify(Array.from({ length: 10001 }, () => ({ op: 'test', path: '/kind', value: 'Pod' })));
  expectStatus('json', ops, 413, 'RequestEntityTooLarge', 'Request entity too large: The allowed maximum operations in a JSON patch is 10000, got 10001');
  const ok = JSON.stringify(Array.from({ length: 10000 }, () => ({ op: 'test', path: '/kind', value: 'Pod' })));
  assert.equal(applyPatch('json', pod(), ok, POD_DEF).kind, 'Pod');
});

test('JSON patch: a null body and an empty list change nothing', () => {
  assert.deepEqual(applyPatch('json', pod(), 'null', POD_DEF), pod());
  assert.deepEqual(applyPatch('json', pod(), ' [] ', POD_DEF), pod());
});

test('JSON patch: a document that is no longer an object is 422 Invalid on field "patch"', () => {
  const status = statusOf(() => applyPatch('json', pod(), '[{"op":"replace","path":"","value":["<a>"]}]', POD_DEF));
  assert.equal(status.code, 422);
  assert.equal(status.reason, 'Invalid');
  const detail =
    'couldn\'t get version/kind; json parse error: json: cannot unmarshal array into Go value of type struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }';
  assert.equal(status.message, ` "" is invalid: patch: Invalid value: "[\\"\\\\u003ca\\\\u003e\\"]": ${detail}`);
  assert.deepEqual(status.details, { causes: [{ reason: 'FieldValueInvalid', message: `Invalid value: "[\\"\\\\u003ca\\\\u003e\\"]": ${detail}`, field: 'patch' }] });
});

test('strict decoding problems of the body are handed to the caller', () => {
  const warn: string[] = [];
  applyPatch('json', pod(), '[{"op":"test","path":"/kind","value":"Pod","xyz":1,"op":"test"}]', POD_DEF, { strictErrors: warn });
  // (kube lists them in document order; we list duplicates first.)
  assert.deepEqual(warn.sort(), ['json patch duplicate field "[0].op"', 'json patch unknown field "[0].xyz"']);

  const ignored: string[] = [];
  applyPatch('json', pod(), '[{"op":"test","path":"/kind","value":"Pod","xyz":1}]', POD_DEF, { fieldValidation: 'Ignore', strictErrors: ignored });
  assert.deepEqual(ignored, []);

  const merge: string[] = [];
  applyPatch('merge', pod(), '{"metadata":{"labels":{"a":"1","a":"2"}}}', POD_DEF, { fieldValidation: 'Strict', strictErrors: merge });
  assert.deepEqual(merge, ['duplicate field "metadata.labels.a"']);

  const smp: string[] = [];
  const result = applyPatch('strategic', pod(), '{"spec":{"hostname":"a","hostname":"b"}}', POD_DEF, { strictErrors: smp });
  assert.equal((result.spec as { hostname: string }).hostname, 'b');
  assert.deepEqual(smp, ['duplicate field "spec.hostname"']);
});

test('merge patch: bad bodies are 400, worded by field validation mode', () => {
  expectStatus('merge', '{"a":', 400, 'BadRequest', 'error decoding patch: unexpected end of JSON input');
  expectStatus('merge', '{"a":', 400, 'BadRequest', 'Invalid JSON Patch', IGNORE);
  expectStatus('merge', 'null', 400, 'BadRequest', 'Invalid JSON Patch');
  expectStatus('merge', '"x"', 400, 'BadRequest', 'error decoding patch: json: cannot unmarshal string into Go value of type map[string]interface {}');
  expectStatus('merge', '"x"', 400, 'BadRequest', 'Invalid JSON Patch', IGNORE);
  expectStatus('merge', '[1]', 400, 'BadRequest', 'error decoding patch: json: cannot unmarshal array into Go value of type map[string]interface {}');
  // Accepted without the strict decode, the array becomes the document and fails to decode as an object.
  const status = statusOf(() => applyPatch('merge', pod(), '[1]', POD_DEF, IGNORE));
  assert.equal(status.code, 422);
  assert.match(status.message ?? '', /^ "" is invalid: patch: Invalid value: "\[1\]": couldn't get version\/kind; json parse error: /);
});

test('strategic merge patch: failures map to kube status codes', () => {
  expectStatus('strategic', '{"spec":', 400, 'BadRequest', 'unexpected end of JSON input');
  expectStatus('strategic', '[]', 400, 'BadRequest', 'json: cannot unmarshal array into Go value of type map[string]interface {}');
  expectStatus('strategic', '{"metadata":{"$deleteFromPrimitiveList":["a"]}}', 400, 'BadRequest', 'invalid patch format of primitive list');
  expectStatus('strategic', '{"spec":{"$retainKeys":"x"}}', 400, 'BadRequest', 'invalid patch format of retainKeys');
  expectStatus('strategic', '{"spec":{"$setElementOrder":[]}}', 400, 'BadRequest', 'invalid patch format of setElementOrder list');
  const current = pod();
  (current.metadata as { finalizers?: unknown[] }).finalizers = [];
  const status = statusOf(() => applyPatch('strategic', current, '{"metadata":{"finalizers":[["x"]]}}', POD_DEF));
  assert.deepEqual([status.code, status.reason, status.message], [422, 'Invalid', GENERIC_422]);
  // Any other library error reaches the client as a plain error: 500, no reason, the library's text.
  expectStatus('strategic', '{"spec":{"containers":[{"image":"x"}]}}', 500, undefined, 'map: map[image:x] does not contain declared merge key: name');
  expectStatus('strategic', '{"spec":{"containers":[{"name":"a","$patch":"merge"}]}}', 500, undefined, 'merging lists cannot yet be specified in the patch');
});

test('strategic merge patch: a null body changes nothing, $patch: delete at the top empties the object', () => {
  assert.deepEqual(applyPatch('strategic', pod(), 'null', POD_DEF), pod());
  assert.deepEqual(applyPatch('strategic', pod(), '{"$patch":"delete"}', POD_DEF), {});
});

test('patches nest up to the decoders\' 10000 levels; deeper is the decoder\'s 400', () => {
  const deep = (depth: number) => '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);
  // 9997 inside {"spec":{"x": ...}} (or the JSON patch array and operation) stays within 10000.
  for (const [patchType, body] of [
    ['merge', `{"spec":{"x":${deep(9997)}}}`],
    ['strategic', `{"spec":{"x":${deep(9997)}}}`],
    ['json', `[{"op":"add","path":"/spec/x","value":${deep(9997)}}]`],
  ] as const) {
    let v: unknown = (applyPatch(patchType, pod(), body, POD_DEF).spec as Record<string, unknown>).x;
    let levels = 0;
    while (typeof v === 'object' && v !== null) {
      v = (v as Record<string, unknown>).a;
      levels++;
    }
    assert.deepEqual([levels, v], [9997, 1], patchType);
  }
  for (const [patchType, body, message] of [
    ['merge', `{"spec":{"x":${deep(9999)}}}`, "error decoding patch: invalid character '{' exceeded max depth"],
    ['strategic', `{"spec":{"x":${deep(9999)}}}`, "invalid character '{' exceeded max depth"],
    ['json', `[{"op":"add","path":"/spec/x","value":${deep(9999)}}]`, "error decoding patch: invalid character '{' exceeded max depth"],
  ] as const) {
    const status = statusOf(() => applyPatch(patchType, pod(), body, POD_DEF));
    assert.deepEqual([status.code, status.reason, status.message], [400, 'BadRequest', message], patchType);
  }
});
