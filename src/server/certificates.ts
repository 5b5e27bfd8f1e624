// Issuing X.509 v3 certificates with Node's crypto: ECDSA P-256 keys, SHA-256 signatures, and the few
// extensions a cluster PKI needs (basic constraints, key usage, extended key usage, SANs, key identifiers).

import { createHash, generateKeyPairSync, randomBytes, sign } from 'node:crypto';
import type { KeyObject } from 'node:crypto';
import { isIP } from 'node:net';
import * as der from './der.ts';

const OID = {
  ecdsaWithSha256: '1.2.840.10045.4.3.2',
  commonName: '2.5.4.3',
  organization: '2.5.4.10',
  subjectKeyIdentifier: '2.5.29.14',
  keyUsage: '2.5.29.15',
  subjectAltName: '2.5.29.17',
  basicConstraints: '2.5.29.19',
  authorityKeyIdentifier: '2.5.29.35',
  extKeyUsage: '2.5.29.37',
  serverAuth: '1.3.6.1.5.5.7.3.1',
  clientAuth: '1.3.6.1.5.5.7.3.2',
};

const KEY_USAGE_BITS = { digitalSignature: 0, keyCertSign: 5, cRLSign: 6 } as const;

export interface DistinguishedName {
  readonly commonName: string;
  readonly organizations?: readonly string[];
}

/** The DER Name: one RDN per attribute, organizations first then the common name (as openssl and Go print it: O=..., CN=...). */
export function encodeName(name: DistinguishedName): Buffer {
  const rdn = (type: string, value: string): Buffer => der.set(der.sequence(der.oid(type), der.utf8String(value)));
  return der.sequence(...(name.organizations ?? []).map((o) => rdn(OID.organization, o)), rdn(OID.commonName, name.commonName));
}

export interface CertificateRequest {
  readonly subject: DistinguishedName;
  readonly publicKey: KeyObject;
  readonly notBefore: Date;
  readonly notAfter: Date;
  readonly isCa: boolean;
  readonly usage?: 'server' | 'client';
  /** DNS names and IP addresses. */
  readonly altNames?: readonly string[];
}

export interface Signer {
  /** The issuer's Name, byte for byte as in its certificate. */
  readonly name: Buffer;
  readonly privateKey: KeyObject;
  readonly keyIdentifier: Buffer;
}

function ipBytes(ip: string): Buffer {
  if (isIP(ip) === 4) return Buffer.from(ip.split('.').map(Number));
  const [head, tail] = ip.split('::');
  const h = head ? head.split(':') : [];
  const t = tail !== undefined && tail ? tail.split(':') : [];
  const groups = tail !== undefined ? [...h, ...new Array(8 - h.length - t.length).fill('0'), ...t] : h;
  const out = Buffer.alloc(16);
  groups.forEach((g, i) => out.writeUInt16BE(parseInt(g, 16), i * 2));
  return out;
}

/** SHA-1 of the public key bits (RFC 5280 4.2.1.2 method 1). */
export function keyIdentifier(publicKey: KeyObject): Buffer {
  const spki = publicKey.export({ type: 'spki', format: 'der' });
  const [, bits] = der.readElements(der.readElements(spki)[0].content);
  return createHash('sha1').update(bits.content.subarray(1)).digest();
}

function extension(id: string, critical: boolean, value: Buffer): Buffer {
  return critical ? der.sequence(der.oid(id), der.boolean(true), der.octetString(value)) : der.sequence(der.oid(id), der.octetString(value));
}

/** Issues a certificate; self-signed when no signer is given (the key pair's private half then signs). */
export function issueCertificate(req: CertificateRequest, signer: Signer | { selfSignKey: KeyObject }): Buffer {
  const subjectName = encodeName(req.subject);
  const ownKeyId = keyIdentifier(req.publicKey);
  const issuer: Signer = 'selfSignKey' in signer ? { name: subjectName, privateKey: signer.selfSignKey, keyIdentifier: ownKeyId } : signer;
  const serial = randomBytes(16);
  serial[0] = (serial[0] & 0x7f) | 0x01;

  const usageBits = req.isCa ? [KEY_USAGE_BITS.digitalSignature, KEY_USAGE_BITS.keyCertSign, KEY_USAGE_BITS.cRLSign] : [KEY_USAGE_BITS.digitalSignature];
  const extensions = [
    extension(OID.basicConstraints, true, req.isCa ? der.sequence(der.boolean(true)) : der.sequence()),
    extension(OID.keyUsage, true, der.namedBits(usageBits)),
  ];
  if (req.usage) extensions.push(extension(OID.extKeyUsage, false, der.sequence(der.oid(req.usage === 'server' ? OID.serverAuth : OID.clientAuth))));
  if (req.altNames && req.altNames.length > 0) {
    const names = req.altNames.map((n) => (isIP(n) ? der.implicit(7, ipBytes(n)) : der.implicit(2, Buffer.from(n, 'ascii'))));
    extensions.push(extension(OID.subjectAltName, false, der.sequence(...names)));
  }
  extensions.push(extension(OID.subjectKeyIdentifier, false, der.octetString(ownKeyId)));
  if (!req.isCa || !('selfSignKey' in signer)) extensions.push(extension(OID.authorityKeyIdentifier, false, der.sequence(der.implicit(0, issuer.keyIdentifier))));

  const algorithm = der.sequence(der.oid(OID.ecdsaWithSha256));
  const tbs = der.sequence(
    der.explicit(0, der.smallInteger(2)),
    der.unsignedInteger(serial),
    algorithm,
    issuer.name,
    der.sequence(der.time(req.notBefore), der.time(req.notAfter)),
    subjectName,
    req.publicKey.export({ type: 'spki', format: 'der' }),
    der.explicit(3, der.sequence(...extensions)),
  );
  const signature = sign('sha256', tbs, issuer.privateKey);
  return der.sequence(tbs, algorithm, der.bitString(signature));
}

/** The subject Name of a certificate, as raw DER (what its leaves must carry as issuer). */
export function subjectNameOf(certDer: Buffer): Buffer {
  const [tbs] = der.readElements(der.readElements(certDer)[0].content);
  const fields = der.readElements(tbs.content);
  // version [0] is present in v3 certificates: version, serial, signature, issuer, validity, subject.
  const offset = fields[0].tag === 0xa0 ? 1 : 0;
  return fields[offset + 4].raw;
}

export function newEcKeyPair(): { publicKey: KeyObject; privateKey: KeyObject } {
  return generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
}

export function certificatePem(certDer: Buffer): string {
  const lines = certDer.toString('base64').match(/.{1,64}/g) ?? [];
  return `-----BEGIN CERTIFICATE-----\n${lines.join('\n')}\n-----END CERTIFICATE-----\n`;
}
