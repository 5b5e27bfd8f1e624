import { test } from 'node:test';
import assert from 'node:assert/strict';
import { X509Certificate, createHash, createPrivateKey } from 'node:crypto';
import type { KeyObject } from 'node:crypto';
import 'reflect-metadata';
import * as x509 from '@peculiar/x509';
import { issueCertificate } from './certificates.ts';

const HOUR = 3600_000;
const now = Math.floor(Date.now() / 1000) * 1000;
const validity = { notBefore: new Date(now - 1000), notAfter: new Date(now + HOUR) };

/** SHA-1 of the subjectPublicKey bits: for a P-256 key, the uncompressed point that ends the SPKI. */
function keyId(key: KeyObject): string {
  return createHash('sha1').update(key.export({ type: 'spki', format: 'der' }).subarray(-65)).digest('hex');
}

function extensions(pem: string) {
  const cert = new x509.X509Certificate(pem);
  return {
    oids: Array.from(cert.extensions, (e) => e.type),
    basic: cert.getExtension(x509.BasicConstraintsExtension),
    keyUsage: cert.getExtension(x509.KeyUsagesExtension),
    extKeyUsage: cert.getExtension(x509.ExtendedKeyUsageExtension),
    ski: cert.getExtension(x509.SubjectKeyIdentifierExtension),
    aki: cert.getExtension(x509.AuthorityKeyIdentifierExtension),
    signatureAlgorithm: cert.signatureAlgorithm,
  };
}

/** The DER of an attribute value as UTF8String. */
const utf8 = (s: string): Buffer => Buffer.concat([Buffer.from([0x0c, s.length]), Buffer.from(s)]);

test('a self-signed CA: P-256 key in PKCS#8, CA basic constraints, certificate and CRL signing', async () => {
  const ca = await issueCertificate({ subject: { commonName: 'test-ca' }, ...validity, isCa: true });
  assert.match(ca.keyPem, /^-----BEGIN PRIVATE KEY-----\n/);
  assert.match(ca.certPem, /^-----BEGIN CERTIFICATE-----\n[\s\S]*\n-----END CERTIFICATE-----\n$/);
  const key = createPrivateKey(ca.keyPem);
  assert.equal(key.asymmetricKeyDetails?.namedCurve, 'prime256v1');

  const cert = new X509Certificate(ca.certPem);
  assert.equal(cert.ca, true);
  assert.equal(cert.subject, 'CN=test-ca');
  assert.equal(cert.issuer, 'CN=test-ca');
  assert.ok(cert.raw.includes(utf8('test-ca')));
  assert.ok(cert.checkPrivateKey(key));
  assert.ok(cert.verify(cert.publicKey));
  assert.equal(cert.validFromDate.getTime(), validity.notBefore.getTime());
  assert.equal(cert.validToDate.getTime(), validity.notAfter.getTime());
  assert.equal(cert.subjectAltName, undefined);
  assert.equal(cert.keyUsage, undefined);
  // 16 bytes, positive, first byte never zero (so none is dropped): 01..7F first.
  assert.match(cert.serialNumber, /^(0[1-9A-F]|[1-7][0-9A-F])[0-9A-F]{30}$/);

  const ext = extensions(ca.certPem);
  assert.deepEqual(ext.oids, ['2.5.29.19', '2.5.29.15', '2.5.29.14']);
  assert.equal(ext.basic?.ca, true);
  assert.equal(ext.basic?.pathLength, undefined);
  assert.equal(ext.basic?.critical, true);
  const { digitalSignature, keyCertSign, cRLSign } = x509.KeyUsageFlags;
  assert.equal(ext.keyUsage?.usages, digitalSignature | keyCertSign | cRLSign);
  assert.equal(ext.keyUsage?.critical, true);
  assert.equal(ext.ski?.keyId, keyId(cert.publicKey));
  assert.deepEqual(ext.signatureAlgorithm, { name: 'ECDSA', hash: { name: 'SHA-256' } });
});

