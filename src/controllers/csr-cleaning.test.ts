import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { KubeObject } from '../registry/types.ts';
import { isPastDeadline } from './csr-cleaning.ts';

const HOUR = 3600_000;
const now = Date.UTC(2026, 5, 1, 12);
const at = (msAgo: number) => new Date(now - msAgo).toISOString().replace(/\.\d+Z$/, 'Z');

function csr(status: Record<string, unknown>, createdAgo = 0): KubeObject {
  return { apiVersion: 'certificates.k8s.io/v1', kind: 'CertificateSigningRequest', metadata: { name: 'c', creationTimestamp: at(createdAgo) }, spec: {}, status };
}

test('pending requests go a day after their creation', () => {
  assert.equal(isPastDeadline(csr({}, 23 * HOUR), now), false);
  assert.equal(isPastDeadline(csr({}, 25 * HOUR), now), true);
});

test('denied and failed requests go an hour after that condition; approved ones only once issued', () => {
  const condition = (type: string, ago: number) => ({ conditions: [{ type, status: 'True', lastUpdateTime: at(ago) }] });
  assert.equal(isPastDeadline(csr(condition('Denied', 0.5 * HOUR), 48 * HOUR), now), false);
  assert.equal(isPastDeadline(csr(condition('Denied', 2 * HOUR)), now), true);
  assert.equal(isPastDeadline(csr(condition('Failed', 2 * HOUR)), now), true);
  // Approved but never issued (another signer's, still working): kept.
  assert.equal(isPastDeadline(csr(condition('Approved', 30 * HOUR), 30 * HOUR), now), false);
  assert.equal(isPastDeadline(csr({ ...condition('Approved', 2 * HOUR), certificate: Buffer.from('x').toString('base64') }), now), true);
  assert.equal(isPastDeadline(csr({ ...condition('Approved', 0.5 * HOUR), certificate: Buffer.from('x').toString('base64') }), now), false);
});
