import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FlagError, formatFlagUsage, parseFlags } from './flags.ts';
import type { FlagSpec } from './flags.ts';

const SPECS: FlagSpec[] = [
  { name: 'port', type: 'int', default: 6443, help: 'Port.' },
  { name: 'name', type: 'string', default: 'x', help: 'Name.' },
  { name: 'on', type: 'bool', default: true, help: 'On.' },
  { name: 'modes', type: 'stringList', default: ['A'], help: 'Modes.' },
  { name: 'gates', type: 'map', help: 'Gates.' },
  { name: 'v', short: 'v', type: 'int', default: 0, help: 'Verbosity.' },
  { name: 'help', short: 'h', type: 'bool', help: 'Help.' },
];

test('defaults apply to flags not given', () => {
  const p = parseFlags(SPECS, []);
  assert.deepEqual(p.values, { port: 6443, name: 'x', on: true, modes: ['A'], v: 0 });
  assert.equal(p.given.size, 0);
});

test('--name=value, --name value, bool forms, shorthands', () => {
  const p = parseFlags(SPECS, ['--port=1', '--name', 'y', '--on=false', '-v', '3', '-h']);
  assert.deepEqual(p.values, { port: 1, name: 'y', on: false, modes: ['A'], v: 3, help: true });
  assert.equal(parseFlags(SPECS, ['-v=4']).values.v, 4);
  assert.equal(parseFlags(SPECS, ['-v5']).values.v, 5);
  assert.equal(parseFlags(SPECS, ['--v=2']).values.v, 2);
  assert.equal(parseFlags(SPECS, ['--on']).values.on, true);
  assert.equal(parseFlags(SPECS, ['--on=F']).values.on, false);
});

test('a bool flag does not take the next argument', () => {
  const p = parseFlags(SPECS, ['--on', 'false']);
  assert.equal(p.values.on, true);
  assert.deepEqual(p.positional, ['false']);
});

test('list flags replace the default then append; map flags merge; last scalar wins', () => {
  const p = parseFlags(SPECS, ['--modes=B,C', '--modes', 'D', '--gates=a=true', '--gates', 'b=false', '--name=1', '--name=2']);
  assert.deepEqual(p.values.modes, ['B', 'C', 'D']);
  assert.equal(p.values.gates, 'a=true,b=false');
  assert.equal(p.values.name, '2');
});

test('"--" ends flags', () => {
  assert.deepEqual(parseFlags(SPECS, ['--', '--port=1']).positional, ['--port=1']);
});

test('errors have pflag\'s wording', () => {
  const err = (argv: string[]): string => {
    try {
      parseFlags(SPECS, argv);
    } catch (e) {
      assert.ok(e instanceof FlagError);
      return e.message;
    }
    return 'no error';
  };
  assert.equal(err(['--nope']), 'unknown flag: --nope');
  assert.equal(err(['-x']), "unknown shorthand flag: 'x' in -x");
  assert.equal(err(['--port']), 'flag needs an argument: --port');
  assert.equal(err(['-v']), "flag needs an argument: 'v' in -v");
  assert.equal(err(['--port=abc']), 'invalid argument "abc" for "--port" flag: strconv.ParseInt: parsing "abc": invalid syntax');
  assert.equal(err(['--on=maybe']), 'invalid argument "maybe" for "--on" flag: strconv.ParseBool: parsing "maybe": invalid syntax');
  assert.equal(err(['-v', 'x']), 'invalid argument "x" for "-v, --v" flag: strconv.ParseInt: parsing "x": invalid syntax');
});

test('usage lists each flag with its default', () => {
  const u = formatFlagUsage(SPECS);
  assert.match(u, /^ {6}--port int +Port\. \(default 6443\)$/m);
  assert.match(u, /^ {6}--name string +Name\. \(default "x"\)$/m);
  assert.match(u, /^ {6}--on +On\. \(default true\)$/m);
  assert.match(u, /^ {6}--modes strings +Modes\. \(default \[A\]\)$/m);
  assert.match(u, /^ {2}-v, --v int +Verbosity\.$/m);
});
