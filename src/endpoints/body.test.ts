import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { StatusError } from '../apis/errors.ts';
import type { HttpRequest } from '../server/types.ts';
import { bodyFormat, checkBodyKind, interpretBody, parseBody, readBody, strictDecodingError, summarizeData, yamlStrictErrors } from './body.ts';

const configMap = { group: '', version: 'v1', kind: 'ConfigMap' };
const deployment = { group: 'apps', version: 'v1', kind: 'Deployment' };
const known = {
  gv: (g: string, v: string) => (g === '' && v === 'v1') || (g === 'apps' && v === 'v1') || (g === 'extensions' && v === 'v1beta1'),
  kind: (g: string, v: string, k: string) => g === '' && v === 'v1' && ['ConfigMap', 'Secret'].includes(k),
};

function status(fn: () => unknown): StatusError {
  try {
    fn();
  } catch (e) {
    assert.ok(e instanceof StatusError, String(e));
    return e;
  }
  assert.fail('expected a StatusError');
}

function decode(text: string, format: 'json' | 'yaml' = 'json', expected = configMap, custom = false) {
  const data = Buffer.from(text);
  return interpretBody(parseBody(data, format, expected.kind), data, expected, custom);
}

function requestOf(chunks: Buffer[], headers: Record<string, string> = {}): HttpRequest {
  return Object.assign(Readable.from(chunks), { headers }) as unknown as HttpRequest;
}

test('readBody returns the body, 413 past the limit', async () => {
  assert.equal((await readBody(requestOf([Buffer.from('ab'), Buffer.from('cd')]), 10)).toString(), 'abcd');
  const is413 = (e: unknown) => e instanceof StatusError && e.code === 413 && e.reason === 'RequestEntityTooLarge' && e.message === 'Request entity too large: limit is 10';
  await assert.rejects(readBody(requestOf([Buffer.alloc(6), Buffer.alloc(6)]), 10), is413);
});

test('readBody stops at the limit: the rest of the body is never read', async () => {
  let produced = 0;
  const endless = Object.assign(
    new Readable({
      read() {
        produced++;
        this.push(Buffer.alloc(4));
      },
    }),
    { headers: {} },
  ) as unknown as HttpRequest;
  await assert.rejects(readBody(endless, 10), (e: unknown) => e instanceof StatusError && e.code === 413);
  const atRejection = produced;
  await new Promise((r) => setTimeout(r, 20));
  assert.ok(produced <= atRejection + 1, `kept reading: ${produced} chunks after ${atRejection}`);
  assert.equal((endless as unknown as Readable).isPaused(), true);
});

test('readBody refuses a declared Content-Length past the limit without reading', async () => {
  const req = requestOf([Buffer.from('x')], { 'content-length': '11' });
  await assert.rejects(readBody(req, 10), (e: unknown) => e instanceof StatusError && e.code === 413);
  assert.equal((req as unknown as Readable).readableEnded, false);
});

test('Content-Type selects JSON (the default) or YAML; others are 415', () => {
  assert.equal(bodyFormat(undefined), 'json');
  assert.equal(bodyFormat('application/json; charset=utf-8'), 'json');
  assert.equal(bodyFormat('application/yaml'), 'yaml');
  const e = status(() => bodyFormat('application/vnd.kubernetes.protobuf'));
  assert.equal(e.code, 415);
  assert.equal(e.message, 'the body of the request was in an unknown format - accepted media types include: application/json, application/yaml');
});

test('unreadable bodies are 400 with kube decoder messages and a summary of the data', () => {
  assert.equal(
    status(() => decode('{"metadata":')).message,
    'the object provided is unrecognized (must be of type ConfigMap): couldn\'t get version/kind; json parse error: unexpected end of JSON input ({"metadata":)',
  );
  assert.equal(
    status(() => decode('')).message,
    "the object provided is unrecognized (must be of type ConfigMap): couldn't get version/kind; json parse error: unexpected end of JSON input (<empty>)",
  );
  assert.equal(
    status(() => decode('[1]')).message,
    `the object provided is unrecognized (must be of type ConfigMap): couldn't get version/kind; json parse error: json: cannot unmarshal array into Go value of type struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" } (5b315d)`,
  );
  assert.equal(
    status(() => decode('{"kind":5}')).message,
    `the object provided is unrecognized (must be of type ConfigMap): couldn't get version/kind; json parse error: json: cannot unmarshal number into Go struct field .kind of type string ({"kind":5})`,
  );
  assert.equal(status(() => decode('{"apiVersion":"a/b/c"}')).message, 'the object provided is unrecognized (must be of type ConfigMap): unexpected GroupVersion string: a/b/c ({"apiVersion":"a/b/c"})');
  assert.equal(summarizeData(Buffer.from('{"a":"0123456789012345678901234567890"}')), '{"a":"012345678901234567890123 ...');
});

