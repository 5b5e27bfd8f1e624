// Protobuf on the wire against the real server: kubectl's protobuf create, protobuf get/list/create/update
// with the k8s envelope, a protobuf watch decoded frame by frame, kube's errors for bad protobuf bodies,
// and gzip of large responses (APIResponseCompression).

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { request as httpsRequest } from 'node:https';
import { gunzipSync } from 'node:zlib';
import type { IncomingHttpHeaders } from 'node:http';
import { startTestServer, type TestServer } from './helpers.ts';
import { decodeProtobufObject, encodeProtobufObject } from '../../src/encoding/protobuf/envelope.ts';
import { decodeWatchEvent, splitWatchFrames, type DecodedWatchEvent } from '../../src/encoding/protobuf/watch-frames.ts';

const PROTOBUF = 'application/vnd.kubernetes.protobuf';

let s: TestServer;
before(async () => {
  s = await startTestServer({ watchCacheTuning: { bookmarkIntervalMs: 200 } });
});
after(async () => {
  await s?.close();
});

interface BinaryResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/** An admin HTTPS request whose body and answer are bytes. */
function binaryRequest(server: TestServer, path: string, opts: { method?: string; headers?: Record<string, string>; body?: Uint8Array } = {}): Promise<BinaryResponse> {
  return new Promise((resolve, reject) => {
    const req = httpsRequest(
      { host: '127.0.0.1', port: server.port, path, method: opts.method ?? 'GET', ca: server.caCert, cert: server.clientCert, key: server.clientKey, headers: opts.body ? { ...opts.headers, 'Content-Length': String(opts.body.length) } : opts.headers, agent: false, timeout: 10_000 },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (d: Buffer) => chunks.push(d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
      },
    );
    req.on('timeout', () => req.destroy(new Error(`request ${path} timed out`)));
    req.on('error', reject);
    req.end(opts.body);
  });
}

async function getJson(path: string): Promise<Record<string, unknown>> {
  const r = await s.adminRequest(path);
  assert.equal(r.status, 200, r.body);
  return JSON.parse(r.body) as Record<string, unknown>;
}

