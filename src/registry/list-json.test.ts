import { test } from 'node:test';
import assert from 'node:assert/strict';
import { itemKeyValue } from './item-key-value.ts';
import { itemJson, jsonLayout, layoutOf, listFromStored, rawListItems, withoutManagedFieldsJson } from './list-json.ts';
import { convertToVersion, decodeFromStorage, encodeForStorage } from './store-codec.ts';
import { widgets } from './store-testing.ts';
import type { KubeObject } from './types.ts';

/** What the decoding path serves for one list item. */
function slow(stored: string, revision: number, typeMeta: 'drop' | { apiVersion: string }): string {
  const obj = decodeFromStorage({ key: 'k', value: stored, createRevision: 1, modRevision: revision });
  if (typeMeta === 'drop') {
    const { kind: _k, apiVersion: _a, ...rest } = obj;
    return JSON.stringify(rest);
  }
  return JSON.stringify(convertToVersion(obj, { group: typeMeta.apiVersion.split('/')[0], version: typeMeta.apiVersion.split('/')[1] }));
}

function rnd(seed: number): () => number {
  let x = seed;
  return () => {
    x = (x * 1103515245 + 12345) & 0x7fffffff;
    return x / 0x7fffffff;
  };
}

const metaKeys = ['name', 'generateName', 'namespace', 'uid', 'generation', 'creationTimestamp', 'deletionTimestamp', 'labels', 'annotations', 'ownerReferences', 'finalizers', 'managedFields', 'zzCustom'];
const nasty = ['plain', 'quo"te', 'back\\slash', 'ends\\', '\\\\"', '{brace}', '[br]', 'a,b', 'ümlaut', '<tag>&', '\u2028', 'e\\"nd'];

test('spliced item JSON equals the decoded, converted and re-encoded object, for many random objects', () => {
  const r = rnd(7);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)];
  for (let n = 0; n < 2000; n++) {
    const meta: Record<string, unknown> = {};
    for (const k of metaKeys) {
      if (r() < 0.5) continue;
      meta[k] = k === 'labels' || k === 'annotations' ? { [pick(nasty)]: pick(nasty) } : k === 'generation' ? Math.floor(r() * 10) : k === 'finalizers' ? [pick(nasty)] : k === 'managedFields' ? [{ manager: pick(nasty), fieldsV1: { 'f:data': { [`f:${pick(nasty)}`]: {} } } }] : pick(nasty);
    }
    const obj: KubeObject = { kind: 'Widget', apiVersion: 'example.com/v1', metadata: meta };
    if (r() < 0.7) obj.spec = { s: pick(nasty), list: [1, 2.5, -3e-7, true, null, { x: pick(nasty) }] };
    if (r() < 0.3) obj.data = {};
    if (r() < 0.2) obj.status = pick(nasty);
    const stored = encodeForStorage(obj);
    const rev = 1 + Math.floor(r() * 1e9);
    for (const tm of ['drop', { apiVersion: 'example.com/v2' }, { apiVersion: 'example.com/v1' }] as const) {
      assert.equal(itemJson(stored, rev, tm), slow(stored, rev, tm), `${stored} ${JSON.stringify(tm)}`);
    }
  }
});

test('text not in the canonical stored shape is refused (callers decode instead)', () => {
  assert.equal(itemJson('{"metadata":{"uid":"1","name":"x"}}', 5, 'drop'), undefined, 'metadata keys out of order');
  assert.equal(itemJson('{"apiVersion":"v1","kind":"X","metadata":{}}', 5, 'drop'), undefined, 'apiVersion before kind');
  assert.equal(itemJson('{"spec":{},"metadata":{}}', 5, 'drop'), undefined, 'metadata not first');
  assert.equal(itemJson('{"metadata":{"resourceVersion":"3"}}', 5, 'drop'), undefined);
  assert.equal(itemJson('{"kind":"X","metadata":{}}', 5, { apiVersion: 'v1' }), undefined, 'no apiVersion to rewrite');
  assert.equal(itemJson('{"metadata":{"name":"a"', 5, 'drop'), undefined);
  assert.equal(itemJson('{"metadata":{}}', 5, 'drop'), '{"metadata":{"resourceVersion":"5"}}');
});

