import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { encodeStoredListProtobuf, storedProtobuf } from './protobuf-list.ts';
import { encodeProtobufObject } from '../encoding/protobuf/envelope.ts';
import { builtinDefinitions } from '../registry/registry.ts';
import { jsonLayout, listFromStored } from '../registry/list-json.ts';
import { decodeFromStorage, encodeForStorage } from '../registry/store-codec.ts';

test('a get answers with the enveloped object encoded once, and lists take its message from it', () => {
  const def = builtinDefinitions('').find((d) => d.group === '' && d.resource === 'configmaps')!;
  const kv = { key: '/registry/configmaps/default/a', value: encodeForStorage({ kind: 'ConfigMap', apiVersion: 'v1', metadata: { name: 'a', namespace: 'default', uid: 'u-1' }, data: { k: 'v'.repeat(200) } }), createRevision: 4, modRevision: 7 };
  const answer = { stored: kv, layout: jsonLayout(kv.value)!, apiVersion: 'v1' };
  const list = () => encodeStoredListProtobuf(listFromStored(def, [kv], { resourceVersion: '9' }), new EventEmitter())!;
  const listed = list();
  const got = storedProtobuf(answer, def);
  assert.deepEqual(Buffer.from(got), Buffer.from(encodeProtobufObject(decodeFromStorage(kv))));
  assert.equal(storedProtobuf(answer, def), got, 'the second get reuses the bytes');
  assert.deepEqual(Buffer.from(list()), Buffer.from(listed), 'a list after the get has the same items');
});

test('a protobuf list body comes from the body pool, as a JSON list body does', () => {
  const def = builtinDefinitions('').find((d) => d.group === '' && d.resource === 'configmaps')!;
  const kvs = Array.from({ length: 100 }, (_, i) => ({
    key: `/registry/configmaps/default/c${i}`,
    value: encodeForStorage({ kind: 'ConfigMap', apiVersion: 'v1', metadata: { name: `c${i}`, namespace: 'default', uid: `u-${i}` }, data: { k: 'v'.repeat(1000) } }),
    createRevision: 4 + i,
    modRevision: 4 + i,
  }));
  const holder = new EventEmitter();
  const bytes = encodeStoredListProtobuf(listFromStored(def, kvs, { resourceVersion: '200' }), holder)!;
  assert.ok(bytes.length > 100_000);
  assert.equal(holder.listenerCount('close'), 1, 'the buffer goes back to the pool when the response closes');
  assert.deepEqual(Buffer.from(bytes), Buffer.from(encodeProtobufObject({ kind: 'ConfigMapList', apiVersion: 'v1', metadata: { resourceVersion: '200' }, items: kvs.map((kv) => decodeFromStorage(kv)) })));
});