test('kubectl create rolebinding sends protobuf; the stored object is the one a JSON body gives', async () => {
  const out = await s.kubectl(['create', 'rolebinding', 'x', '--clusterrole=view', '--user=u', '-n', 'default', '-v=8']);
  assert.equal(out.code, 0, out.stderr);
  assert.match(out.stderr, /Request Headers:[\s\S]*Content-Type: application\/vnd\.kubernetes\.protobuf/);
  // kubectl (client-go) read the 201 answer in protobuf too: its "created" line comes from the decoded object.
  assert.match(out.stderr, /Response Headers:[\s\S]*Content-Type: application\/vnd\.kubernetes\.protobuf/);
  assert.equal(out.stdout, 'rolebinding.rbac.authorization.k8s.io/x created\n');
  const rb = await getJson('/apis/rbac.authorization.k8s.io/v1/namespaces/default/rolebindings/x');
  assert.deepEqual(rb.roleRef, { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view' });
  assert.deepEqual(rb.subjects, [{ kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'u' }]);
  const meta = rb.metadata as Record<string, unknown>;
  assert.equal(meta.name, 'x');
  assert.equal(meta.namespace, 'default');
  assert.equal(meta.generation, undefined);
  assert.equal(meta.selfLink, undefined);
  assert.equal(typeof meta.creationTimestamp, 'string');
  // kubectl reads it back in protobuf too.
  assert.equal((await s.kubectlOk(['get', 'rolebinding', 'x', '-n', 'default', '-o', 'jsonpath={.roleRef.name}'])).trim(), 'view');
});

test('get and list in protobuf decode to the JSON answers; fallbacks and 406', async () => {
  await s.kubectlOk(['create', 'configmap', 'pb-get', '-n', 'default', '--from-literal=a=1']);
  const json = await getJson('/api/v1/namespaces/default/configmaps/pb-get');
  const r = await binaryRequest(s, '/api/v1/namespaces/default/configmaps/pb-get', { headers: { Accept: PROTOBUF } });
  assert.equal(r.status, 200);
  assert.equal(r.headers['content-type'], PROTOBUF);
  assert.deepEqual([...r.body.subarray(0, 4)], [0x6b, 0x38, 0x73, 0x00]);
  assert.deepEqual(decodeProtobufObject(r.body), json);

  const list = await binaryRequest(s, '/api/v1/namespaces/default/configmaps', { headers: { Accept: `${PROTOBUF}, application/json` } });
  assert.equal(list.headers['content-type'], PROTOBUF);
  const decoded = decodeProtobufObject(list.body) as { kind: string; items: { metadata: { name: string } }[] };
  assert.equal(decoded.kind, 'ConfigMapList');
  assert.deepEqual(decoded.items, (await getJson('/api/v1/namespaces/default/configmaps')).items);

  // PartialObjectMetadataList in protobuf; Table has no protobuf message, so the JSON fallback answers.
  const partial = await binaryRequest(s, '/api/v1/namespaces/default/configmaps', { headers: { Accept: `${PROTOBUF};as=PartialObjectMetadataList;g=meta.k8s.io;v=v1` } });
  assert.equal(partial.status, 200);
  const partialList = decodeProtobufObject(partial.body) as { kind: string; items: { metadata: { name: string } }[] };
  assert.equal(partialList.kind, 'PartialObjectMetadataList');
  assert.ok(partialList.items.some((i) => i.metadata.name === 'pb-get'));
  const table = await binaryRequest(s, '/api/v1/namespaces/default/configmaps', { headers: { Accept: `${PROTOBUF};as=Table;g=meta.k8s.io;v=v1, application/json;as=Table;g=meta.k8s.io;v=v1` } });
  assert.equal(table.headers['content-type'], 'application/json');
  assert.equal(JSON.parse(table.body.toString()).kind, 'Table');

  // Errors come as a protobuf Status.
  const missing = await binaryRequest(s, '/api/v1/namespaces/default/configmaps/nope', { headers: { Accept: PROTOBUF } });
  assert.equal(missing.status, 404);
  const status = decodeProtobufObject(missing.body);
  assert.deepEqual(status, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'configmaps "nope" not found', reason: 'NotFound', details: { name: 'nope', kind: 'configmaps' }, code: 404 });
});

test('create and update with protobuf bodies', async () => {
  const cm = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'pb-body', labels: { a: 'b' } }, data: { k: 'v' } };
  const created = await binaryRequest(s, '/api/v1/namespaces/default/configmaps', { method: 'POST', headers: { 'Content-Type': PROTOBUF, Accept: PROTOBUF }, body: encodeProtobufObject(cm) });
  assert.equal(created.status, 201, created.body.toString());
  const obj = decodeProtobufObject(created.body) as { metadata: { resourceVersion: string; namespace: string }; data: unknown };
  assert.equal(obj.metadata.namespace, 'default');
  assert.deepEqual(obj.data, { k: 'v' });
  const updated = await binaryRequest(s, '/api/v1/namespaces/default/configmaps/pb-body', {
    method: 'PUT',
    headers: { 'Content-Type': PROTOBUF },
    body: encodeProtobufObject({ ...obj, data: { k: 'w' } }),
  });
  assert.equal(updated.status, 200, updated.body.toString());
  assert.equal(updated.headers['content-type'], 'application/json');
  assert.deepEqual(JSON.parse(updated.body.toString()).data, { k: 'w' });
  // Patches stay JSON types: protobuf is no patch type.
  const patched = await binaryRequest(s, '/api/v1/namespaces/default/configmaps/pb-body', { method: 'PATCH', headers: { 'Content-Type': PROTOBUF }, body: encodeProtobufObject(obj) });
  assert.equal(patched.status, 415);

  // DeleteOptions in protobuf (client-go's typed clients send them so): dryRun is honoured, then a real delete.
  const deleteOptions = (dryRun: string[]) => encodeProtobufObject({ apiVersion: 'v1', kind: 'DeleteOptions', propagationPolicy: 'Background', dryRun });
  const dry = await binaryRequest(s, '/api/v1/namespaces/default/configmaps/pb-body', { method: 'DELETE', headers: { 'Content-Type': PROTOBUF }, body: deleteOptions(['All']) });
  assert.equal(dry.status, 200, dry.body.toString());
  assert.equal((await s.adminRequest('/api/v1/namespaces/default/configmaps/pb-body')).status, 200);
  const gone = await binaryRequest(s, '/api/v1/namespaces/default/configmaps/pb-body', { method: 'DELETE', headers: { 'Content-Type': PROTOBUF, Accept: PROTOBUF }, body: deleteOptions([]) });
  assert.equal(gone.status, 200);
  assert.equal(gone.headers['content-type'], PROTOBUF);
  // ConfigMaps answer a deletion with a Success Status (ReturnDeletedObject is off for them), here in protobuf.
  assert.deepEqual({ ...decodeProtobufObject(gone.body), details: undefined }, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', details: undefined });
  assert.equal((await s.adminRequest('/api/v1/namespaces/default/configmaps/pb-body')).status, 404);
});