test('a stored value is scanned for its layout once, whoever asks', () => {
  const kv = { key: 'k', value: '{"kind":"X","apiVersion":"v1","metadata":{"name":"a","labels":{"x":"}"}},"spec":{}}', createRevision: 1, modRevision: 2 };
  const layout = layoutOf(kv);
  assert.deepEqual(layout, jsonLayout(kv.value));
  assert.equal(layoutOf(kv), layout);
  assert.equal(kv.value.slice(...layout!.metadata), '{"name":"a","labels":{"x":"}"}}');
  const odd = { ...kv, value: '{"metadata":{"name":"a" "uid":"u"}}' };
  assert.equal(layoutOf(odd), undefined, 'keys not separated by a comma');
  assert.equal(layoutOf(odd), undefined);
});

test('a list from stored JSON carries raw items and decodes its items on demand', () => {
  const def = widgets();
  const kv = { key: '/registry/example.com/widgets/default/a', value: encodeForStorage({ kind: 'Widget', apiVersion: 'example.com/v1', metadata: { name: 'a', namespace: 'default' } }), createRevision: 3, modRevision: 4 };
  const list = listFromStored(def, [kv], { resourceVersion: '9' });
  assert.equal(Buffer.from(rawListItems(list)!).toString(), '{"metadata":{"name":"a","namespace":"default","resourceVersion":"4"}}');
  assert.equal(list.items[0].metadata.resourceVersion, '4');
  assert.equal(list.items[0].apiVersion, 'example.com/v1');
  assert.deepEqual(Object.keys(list), ['kind', 'apiVersion', 'metadata', 'items']);
  assert.equal(rawListItems({ ...list }), undefined, 'a copy is a plain list');
});

test('items a cache prepared are joined as they are; escaping as Go escapes; any missing one falls back to splicing', () => {
  const def = widgets();
  const kvs = ['a', 'b'].map((name, i) => ({ key: `/k/${name}`, value: encodeForStorage({ kind: 'Widget', apiVersion: 'example.com/v1', metadata: { name }, spec: { html: '<a&b>' } }), createRevision: 1, modRevision: 5 + i }));
  const hints = kvs.map((kv) => ({ layout: jsonLayout(kv.value), item: itemKeyValue(kv, jsonLayout(kv.value)!) }));
  const want = '{"metadata":{"name":"a","resourceVersion":"5"},"spec":{"html":"\\u003ca\\u0026b\\u003e"}},{"metadata":{"name":"b","resourceVersion":"6"},"spec":{"html":"\\u003ca\\u0026b\\u003e"}}';
  assert.equal(Buffer.from(rawListItems(listFromStored(def, kvs, {}, hints))!).toString(), want);
  assert.equal(Buffer.from(rawListItems(listFromStored(def, kvs, {}, [hints[0], { layout: hints[1].layout, item: undefined }]))!).toString(), want);
  assert.equal(Buffer.from(rawListItems(listFromStored(def, kvs, {}))!).toString(), want);
  assert.equal(Buffer.from(rawListItems(listFromStored(def, [], {}, []))!).toString(), '');
});

test('cached item bytes and items spliced from stored text mix in one list', () => {
  const def = widgets();
  const kvs = ['a', 'b', 'c', 'd'].map((name, i) => ({ key: `/k/${name}`, value: encodeForStorage({ kind: 'Widget', apiVersion: 'example.com/v1', metadata: { name }, spec: { html: '<x>' } }), createRevision: 1, modRevision: 5 + i }));
  const cached = (i: number) => ({ layout: undefined, item: itemKeyValue(kvs[i], jsonLayout(kvs[i].value)!) });
  const want = Buffer.from(rawListItems(listFromStored(def, kvs, {}))!).toString();
  assert.equal(Buffer.from(rawListItems(listFromStored(def, kvs, {}, [undefined, cached(1), undefined, undefined]))!).toString(), want);
  assert.equal(Buffer.from(rawListItems(listFromStored(def, kvs, {}, [cached(0), undefined, cached(2), cached(3)]))!).toString(), want);
  assert.ok(want.includes('\\u003cx\\u003e'));
});

