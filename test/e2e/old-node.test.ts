// bin/capstan.js under a Node older than 22.13 names the version it needs (issue 16, defect 9) instead of dying on
// a module it cannot load: the check runs before any import.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { test } from 'node:test';

const BIN = new URL('../../bin/capstan.js', import.meta.url);

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
