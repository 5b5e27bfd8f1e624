import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createLogger } from './log.ts';

function capture(verbosity: number) {
  const lines: Array<Record<string, unknown>> = [];
  const log = createLogger({ verbosity, write: (l) => {
    assert.ok(l.endsWith('\n'));
    lines.push(JSON.parse(l));
  } });
  return { lines, log };
}

test('one JSON object per line with ts, level, msg and fields; errors become their message', () => {
  const { lines, log } = capture(0);
  log.info('started', { port: 6443 });
  log.error('failed', { error: new Error('boom') });
  assert.equal(lines.length, 2);
  assert.match(String(lines[0].ts), /^\d{4}-\d\d-\d\dT/);
  assert.deepEqual({ ...lines[0], ts: undefined }, { ts: undefined, level: 'info', msg: 'started', port: 6443 });
  assert.deepEqual({ ...lines[1], ts: undefined }, { ts: undefined, level: 'error', msg: 'failed', error: 'boom' });
});

test('verbosity gates v(n); a negative verbosity keeps only warnings and errors', () => {
  const v2 = capture(2);
  v2.log.v(2, 'shown');
  v2.log.v(3, 'hidden');
  assert.deepEqual(v2.lines.map((l) => [l.msg, l.v]), [['shown', 2]]);
  assert.equal(v2.log.enabled(2), true);
  assert.equal(v2.log.enabled(3), false);
  const quiet = capture(-1);
  quiet.log.info('no');
  quiet.log.v(0, 'no');
  quiet.log.warn('yes');
  quiet.log.error('yes too');
  assert.deepEqual(quiet.lines.map((l) => l.level), ['warning', 'error']);
});
