// Bodies built to stall or crash the server (issue 16, defects 1 and 2) get what kube-apiserver answers: one YAML
// document is read, alias expansion and nesting are bounded by go-yaml's and encoding/json's rules, and nesting
// within those limits is processed without exhausting the stack. Objects created before are left as they were.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestServer } from './helpers.ts';
import type { RawResponse, TestServer } from './helpers.ts';

const CM = '/api/v1/namespaces/default/configmaps';

interface StatusBody {
  kind: string;
  code: number;
  reason: string;
  message: string;
}

function status(r: RawResponse, code: number, reason: string): StatusBody {
  assert.equal(r.status, code, r.body.slice(0, 400));
  const body = JSON.parse(r.body) as StatusBody;
  assert.deepEqual([body.kind, body.code, body.reason ?? ''], ['Status', code, reason]);
  return body;
}

const nested = (depth: number, leaf = '1'): string => '['.repeat(depth) + leaf + ']'.repeat(depth);

describe('hostile bodies', () => {
  let s: TestServer;
  let keep: string;
  const send = (method: string, path: string, body: string, contentType: string) => s.adminRequest(path, { method, body, headers: { 'content-type': contentType } });
  const snapshot = async (): Promise<string> => (await s.adminRequest(`${CM}/keep`)).body;

  before(async () => {
    s = await startTestServer();
    assert.equal((await send('POST', CM, JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'keep' }, data: { a: 'b' } }), 'application/json')).status, 201);
    keep = await snapshot();
  });
  after(async () => {
    await s?.close();
  });

  test('a YAML body of 700,000 documents is read as its first document, four at once, /readyz answering', async () => {
    const body = 'apiVersion: v1\nkind: ConfigMap\nmetadata: {generateName: m-, labels: {flood: "yes"}}\n' + '---\n'.repeat(700_000);
    const writes = Array.from({ length: 4 }, () => send('POST', CM, body, 'application/yaml'));
    const ready = await s.adminRequest('/readyz');
    assert.equal(ready.status, 200);
    for (const r of await Promise.all(writes)) assert.equal(r.status, 201, r.body.slice(0, 300));
    const list = JSON.parse((await s.adminRequest(`${CM}?labelSelector=flood%3Dyes`)).body) as { items: unknown[] };
    assert.equal(list.items.length, 4);
  });

  test('a self-referencing YAML alias is go-yaml\'s 400, not a stack overflow', async () => {
    const b = status(await send('POST', CM, 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: loop}\ndata: &a {x: *a}\n', 'application/yaml'), 400, 'BadRequest');
    assert.equal(b.message, `the object provided is unrecognized (must be of type ConfigMap): error converting YAML to JSON: yaml: anchor 'a' value contains itself (${Buffer.from('apiVersion: v1\nkind: ConfigMap').toString('hex')} ...)`);
    const apply = status(await send('PATCH', `${CM}/loop?fieldManager=m`, 'a: &a [*a]', 'application/apply-patch+yaml'), 400, 'BadRequest');
    assert.equal(apply.message, "error decoding YAML: error converting YAML to JSON: yaml: anchor 'a' value contains itself");
  });

  test('billion laughs is "document contains excessive aliasing"', async () => {
    const lines = ['apiVersion: v1', 'kind: ConfigMap', 'metadata: {name: lol}', 'a0: &a0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]'];
    for (let i = 1; i < 10; i++) lines.push(`a${i}: &a${i} [${Array(9).fill(`*a${i - 1}`).join(',')}]`);
    const b = status(await send('POST', CM, lines.join('\n'), 'application/yaml'), 400, 'BadRequest');
    assert.match(b.message, /^the object provided is unrecognized \(must be of type ConfigMap\): error converting YAML to JSON: yaml: document contains excessive aliasing \(/);
  });

  test('JSON nested past 10000 levels is encoding/json\'s 400; within it, creates work', async () => {
    const deep = `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"deep"},"x":${nested(10000, '')}}`;
    const b = status(await send('POST', CM, deep, 'application/json'), 400, 'BadRequest');
    assert.equal(b.message, `the object provided is unrecognized (must be of type ConfigMap): couldn't get version/kind; json parse error: invalid character '[' exceeded max depth (${deep.slice(0, 30)} ...)`);
    const ok = await send('POST', CM, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"deep"},"x":${nested(9999, '')}}`, 'application/json');
    assert.equal(ok.status, 201, ok.body.slice(0, 300));
    assert.match(String(ok.headers.warning), /^299 - "unknown field \\"x\\""$/);
  });

  test('bytes that are not UTF-8 are named as encoding/json names them', async () => {
    const raw = (body: Buffer) => s.adminRequest(CM, { method: 'POST', body, headers: { 'content-type': 'application/json' } });
    const bad = status(await raw(Buffer.from([0x81])), 400, 'BadRequest');
    assert.equal(bad.message, "the object provided is unrecognized (must be of type ConfigMap): couldn't get version/kind; json parse error: invalid character '\\u0081' looking for beginning of value (81)");
    // Inside a string any byte goes (Go stores U+FFFD for it); after it, the error names the byte that is wrong.
    const after = status(await raw(Buffer.concat([Buffer.from('{"metadata":{"name":"'), Buffer.from([0xff]), Buffer.from('"}'), Buffer.from([0xfe])])), 400, 'BadRequest');
    assert.match(after.message, /json parse error: invalid character 'þ' after object key:value pair \(/);
  });

  test('YAML nested past 10000 levels is go-yaml\'s 400; 10000 levels are read', async () => {
    const b = status(await send('POST', CM, `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: ydeep}\nx: ${nested(10001, '')}\n`, 'application/yaml'), 400, 'BadRequest');
    assert.match(b.message, /error converting YAML to JSON: yaml: line 4: exceeded max depth of 10000 \(/);
    const ok = await send('POST', CM, `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: ydeep}\nx: ${nested(9999, '')}\n`, 'application/yaml');
    assert.equal(ok.status, 201, ok.body.slice(0, 300));
  });

  test('deep merge, strategic merge and JSON patches within 10000 levels apply; server-side apply answers kube\'s typed-patch error', async () => {
    for (const [contentType, body] of [
      ['application/merge-patch+json', `{"x":${nested(9998)}}`],
      ['application/strategic-merge-patch+json', `{"x":${nested(9998)}}`],
      ['application/json-patch+json', `[{"op":"add","path":"/x","value":${nested(9997)}}]`],
    ] as const) {
      const r = await send('PATCH', `${CM}/deep`, body, contentType);
      assert.equal(r.status, 200, `${contentType}: ${r.body.slice(0, 300)}`);
      assert.match(String(r.headers.warning), /^299 - "unknown field \\"x\\""$/);
    }
    // kube-identical 500 without a reason: SSA cannot type the unknown field (fieldmanager's plain error).
    const apply = status(await send('PATCH', `${CM}/deep?fieldManager=m`, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"deep"},"x":${nested(9998)}}`, 'application/apply-patch+yaml'), 500, '');
    assert.match(apply.message, /^failed to create typed patch object \(\/deep; \/v1, Kind=ConfigMap\): \.x: field not declared in schema$/);
    status(await send('PATCH', `${CM}/deep`, `{"x":${nested(10000)}}`, 'application/merge-patch+json'), 400, 'BadRequest');
  });

  test('the object created before is unchanged and the server ready', async () => {
    assert.equal(await snapshot(), keep);
    assert.equal((await s.adminRequest('/readyz')).status, 200);
  });
});
