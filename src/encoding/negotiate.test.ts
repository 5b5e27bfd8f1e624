import { test } from 'node:test';
import assert from 'node:assert/strict';
import { acceptsGzip, negotiateOutput, parseAccept, parseContentType, prettyRequested, PROTOBUF_SERVED_MEDIA_TYPES } from './negotiate.ts';

const resource = { allowTransform: true };
const plain = { allowTransform: false };

test('parseAccept orders clauses by q, then specificity, keeping header order otherwise', () => {
  const clauses = parseAccept('*/*;q=0.5, application/yaml;q=0.9, application/json, text/*');
  assert.deepEqual(
    clauses.map((c) => `${c.type}/${c.subType}`),
    ['application/json', 'text/*', 'application/yaml', '*/*'],
  );
  assert.equal(clauses[2].q, Math.fround(0.9));
});

test('parseAccept keeps parameters and drops malformed ranges', () => {
  const [c, ...rest] = parseAccept('application/json;as=Table;v=v1;g=meta.k8s.io, bogus, a/b/c');
  assert.deepEqual(c.params, { as: 'Table', v: 'v1', g: 'meta.k8s.io' });
  assert.equal(rest.length, 0);
});

test('no Accept header, wildcards and JSON all negotiate JSON', () => {
  for (const accept of [undefined, '', '*/*', 'application/*', 'application/json', 'text/html, */*;q=0.1']) {
    assert.equal(negotiateOutput(accept, resource)?.mediaType, 'application/json', String(accept));
  }
});

test('YAML is served when asked for first', () => {
  assert.equal(negotiateOutput('application/yaml', resource)?.mediaType, 'application/yaml');
  assert.equal(negotiateOutput('application/yaml;q=0.5, application/json', resource)?.mediaType, 'application/json');
});

test('protobuf alone is not acceptable; protobuf with a JSON fallback picks JSON', () => {
  assert.equal(negotiateOutput('application/vnd.kubernetes.protobuf', resource), undefined);
  assert.equal(negotiateOutput('application/vnd.kubernetes.protobuf, application/json', resource)?.mediaType, 'application/json');
});

test('Table conversion is recognized for meta.k8s.io v1 and v1beta1 only', () => {
  const kubectl = 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json';
  assert.deepEqual(negotiateOutput(kubectl, resource)?.convert, { group: 'meta.k8s.io', version: 'v1', kind: 'Table' });
  assert.deepEqual(negotiateOutput('application/json;as=Table;v=v1beta1;g=meta.k8s.io', resource)?.convert, { group: 'meta.k8s.io', version: 'v1beta1', kind: 'Table' });
  assert.equal(negotiateOutput('application/json;as=Table;v=v2;g=meta.k8s.io', resource), undefined);
  assert.equal(negotiateOutput('application/json;as=Table', resource), undefined);
  assert.equal(negotiateOutput('application/json;as=Unknown;v=v1;g=meta.k8s.io', resource), undefined);
});

test('errors are never transformed: a Table-only Accept is not acceptable for them', () => {
  assert.equal(negotiateOutput('application/json;as=Table;v=v1;g=meta.k8s.io', plain), undefined);
  const withFallback = negotiateOutput('application/json;as=Table;v=v1;g=meta.k8s.io, application/json', plain);
  assert.equal(withFallback?.mediaType, 'application/json');
  assert.equal(withFallback?.convert, undefined);
});

test('PartialObjectMetadata is accepted for JSON and YAML', () => {
  assert.deepEqual(negotiateOutput('application/yaml;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io', resource)?.convert?.kind, 'PartialObjectMetadataList');
});

test('pretty=1 and stream=watch parameters', () => {
  assert.equal(negotiateOutput('application/json;pretty=1', resource)?.pretty, true);
  assert.equal(negotiateOutput('application/json;stream=watch', resource)?.stream, 'watch');
  assert.equal(negotiateOutput('application/yaml;stream=watch', resource), undefined);
});

test('prettyRequested follows ?pretty and falls back to the User-Agent', () => {
  assert.equal(prettyRequested(new URLSearchParams('pretty=true'), 'kubectl/v1.31'), true);
  assert.equal(prettyRequested(new URLSearchParams('pretty=false'), 'curl/8'), false);
  assert.equal(prettyRequested(new URLSearchParams('pretty=nope'), 'curl/8'), false);
  assert.equal(prettyRequested(new URLSearchParams(''), 'curl/8.1'), true);
  assert.equal(prettyRequested(new URLSearchParams(''), 'Mozilla/5.0 (X11)'), true);
  assert.equal(prettyRequested(new URLSearchParams(''), 'kubectl/v1.31'), false);
});

test('parseContentType lowercases and strips parameters; malformed types are undefined', () => {
  assert.equal(parseContentType('Application/JSON; charset=utf-8'), 'application/json');
  assert.equal(parseContentType('application/yaml'), 'application/yaml');
  assert.equal(parseContentType('json'), undefined);
  assert.equal(parseContentType('application/json; =x'), undefined);
});

test('acceptsGzip', () => {
  assert.equal(acceptsGzip('gzip, deflate'), true);
  assert.equal(acceptsGzip('deflate, GZIP;q=0.5'), true);
  assert.equal(acceptsGzip('br'), false);
  assert.equal(acceptsGzip(undefined), false);
});

test('protobuf: served for kinds with a message, with stream=watch; fallbacks for the others', () => {
  const pb = 'application/vnd.kubernetes.protobuf';
  assert.equal(negotiateOutput(pb, resource, PROTOBUF_SERVED_MEDIA_TYPES)?.mediaType, pb);
  assert.equal(negotiateOutput(`${pb};stream=watch`, resource, PROTOBUF_SERVED_MEDIA_TYPES)?.stream, 'watch');
  assert.equal(negotiateOutput(`${pb}, application/json`, resource, PROTOBUF_SERVED_MEDIA_TYPES)?.mediaType, pb);
  // Wildcards keep JSON first, as kube's serializer order does.
  assert.equal(negotiateOutput('*/*', resource, PROTOBUF_SERVED_MEDIA_TYPES)?.mediaType, 'application/json');
  // Without protobuf (custom resources): the fallback, or nothing (406).
  assert.equal(negotiateOutput(`${pb}, application/json`, resource)?.mediaType, 'application/json');
  assert.equal(negotiateOutput(pb, resource), undefined);
  // Table has no protobuf message; PartialObjectMetadataList has.
  assert.equal(negotiateOutput(`${pb};as=Table;g=meta.k8s.io;v=v1`, resource, PROTOBUF_SERVED_MEDIA_TYPES), undefined);
  assert.deepEqual(negotiateOutput(`${pb};as=PartialObjectMetadataList;g=meta.k8s.io;v=v1`, resource, PROTOBUF_SERVED_MEDIA_TYPES)?.convert, { group: 'meta.k8s.io', version: 'v1', kind: 'PartialObjectMetadataList' });
});
