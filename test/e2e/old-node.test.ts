// bin/capstan.js under a Node older than 22.13 names the version it needs (issue 16, defect 9) instead of dying on
// a module it cannot load: the check runs before any import.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { test } from 'node:test';
import { bundle } from '../../scripts/build.ts';

const BIN = new URL('../../bin/capstan.js', import.meta.url);
const ROOT = fileURLToPath(new URL('../../', import.meta.url));

test('bin/capstan.js imports nothing before its version check', () => {
  const source = readFileSync(BIN, 'utf8');
  assert.doesNotMatch(source, /^\s*import\s/m);
  assert.ok(source.indexOf('process.versions.node') < source.indexOf('await import('));
});

// The machine's system Node (20 here) stands in for an old one; where it is new enough there is nothing to run.
const systemNode = '/usr/bin/node';
const systemVersion = existsSync(systemNode) ? spawnSync(systemNode, ['--version'], { encoding: 'utf8' }).stdout.trim() : '';
const old = /^v(\d+)\.(\d+)/.exec(systemVersion);
const isOld = old !== null && (Number(old[1]) < 22 || (Number(old[1]) === 22 && Number(old[2]) < 13));

test(`an old Node (${systemVersion || 'none found'}) gets one sentence naming Node 22.13+`, { skip: !isOld && 'no Node older than 22.13 on this machine' }, () => {
  const r = spawnSync(systemNode, [BIN.pathname, '--version'], { encoding: 'utf8' });
  assert.equal(r.status, 1);
  assert.equal(r.stdout, '');
  assert.equal(r.stderr, `capstan requires Node.js 22.13 or newer; this is Node.js ${systemVersion.slice(1)}.\n`);
});

test(`an old Node (${systemVersion || 'none found'}) running the library gets the same sentence from startCapstan()`, { skip: !isOld && 'no Node older than 22.13 on this machine' }, async () => {
  // The package's entry as installed (inside node_modules, so it finds the packages it leaves outside).
  const out = join(ROOT, 'node_modules', '.cache', `capstan-old-node-test-${process.pid}`);
  try {
    await bundle(out);
    const entry = pathToFileURL(join(out, 'capstan.js')).href;
    const script = `import(${JSON.stringify(entry)}).then((m) => m.startCapstan()).then(() => console.log('started'), (e) => console.log(e.message));`;
    const r = spawnSync(systemNode, ['--input-type=module', '-e', script], { encoding: 'utf8', timeout: 30_000 });
    assert.equal(r.stdout, `capstan requires Node.js 22.13 or newer; this is Node.js ${systemVersion.slice(1)}.\n`, r.stderr);
  } finally {
    await rm(out, { recursive: true, force: true });
  }
});

test('the version the library checks is the one package.json and bin/capstan.js name', () => {
  const engines = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { engines: { node: string } }).engines.node;
  assert.equal(engines, '>=22.13');
  assert.match(readFileSync(BIN, 'utf8'), /^var required = \[22, 13\];$/m);
  assert.match(readFileSync(join(ROOT, 'src/cli/start.ts'), 'utf8'), /^const REQUIRED_NODE = \[22, 13\] as const;$/m);
});
