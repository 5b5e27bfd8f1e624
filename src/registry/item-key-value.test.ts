import { test } from 'node:test';
import assert from 'node:assert/strict';
import { goEscape } from '../encoding/json.ts';
import { heldMetadataJson, heldObjectJson, ItemKeyValue, itemAtRevision, itemKeyValue, servesHeldObject } from './item-key-value.ts';
import { itemFromLayout, itemJson, jsonLayout } from './list-json.ts';
import { encodeForStorage } from './store-codec.ts';
import type { KubeObject } from './types.ts';

function rnd(seed: number): () => number {
  let x = seed;
  return () => {
    x = (x * 1103515245 + 12345) & 0x7fffffff;
    return x / 0x7fffffff;
  };
}

const metaKeys = ['name', 'generateName', 'namespace', 'uid', 'generation', 'creationTimestamp', 'labels', 'annotations', 'ownerReferences', 'finalizers', 'zzCustom'];
const nasty = ['plain', 'quo"te', 'back\\slash', '{brace}', 'a,b', 'ümlaut', '<tag>&', '\u2028', 'e\\"nd', '\u{1f600}', '"resourceVersion":"7"'];

function randomStored(r: () => number): string {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)];
  const meta: Record<string, unknown> = {};
  for (const k of metaKeys) {
    if (r() < 0.5) continue;
    meta[k] = k === 'labels' || k === 'annotations' ? { [pick(nasty)]: pick(nasty) } : k === 'generation' ? Math.floor(r() * 10) : k === 'finalizers' ? [pick(nasty)] : pick(nasty);
  }
  const obj: KubeObject = { kind: pick(['ConfigMap', 'Secret']), apiVersion: pick(['v1', 'example.com/v1']), metadata: meta };
  if (r() < 0.7) obj.spec = { s: pick(nasty), list: [1, 2.5, true, null, { x: pick(nasty) }] };
  return encodeForStorage(obj);
}

test('an item key value reads back the stored value, and holds the list item bytes the cache held before', () => {
  const r = rnd(11);
  let escaped = 0;
  for (let n = 0; n < 2000; n++) {
    const value = randomStored(r);
    const kv = { key: `/registry/things/ns/x${n}`, value, createRevision: 1 + n, modRevision: 1 + n + Math.floor(r() * 1e9) };
    const item = itemKeyValue(kv, jsonLayout(value)!);
    assert.ok(item instanceof ItemKeyValue);
    assert.equal(item.value, value);
    assert.deepEqual([item.key, item.createRevision, item.modRevision], [kv.key, kv.createRevision, kv.modRevision]);
    // Before: Buffer.from(goEscape(itemJson(...)), 'utf8') was held next to the stored value.
    const before = Buffer.from(goEscape(itemJson(value, kv.modRevision, 'drop')!), 'utf8');
    assert.deepEqual(item.json, before);
    if (item.head === value) escaped++;
    const metadata = { ...(JSON.parse(value) as KubeObject).metadata, resourceVersion: String(kv.modRevision) };
    const held = heldMetadataJson(item);
    if (item.head === value) assert.equal(held, undefined, 'a whole-value item is scanned instead');
    else assert.deepEqual(JSON.parse(held!), metadata);
  }
  assert.ok(escaped > 0 && escaped < 2000, 'both kinds of items were made');
});

test("a held object's get response: the bytes the splice of its stored text gives, for the apiVersion its head names", () => {
  const r = rnd(23);
  let served = 0;
  for (let n = 0; n < 2000; n++) {
    const value = randomStored(r);
    const kv = { key: `/registry/things/ns/x${n}`, value, createRevision: 1, modRevision: 1 + Math.floor(r() * 1e9) };
    const layout = jsonLayout(value)!;
    const item = itemKeyValue(kv, layout);
    const whole = item.head === value;
    for (const apiVersion of ['v1', 'example.com/v1']) {
      const spliced = `${goEscape(itemFromLayout(value, layout, kv.modRevision, { apiVersion })!)}\n`;
      if (!servesHeldObject(item, apiVersion)) {
        assert.ok(whole || !value.includes(`"apiVersion":${JSON.stringify(apiVersion)},"metadata"`), 'only whole-value items and other apiVersions are refused');
        continue;
      }
      served++;
      assert.equal(heldObjectJson(item).toString('utf8'), spliced);
      assert.ok(spliced.includes(`"apiVersion":"${apiVersion}"`));
    }
  }
  assert.ok(served > 500, `${served} held objects served`);
  assert.equal(servesHeldObject({ key: '/k', value: '{}', createRevision: 1, modRevision: 1 }, 'v1'), false, 'a plain stored value is spliced');
});

test('an item at a new revision equals one made afresh there, and reads back the same stored value', () => {
  const r = rnd(5);
  for (let n = 0; n < 500; n++) {
    const value = randomStored(r);
    const layout = jsonLayout(value)!;
    const first = itemKeyValue({ key: '/k', value, createRevision: 3, modRevision: 3 + Math.floor(r() * 1000) }, layout);
    for (const rev of [7, 99_999, 123_456_789_012]) {
      const kv = { key: '/k', value, createRevision: 2, modRevision: rev };
      const moved = itemAtRevision(first, kv);
      assert.deepEqual(moved, itemKeyValue(kv, layout));
      assert.equal(heldMetadataJson(moved), heldMetadataJson(itemKeyValue(kv, layout)));
      assert.equal(moved.value, value);
    }
  }
});

test('text whose UTF-8 does not decode back to it (a lone surrogate) keeps its stored value whole', () => {
  const value = '{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"a"},"data":{"k":"\ud800 ü"}}';
  const kv = { key: '/k', value, createRevision: 2, modRevision: 9 };
  const item = itemKeyValue(kv, jsonLayout(value)!);
  assert.equal(item.head, value);
  assert.equal(item.value, value);
  assert.deepEqual(item.json, Buffer.from(itemJson(value, 9, 'drop')!, 'utf8'));
  const moved = itemAtRevision(item, { ...kv, modRevision: 12345 });
  assert.equal(moved.value, value);
  assert.match(moved.json.toString(), /"resourceVersion":"12345"/);
});
