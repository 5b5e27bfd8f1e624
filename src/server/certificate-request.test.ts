import assert from 'node:assert/strict';
import { generateKeyPairSync, sign } from 'node:crypto';
import { test } from 'node:test';
import { checkRequestSignature, parseCertificateRequest } from './certificate-request.ts';
import { explicit, implicit, octetString, oid, sequence, set, tlv, bitString, utf8String } from './der.ts';
import { pemEncode } from './pem.ts';

/** A PKCS#10 request signed by an Ed25519 key, with a name of mixed string types and every kind of SAN. */
function request(): { pem: string; der: Buffer } {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  const atv = (type: string, value: Buffer) => set(sequence(oid(type), value));
  const name = sequence(
    atv('2.5.4.6', tlv(0x13, Buffer.from('NL'))),
    atv('2.5.4.10', utf8String('dev')),
    atv('2.5.4.10', tlv(0x1e, Buffer.from('\u00e9quipe', 'utf16le').swap16())),
    atv('1.2.840.113549.1.9.1', tlv(0x16, Buffer.from('dropped@example.com'))),
    atv('2.5.4.3', tlv(0x13, Buffer.from('jane'))),
  );
  const san = sequence(implicit(2, Buffer.from('a.example')), implicit(1, Buffer.from('j@example.com')), implicit(7, Buffer.from([10, 0, 0, 1])), implicit(6, Buffer.from('spiffe://x/y')));
  const extensionRequest = sequence(oid('1.2.840.113549.1.9.14'), set(sequence(sequence(oid('2.5.29.17'), octetString(san)))));
  const info = sequence(tlv(0x02, Buffer.from([0])), name, publicKey.export({ type: 'spki', format: 'der' }), explicit(0, extensionRequest));
  const der = sequence(info, sequence(oid('1.3.101.112')), bitString(sign(null, info, privateKey)));
  return { pem: pemEncode('CERTIFICATE REQUEST', der), der };
}

test('a request is read as Go reads it: the name attributes pkix.Name keeps, the SANs, a signature that checks', () => {
  const r = parseCertificateRequest(request().pem);
  assert.deepEqual(r.subject, { country: ['NL'], province: [], locality: [], streetAddress: [], postalCode: [], organization: ['dev', '\u00e9quipe'], organizationalUnit: [], commonName: 'jane', serialNumber: '' });
  assert.deepEqual([r.dnsNames, r.emailAddresses, r.ipAddresses.map((ip) => [...ip]), r.uris], [['a.example'], ['j@example.com'], [[10, 0, 0, 1]], ['spiffe://x/y']]);
  assert.equal(r.signed.algorithm, '1.3.101.112');
  checkRequestSignature(r);
  const tampered = { ...r, signed: { ...r.signed, info: Buffer.concat([r.signed.info.subarray(0, -1), Buffer.from([r.signed.info.at(-1)! ^ 1])]) } };
  assert.throws(() => checkRequestSignature(tampered), /x509: invalid signature/);
  assert.throws(() => checkRequestSignature({ ...r, signed: { ...r.signed, algorithm: '1.2.840.113549.1.1.10' } }), /algorithm unimplemented/);
});

test('what is not a request is refused with a message, not a crash', () => {
  assert.throws(() => parseCertificateRequest('-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n'), /PEM block type must be CERTIFICATE REQUEST/);
  assert.throws(() => parseCertificateRequest(pemEncode('CERTIFICATE REQUEST', Buffer.from([0x30, 0x03, 0x02, 0x01, 0x00]))), /malformed certificate request/);
  assert.throws(() => parseCertificateRequest(pemEncode('CERTIFICATE REQUEST', request().der.subarray(0, 40))), Error);
});
