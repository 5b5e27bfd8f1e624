import assert from 'node:assert/strict';
import { test } from 'node:test';
import { signingDuration, signingPolicy } from './csr-signing.ts';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

test('the validity asked for is honoured below the configured one, and at least 10 minutes', () => {
  assert.equal(signingDuration(undefined, 24 * HOUR), 24 * HOUR);
  assert.equal(signingDuration(3600, 24 * HOUR), HOUR);
  assert.equal(signingDuration(90_000, 24 * HOUR), 24 * HOUR);
  assert.equal(signingDuration(600, 24 * HOUR), 10 * MINUTE);
});

test('the policy backdates, shortens long validities by the backdating, and stops at the CA', () => {
  const now = Date.UTC(2026, 0, 1);
  const short = signingPolicy(['client auth'], HOUR, now + 365 * 24 * HOUR, now);
  assert.deepEqual([short.notBefore.getTime() - now, short.notAfter.getTime() - now], [-5 * MINUTE, HOUR]);
  const long = signingPolicy(['client auth'], 24 * HOUR, now + 365 * 24 * HOUR, now);
  assert.equal(long.notAfter.getTime() - now, 24 * HOUR - 5 * MINUTE);
  const capped = signingPolicy(['client auth'], 24 * HOUR, now + HOUR, now);
  assert.equal(capped.notAfter.getTime(), now + HOUR);
});

test('usages become key usage bits and extended key usages in Go order, each once', () => {
  const p = signingPolicy(['client auth', 's/mime', 'key encipherment', 'signing', 'digital signature', 'server auth', 'email protection', 'any', 'crl sign'], HOUR, Infinity, 0);
  assert.deepEqual(p.keyUsage, [0, 2, 6]);
  assert.deepEqual(p.extKeyUsage, ['2.5.29.37.0', '1.3.6.1.5.5.7.3.1', '1.3.6.1.5.5.7.3.2', '1.3.6.1.5.5.7.3.4']);
});
