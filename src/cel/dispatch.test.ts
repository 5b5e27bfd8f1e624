// Programs planned with the dispatching environment: each call reaches the overload that takes its arguments, with
// the results, costs and errors the library's own overload search gives.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compileExpression, evaluate } from './environment.ts';
import { DYN, jsonToCel } from './values.ts';

function run(expr: string, vars: Record<string, unknown> = {}) {
  const decls = Object.fromEntries(Object.keys(vars).map((k) => [k, DYN]));
  const c = compileExpression(expr, decls);
  if (!c.ok) throw new Error(c.error);
  return evaluate(c.expression, Object.fromEntries(Object.entries(vars).map(([k, v]) => [k, jsonToCel(v, DYN)])), 1_000_000);
}

test('size counts code points, as cel-go counts runes, for strings with and without surrogate pairs', () => {
  const cases: [string, bigint][] = [
    ['', 0n],
    ['plain', 5n],
    ['héllo', 5n],
    ['a😀b', 3n],
    ['😀😀', 2n],
    ['\ud800x', 2n], // a lone high surrogate counts as one, as the spread of a string counts it
    ['x\udc00', 2n],
  ];
  for (const [s, n] of cases) {
    for (const expr of ['size(s)', 's.size()']) {
      const r = run(expr, { s });
      assert.deepEqual(r.ok && r.value, n, `${expr} of ${JSON.stringify(s)}`);
    }
  }
});

test('each argument kind reaches its overload: lists, maps, strings, bytes, numbers, methods and functions', () => {
  const vars = { m: { a: 1, b: 'x' }, l: [1, 2, 3], s: 'abc' };
  for (const expr of [
    'size(m) == 2',
    'm.size() == 2',
    'size(l) == 3 && l.size() == 3',
    "size(b'abc') == 3",
    "s.startsWith('a') && !s.endsWith('a') && s.contains('b')",
    "'a' in m && 2 in l && !(4 in l)",
    'l[0] + 1 == 2 && 1.5 + 1.5 == 3.0 && 2u + 3u == 5u',
    "m.b + s == 'xabc'",
    'dyn(l).all(x, x > 0)',
    'duration("1s") + duration("2s") == duration("3s")',
  ]) {
    const r = run(expr, vars);
    assert.deepEqual(r.ok && r.value, true, expr);
  }
});

test('a call no overload takes is the runtime error it was, and costs are charged once per call', () => {
  const r = run('size(dyn(true))');
  assert.deepEqual(r.ok ? r.value : r.error, 'no such overload');
  const s = run("s.startsWith('ab')", { s: 'x'.repeat(100) });
  // one unit for the call and 0.1 per traversed character, rounded up: 1 + ceil(10.2)
  assert.equal(s.ok && s.cost, 12);
});
