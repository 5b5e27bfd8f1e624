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
    assert.match(rebased.item!.json.toString(), /"resourceVersion":"1234"/);
    assert.equal(rebased.item!.value, value);
  }
});

test("a built-in kind's cache holds each object as its list item, which reads back the stored value at every step", async () => {
  const { createMemoryStorage } = await import('../storage/memory/memory-storage.ts');
  const { builtinDefinitions } = await import('./registry.ts');
  const { createStoreCacher } = await import('./store-cache.ts');
  const { ItemKeyValue } = await import('./item-key-value.ts');
  const { encodeForStorage } = await import('./store-codec.ts');
  const configMaps = builtinDefinitions('').find((d) => d.group === '' && d.resource === 'configmaps')!;
  const storage = createMemoryStorage();
  const P = '/registry/configmaps/';
  const value = (name: string, data: string) => encodeForStorage({ kind: 'ConfigMap', apiVersion: 'v1', metadata: { name, namespace: 'ns', uid: name }, data: { k: data } });
  await storage.create(`${P}ns/a`, value('a', 'plain'));
  const snap = await storage.snapshot();
  const cache = createStoreCacher(storage, P, configMaps, { historyWindowSeconds: 300 });
  assert.equal(await cache.waitReady(1000), true);
  const seen: string[] = [];
  cache.watch({ prefix: P, filter: undefined, start: 'state', bookmarks: false, onEvent: (ev) => void (ev.type !== 'BOOKMARK' && seen.push(`${ev.type} ${ev.object.kv.value}`)), onEnd: () => {} });
  const b = await storage.create(`${P}ns/b`, value('b', '<escaped & ü>'));
  await storage.update(`${P}ns/b`, value('b', 'änderung'), b.modRevision);
  await storage.create(`${P}ns/c`, value('c', 'gone'));
  await storage.delete(`${P}ns/c`);
  const end = Date.now() + 1000;
  while (cache.revision() < 5 && Date.now() < end) await new Promise((r) => setTimeout(r, 2));
  assert.deepEqual(seen, [`ADDED ${value('a', 'plain')}`, `ADDED ${value('b', '<escaped & ü>')}`, `MODIFIED ${value('b', 'änderung')}`, `ADDED ${value('c', 'gone')}`, `DELETED ${value('c', 'gone')}`]);
  const held = cache.get(`${P}ns/b`)!;
  assert.ok(held.kv instanceof ItemKeyValue);
  assert.equal(held.kv, held.attrs.item);
  assert.deepEqual(held.kv.value, (await storage.get(`${P}ns/b`)).kv!.value);
  // A restore brings back a's unchanged value at a new revision: the rebased item carries that revision.
  const rev = await storage.restore(snap);
  while ((cache.get(`${P}ns/b`) !== undefined || !cache.ready()) && Date.now() < end + 1000) await new Promise((r) => setTimeout(r, 2));
  const a = cache.get(`${P}ns/a`)!;
  assert.equal(a.kv.modRevision, rev);
  assert.equal(a.kv.value, value('a', 'plain'));
  assert.match(a.attrs.item!.json.toString(), new RegExp(`"resourceVersion":"${rev}"`));
  cache.stop();
});

test('selectable fields are read from the stored object when first asked, also after a rebase; held values at once', () => {
  let reads = 0;
  const withFields = {
    selectableFields: {
      'spec.nodeName': (o: { spec?: { nodeName?: string } }) => {
        reads++;
        return o.spec?.nodeName;
      },
    },
    custom: false,
  } as unknown as Parameters<typeof storeAttributes>[0];
  const value = '{"kind":"Pod","apiVersion":"v1","metadata":{"name":"p","namespace":"default","labels":{"app":"x"}},"spec":{"nodeName":"n1"}}';
  const attrs = storeAttributes(withFields)({ key: '/k', value, createRevision: 5, modRevision: 5 });
  assert.deepEqual([attrs.name, attrs.namespace, attrs.labels], ['p', 'default', { app: 'x' }]);
  assert.equal(reads, 0);
  assert.deepEqual(attrs.fields, { 'spec.nodeName': 'n1' });
  assert.deepEqual(attrs.fields, { 'spec.nodeName': 'n1' });
  assert.equal(reads, 1);
  const rebased = rebaseStoreAttributes(withFields)(attrs, { key: '/k', value, createRevision: 5, modRevision: 9 });
  assert.deepEqual(rebased.fields, { 'spec.nodeName': 'n1' });
  assert.equal(reads, 1);
  assert.match(rebased.item!.json.toString(), /"resourceVersion":"9"/);
  // Not read yet when rebased: read from the new item when asked.
  const fresh = storeAttributes(withFields)({ key: '/k', value, createRevision: 5, modRevision: 5 });
  const later = rebaseStoreAttributes(withFields)(fresh, { key: '/k', value, createRevision: 5, modRevision: 10 });
  assert.deepEqual(later.fields, { 'spec.nodeName': 'n1' });
  assert.equal(reads, 2);
  const held = { selectableFields: {}, custom: false, strategy: { heldValues: (o: { spec?: { clusterIP?: string } }) => [o.spec?.clusterIP ?? ''] } } as unknown as Parameters<typeof storeAttributes>[0];
  const svc = storeAttributes(held)({ key: '/s', value: '{"kind":"Service","apiVersion":"v1","metadata":{"name":"s","namespace":"default"},"spec":{"clusterIP":"10.0.0.9"}}', createRevision: 1, modRevision: 1 });
  assert.deepEqual(svc.held, ['10.0.0.9']);
});
