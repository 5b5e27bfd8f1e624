import { test } from 'node:test';
import assert from 'node:assert/strict';
import { canonicalQuantity, ERR_FORMAT_WRONG, ERR_SUFFIX, parseQuantity, quantityNanos } from './quantity.ts';

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

test('quantities are written back as MarshalJSON writes them: canonical text kept, other text rewritten from the value', () => {
  const cases: [unknown, string | undefined][] = [
    // Already canonical: kept as written (ParseQuantity caches the text).
    ['100m', '100m'], ['1Ki', '1Ki'], ['1e3', '1e3'], ['1E3', '1E3'], ['10e3', '10e3'], ['129M', '129M'], ['123Mi', '123Mi'], ['+1', '+1'], ['01', '01'], ['1.', '1.'], ['0', '0'],
    // Decimal values: the mantissa without trailing zeros, the exponent a multiple of three, the SI suffix.
    ['0.5', '500m'], ['.5', '500m'], ['1.0', '1'], ['1000', '1k'], ['5000', '5k'], ['1000m', '1'], ['3000m', '3'], ['0.0001', '100u'], ['-0.5', '-500m'], ['-0', '0'], ['1.5e3', '1500'], ['1e4', '10e3'],
    // Binary values: whole numbers of at least 1024 keep a binary suffix, others are decimal.
    ['1.5Gi', '1536Mi'], ['-1.5Gi', '-1536Mi'], ['1024Ki', '1Mi'], ['8Ki', '8Ki'], ['1.5Ki', '1536'], ['0.5Ki', '512'], ['1Ei', '1Ei'],
    // Rounded up to nano-units; binary values capped at the int64 maximum.
    ['0.1n', '1n'], ['1e-10', '1e-9'], ['1e-1000', '1e-9'], ['8Ei', '9223372036854775807'],
    // JSON numbers, as JavaScript prints them.
    [1.5, '1500m'], [2, '2'], [1e9, '1G'], [0.25, '250m'],
    // What ParseQuantity refuses.
    ['abc', undefined], ['1Kii', undefined], ['', undefined], [null, undefined], [true, undefined],
  ];
  for (const [input, want] of cases) assert.equal(canonicalQuantity(input), want, `${JSON.stringify(input)}`);
});