test('bad protobuf bodies: kube errors, nothing stored, server stays up', async () => {
  const good = encodeProtobufObject({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'pb-bad' }, data: { k: 'v' } });
  const post = (body: Uint8Array) => binaryRequest(s, '/api/v1/namespaces/default/configmaps', { method: 'POST', headers: { 'Content-Type': PROTOBUF }, body });
  const cases: [string, Uint8Array, string][] = [
    ['wrong magic', Buffer.concat([Buffer.from('k8s\u0001'), good.subarray(4)]), 'the object provided is unrecognized (must be of type ConfigMap): provided data does not appear to be a protobuf message, expected prefix [107 56 115 0] (6b38730'],
    ['truncated', good.subarray(0, good.length - 9), 'the object provided is unrecognized (must be of type ConfigMap): unexpected EOF (6b387300'],
    ['magic only', good.subarray(0, 4), 'the object provided is unrecognized (must be of type ConfigMap): empty body (6b387300)'],
    // An envelope naming v1 ConfigMap whose object starts with a key of field number 0, then one of wire type 7.
    [
      'illegal tag',
      Buffer.concat([Buffer.from('k8s\u0000\u000a\u000f\u000a\u0002v1\u0012\u0009ConfigMap', 'latin1'), Buffer.from([0x12, 0x02, 0x00, 0x01])]),
      'ConfigMap in version "v1" cannot be handled as a ConfigMap: proto: ConfigMap: illegal tag 0 (wire type 0)',
    ],
    [
      'illegal wire type',
      Buffer.concat([Buffer.from('k8s\u0000\u000a\u000f\u000a\u0002v1\u0012\u0009ConfigMap', 'latin1'), Buffer.from([0x12, 0x02, 0x9f, 0x06])]),
      'ConfigMap in version "v1" cannot be handled as a ConfigMap: proto: illegal wireType 7',
    ],
    [
      'mismatching kind',
      encodeProtobufObject({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'pb-bad' } }),
      'Secret in version "v1" cannot be handled as a ConfigMap: converting (v1.Secret) to (core.ConfigMap): unknown conversion',
    ],
  ];
  for (const [name, body, message] of cases) {
    const r = await post(body);
    assert.equal(r.status, 400, name);
    const status = JSON.parse(r.body.toString()) as { reason: string; message: string };
    assert.equal(status.reason, 'BadRequest', name);
    assert.ok(status.message.startsWith(message), `${name}: ${status.message}`);
  }
  const missing = await s.adminRequest('/api/v1/namespaces/default/configmaps/pb-bad');
  assert.equal(missing.status, 404);
  // Custom resources and other unknown media types: 415 listing what is accepted.
  const unknownType = await binaryRequest(s, '/api/v1/namespaces/default/configmaps', { method: 'POST', headers: { 'Content-Type': 'application/cbor' }, body: good });
  assert.equal(unknownType.status, 415);
  assert.match(unknownType.body.toString(), /accepted media types include: application\/json, application\/yaml, application\/vnd.kubernetes.protobuf/);
  assert.equal((await s.adminRequest('/livez')).status, 200);
});

