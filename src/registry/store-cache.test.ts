import { test } from 'node:test';
import assert from 'node:assert/strict';
import { rebaseStoreAttributes, storeAttributes } from './store-cache.ts';

const def = { selectableFields: {}, custom: false };

test('rebased attributes of an unchanged value equal freshly computed ones at the new revision', () => {
  const fresh = storeAttributes(def);
  const rebase = rebaseStoreAttributes(def);
  const values = [
    '{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"a","namespace":"default","uid":"u1","creationTimestamp":"2030-01-01T00:00:00Z","labels":{"app":"x"}},"data":{"k":"<v>"}}',
    // A nested object reference with its own resourceVersion after metadata: only metadata's changes.
    '{"kind":"Event","apiVersion":"v1","metadata":{"name":"e","namespace":"default","uid":"u2","creationTimestamp":null},"involvedObject":{"kind":"Pod","name":"p","resourceVersion":"3"},"reason":"r"}',
    // Empty metadata: the revision goes in alone.
    '{"kind":"ConfigMap","apiVersion":"v1","metadata":{},"data":{"k":"ü"}}',
  ];
  for (const value of values) {
    const before = fresh({ key: '/k', value, createRevision: 5, modRevision: 5 });
    assert.ok(before.item, 'built-in kinds carry list item bytes');
    const kv = { key: '/k', value, createRevision: 1234, modRevision: 1234 };
    const rebased = rebase(before, kv);
    assert.deepEqual(rebased, fresh(kv));
    assert.match(Buffer.from(rebased.item!).toString('utf8'), /"resourceVersion":"1234"/);
  }
});
