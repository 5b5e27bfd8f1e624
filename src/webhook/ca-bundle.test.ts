import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fieldErrorString } from '../apis/errors.ts';
import { issueCertificate } from '../server/certificates.ts';
import { caBundleProblem, validateCABundle } from './ca-bundle.ts';

const b64 = (s: string) => Buffer.from(s, 'latin1').toString('base64');
const validity = { notBefore: new Date('2024-01-01T00:00:00Z'), notAfter: new Date('2034-01-01T00:00:00Z') };

test('the messages client-go gives for CA data without a usable certificate', () => {
  assert.equal(caBundleProblem(Buffer.alloc(0)), undefined);
  assert.equal(caBundleProblem(Buffer.from('bad')), 'unable to load root certificates: unable to parse bytes as PEM block');
  assert.equal(caBundleProblem(Buffer.from('-----BEGIN FOO-----\nAAAA\n-----END FOO-----\n')), 'unable to load root certificates: no valid certificate authority data seen');
  assert.equal(
    caBundleProblem(Buffer.from('-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n')),
    'unable to load root certificates: failed to parse certificate: x509: malformed certificate',
  );
});

test('one parsable certificate makes the bundle valid, whatever else it holds', async () => {
  const ca = await issueCertificate({ subject: { commonName: 'test-ca' }, ...validity, isCa: true });
  assert.equal(caBundleProblem(Buffer.from(ca.certPem)), undefined);
  assert.equal(caBundleProblem(Buffer.from(`-----BEGIN FOO-----\nAAAA\n-----END FOO-----\n${ca.certPem}trailing`)), undefined);
});

test('a bad caBundle is reported with its bytes as Go prints a []byte', () => {
  assert.deepEqual(validateCABundle('spec.conversion.webhookClientConfig.caBundle', b64('ab')).map(fieldErrorString), [
    'spec.conversion.webhookClientConfig.caBundle: Invalid value: []byte{0x61, 0x62}: unable to load root certificates: unable to parse bytes as PEM block',
  ]);
});