interface ProtobufWatch {
  contentType(): string;
  events: DecodedWatchEvent[];
  ended: Promise<void>;
  waitFor(pred: () => boolean): Promise<void>;
  close(): void;
}

/** A protobuf watch read frame by frame (frames may span or share TCP reads). */
function protobufWatch(server: TestServer, path: string): ProtobufWatch {
  const events: DecodedWatchEvent[] = [];
  let contentType = '';
  let pending: Uint8Array = new Uint8Array();
  let waiter: (() => void) | undefined;
  let resolveEnded!: () => void;
  const ended = new Promise<void>((resolve) => (resolveEnded = resolve));
  const req = httpsRequest({ host: '127.0.0.1', port: server.port, path, ca: server.caCert, cert: server.clientCert, key: server.clientKey, headers: { Accept: `${PROTOBUF};stream=watch` }, agent: false });
  req.on('response', (res) => {
    contentType = String(res.headers['content-type']);
    res.on('data', (d: Buffer) => {
      const { frames, rest } = splitWatchFrames(Buffer.concat([pending, d]));
      pending = rest;
      for (const f of frames) events.push(decodeWatchEvent(f));
      waiter?.();
    });
    res.on('end', () => {
      assert.equal(pending.length, 0, 'a partial frame at the end of the stream');
      resolveEnded();
    });
  });
  req.on('error', () => resolveEnded());
  req.end();
  return {
    contentType: () => contentType,
    events,
    ended,
    async waitFor(pred) {
      const deadline = Date.now() + 10_000;
      while (!pred()) {
        if (Date.now() > deadline) assert.fail(`watch events so far: ${events.map((e) => e.type).join(' ')}`);
        await new Promise<void>((resolve) => {
          waiter = resolve;
          setTimeout(resolve, 500);
        });
      }
    },
    close: () => req.destroy(),
  };
}

const nameOf = (e: DecodedWatchEvent) => (e.object.metadata as { name?: string } | undefined)?.name;

test('a protobuf watch: length-prefixed WatchEvent frames, bookmarks included', async () => {
  const rv = ((await getJson('/api/v1/namespaces/default/configmaps')).metadata as { resourceVersion: string }).resourceVersion;
  const w = protobufWatch(s, `/api/v1/namespaces/default/configmaps?watch=1&resourceVersion=${rv}&allowWatchBookmarks=true&timeoutSeconds=30`);
  try {
    await s.kubectlOk(['create', 'configmap', 'pb-watch', '-n', 'default', '--from-literal=a=1']);
    await s.kubectlOk(['label', 'configmap', 'pb-watch', '-n', 'default', 'x=y']);
    await s.kubectlOk(['delete', 'configmap', 'pb-watch', '-n', 'default']);
    // A write elsewhere moves the revision past the last event: the next bookmark reports it.
    await s.kubectlOk(['create', 'secret', 'generic', 'pb-watch-elsewhere', '-n', 'default']);
    await w.waitFor(() => w.events.some((e) => e.type === 'DELETED') && w.events.some((e) => e.type === 'BOOKMARK'));
    assert.equal(w.contentType(), `${PROTOBUF};stream=watch`);
    const mine = w.events.filter((e) => e.type !== 'BOOKMARK');
    assert.deepEqual(mine.map((e) => `${e.type} ${nameOf(e)}`), ['ADDED pb-watch', 'MODIFIED pb-watch', 'DELETED pb-watch']);
    assert.deepEqual((mine[1]!.object.metadata as { labels: unknown }).labels, { x: 'y' });
    const bookmark = w.events.find((e) => e.type === 'BOOKMARK')!;
    assert.equal(bookmark.object.kind, 'ConfigMap');
    assert.match((bookmark.object.metadata as { resourceVersion: string }).resourceVersion, /^\d+$/);
  } finally {
    w.close();
  }
});

