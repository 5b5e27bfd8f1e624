import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decodeFromStorage, encodeForStorage, writtenObject } from './store-codec.ts';
import { definition } from './store-testing.ts';
import type { KubeObject } from './types.ts';

test('writtenObject answers a write exactly as reading the stored value back would, key order included', () => {
  const def = definition({ group: '', version: 'v1', resource: 'configmaps', kind: 'ConfigMap' });
  const obj: KubeObject = {
    data: { a: '1' },
    metadata: { labels: { x: 'y' }, selfLink: '/gone', resourceVersion: '3', name: 'c', namespace: 'default', uid: 'u', annotations: undefined },
    apiVersion: 'v1',
    kind: 'ConfigMap',
  };
  const kv = { key: '/registry/configmaps/default/c', value: encodeForStorage(obj, def), createRevision: 9, modRevision: 9 };
  const read = decodeFromStorage(kv);
  const written = writtenObject(obj, kv, def);
  assert.equal(JSON.stringify(written), JSON.stringify(read));
  assert.equal(written.metadata.resourceVersion, '9');
});
