import assert from 'node:assert/strict';
import { test } from 'node:test';
import { generateKeyPairSync } from 'node:crypto';
import { issueCertificate } from '../../../server/certificates.ts';
import { secretWarnings, x509KeyPairError } from './tls-secret-warnings.ts';

const pair = () => issueCertificate({ subject: { commonName: 'web' }, notBefore: new Date(Date.now() - 60_000), notAfter: new Date(Date.now() + 3_600_000), isCa: true });
const b64 = (s: string) => Buffer.from(s).toString('base64');

test('a TLS secret whose certificate and key make a pair warns about nothing; other types are not looked at', async () => {
  const { certPem, keyPem } = await pair();
  assert.deepEqual(secretWarnings({ type: 'kubernetes.io/tls', data: { 'tls.crt': b64(certPem), 'tls.key': b64(keyPem) } }), []);
  assert.deepEqual(secretWarnings({ type: 'Opaque', data: { 'tls.crt': b64('x') } }), []);
});

test('the errors of Go tls.X509KeyPair', async () => {
  const a = await pair();
  const b = await pair();
  const rsaKey = generateKeyPairSync('rsa', { modulusLength: 1024 }).privateKey.export({ format: 'pem', type: 'pkcs1' }).toString();
  assert.deepEqual(secretWarnings({ type: 'kubernetes.io/tls', data: {} }), ['tls: failed to find any PEM data in certificate input']);
  assert.equal(x509KeyPairError(a.keyPem, a.certPem), 'tls: failed to find certificate PEM data in certificate input, but did find a private key; PEM inputs may have been switched');
  assert.equal(x509KeyPairError(`-----BEGIN FOO-----\nAAAA\n-----END FOO-----\n-----BEGIN BAR-----\nAAAA\n-----END BAR-----\n`, a.keyPem), 'tls: failed to find "CERTIFICATE" PEM block in certificate input after skipping PEM blocks of the following types: [FOO BAR]');
  assert.equal(x509KeyPairError(a.certPem, 'dummy'), 'tls: failed to find any PEM data in key input');
  assert.equal(x509KeyPairError(a.certPem, a.certPem), 'tls: found a certificate rather than a key in the PEM for the private key');
  assert.equal(x509KeyPairError(a.certPem, b.keyPem), 'tls: private key does not match public key');
  assert.equal(x509KeyPairError(a.certPem, rsaKey), 'tls: private key type does not match public key type');
  assert.equal(x509KeyPairError(a.certPem, '-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n'), 'tls: failed to parse private key');
  assert.equal(x509KeyPairError('-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n', a.keyPem), 'x509: malformed certificate');
});