test('cached items outside ASCII are written as UTF-8, their lengths in bytes', () => {
  const def = widgets();
  const names = ['ü', '\u{1f600}', 'plain', '\u2028'];
  const kvs = names.map((n, i) => ({ key: `/k/${i}`, value: encodeForStorage({ kind: 'Widget', apiVersion: 'example.com/v1', metadata: { name: `w${i}` }, spec: { s: n } }), createRevision: 1, modRevision: 5 + i }));
  const hints = kvs.map((kv) => ({ layout: undefined, item: itemKeyValue(kv, jsonLayout(kv.value)!) }));
  const cachedBytes = rawListItems(listFromStored(def, kvs, {}, hints))!;
  const splicedBytes = rawListItems(listFromStored(def, kvs, {}))!;
  assert.equal(Buffer.from(cachedBytes).toString('utf8'), Buffer.from(splicedBytes).toString('utf8'));
  assert.equal(cachedBytes.length, splicedBytes.length);
  assert.ok(Buffer.from(cachedBytes).toString('utf8').includes('"s":"ü"'));
});

test('a definition that converts between versions serves stored text only when stored in the version asked for', () => {
  const v2 = { ...widgets(), version: 'v2', convert: (o: KubeObject, apiVersion: string) => ({ ...o, apiVersion, spec: { converted: true } }) };
  const kv = { key: '/k/a', value: encodeForStorage({ kind: 'Widget', apiVersion: 'example.com/v1', metadata: { name: 'a' }, spec: {} }), createRevision: 1, modRevision: 3 };
  const converted = listFromStored(v2, [kv], {});
  assert.equal(rawListItems(converted), undefined);
  assert.deepEqual(converted.items[0].spec, { converted: true });
  const same = listFromStored({ ...v2, version: 'v1' }, [kv], {});
  assert.equal(Buffer.from(rawListItems(same)!).toString(), '{"metadata":{"name":"a","resourceVersion":"3"},"spec":{}}');
});

test('metadata text without managedFields: cut at its key when it is there, the text as it is otherwise', () => {
  const meta = (extra: Record<string, unknown>) => {
    const stored = encodeForStorage({ kind: 'ConfigMap', apiVersion: 'v1', metadata: { name: 'a', namespace: 'ns', uid: 'u', ...extra } });
    return JSON.stringify(JSON.parse(stored).metadata);
  };
  const managedFields = [{ manager: 'm', operation: 'Update', apiVersion: 'v1', time: '2024-01-01T00:00:00Z', fieldsType: 'FieldsV1', fieldsV1: { 'f:metadata': { 'f:labels': { 'f:managedFields': {} } } } }];
  // Values that spell the key: escaped inside strings, so never a cut.
  const labels = { managedFields: 'x', tricky: '","managedFields":[' };
  const annotations = { note: '],"managedFields":[1]}' };
  assert.deepEqual(JSON.parse(withoutManagedFieldsJson(meta({ labels, annotations, finalizers: ['f'], managedFields }))), JSON.parse(meta({ labels, annotations, finalizers: ['f'] })));
  assert.equal(withoutManagedFieldsJson(meta({ labels, annotations })), meta({ labels, annotations }));
  assert.equal(withoutManagedFieldsJson('{}'), '{}');
  // Alone in metadata there is no comma before it: kept (a consumer that reads no managedFields parses a little more).
  assert.equal(withoutManagedFieldsJson('{"managedFields":[]}'), '{"managedFields":[]}');
});
