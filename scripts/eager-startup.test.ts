import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chunksInCycles, compileEagerly, compileStartupEagerly, lazilyCompiled } from './eager-startup.ts';

test('compileEagerly: the named declarations become parenthesized expressions after the imports; others stay', async () => {
  const imports = ['import { a } from "./chunk-A.js";', 'import {', '  b', '} from "./chunk-B.js";'];
  const code = ['', '// src/x.ts', 'var X = later(a, b);'];
  const cold = ['function cold() {', '  return 0;', '}', 'export {', '  X', '};'];
  const chunk = [...imports, ...code, 'function later(x, y) {', '  return x + y;', '}', 'async function* pages() {', '  yield 1;', '}', ...cold].join('\n');
  const { text, moved } = await compileEagerly(chunk, new Set(['later', 'pages', 'missing']));
  assert.deepEqual(moved, ['later', 'pages']);
  const hoisted = ['var later = (function later(x, y) {', '  return x + y;', '});', 'var pages = (async function* pages() {', '  yield 1;', '});'];
  assert.equal(text, [...imports, ...hoisted, ...code, ...cold].join('\n'));
});

test('compileEagerly: a declaration whose end it cannot tell (a template line that is a lone brace) is left alone', async () => {
  const chunk = ['function text() {', '  return `', '}', '`;', '}', 'var t = text();'].join('\n');
  assert.deepEqual(await compileEagerly(chunk, new Set(['text'])), { text: chunk, moved: [] });
});

test('compileEagerly: the rewritten module runs as the original does, a call above the declaration included', async () => {
  const chunk = ['var answer = twice(21);', 'function twice(n) {', '  return n * 2;', '}', 'export {', '  answer,', '  twice', '};'].join('\n');
  const { text, moved } = await compileEagerly(chunk, new Set(['twice']));
  assert.deepEqual(moved, ['twice']);
  const mod = (await import(`data:text/javascript,${encodeURIComponent(text)}`)) as { answer: number; twice: (n: number) => number };
  assert.equal(mod.answer, 42);
  assert.equal(mod.twice.name, 'twice');
});

test("lazilyCompiled: the names V8's log says it compiled on first call, by chunk of the directory", () => {
  const log = [
    'script-details,7,node:internal/timers,0,0,',
    'script-details,94,file:///b/dist/chunk-A.js,0,0,',
    'script-details,95,file:///b/dist/cli.js,0,0,',
    'script-details,96,file:///elsewhere/x.js,0,0,',
    'function,preparse-resolution,94,48,116,0.01,21797,eagerly',
    'function,parse-function,94,136,162,0.009,22076,startServer',
    'function,parse-function,94,170,190,0.009,22080,',
    'function,parse-function,95,0,20,0.009,22090,main',
    'function,parse-function,95,30,50,0.009,22095,main',
    'function,parse-function,96,0,20,0.009,22099,other',
    'function,parse-function,7,0,20,0.009,22100,listOnTimeout',
  ].join('\n');
  assert.deepEqual(lazilyCompiled(log, '/b/dist'), new Map([['chunk-A.js', new Set(['startServer'])], ['cli.js', new Set(['main'])]]));
});

test('chunksInCycles: the chunks on a cycle of static imports', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'capstan-cycles-'));
  try {
    await writeFile(join(dir, 'a.js'), 'import { b } from "./b.js";\nexport const a = 1;\n');
    await writeFile(join(dir, 'b.js'), 'import {\n  a\n} from "./a.js";\nexport const b = 2;\n');
    await writeFile(join(dir, 'c.js'), 'import "./a.js";\nconst lazy = () => import("./d.js");\n');
    await writeFile(join(dir, 'd.js'), 'import "./c.js";\n');
    assert.deepEqual(await chunksInCycles(dir, ['c.js', 'a.js', 'b.js', 'd.js']), new Set(['a.js', 'b.js']));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('compileStartupEagerly: a bundle that fails to start, or never answers, is left as it is, with a warning', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'capstan-eager-'));
  try {
    const chunk = 'function f() {\n  return 1;\n}\nexport {\n  f\n};\n';
    await writeFile(join(dir, 'chunk-A.js'), chunk);
    const warnings: string[] = [];
    await writeFile(join(dir, 'cli.js'), 'process.stderr.write("no data dir\\n");\nprocess.exit(1);\n');
    assert.equal(await compileStartupEagerly(dir, (m) => warnings.push(m)), 0);
    await writeFile(join(dir, 'cli.js'), 'setInterval(() => {}, 1000);\n');
    assert.equal(await compileStartupEagerly(dir, (m) => warnings.push(m), 300), 0);
    assert.deepEqual(warnings, [
      'start-up functions not recorded, the bundle is left as it is: the bundle did not start: no data dir',
      'start-up functions not recorded, the bundle is left as it is: the bundle did not answer /readyz within 0.3 s',
    ]);
    assert.equal(await readFile(join(dir, 'chunk-A.js'), 'utf8'), chunk);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
