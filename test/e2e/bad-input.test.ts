// Malformed requests get kube-apiserver's Status errors; the server stays up and storage is unchanged.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestServer } from './helpers.ts';
import type { RawResponse, TestServer } from './helpers.ts';

interface StatusBody {
  kind: string;
  apiVersion: string;
  status: string;
  message: string;
  reason: string;
  code: number;
  details?: { name?: string; kind?: string; group?: string; causes?: { reason: string; message: string; field: string }[] };
}

function status(r: RawResponse, code: number, reason: string): StatusBody {
  assert.equal(r.status, code, r.body);
  assert.match(String(r.headers['content-type']), /^application\/json/);
  const body = JSON.parse(r.body) as StatusBody;
  assert.equal(body.kind, 'Status');
  assert.equal(body.apiVersion, 'v1');
  assert.equal(body.status, 'Failure');
  assert.equal(body.code, code);
  assert.equal(body.reason, reason);
  return body;
}

describe('bad input', () => {
  let s: TestServer;
  let before_: string;
  const post = (path: string, body: string, contentType = 'application/json') =>
    s.request(path, { method: 'POST', body, headers: { 'content-type': contentType }, clientCert: s.clientCert, clientKey: s.clientKey });
  const get = (path: string, headers: Record<string, string> = {}) => s.request(path, { headers, clientCert: s.clientCert, clientKey: s.clientKey });
  const snapshot = async () => {
    const r = await get('/api/v1/namespaces/default/configmaps');
    return JSON.stringify((JSON.parse(r.body) as { items: unknown[] }).items);
  };

  before(async () => {
    s = await startTestServer();
    const r = await post('/api/v1/namespaces/default/configmaps', JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'keep' }, data: { a: 'b' } }));
    assert.equal(r.status, 201, r.body);
    before_ = await snapshot();
  });
  after(async () => {
    await s?.close();
  });

  test('malformed JSON is a 400', async () => {
    const b = status(await post('/api/v1/namespaces/default/configmaps', '{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {'), 400, 'BadRequest');
    assert.ok(b.message.length > 0);
  });

  test('a wrong field type is a 400 naming the field', async () => {
    const b = status(await post('/api/v1/namespaces/default/configmaps', JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'typed' }, data: { a: 1 } })), 400, 'BadRequest');
    assert.match(b.message, /^ConfigMap in version "v1" cannot be handled as a ConfigMap: /);
    assert.match(b.message, /ConfigMap\.data/);
  });

  test('a body of another kind or namespace is a 400', async () => {
    status(await post('/api/v1/namespaces/default/configmaps', JSON.stringify({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'x' } })), 400, 'BadRequest');
    const ns = status(await post('/api/v1/namespaces/default/configmaps', JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x', namespace: 'kube-system' } })), 400, 'BadRequest');
    assert.equal(ns.message, 'the namespace of the provided object does not match the namespace sent on the request');
  });

  test('a name that is too long or malformed is 422 Invalid', async () => {
    const long = 'a'.repeat(254);
    const b = status(await post('/api/v1/namespaces/default/configmaps', JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: long } })), 422, 'Invalid');
    assert.equal(b.message, `ConfigMap "${long}" is invalid: metadata.name: Invalid value: "${long}": must be no more than 253 characters`);
    assert.deepEqual(b.details?.causes, [{ reason: 'FieldValueInvalid', message: `Invalid value: "${long}": must be no more than 253 characters`, field: 'metadata.name' }]);
    const upper = status(await post('/api/v1/namespaces/default/configmaps', JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'Upper' } })), 422, 'Invalid');
    assert.match(upper.message, /^ConfigMap "Upper" is invalid: metadata\.name: Invalid value: "Upper": a lowercase RFC 1123 subdomain must consist of/);
    const label = status(await post('/api/v1/namespaces/default/configmaps', JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'lbl', labels: { 'bad key!': 'v' } } })), 422, 'Invalid');
    assert.match(label.message, /metadata\.labels: Invalid value: "bad key!"/);
  });

  test('unknown resources and groups are 404', async () => {
    const b = status(await get('/api/v1/namespaces/default/widgets'), 404, 'NotFound');
    assert.equal(b.message, 'the server could not find the requested resource');
    // An unknown group is not an API path at all: kube's mux answers its plain-text 404.
    const group = await get('/apis/example.com/v1/widgets');
    assert.equal(group.status, 404);
    assert.equal(group.body, '404 page not found\n');
    status(await get('/api/v1/namespaces/default/configmaps/missing'), 404, 'NotFound');
  });

  test('unsupported Content-Type is 415, unsupported Accept is 406', async () => {
    const b = status(await post('/api/v1/namespaces/default/configmaps', 'name=x', 'application/x-www-form-urlencoded'), 415, 'UnsupportedMediaType');
    assert.match(b.message, /^the body of the request was in an unknown format - accepted media types include: application\/json, application\/yaml/);
    status(await get('/api/v1/namespaces/default/configmaps', { accept: 'text/html' }), 406, 'NotAcceptable');
  });

  test('a verb the resource lacks is 405', async () => {
    const r = await s.request('/api/v1/componentstatuses', { method: 'POST', body: '{}', headers: { 'content-type': 'application/json' }, clientCert: s.clientCert, clientKey: s.clientKey });
    status(r, 405, 'MethodNotAllowed');
  });

  test('a patch on which kube-apiserver itself panics gets the plain-text 500 of its panic filter, and changes nothing', async () => {
    const patch = (body: string, contentType: string) =>
      s.request('/api/v1/namespaces/default/configmaps/keep', { method: 'PATCH', body, headers: { 'content-type': contentType }, clientCert: s.clientCert, clientKey: s.clientKey });
    // json-patch v4's test operation without a value, on a path that is not there: a nil dereference.
    const jsonPatch = await patch('[{"op":"test","path":"/data/missing"}]', 'application/json-patch+json');
    // strategicpatch using a map as a set member: "hash of unhashable type map[string]interface {}".
    const strategic = await patch('{"data":{"$retainKeys":[{"a":1}],"a":"c"}}', 'application/strategic-merge-patch+json');
    for (const r of [jsonPatch, strategic]) {
      assert.equal(r.status, 500, r.body);
      assert.equal(r.headers['content-type'], 'text/plain; charset=utf-8');
      assert.equal(r.headers['x-content-type-options'], 'nosniff');
      assert.equal(r.body, 'This request caused apiserver to panic. Look in the logs for details.\n');
    }
  });

  test('a Scale is decoded as an autoscaling/v1 Scale: replicas past int32 are a 400 in a body and a 422 on the field "patch" in a patch', async () => {
    const deployment = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'big' }, spec: { replicas: 1, selector: { matchLabels: { app: 'big' } }, template: { metadata: { labels: { app: 'big' } }, spec: { containers: [{ name: 'c', image: 'x' }] } } } };
    assert.equal((await post('/apis/apps/v1/namespaces/default/deployments', JSON.stringify(deployment))).status, 201);
    const scale = '/apis/apps/v1/namespaces/default/deployments/big/scale';
    const put = await s.request(scale, { method: 'PUT', body: JSON.stringify({ apiVersion: 'autoscaling/v1', kind: 'Scale', metadata: { name: 'big', namespace: 'default' }, spec: { replicas: 2147483648 } }), headers: { 'content-type': 'application/json' }, clientCert: s.clientCert, clientKey: s.clientKey });
    assert.equal(status(put, 400, 'BadRequest').message, 'Scale in version "v1" cannot be handled as a Scale: json: cannot unmarshal number 2147483648 into Go struct field ScaleSpec.spec.replicas of type int32');
    const patch = (path: string, body: unknown) => s.request(path, { method: 'PATCH', body: JSON.stringify(body), headers: { 'content-type': 'application/json-patch+json' }, clientCert: s.clientCert, clientKey: s.clientKey });
    for (const [path, kind] of [[scale, 'ScaleSpec'], ['/apis/apps/v1/namespaces/default/deployments/big', 'DeploymentSpec']] as const) {
      const body = status(await patch(path, [{ op: 'replace', path: '/spec/replicas', value: 9007199254740992 }]), 422, 'Invalid');
      assert.match(body.message, new RegExp(`^ "" is invalid: patch: Invalid value: "\\{.*": json: cannot unmarshal number 9007199254740992 into Go struct field ${kind}\\.spec\\.replicas of type int32$`));
      assert.equal(body.details?.causes?.[0]?.field, 'patch');
    }
    assert.equal((JSON.parse((await get('/apis/apps/v1/namespaces/default/deployments/big')).body) as { spec: { replicas: number } }).spec.replicas, 1);
  });

  test('after all of it: storage unchanged, server ready', async () => {
    assert.equal(await snapshot(), before_);
    const r = await get('/readyz');
    assert.equal(r.status, 200);
    assert.equal(r.body, 'ok');
  });
});