test('a protobuf watch through a resync: 410 Expired as an ERROR frame, re-list in protobuf, watch again from the list', async () => {
  const small = await startTestServer({ historyWindowSeconds: 1 });
  try {
    const cm = (name: string) => encodeProtobufObject({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name } });
    const create = async (name: string) => {
      const r = await binaryRequest(small, '/api/v1/namespaces/default/configmaps', { method: 'POST', headers: { 'Content-Type': PROTOBUF, Accept: PROTOBUF }, body: cm(name) });
      assert.equal(r.status, 201);
      return (decodeProtobufObject(r.body).metadata as { resourceVersion: string }).resourceVersion;
    };
    const first = await create('r-a');
    await create('r-gap');
    await new Promise((r) => setTimeout(r, 1200));
    await create('r-b');
    const expired = protobufWatch(small, `/api/v1/namespaces/default/configmaps?watch=1&resourceVersion=${first}`);
    await expired.ended;
    assert.equal(expired.events.length, 1);
    assert.equal(expired.events[0]!.type, 'ERROR');
    assert.deepEqual({ ...expired.events[0]!.object, message: undefined }, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: undefined, reason: 'Expired', code: 410 });

    // The informer's answer: list (protobuf), then watch from the list's resourceVersion.
    const listed = await binaryRequest(small, '/api/v1/namespaces/default/configmaps', { headers: { Accept: PROTOBUF } });
    const list = decodeProtobufObject(listed.body) as { metadata: { resourceVersion: string }; items: { metadata: { name: string } }[] };
    assert.deepEqual(list.items.map((i) => i.metadata.name).filter((n) => n.startsWith('r-')), ['r-a', 'r-b', 'r-gap']);
    const resumed = protobufWatch(small, `/api/v1/namespaces/default/configmaps?watch=1&resourceVersion=${list.metadata.resourceVersion}&timeoutSeconds=10`);
    try {
      await create('r-c');
      await resumed.waitFor(() => resumed.events.length > 0);
      assert.deepEqual(resumed.events.map((e) => `${e.type} ${nameOf(e)}`), ['ADDED r-c']);
    } finally {
      resumed.close();
    }
  } finally {
    await small.close();
  }
});

test('gzip of a large list (JSON and protobuf), not below 128 KiB, off with APIResponseCompression=false', async () => {
  const value = 'v'.repeat(2000);
  await Promise.all(
    Array.from({ length: 100 }, (_, i) => s.adminRequest('/api/v1/namespaces/default/configmaps', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ metadata: { name: `big-${i}`, labels: { big: 'y' } }, data: { value } }) })),
  );
  const path = '/api/v1/namespaces/default/configmaps?labelSelector=big%3Dy';
  const json = await binaryRequest(s, path, { headers: { 'Accept-Encoding': 'gzip' } });
  assert.equal(json.headers['content-encoding'], 'gzip');
  const items = (JSON.parse(gunzipSync(json.body).toString()) as { items: unknown[] }).items;
  assert.equal(items.length, 100);
  const pb = await binaryRequest(s, path, { headers: { 'Accept-Encoding': 'gzip', Accept: PROTOBUF } });
  assert.equal(pb.headers['content-encoding'], 'gzip');
  assert.equal((decodeProtobufObject(gunzipSync(pb.body)) as { items: unknown[] }).items.length, 100);
  const small = await binaryRequest(s, `${path}&limit=2`, { headers: { 'Accept-Encoding': 'gzip' } });
  assert.equal(small.headers['content-encoding'], undefined);
  const plain = await binaryRequest(s, path);
  assert.equal(plain.headers['content-encoding'], undefined);

  const off = await startTestServer({ featureGates: { APIResponseCompression: false } });
  try {
    await Promise.all(
      Array.from({ length: 100 }, (_, i) => off.adminRequest('/api/v1/namespaces/default/configmaps', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ metadata: { name: `big-${i}` }, data: { value } }) })),
    );
    const r = await binaryRequest(off, '/api/v1/namespaces/default/configmaps', { headers: { 'Accept-Encoding': 'gzip' } });
    assert.equal(r.status, 200);
    assert.equal(r.headers['content-encoding'], undefined);
    assert.ok(r.body.length > 128 * 1024);
  } finally {
    await off.close();
  }
});

