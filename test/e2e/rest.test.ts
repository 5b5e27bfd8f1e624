// End to end: the REST endpoints of the real server (registry over memory storage) through raw HTTPS
// requests and kubectl — status codes, Status bodies, negotiation, watch streaming.

import { test, before, after, describe } from 'node:test';
import assert from 'node:assert/strict';
import { request as httpsRequest } from 'node:https';
import type { TestServer } from './helpers.ts';
import { startTestServer } from './helpers.ts';

let server: TestServer;

before(async () => {
  server = await startTestServer();
});

after(async () => {
  await server?.close();
});

const JSON_CT = { 'content-type': 'application/json' };

async function call(path: string, opts: { method?: string; headers?: Record<string, string>; body?: unknown } = {}) {
  const body = opts.body === undefined ? undefined : typeof opts.body === 'string' ? opts.body : JSON.stringify(opts.body);
  return server.request(path, { method: opts.method, headers: { ...(body !== undefined ? JSON_CT : {}), ...opts.headers }, body, clientCert: server.clientCert, clientKey: server.clientKey });
}

function json(body: string): Record<string, any> {
  return JSON.parse(body) as Record<string, any>;
}

describe('REST verbs', () => {
  test('create, get, list, update, patch, delete a ConfigMap', async () => {
    const created = await call('/api/v1/namespaces/default/configmaps', { method: 'POST', body: { metadata: { name: 'rest-a' }, data: { k: 'v' } } });
    assert.equal(created.status, 201, created.body);
    assert.equal(created.headers['content-type'], 'application/json');
    assert.equal(json(created.body).metadata.namespace, 'default');

    const got = await call('/api/v1/namespaces/default/configmaps/rest-a');
    assert.equal(got.status, 200);
    assert.equal(json(got.body).data.k, 'v');

    const list = await call('/api/v1/namespaces/default/configmaps');
    assert.equal(list.status, 200);
    const items = json(list.body).items as Record<string, any>[];
    assert.ok(items.some((i) => i.metadata.name === 'rest-a'));
    assert.equal(items[0].kind, undefined, 'list items of built-in types carry no kind');

    const updated = await call('/api/v1/namespaces/default/configmaps/rest-a', { method: 'PUT', body: { ...json(got.body), data: { k: 'v2' } } });
    assert.equal(updated.status, 200, updated.body);
    assert.equal(json(updated.body).data.k, 'v2');

    const patched = await call('/api/v1/namespaces/default/configmaps/rest-a', { method: 'PATCH', headers: { 'content-type': 'application/merge-patch+json' }, body: { data: { p: '1' } } });
    assert.equal(patched.status, 200, patched.body);
    assert.deepEqual(json(patched.body).data, { k: 'v2', p: '1' });

    const deleted = await call('/api/v1/namespaces/default/configmaps/rest-a', { method: 'DELETE' });
    assert.equal(deleted.status, 200, deleted.body);
    const gone = await call('/api/v1/namespaces/default/configmaps/rest-a');
    assert.equal(gone.status, 404);
    assert.deepEqual(json(gone.body), {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'configmaps "rest-a" not found',
      reason: 'NotFound',
      details: { name: 'rest-a', kind: 'configmaps' },
      code: 404,
    });
  });

  test('dryRun=All answers 201 and stores nothing', async () => {
    const r = await call('/api/v1/namespaces/default/configmaps?dryRun=All', { method: 'POST', body: { metadata: { name: 'rest-dry' } } });
    assert.equal(r.status, 201, r.body);
    assert.equal((await call('/api/v1/namespaces/default/configmaps/rest-dry')).status, 404);
  });

  test('unknown fields warn by default and fail with fieldValidation=Strict', async () => {
    const warned = await call('/api/v1/namespaces/default/configmaps', { method: 'POST', body: { metadata: { name: 'rest-w' }, spec: 1 } });
    assert.equal(warned.status, 201, warned.body);
    assert.equal(warned.headers.warning, '299 - "unknown field \\"spec\\""');
    assert.equal(json(warned.body).spec, undefined);
    const strict = await call('/api/v1/namespaces/default/configmaps?fieldValidation=Strict', { method: 'POST', body: '{"metadata":{"name":"rest-s","name":"rest-s"},"spec":1}' });
    assert.equal(strict.status, 400);
    assert.equal(json(strict.body).message, 'ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: unknown field "spec", duplicate field "metadata.name"');
    // Unknown keys that are empty or hold dots are dropped themselves, not the object holding them.
    const odd = await call('/api/v1/namespaces/default/configmaps', { method: 'POST', body: { metadata: { name: 'rest-odd', '': null, 'a.b': 1 }, data: { k: 'v' } } });
    assert.equal(odd.status, 201, odd.body);
    assert.equal(odd.headers.warning, '299 - "unknown field \\"metadata.\\"", 299 - "unknown field \\"metadata.a.b\\""');
    assert.deepEqual([json(odd.body).metadata.name, json(odd.body).data], ['rest-odd', { k: 'v' }]);
  });

  test('Table, YAML and PartialObjectMetadata responses', async () => {
    await call('/api/v1/namespaces/default/configmaps', { method: 'POST', body: { metadata: { name: 'rest-t' } } });
    const table = await call('/api/v1/namespaces/default/configmaps', { headers: { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io, application/json' } });
    assert.equal(table.status, 200);
    const t = json(table.body);
    assert.equal(t.kind, 'Table');
    assert.equal(t.columnDefinitions[0].name, 'Name');
    assert.ok(t.rows.some((r: any) => r.cells[0] === 'rest-t' && r.object.kind === 'PartialObjectMetadata'));
    const yaml = await call('/api/v1/namespaces/default/configmaps/rest-t', { headers: { accept: 'application/yaml' } });
    assert.equal(yaml.headers['content-type'], 'application/yaml');
    assert.match(yaml.body, /^apiVersion: v1\n(.*\n)*kind: ConfigMap\n/);
    const pom = await call('/api/v1/namespaces/default/configmaps', { headers: { accept: 'application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io' } });
    assert.equal(json(pom.body).kind, 'PartialObjectMetadataList');
  });
});

describe('REST errors', () => {
  const cases: Array<[string, { method?: string; headers?: Record<string, string>; body?: unknown }, number, string]> = [
    ['/api/v1/nothings', {}, 404, 'the server could not find the requested resource'],
    ['/api/v1/componentstatuses', { method: 'POST', body: {} }, 405, 'the server does not allow this method on the requested resource'],
    ['/api/v1/namespaces/default/configmaps', { method: 'POST', headers: { 'content-type': 'text/plain' }, body: '{}' }, 415, 'the body of the request was in an unknown format - accepted media types include: application/json, application/yaml, application/vnd.kubernetes.protobuf'],
    ['/api/v1/namespaces/default/configmaps', { headers: { accept: 'application/yaml;stream=watch' } }, 406, 'only the following media types are accepted: application/json, application/yaml, application/vnd.kubernetes.protobuf'],
    ['/api/v1/namespaces/default/configmaps', { method: 'POST', body: '{"metadata":' }, 400, `the object provided is unrecognized (must be of type ConfigMap): couldn't get version/kind; json parse error: unexpected end of JSON input ({"metadata":)`],
    ['/api/v1/namespaces/default/configmaps?limit=x', {}, 400, 'strconv.ParseInt: parsing "x": invalid syntax'],
    ['/api/v1/namespaces/default/configmaps?dryRun=Some', { method: 'POST', body: { metadata: { name: 'x' } } }, 422, 'CreateOptions.meta.k8s.io "" is invalid: dryRun: Unsupported value: []string{"Some"}: supported values: "All"'],
    ['/api/v1/namespaces/default/configmaps/x', { method: 'PATCH', headers: { 'content-type': 'application/merge-patch+json' }, body: {} }, 404, 'configmaps "x" not found'],
    ['/api/v1/namespaces/default/configmaps', { method: 'POST', body: { metadata: { name: 'x', namespace: 'other' } } }, 400, 'the namespace of the provided object does not match the namespace sent on the request'],
  ];
  test('a path the server does not serve: kube\'s 404 body byte for byte, "details":{} included (kubectl debug reads it)', async () => {
    for (const path of ['/api/v1/nothings', '/api/v1/namespaces/default/pods/p/nothing']) {
      const r = await call(path, {});
      assert.equal(r.status, 404);
      assert.equal(r.body, '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"the server could not find the requested resource","reason":"NotFound","details":{},"code":404}\n');
    }
  });
  for (const [path, opts, code, message] of cases) {
    test(`${opts.method ?? 'GET'} ${path} -> ${code}`, async () => {
      const r = await call(path, opts);
      assert.equal(r.status, code, r.body);
      const status = json(r.body);
      assert.equal(status.kind, 'Status');
      assert.equal(status.code, code);
      assert.equal(status.message, message);
    });
  }
});

/** Reads a watch stream until it ends; returns the decoded events. */
function watchEvents(path: string): Promise<{ status: number; contentType: string | undefined; events: Array<{ type: string; object: any }> }> {
  return new Promise((resolve, reject) => {
    const req = httpsRequest({ host: '127.0.0.1', port: server.port, path, ca: server.caCert, cert: server.clientCert, key: server.clientKey, agent: false }, (res) => {
      let text = '';
      res.on('data', (d: Buffer) => (text += d.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, contentType: res.headers['content-type'], events: text.split('\n').filter(Boolean).map((l) => JSON.parse(l)) }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('watch', () => {
  test('a watch streams events as newline-delimited JSON and ends at timeoutSeconds', async () => {
    const created = await call('/api/v1/namespaces/default/configmaps', { method: 'POST', body: { metadata: { name: 'rest-watch' } } });
    const rv = Number(json(created.body).metadata.resourceVersion);
    const pending = watchEvents(`/api/v1/namespaces/default/configmaps?watch=1&timeoutSeconds=1&resourceVersion=${rv - 1}`);
    const started = Date.now();
    const { status, contentType, events } = await pending;
    assert.equal(status, 200);
    assert.equal(contentType, 'application/json');
    assert.ok(Date.now() - started >= 900, 'the stream lasts timeoutSeconds');
    assert.ok(events.some((e) => e.type === 'ADDED' && e.object.metadata.name === 'rest-watch'), JSON.stringify(events));
  });
});

describe('kubectl', () => {
  test('create, get (server-side table), patch and delete', async () => {
    const manifest = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: rest-kubectl\ndata:\n  a: "1"\n';
    const create = await server.kubectl(['create', '-f', '-'], { input: manifest });
    assert.equal(create.code, 0, create.stderr);
    assert.match(create.stdout, /configmap\/rest-kubectl created/);
    const get = await server.kubectl(['get', 'configmap', 'rest-kubectl']);
    assert.equal(get.code, 0, get.stderr);
    assert.match(get.stdout, /^NAME\s+DATA\s+AGE\nrest-kubectl\s+1\s+\S+\n$|^NAME\s+CREATED AT\nrest-kubectl\s+\S+\n$/);
    const patch = await server.kubectl(['patch', 'configmap', 'rest-kubectl', '-p', '{"data":{"b":"2"}}']);
    assert.equal(patch.code, 0, patch.stderr);
    const yaml = await server.kubectl(['get', 'configmap', 'rest-kubectl', '-o', 'jsonpath={.data.b}']);
    assert.equal(yaml.stdout, '2');
    const del = await server.kubectl(['delete', 'configmap', 'rest-kubectl']);
    assert.equal(del.code, 0, del.stderr);
    const missing = await server.kubectl(['get', 'configmap', 'rest-kubectl']);
    assert.notEqual(missing.code, 0);
    assert.match(missing.stderr, /Error from server \(NotFound\): configmaps "rest-kubectl" not found/);
  });

  test('get --subresource=scale prints the Scale columns of kube (printScale), --subresource=status the resource columns', async () => {
    const create = await server.kubectl(['create', 'deployment', 'rest-scale', '--image=nginx', '--replicas=3']);
    assert.equal(create.code, 0, create.stderr);
    const scale = await server.kubectl(['get', 'deployment', 'rest-scale', '--subresource=scale']);
    assert.equal(scale.code, 0, scale.stderr);
    assert.match(scale.stdout, /^NAME\s+DESIRED\s+AVAILABLE\s+AGE\nrest-scale\s+3\s+0\s+\S+\n$/);
    const status = await server.kubectl(['get', 'deployment', 'rest-scale', '--subresource=status']);
    assert.equal(status.code, 0, status.stderr);
    assert.match(status.stdout, /^NAME\s+READY\s+UP-TO-DATE\s+AVAILABLE\s+AGE\nrest-scale\s+0\/3\s+0\s+0\s+\S+\n$/);
    const table = json((await call('/apis/apps/v1/namespaces/default/deployments/rest-scale/scale', { headers: { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' } })).body);
    assert.deepEqual(table.columnDefinitions.map((c: any) => [c.name, c.type, c.format]), [['Name', 'string', ''], ['Desired', 'integer', ''], ['Available', 'integer', ''], ['Age', 'string', '']]);
    assert.deepEqual(table.rows[0].cells.slice(0, 3), ['rest-scale', 3, 0]);
    assert.equal(table.rows[0].object.kind, 'PartialObjectMetadata');
    await server.kubectl(['delete', 'deployment', 'rest-scale']);
  });
});
