import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decodeApplyBody, prepareApplyBody } from './apply-request.ts';

test('a prepared JSON body is decoded from its parse once; a second decode (a retried attempt) parses a fresh copy', async () => {
  const body = Buffer.from(JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a' }, data: { k: 'v' } }));
  await prepareApplyBody(body);
  const first = decodeApplyBody(body);
  const second = decodeApplyBody(body);
  assert.deepEqual(first, second);
  assert.notEqual(first, second);
  assert.notEqual(first.metadata, second.metadata);
});

test('prepared bodies that are not plain JSON objects decode as YAML, and with the errors of the YAML path', async () => {
  const yaml = Buffer.from('apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: b\n');
  await prepareApplyBody(yaml);
  assert.equal(decodeApplyBody(yaml).metadata.name, 'b');
  const list = Buffer.from('[1]');
  await prepareApplyBody(list);
  assert.throws(() => decodeApplyBody(list), { code: 400, message: /cannot unmarshal array into Go value of type map\[string\]interface \{\}/ });
});