const WIDGET_CRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.pb.example.com
spec:
  group: pb.example.com
  scope: Namespaced
  names: {plural: widgets, singular: widget, kind: Widget}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        x-kubernetes-preserve-unknown-fields: true
`;

test('custom resources: protobuf only for PartialObjectMetadata, 406 otherwise, the JSON fallback, protobuf bodies refused', async () => {
  await s.kubectlOk(['apply', '-f', '-'], { input: WIDGET_CRD });
  await s.kubectlOk(['wait', '--for=condition=established', 'crd/widgets.pb.example.com', '--timeout=10s']);
  const path = '/apis/pb.example.com/v1/namespaces/default/widgets';
  const created = await s.adminRequest(path, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ apiVersion: 'pb.example.com/v1', kind: 'Widget', metadata: { name: 'w' } }) });
  assert.equal(created.status, 201, created.body);

  // kube's custom resource serializer lists protobuf (for the metadata-only transforms), so the 406 names it; the
  // Status itself is served in protobuf.
  const only = await binaryRequest(s, `${path}/w`, { headers: { Accept: PROTOBUF } });
  assert.equal(only.status, 406);
  assert.equal(only.headers['content-type'], PROTOBUF);
  assert.equal(decodeProtobufObject(only.body).message, 'only the following media types are accepted: application/json, application/yaml, application/vnd.kubernetes.protobuf');
  const watchOnly = await binaryRequest(s, `${path}?watch=1`, { headers: { Accept: `${PROTOBUF};stream=watch` } });
  assert.equal(watchOnly.status, 406);

  const fallback = await binaryRequest(s, `${path}/w`, { headers: { Accept: `${PROTOBUF}, application/json` } });
  assert.equal(fallback.status, 200);
  assert.equal(fallback.headers['content-type'], 'application/json');
  assert.equal(JSON.parse(fallback.body.toString()).kind, 'Widget');

  // What client-go's metadata informers ask for (the garbage collector, the namespace controller).
  const metadataAccept = `${PROTOBUF};as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json`;
  const partial = await binaryRequest(s, path, { headers: { Accept: metadataAccept } });
  assert.equal(partial.status, 200);
  assert.equal(partial.headers['content-type'], PROTOBUF);
  const list = decodeProtobufObject(partial.body) as { kind: string; items: { metadata: { name: string } }[] };
  assert.equal(list.kind, 'PartialObjectMetadataList');
  assert.deepEqual(list.items.map((i) => i.metadata.name), ['w']);

  const body = await binaryRequest(s, path, { method: 'POST', headers: { 'Content-Type': PROTOBUF, Accept: 'application/json' }, body: encodeProtobufObject({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' } }) });
  assert.equal(body.status, 400);
  assert.equal(JSON.parse(body.body.toString()).message, 'ConfigMap in version "v1" cannot be handled as a Widget: object *unstructured.Unstructured does not implement the protobuf marshalling interface and cannot be encoded');
  const wrongMagic = await binaryRequest(s, path, { method: 'POST', headers: { 'Content-Type': PROTOBUF }, body: Buffer.from('nope') });
  assert.equal(wrongMagic.status, 400);
  assert.match(JSON.parse(wrongMagic.body.toString()).message, /^the object provided is unrecognized \(must be of type Widget\): provided data does not appear to be a protobuf message/);
});

test('a protobuf get is the JSON get encoded, for each stored version of the object', async () => {
  const path = '/api/v1/namespaces/default/configmaps/pb-get-twice';
  const created = await s.adminRequest('/api/v1/namespaces/default/configmaps', { method: 'POST', body: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'pb-get-twice', annotations: { a: '<&>' } }, data: { k: 'v' } }) });
  assert.equal(created.status, 201, created.body);
  for (let round = 0; round < 2; round++) {
    if (round === 1) {
      const put = await s.adminRequest(path, { method: 'PUT', body: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'pb-get-twice' }, data: { k: 'w' } }) });
      assert.equal(put.status, 200, put.body);
    }
    const json = await getJson(path);
    // Twice: the second answer comes from the message encoded for the first.
    for (let i = 0; i < 2; i++) {
      const pb = await binaryRequest(s, path, { headers: { Accept: PROTOBUF } });
      assert.equal(pb.status, 200);
      assert.equal(pb.headers['content-type'], PROTOBUF);
      assert.deepEqual(pb.body, Buffer.from(encodeProtobufObject(json)));
    }
  }
});

/** A CRD's spec exercising every JSON-schema union and the apiextensions fields clients send. */
function richCrd(group: string, goZeros = false): Record<string, unknown> {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `gadgets.${group}`, labels: { from: 'protobuf' } },
    spec: {
      group,
      scope: 'Namespaced',
      names: { plural: 'gadgets', singular: 'gadget', kind: 'Gadget', shortNames: ['gd'], categories: ['all'] },
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          selectableFields: [{ jsonPath: '.spec.color' }],
          additionalPrinterColumns: [{ name: 'Color', type: 'string', jsonPath: '.spec.color', priority: 1 }],
          subresources: { status: {}, scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas' } },
          schema: {
            openAPIV3Schema: {
              type: 'object',
              properties: {
                spec: {
                  type: 'object',
                  required: ['color'],
                  'x-kubernetes-validations': [{ rule: 'self.replicas <= 10', messageExpression: "'too many: ' + string(self.replicas)", reason: 'FieldValueForbidden', fieldPath: '.replicas' }],
                  properties: {
                    color: { type: 'string', enum: ['red', 'blue'], default: 'red', description: 'what it looks like' },
                    replicas: { type: 'integer', format: 'int32', minimum: 0, maximum: 10, ...(goZeros ? { exclusiveMaximum: false, uniqueItems: false, description: '' } : {}) },
                    size: { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] },
                    labels: { type: 'object', additionalProperties: { type: 'string', maxLength: 63 } },
                    tags: { type: 'array', items: { type: 'string' }, 'x-kubernetes-list-type': 'set', maxItems: 5 },
                    ports: {
                      type: 'array',
                      'x-kubernetes-list-type': 'map',
                      'x-kubernetes-list-map-keys': ['name'],
                      items: { type: 'object', required: ['name'], properties: { name: { type: 'string' }, port: { type: 'integer', default: 80 } } },
                    },
                    extra: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
                    settings: { type: 'object', properties: { debug: { type: 'boolean', nullable: true } } },
                    template: { type: 'object', 'x-kubernetes-embedded-resource': true, 'x-kubernetes-preserve-unknown-fields': true },
                  },
                },
                status: { type: 'object', properties: { replicas: { type: 'integer' } } },
              },
            },
          },
        },
      ],
    },
  };
}

test('CustomResourceDefinitions and APIServices in protobuf: created from protobuf bodies as from JSON; get, list and watch', async () => {
  const crds = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
  const rv = ((await getJson(crds)).metadata as { resourceVersion: string }).resourceVersion;
  const w = protobufWatch(s, `${crds}?watch=1&resourceVersion=${rv}&timeoutSeconds=30`);
  try {
    const created = await binaryRequest(s, crds, { method: 'POST', headers: { 'Content-Type': PROTOBUF, Accept: PROTOBUF }, body: encodeProtobufObject(richCrd('pbwire.example.com', true)) });
    assert.equal(created.status, 201, JSON.stringify(created.status === 201 ? {} : decodeProtobufObject(created.body)));
    assert.equal(created.headers['content-type'], PROTOBUF);
    const viaJson = await s.adminRequest(crds, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(richCrd('pbjson.example.com')) });
    assert.equal(viaJson.status, 201, viaJson.body);
    await s.kubectlOk(['wait', '--for=condition=established', 'crd/gadgets.pbwire.example.com', 'crd/gadgets.pbjson.example.com', '--timeout=10s']);
    // The protobuf body stored what the JSON body did; the zero values a Go client writes for its value fields
    // (exclusiveMaximum: false, description: "") are dropped as kube's JSON leaves them out.
    const fromWire = await getJson(`${crds}/gadgets.pbwire.example.com`);
    const fromJson = await getJson(`${crds}/gadgets.pbjson.example.com`);
    assert.deepEqual({ ...(fromWire.spec as object), group: 'x' }, { ...(fromJson.spec as object), group: 'x' });
    const props = (fromWire.spec as { versions: { schema: { openAPIV3Schema: { properties: { spec: { properties: Record<string, Record<string, unknown>> } } } } }[] }).versions[0]!.schema.openAPIV3Schema.properties.spec.properties;
    assert.deepEqual(props.replicas, { type: 'integer', format: 'int32', minimum: 0, maximum: 10 });
    assert.deepEqual(props.settings!.properties, { debug: { type: 'boolean', nullable: true } });
    assert.deepEqual(props.labels!.additionalProperties, { type: 'string', maxLength: 63 });
    assert.deepEqual(props.color!.default, 'red');
    // Served in protobuf as in JSON: the object and the list.
    const got = await binaryRequest(s, `${crds}/gadgets.pbwire.example.com`, { headers: { Accept: PROTOBUF } });
    assert.equal(got.status, 200);
    assert.equal(got.headers['content-type'], PROTOBUF);
    assert.deepEqual(decodeProtobufObject(got.body), fromWire);
    const list = await binaryRequest(s, `${crds}?labelSelector=from%3Dprotobuf`, { headers: { Accept: PROTOBUF } });
    assert.equal(list.status, 200);
    // Compared at the list's own resourceVersion: the CRD controllers may write between two reads.
    const pbList = decodeProtobufObject(list.body) as { metadata: { resourceVersion: string } };
    assert.deepEqual(pbList, await getJson(`${crds}?labelSelector=from%3Dprotobuf&resourceVersion=${pbList.metadata.resourceVersion}&resourceVersionMatch=Exact`));
    // A watch in protobuf sees both, as an informer over CRDs would.
    await w.waitFor(() => w.events.filter((e) => e.type === 'ADDED').length >= 2);
    assert.deepEqual(w.events.filter((e) => e.type === 'ADDED').map(nameOf), ['gadgets.pbwire.example.com', 'gadgets.pbjson.example.com']);
  } finally {
    w.close();
  }
  // The custom resources themselves stay JSON only, as kube's.
  assert.equal((await binaryRequest(s, '/apis/pbwire.example.com/v1/namespaces/default/gadgets', { headers: { Accept: PROTOBUF } })).status, 406);

  const apiService = { apiVersion: 'apiregistration.k8s.io/v1', kind: 'APIService', metadata: { name: 'v1.pbwire.example.org' }, spec: { group: 'pbwire.example.org', version: 'v1', groupPriorityMinimum: 1000, versionPriority: 15, insecureSkipTLSVerify: true, service: { namespace: 'default', name: 'pb-backend', port: 8443 } } };
  const services = '/apis/apiregistration.k8s.io/v1/apiservices';
  const made = await binaryRequest(s, services, { method: 'POST', headers: { 'Content-Type': PROTOBUF, Accept: PROTOBUF }, body: encodeProtobufObject(apiService) });
  assert.equal(made.status, 201, made.body.toString());
  assert.deepEqual((decodeProtobufObject(made.body) as { spec: unknown }).spec, apiService.spec);
  const read = await binaryRequest(s, `${services}/v1.pbwire.example.org`, { headers: { Accept: PROTOBUF } });
  assert.equal(read.status, 200);
  assert.deepEqual(decodeProtobufObject(read.body), await getJson(`${services}/v1.pbwire.example.org`));
  assert.equal((await s.adminRequest(`${services}/v1.pbwire.example.org`, { method: 'DELETE' })).status, 200);
});
