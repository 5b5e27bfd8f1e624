import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Histogram, Registry } from 'prom-client';
import { createKeyedHistogram } from './keyed-histogram.ts';

test('the exposition is the one prom-client\'s own Histogram gives for the same observations', async () => {
  const buckets = [0.1, 1, 10];
  const ours = new Registry();
  const theirs = new Registry();
  const k = createKeyedHistogram('req_seconds', 'Latency.', buckets);
  k.register(ours);
  const h = new Histogram({ name: 'req_seconds', help: 'Latency.', labelNames: ['verb', 'code'], buckets, registers: [theirs] });
  for (const [verb, code, v] of [['GET', '200', 0.05], ['GET', '200', 0.5], ['GET', '200', 50], ['POST', '201', 1], ['GET', '200', 0.1]] as const) {
    k.observe(`${verb}/${code}`, () => ({ verb, code }), v);
    h.observe({ verb, code }, v);
  }
  assert.equal(await ours.metrics(), await theirs.metrics());
});

test('a kept series records into the same series as observe, and stays valid across a reset', async () => {
  const buckets = [1, 10];
  const ours = new Registry();
  const theirs = new Registry();
  const k = createKeyedHistogram('size_bytes', 'Size.', buckets);
  k.register(ours);
  const h = new Histogram({ name: 'size_bytes', help: 'Size.', labelNames: ['verb'], buckets, registers: [theirs] });
  const get = k.series('GET', () => ({ verb: 'GET' }));
  get(5);
  k.observe('GET', () => ({ verb: 'GET' }), 20);
  ours.resetMetrics();
  get(0.5);
  k.observe('GET', () => ({ verb: 'GET' }), 7);
  h.observe({ verb: 'GET' }, 0.5);
  h.observe({ verb: 'GET' }, 7);
  assert.equal(await ours.metrics(), await theirs.metrics());
});
