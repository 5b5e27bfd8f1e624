import { test } from 'node:test';
import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import * as der from './der.ts';
import { certificatePem, encodeName, issueCertificate, keyIdentifier, newEcKeyPair, subjectNameOf } from './certificates.ts';

test('DER primitives encode as X.690 says', () => {
  assert.equal(der.oid('1.2.840.10045.4.3.2').toString('hex'), '06082a8648ce3d040302');
  assert.equal(der.oid('2.5.29.37').toString('hex'), '0603551d25');
  assert.equal(der.unsignedInteger(Buffer.from([0x00, 0x00, 0x7f])).toString('hex'), '02017f');
  assert.equal(der.unsignedInteger(Buffer.from([0x80])).toString('hex'), '02020080');
  assert.equal(der.namedBits([0]).toString('hex'), '03020780');
  assert.equal(der.namedBits([0, 5, 6]).toString('hex'), '03020186');
  assert.equal(der.time(new Date('2030-01-02T03:04:05Z')).toString(), '\x17\x0d300102030405Z');
  assert.equal(der.time(new Date('2051-01-02T03:04:05Z')).toString(), '\x18\x0f20510102030405Z');
  assert.equal(der.tlv(0x04, Buffer.alloc(200)).subarray(0, 3).toString('hex'), '0481c8');
  assert.equal(der.tlv(0x04, Buffer.alloc(300)).subarray(0, 4).toString('hex'), '0482012c');
});

test('readElements walks a sequence and rejects truncation', () => {
  const seq = der.sequence(der.smallInteger(1), der.utf8String('x'));
  const [outer] = der.readElements(seq);
  assert.deepEqual(der.readElements(outer.content).map((e) => e.tag), [0x02, 0x0c]);
  assert.throws(() => der.readElements(seq.subarray(0, seq.length - 1)), /truncated DER/);
});

test('issued certificates parse, chain, and carry the requested names and usages', () => {
  const caKeys = newEcKeyPair();
  const now = Date.now();
  const caDer = issueCertificate(
    { subject: { commonName: 'test-ca' }, publicKey: caKeys.publicKey, notBefore: new Date(now - 1000), notAfter: new Date(now + 3600_000), isCa: true },
    { selfSignKey: caKeys.privateKey },
  );
  const ca = new X509Certificate(certificatePem(caDer));
  assert.equal(ca.ca, true);
  assert.ok(ca.verify(caKeys.publicKey));
  assert.deepEqual(subjectNameOf(caDer), encodeName({ commonName: 'test-ca' }));

  const leafKeys = newEcKeyPair();
  const leafDer = issueCertificate(
    {
      subject: { commonName: 'web', organizations: ['a', 'b'] },
      publicKey: leafKeys.publicKey,
      notBefore: new Date(now - 1000),
      notAfter: new Date(now + 3600_000),
      isCa: false,
      usage: 'server',
      altNames: ['example.test', '10.0.0.1', '::1', 'fd00::2'],
    },
    { name: subjectNameOf(caDer), privateKey: caKeys.privateKey, keyIdentifier: keyIdentifier(caKeys.publicKey) },
  );
  const leaf = new X509Certificate(certificatePem(leafDer));
  assert.ok(leaf.checkIssued(ca));
  assert.ok(leaf.verify(caKeys.publicKey));
  assert.equal(leaf.ca, false);
  assert.equal(leaf.subject, 'O=a\nO=b\nCN=web');
  assert.equal(leaf.subjectAltName, 'DNS:example.test, IP Address:10.0.0.1, IP Address:0:0:0:0:0:0:0:1, IP Address:FD00:0:0:0:0:0:0:2');
  assert.deepEqual(leaf.keyUsage, ['1.3.6.1.5.5.7.3.1']);
  assert.ok(leaf.checkPrivateKey(leafKeys.privateKey));
});
