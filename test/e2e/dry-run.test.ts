// dryRun=All on every write verb, fieldValidation on bodies and patches, and PATCH's own rules, over raw HTTPS.

import assert from 'node:assert/strict';
import { request as httpsRequest } from 'node:https';
import { after, before, describe, test } from 'node:test';
import { startTestServer } from './helpers.ts';
import type { RawResponse, TestServer } from './helpers.ts';

const CM = '/api/v1/namespaces/default/configmaps';

describe('dry run and field validation', () => {
  let s: TestServer;
  const call = (method: string, path: string, body?: unknown, contentType = 'application/json'): Promise<RawResponse> =>
    s.request(path, {
      method,
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
      headers: body === undefined ? {} : { 'content-type': contentType },
      clientCert: s.clientCert,
      clientKey: s.clientKey,
    });
  const items = async () => (JSON.parse((await call('GET', CM)).body) as { items: { metadata: { name: string; resourceVersion: string } }[] }).items;

  /** Collects the raw watch stream of configmaps in default for `seconds`. */
  const watchFor = (fromRv: string, seconds: number): Promise<string> =>
    new Promise((resolve, reject) => {
      const req = httpsRequest(
        { host: '127.0.0.1', port: s.port, path: `${CM}?watch=1&resourceVersion=${fromRv}&timeoutSeconds=${seconds}`, ca: s.caCert, cert: s.clientCert, key: s.clientKey },
        (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (d: string) => (text += d));
          res.on('end', () => resolve(text));
        },
      );
      req.on('error', reject);
      req.end();
    });

  before(async () => {
    s = await startTestServer();
    const r = await call('POST', CM, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'live', labels: { a: 'b' } }, data: { k: 'v' } });
    assert.equal(r.status, 201, r.body);
  });
  after(async () => {
    await s?.close();
  });

  test('dryRun=All on POST, PUT, PATCH, DELETE and deletecollection: normal answers, nothing stored, nothing watched', async () => {
    const before_ = await items();
    const rv = before_[0]!.metadata.resourceVersion;
    const watched = watchFor(rv, 2);

    const created = await call('POST', `${CM}?dryRun=All`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'dry' }, data: { a: '1' } });
    assert.equal(created.status, 201, created.body);
    const c = JSON.parse(created.body);
    assert.equal(c.metadata.name, 'dry');
    assert.match(c.metadata.uid, /^[0-9a-f-]{36}$/);

    const current = JSON.parse((await call('GET', `${CM}/live`)).body);
    current.data.k = 'changed';
    const put = await call('PUT', `${CM}/live?dryRun=All`, current);
    assert.equal(put.status, 200, put.body);
    assert.equal(JSON.parse(put.body).data.k, 'changed');

    const patched = await call('PATCH', `${CM}/live?dryRun=All`, { data: { p: '1' } }, 'application/merge-patch+json');
    assert.equal(patched.status, 200, patched.body);
    assert.equal(JSON.parse(patched.body).data.p, '1');

    const applied = await call('PATCH', `${CM}/live?dryRun=All&fieldManager=dry`, 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: live\ndata:\n  s: "1"\n', 'application/apply-patch+yaml');
    assert.equal(applied.status, 200, applied.body);

    const deleted = await call('DELETE', `${CM}/live?dryRun=All`);
    assert.equal(deleted.status, 200, deleted.body);
    const all = await call('DELETE', `${CM}?dryRun=All`);
    assert.equal(all.status, 200, all.body);
    assert.deepEqual((JSON.parse(all.body) as { items: { metadata: { name: string } }[] }).items.map((i) => i.metadata.name), ['live']);

    assert.deepEqual(await items(), before_);
    assert.equal(await watched, '');
  });

  test('an unknown dryRun value is refused', async () => {
    const r = await call('POST', `${CM}?dryRun=Foo`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' } });
    assert.equal(r.status, 422);
    assert.equal(JSON.parse(r.body).message, 'CreateOptions.meta.k8s.io "" is invalid: dryRun: Unsupported value: []string{"Foo"}: supported values: "All"');
  });

  test('fieldValidation=Strict lists unknown and duplicate fields in one 400', async () => {
    const body = '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x"},"data":{"a":"1"},"data":{"b":"2"},"foo":1}';
    const r = await call('POST', `${CM}?fieldValidation=Strict`, body);
    assert.equal(r.status, 400);
    assert.equal(JSON.parse(r.body).message, 'ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: unknown field "foo", duplicate field "data"');
  });

  test('fieldValidation=Warn answers with one Warning header per problem; Ignore with none', async () => {
    const body = '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"warned","labels":{"a":"b","a":"c"}},"spec":{"x":1}}';
    const r = await call('POST', `${CM}?fieldValidation=Warn`, body);
    assert.equal(r.status, 201, r.body);
    // Node's client joins repeated headers with ", ".
    assert.equal(r.headers.warning, '299 - "unknown field \\"spec\\"", 299 - "duplicate field \\"metadata.labels.a\\""');
    assert.equal(JSON.parse(r.body).spec, undefined);
    const ignored = await call('POST', `${CM}?fieldValidation=Ignore`, body.replace('warned', 'ignored'));
    assert.equal(ignored.status, 201, ignored.body);
    assert.equal(ignored.headers.warning, undefined);
  });

  test('a type error wins over unknown fields', async () => {
    const r = await call('POST', `${CM}?fieldValidation=Strict`, '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x"},"data":5,"foo":1}');
    assert.equal(r.status, 400);
    assert.equal(JSON.parse(r.body).message, 'ConfigMap in version "v1" cannot be handled as a ConfigMap: json: cannot unmarshal number into Go struct field ConfigMap.data of type map[string]string');
  });

  test('patches are checked too: Strict refuses an unknown field, Warn warns', async () => {
    const strict = await call('PATCH', `${CM}/live?fieldValidation=Strict`, { data: { k: 'z' }, bogus: { q: 1 } }, 'application/merge-patch+json');
    assert.equal(strict.status, 422);
    assert.match(JSON.parse(strict.body).message, /strict decoding error: unknown field "bogus"$/);
    const warn = await call('PATCH', `${CM}/live?fieldValidation=Warn`, { data: { k: 'z' }, bogus: { q: 1 } }, 'application/strategic-merge-patch+json');
    assert.equal(warn.status, 200, warn.body);
    assert.equal(warn.headers.warning, '299 - "unknown field \\"bogus\\""');
    assert.equal(JSON.parse(warn.body).data.k, 'z');
  });

  test('PATCH: a stale resourceVersion is a conflict, a missing object 404, apply needs a fieldManager', async () => {
    const stale = await call('PATCH', `${CM}/live`, { metadata: { resourceVersion: '1' }, data: { z: '1' } }, 'application/merge-patch+json');
    assert.equal(stale.status, 409);
    assert.equal(JSON.parse(stale.body).message, 'Operation cannot be fulfilled on configmaps "live": the object has been modified; please apply your changes to the latest version and try again');
    const missing = await call('PATCH', `${CM}/nope`, { data: { z: '1' } }, 'application/merge-patch+json');
    assert.equal(missing.status, 404);
    assert.equal(JSON.parse(missing.body).message, 'configmaps "nope" not found');
    // kube-apiserver answers a missing fieldManager with 422 Invalid on PatchOptions.
    const noManager = await call('PATCH', `${CM}/live`, 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: live\n', 'application/apply-patch+yaml');
    assert.equal(noManager.status, 422);
    assert.equal(JSON.parse(noManager.body).message, 'PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch');
    // Apply creates what is missing.
    const created = await call('PATCH', `${CM}/applied?fieldManager=me`, 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: applied\ndata:\n  a: "1"\n', 'application/apply-patch+yaml');
    assert.equal(created.status, 201, created.body);
    assert.deepEqual(JSON.parse(created.body).metadata.managedFields.map((m: { manager: string; operation: string }) => `${m.manager}/${m.operation}`), ['me/Apply']);
  });
});
