import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ERR_FORMAT_WRONG, ERR_SUFFIX, parseQuantity, quantityNanos } from './quantity.ts';

test('quantities parse to exact nano-units', () => {
  assert.equal(quantityNanos('100m'), 100_000_000n);
  assert.equal(quantityNanos('1'), 1_000_000_000n);
  assert.equal(quantityNanos(2), 2_000_000_000n);
  assert.equal(quantityNanos('1Ki'), 1024n * 1_000_000_000n);
  assert.equal(quantityNanos('1.5Gi'), 1610612736n * 1_000_000_000n);
  assert.equal(quantityNanos('1e3'), 1000n * 1_000_000_000n);
  assert.equal(quantityNanos('-1'), -1_000_000_000n);
  assert.equal(quantityNanos('0.1n'), 1n);
});

test('malformed quantities get ParseQuantity errors', () => {
  assert.deepEqual(parseQuantity('abc'), { ok: false, error: ERR_FORMAT_WRONG });
  assert.deepEqual(parseQuantity(''), { ok: false, error: ERR_FORMAT_WRONG });
  assert.deepEqual(parseQuantity('1Gk'), { ok: false, error: ERR_SUFFIX });
  assert.equal(quantityNanos(true), undefined);
});