test('a leaf signed by the CA chains to it and carries the requested names and usages', async () => {
  const ca = await issueCertificate({ subject: { commonName: 'test-ca' }, ...validity, isCa: true });
  const caCert = new X509Certificate(ca.certPem);
  const leaf = await issueCertificate(
    { subject: { commonName: 'web', organizations: ['a', 'b'] }, ...validity, isCa: false, usage: 'server', altNames: ['localhost', '127.0.0.1', '::1', 'fd00::2'] },
    ca,
  );
  const cert = new X509Certificate(leaf.certPem);
  assert.ok(cert.checkIssued(caCert));
  assert.ok(cert.verify(caCert.publicKey));
  assert.ok(!cert.verify(cert.publicKey));
  assert.ok(cert.checkPrivateKey(createPrivateKey(leaf.keyPem)));
  assert.ok(!cert.checkPrivateKey(createPrivateKey(ca.keyPem)));
  assert.equal(cert.ca, false);
  assert.equal(cert.subject, 'O=a\nO=b\nCN=web');
  assert.equal(cert.issuer, 'CN=test-ca');
  assert.ok(cert.raw.includes(utf8('a')) && cert.raw.includes(utf8('web')));
  assert.equal(cert.subjectAltName, 'DNS:localhost, IP Address:127.0.0.1, IP Address:0:0:0:0:0:0:0:1, IP Address:FD00:0:0:0:0:0:0:2');
  assert.equal(cert.checkHost('localhost'), 'localhost');
  assert.equal(cert.checkHost('example.com'), undefined);
  assert.equal(cert.checkIP('127.0.0.1'), '127.0.0.1');
  assert.equal(cert.checkIP('::1'), '::1');
  assert.equal(cert.checkIP('10.0.0.1'), undefined);
  assert.deepEqual(cert.keyUsage, ['1.3.6.1.5.5.7.3.1']);
  assert.equal(cert.validToDate.getTime(), validity.notAfter.getTime());

  const ext = extensions(leaf.certPem);
  assert.deepEqual(ext.oids, ['2.5.29.19', '2.5.29.15', '2.5.29.37', '2.5.29.17', '2.5.29.14', '2.5.29.35']);
  assert.equal(ext.basic?.ca, false);
  assert.equal(ext.basic?.critical, true);
  assert.equal(ext.keyUsage?.usages, x509.KeyUsageFlags.digitalSignature);
  assert.equal(ext.keyUsage?.critical, true);
  assert.equal(ext.extKeyUsage?.critical, false);
  assert.equal(ext.ski?.keyId, keyId(cert.publicKey));
  assert.equal(ext.aki?.keyId, keyId(caCert.publicKey));
  assert.deepEqual(ext.signatureAlgorithm, { name: 'ECDSA', hash: { name: 'SHA-256' } });
});

test('a client certificate has clientAuth and no names', async () => {
  const ca = await issueCertificate({ subject: { commonName: 'test-ca' }, ...validity, isCa: true });
  const leaf = await issueCertificate({ subject: { commonName: 'me', organizations: ['system:masters'] }, ...validity, isCa: false, usage: 'client' }, ca);
  const cert = new X509Certificate(leaf.certPem);
  assert.ok(cert.verify(new X509Certificate(ca.certPem).publicKey));
  assert.equal(cert.subject, 'O=system:masters\nCN=me');
  assert.deepEqual(cert.keyUsage, ['1.3.6.1.5.5.7.3.2']);
  assert.equal(cert.subjectAltName, undefined);
});

test('validity past 2049 is encoded as GeneralizedTime', async () => {
  const ca = await issueCertificate({ subject: { commonName: 'test-ca' }, notBefore: validity.notBefore, notAfter: new Date('2051-01-02T03:04:05Z'), isCa: true });
  const cert = new X509Certificate(ca.certPem);
  assert.equal(cert.validToDate.toISOString(), '2051-01-02T03:04:05.000Z');
  assert.ok(cert.raw.includes(Buffer.from('\x18\x0f20510102030405Z')));
});
