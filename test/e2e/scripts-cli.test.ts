// The scripts and benchmarks run by hand: --help says what each flag does; a mistyped flag stops the script.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import { readScriptArgs, usageText } from '../../scripts/script-args.ts';

const root = new URL('../..', import.meta.url).pathname;

function run(script: string, ...args: string[]): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [script, ...args], { cwd: root, encoding: 'utf8', timeout: 60_000 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

test('bench/run.ts --help lists its flags and sections and runs nothing', () => {
  const r = run('bench/run.ts', '--help');
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /^Usage: node bench\/run\.ts \[--quick\] \[--only=LIST\]\n/);
  assert.match(r.stdout, /\n {2}--only=LIST {2}comma-separated sections to run, of: startup, storage, http, etcd, watch,/);
  assert.match(r.stdout, /\n {2}--help {7}show this help and exit\n$/);
  assert.doesNotMatch(r.stdout, /Capstan benchmarks on/);
});

test('bench/run.ts refuses a mistyped flag and an unknown section before running anything', () => {
  const flag = run('bench/run.ts', '--onyl=http');
  assert.equal(flag.status, 2);
  assert.match(flag.stderr, /^unknown flag: --onyl\n\nUsage: node bench\/run\.ts/);
  assert.equal(flag.stdout, '');
  const section = run('bench/run.ts', '--only=htp');
  assert.equal(section.status, 2);
  assert.match(section.stderr, /^unknown section\(s\) in --only: htp \(known: startup, storage,/);
  assert.equal(section.stdout, '');
});

test('scripts/build.ts --help says what --bundle does', () => {
  const r = run('scripts/build.ts', '--help');
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /\n {2}--bundle {2}build the bundle only \(what `npm install` runs\)/);
});

test('script arguments: switches, flags with values, positionals and the errors', () => {
  const usage = { command: 'x', summary: 's', flags: { '--quick': 'q', '--only=LIST': 'o' }, positionals: { N: 'n' } };
  const ok = readScriptArgs(usage, ['--quick', '--only=a,b', '7']);
  assert.ok(typeof ok === 'object');
  assert.deepEqual([...ok.flags], [['--quick', true], ['--only', 'a,b']]);
  assert.deepEqual(ok.positionals, ['7']);
  assert.equal(readScriptArgs(usage, ['-h']), 'help');
  assert.equal(readScriptArgs(usage, ['--only']), '--only needs a value: --only=...');
  assert.equal(readScriptArgs(usage, ['--quick=1']), '--quick takes no value');
  assert.equal(readScriptArgs(usage, ['--slow']), 'unknown flag: --slow');
  assert.equal(readScriptArgs(usage, ['1', '2']), 'unexpected argument: 2');
  const many = readScriptArgs({ ...usage, positionals: { 'N...': 'n' } }, ['1', '2']);
  assert.ok(typeof many === 'object');
  assert.deepEqual(many.positionals, ['1', '2']);
  assert.equal(usageText({ command: 'c', summary: 's' }), 'Usage: c\n\ns\n\nFlags:\n  --help  show this help and exit\n');
});