test('missing apiVersion and kind default to the endpoint kind', () => {
  assert.deepEqual(decode('{"metadata":{"name":"a"}}').gvk, configMap);
  assert.deepEqual(decode('{"apiVersion":"apps"}', 'json', deployment).gvk, { group: '', version: 'apps', kind: 'Deployment' });
  assert.deepEqual(decode('null').object, {});
  assert.deepEqual(decode('', 'yaml').object, {});
});

test('the body kind and version must be the endpoint ones', () => {
  const check = (text: string, expected = configMap, custom = false) => checkBodyKind(decode(text, 'json', expected, custom).gvk, expected, custom, known.gv, known.kind);
  check('{"apiVersion":"v1","kind":"ConfigMap"}');
  assert.equal(status(() => check('{"apiVersion":"v1","kind":"Secret"}')).message, 'Secret in version "v1" cannot be handled as a ConfigMap: converting (v1.Secret) to (core.ConfigMap): unknown conversion');
  assert.equal(
    status(() => check('{"apiVersion":"v1","kind":"Nope"}')).message,
    'Nope in version "v1" cannot be handled as a ConfigMap: no kind "Nope" is registered for version "v1" in scheme "pkg/api/legacyscheme/scheme.go:30"',
  );
  assert.equal(status(() => check('{"apiVersion":"extensions/v1beta1","kind":"Deployment"}', deployment)).message, 'the API version in the data (extensions/v1beta1) does not match the expected API version (apps/v1)');
  assert.equal(
    status(() => check('{"apiVersion":"v2","kind":"ConfigMap"}')).message,
    'ConfigMap in version "v2" cannot be handled as a ConfigMap: no kind "ConfigMap" is registered for version "v2" in scheme "pkg/api/legacyscheme/scheme.go:30"',
  );
});

test('custom resources keep their own apiVersion and must name a kind', () => {
  const crontab = { group: 'stable.example.com', version: 'v1', kind: 'CronTab' };
  assert.equal(
    status(() => decode('{"apiVersion":"stable.example.com/v1"}', 'json', crontab, true)).message,
    `the object provided is unrecognized (must be of type CronTab): Object 'Kind' is missing in '{"apiVersion":"stable.example.com/v1"}' ({"apiVersion":"stable.example. ...)`,
  );
  const gvk = decode('{"kind":"CronTab"}', 'json', crontab, true).gvk;
  assert.equal(status(() => checkBodyKind(gvk, crontab, true, known.gv, known.kind)).message, 'the API version in the data () does not match the expected API version (stable.example.com/v1)');
});

test('YAML bodies: 1.1 scalars, duplicates as one strict error', () => {
  const data = Buffer.from('apiVersion: v1\nkind: ConfigMap\ndata:\n  a: yes\n  a: no\n');
  const raw = parseBody(data, 'yaml', 'ConfigMap');
  assert.deepEqual(raw.value, { apiVersion: 'v1', kind: 'ConfigMap', data: { a: false } });
  const errs = yamlStrictErrors(raw);
  assert.deepEqual(errs, ['error converting YAML to JSON: yaml: unmarshal errors:\n  line 5: key "a" already set in map']);
  assert.equal(strictDecodingError(configMap, 'ConfigMap', errs).message, `ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: ${errs[0]}`);
  const bad = status(() => parseBody(Buffer.from('a: [1\nb: 2'), 'yaml', 'ConfigMap'));
  assert.match(bad.message, /^the object provided is unrecognized \(must be of type ConfigMap\): error converting YAML to JSON: yaml: line \d+: /);
});

test('JSON duplicates become strict errors with their paths', () => {
  const raw = parseBody(Buffer.from('{"metadata":{"name":"a","name":"b"}}'), 'json', 'ConfigMap');
  assert.deepEqual(raw.duplicateErrors, ['duplicate field "metadata.name"']);
});
