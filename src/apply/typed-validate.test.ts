import { test } from 'node:test';
import assert from 'node:assert/strict';
import { rootTypeOf } from './schema.ts';
import { isValidTyped, typedErrors, validateTyped } from './typed-validate.ts';
import { builtinDef, widgetDef } from './test-fixtures.ts';

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

// Mostly well-typed values, each level sometimes replaced by a value of another shape, a null, an undeclared field
// or a duplicated list item.
function mutate(v: unknown, r: () => number): unknown {
  const odd = [null, 'x', 3, true, [1], { z: 1 }];
  if (r() < 0.04) return odd[Math.floor(r() * odd.length)];
  if (Array.isArray(v)) {
    const out = v.map((x) => mutate(x, r));
    if (out.length > 0 && r() < 0.05) out.push(structuredClone(out[0]));
    return out;
  }
  if (v !== null && typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) out[k] = mutate(x, r);
    if (r() < 0.02) out.undeclaredField = 'u';
    return out;
  }
  return v;
}

const deployment = {
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'd', labels: { app: 'd' } },
  spec: {
    replicas: 2,
    selector: { matchLabels: { app: 'd' } },
    template: {
      metadata: { labels: { app: 'd' } },
      spec: {
        containers: [
          { name: 'a', image: 'a:1', ports: [{ containerPort: 80, protocol: 'TCP' }], env: [{ name: 'E', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } }], resources: { limits: { cpu: '1' } } },
          { name: 'b', image: 'b:1', args: ['--x'] },
        ],
        tolerations: [{ key: 'k', operator: 'Equal', value: 'v', effect: 'NoSchedule' }],
      },
    },
  },
};
const widget = { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w' }, spec: { replicas: 1, tags: ['a'], aliases: ['x', 'y'], ports: [{ name: 'p', port: 1 }], endpoints: [{ host: 'h' }], labels: { a: 'b' }, config: { any: [1, { x: 2 }] } } };

test('the quick validity check agrees with the full walk on random values', () => {
  const cases: [unknown, ReturnType<typeof rootTypeOf>][] = [
    [deployment, rootTypeOf(builtinDef('apps', 'v1', 'deployments'))],
    [widget, rootTypeOf(widgetDef())],
  ];
  let invalid = 0;
  for (let seed = 1; seed <= 1500; seed++) {
    const r = random(seed);
    const [base, type] = cases[seed % 2]!;
    const v = mutate(base, r);
    for (const allowDuplicates of [false, true]) {
      const errors = typedErrors(v, type, allowDuplicates);
      assert.equal(isValidTyped(v, type, allowDuplicates), errors.length === 0, `seed ${seed}: ${JSON.stringify(errors)} ${JSON.stringify(v)}`);
      assert.deepEqual(validateTyped(v, type, allowDuplicates), errors);
      if (errors.length > 0) invalid++;
    }
  }
  assert.ok(invalid > 500 && invalid < 2500, `${invalid} invalid of 3000`);
});
