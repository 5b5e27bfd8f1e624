import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { SchemaNode } from '../apis/model-types.ts';
import { valuesEqual } from './path-element.ts';
import { prune, pruneDropped, prunesNothing } from './prune.ts';
import { rootTypeOf } from './schema.ts';
import { toFieldSet } from './typed-fieldset.ts';
import { mergeTyped } from './typed-merge.ts';
import { widgetDef } from './test-fixtures.ts';

// A widget whose spec also has a list keyed only by a field with a default (an item may be `{}`), a nested struct
// and a free-form map.
const SCHEMA: SchemaNode = {
  type: 'object',
  properties: {
    apiVersion: { type: 'string' },
    kind: { type: 'string' },
    metadata: { type: 'object' },
    spec: {
      type: 'object',
      properties: {
        replicas: { type: 'integer' },
        tags: { type: 'array', items: { type: 'string' } },
        aliases: { type: 'array', listType: 'set', items: { type: 'string' } },
        ports: {
          type: 'array',
          listType: 'map',
          listMapKeys: ['name'],
          items: { type: 'object', required: ['name'], properties: { name: { type: 'string' }, port: { type: 'integer' }, note: { type: 'string' } } },
        },
        slots: {
          type: 'array',
          listType: 'map',
          listMapKeys: ['zone'],
          items: { type: 'object', properties: { zone: { type: 'string', default: 'a' }, size: { type: 'integer' }, extra: { type: 'object', properties: { x: { type: 'string' } } } } },
        },
        labels: { type: 'object', additionalProperties: { type: 'string' } },
        nested: { type: 'object', properties: { a: { type: 'string' }, b: { type: 'object', properties: { c: { type: 'string' }, d: { type: 'string' } } } } },
        config: { type: 'object', preserveUnknownFields: true },
      },
    },
  },
};
const type = rootTypeOf({ ...widgetDef(), schema: SCHEMA });

/** mulberry32: a small seeded generator, so a failure names its case. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A random spec from a small universe of fields and values, so that configurations and objects overlap. */
function spec(r: () => number): Record<string, unknown> {
  const pick = <T>(xs: T[]): T => xs[Math.floor(r() * xs.length)]!;
  const maybe = (p = 0.5) => r() < p;
  const s: Record<string, unknown> = {};
  if (maybe()) s.replicas = pick([1, 2]);
  if (maybe(0.3)) s.tags = pick([['a'], ['a', 'b']]);
  if (maybe(0.3)) s.aliases = pick([['x'], ['x', 'y'], ['y']]);
  if (maybe()) {
    s.ports = ['p', 'q', 'r'].filter(() => maybe()).map((name) => {
      const item: Record<string, unknown> = { name };
      if (maybe()) item.port = pick([80, 81]);
      if (maybe(0.3)) item.note = pick(['n', 'm']);
      return item;
    });
  }
  if (maybe()) {
    s.slots = ['a', 'b', undefined].filter(() => maybe()).map((zone) => {
      const item: Record<string, unknown> = {};
      if (zone !== undefined && (zone !== 'a' || maybe())) item.zone = zone;
      else if (zone === undefined) item.zone = 'c';
      if (maybe(0.4)) item.size = pick([1, 2]);
      if (maybe(0.3)) item.extra = pick([{}, { x: 'x' }]);
      return item;
    });
  }
  if (maybe()) s.labels = Object.fromEntries(['k', 'l', 'm'].filter(() => maybe()).map((k) => [k, pick(['1', '2'])]));
  if (maybe()) s.nested = maybe() ? { a: pick(['1', '2']) } : { b: maybe() ? { c: '1' } : { c: '1', d: pick(['1', '2']) } };
  if (maybe(0.3)) s.config = pick([{}, { u: 1 }, { u: { v: 1 } }, { w: [1] }]);
  return s;
}

const obj = (s: Record<string, unknown>) => ({ apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w' }, spec: s });

test('prune: when prunesNothing holds, the full prune gives back the merged object (random configurations)', () => {
  let shortcut = 0;
  let pruning = 0;
  for (let seed = 1; seed <= 3000; seed++) {
    const r = random(seed);
    const config0 = obj(spec(r));
    // Re-applies: the same configuration, one with more fields, or another one.
    const choice = r();
    const config1 = choice < 0.4 ? structuredClone(config0) : choice < 0.7 ? (mergeTyped(config0, obj(spec(r)), type) as object) : obj(spec(r));
    const others = obj(spec(r));
    const live = mergeTyped(mergeTyped(obj(spec(r)), others, type), config0, type);
    const merged = mergeTyped(live, config1, type);
    const last = toFieldSet(config0, type);
    const applied = toFieldSet(config1, type);
    const owned = applied.union(toFieldSet(others, type));
    const full = pruneDropped(type, merged, owned, last);
    if (prunesNothing(last, applied)) {
      shortcut++;
      assert.ok(valuesEqual(full, merged), `seed ${seed}: ${JSON.stringify({ config0, config1, live, merged, full })}`);
      assert.equal(prune(type, merged, applied, () => owned, { set: last, apiVersion: 'v1', applied: true }), merged);
    } else if (!valuesEqual(full, merged)) {
      pruning++;
    }
  }
  // Both kinds of case are exercised.
  assert.ok(shortcut > 1000, `only ${shortcut} re-applies took the shortcut`);
  assert.ok(pruning > 100, `only ${pruning} applies pruned something`);
});

test('prune: an item applied as {} (keyed by its default) can be emptied and pruned, so it never takes the shortcut', () => {
  const config = obj({ slots: [{}] });
  const live = obj({ slots: [{ zone: 'a', size: 3 }] });
  const merged = mergeTyped(live, config, type);
  const set = toFieldSet(config, type);
  assert.equal(prunesNothing(set, set), false);
  // The full prune does remove it: the item left without fields has no key (and the emptied spec goes with it).
  assert.deepEqual(merged, obj({ slots: [{ zone: 'a', size: 3 }] }));
  const { spec: _, ...withoutSpec } = obj({});
  assert.deepEqual(pruneDropped(type, merged, set, set), withoutSpec);
});

test('prune: a field applied last time and not this time is pruned', () => {
  const last = toFieldSet(obj({ replicas: 1, labels: { k: '1' } }), type);
  const config = obj({ replicas: 1 });
  const applied = toFieldSet(config, type);
  const merged = mergeTyped(obj({ replicas: 1, labels: { k: '1' } }), config, type);
  assert.equal(prunesNothing(last, applied), false);
  assert.deepEqual(prune(type, merged, applied, () => applied, { set: last, apiVersion: 'v1', applied: true }), obj({ replicas: 1 }));
});
