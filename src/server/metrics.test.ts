import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spellNaN } from './metrics.ts';

test('NaN samples are spelled as the exposition format spells them', () => {
  const text = '# TYPE nodejs_eventloop_lag_mean_seconds gauge\nnodejs_eventloop_lag_mean_seconds Nan\nup{name="Nan"} 1\nother 0.5\n';
  assert.equal(spellNaN(text), '# TYPE nodejs_eventloop_lag_mean_seconds gauge\nnodejs_eventloop_lag_mean_seconds NaN\nup{name="Nan"} 1\nother 0.5\n');
});
