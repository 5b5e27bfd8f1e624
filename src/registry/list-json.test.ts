import { test } from 'node:test';
import assert from 'node:assert/strict';
import { itemJson, listFromStored, rawListItems } from './list-json.ts';
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
const nasty = ['plain', 'quo"te', 'back\\slash', '{brace}', '[br]', 'a,b', 'ümlaut', '<tag>&', '\u2028', 'e\\"nd'];

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

test('a list from stored JSON carries raw items and decodes its items on demand', () => {
  const def = widgets();
  const kv = { key: '/registry/example.com/widgets/default/a', value: encodeForStorage({ kind: 'Widget', apiVersion: 'example.com/v1', metadata: { name: 'a', namespace: 'default' } }), createRevision: 3, modRevision: 4 };
  const list = listFromStored(def, [kv], { resourceVersion: '9' });
  assert.deepEqual(rawListItems(list), ['{"metadata":{"name":"a","namespace":"default","resourceVersion":"4"}}']);
  assert.equal(list.items[0].metadata.resourceVersion, '4');
  assert.equal(list.items[0].apiVersion, 'example.com/v1');
  assert.deepEqual(Object.keys(list), ['kind', 'apiVersion', 'metadata', 'items']);
  assert.equal(rawListItems({ ...list }), undefined, 'a copy is a plain list');
});
