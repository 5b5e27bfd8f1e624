// Issuing X.509 v3 certificates with Node's crypto: ECDSA P-256 keys (what kubeadm and Go's tools make, and what
// kubectl, client-go and browsers accept), SHA-256 signatures, and the few extensions a cluster PKI needs (basic
// constraints, key usage, extended key usage, SANs, key identifiers), encoded as DER here (./der.ts): an X.509
// library would cost a first start more time to load than the whole PKI takes to make.

import { createHash, createPrivateKey, generateKeyPair, randomBytes, sign, X509Certificate } from 'node:crypto';
import type { KeyObject } from 'node:crypto';
import { promisify } from 'node:util';
import { pemEncode } from './pem.ts';
import { bitString, boolean, children, element, explicit, implicit, namedBits, octetString, oid, sequence, set, time, tlv, unsignedInteger, utf8String } from './der.ts';
import type { SigningRequest, SubjectName } from './certificate-request.ts';

export interface DistinguishedName {
  readonly commonName: string;
  readonly organizations?: readonly string[];
}

export interface CertificateRequest {
  readonly subject: DistinguishedName;
  readonly notBefore: Date;
  readonly notAfter: Date;
  readonly isCa: boolean;
  readonly usage?: 'server' | 'client';
  /** DNS names and IP addresses. */
  readonly altNames?: readonly string[];
}

/** A certificate and its private key, PEM (the key PKCS#8). */
export interface PemPair {
  readonly certPem: string;
  readonly keyPem: string;
}

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
} as const;

// KeyUsage bits (RFC 5280 4.2.1.3).
const DIGITAL_SIGNATURE = 0;
const KEY_CERT_SIGN = 5;
const CRL_SIGN = 6;

/** The other name attributes Go's pkix.Name knows. */
const NAME_OID = {
  serialNumber: '2.5.4.5',
  country: '2.5.4.6',
  locality: '2.5.4.7',
  province: '2.5.4.8',
  streetAddress: '2.5.4.9',
  organizationalUnit: '2.5.4.11',
  postalCode: '2.5.4.17',
} as const;

const SIGNATURE_ALGORITHM = sequence(oid(OID.ecdsaWithSha256));

/** One RDN per attribute, organizations first then the common name (as openssl and Go print it: O=..., CN=...), all UTF8String. */
function nameOf(name: DistinguishedName): Buffer {
  const attribute = (type: string, value: string): Buffer => set(sequence(oid(type), utf8String(value)));
  return sequence(...(name.organizations ?? []).map((o) => attribute(OID.organization, o)), attribute(OID.commonName, name.commonName));
}

/** 16 random bytes as a positive INTEGER without a leading zero octet. */
function serialNumber(): Buffer {
  const serial = randomBytes(16);
  serial[0] = (serial[0]! & 0x7f) | 0x01;
  return unsignedInteger(serial);
}

/** SHA-1 of the subjectPublicKey bits (RFC 5280 4.2.1.2 method 1). */
function keyIdOf(spki: Buffer): Buffer {
  const [, subjectPublicKey] = children(element(spki).contents);
  return createHash('sha1').update(subjectPublicKey!.contents.subarray(1)).digest();
}

function extension(type: string, critical: boolean, value: Buffer): Buffer {
  return critical ? sequence(oid(type), boolean(true), octetString(value)) : sequence(oid(type), octetString(value));
}

/** 4 or 6 for an IP literal, 0 for a host name (node:net's isIP would compile its IPv6 pattern: ~10 ms of a first start). */
function ipFamily(name: string): 0 | 4 | 6 {
  // Host names have no colons; an IPv4 literal is four decimal octets.
  if (name.includes(':')) return 6;
  const octets = name.split('.');
  return octets.length === 4 && octets.every((o) => /^\d{1,3}$/.test(o) && Number(o) <= 255) ? 4 : 0;
}

function generalName(name: string): Buffer {
  const family = ipFamily(name);
  if (family === 0) return implicit(2, Buffer.from(name, 'latin1'));
  return implicit(7, ipBytes(name, family));
}

function ipBytes(ip: string, family: number): Buffer {
  if (family === 4) return Buffer.from(ip.split('.').map(Number));
  const [head, tail] = ip.split('::');
  const groups = (s: string | undefined): string[] => (s ? s.split(':') : []);
  const h = groups(head);
  const t = tail === undefined ? [] : groups(tail);
  const all = tail === undefined ? h : [...h, ...new Array<string>(8 - h.length - t.length).fill('0'), ...t];
  return Buffer.concat(all.map((g) => Buffer.from(g.padStart(4, '0'), 'hex')));
}

function extensionsFor(req: CertificateRequest, keyId: Buffer, authorityKeyId: Buffer | undefined): Buffer {
  const out = [
    extension(OID.basicConstraints, true, req.isCa ? sequence(boolean(true)) : sequence()),
    extension(OID.keyUsage, true, namedBits(req.isCa ? [DIGITAL_SIGNATURE, KEY_CERT_SIGN, CRL_SIGN] : [DIGITAL_SIGNATURE])),
  ];
  if (req.usage) out.push(extension(OID.extKeyUsage, false, sequence(oid(req.usage === 'server' ? OID.serverAuth : OID.clientAuth))));
  if (req.altNames && req.altNames.length > 0) out.push(extension(OID.subjectAltName, false, sequence(...req.altNames.map(generalName))));
  out.push(extension(OID.subjectKeyIdentifier, false, octetString(keyId)));
  if (authorityKeyId !== undefined) out.push(extension(OID.authorityKeyIdentifier, false, sequence(implicit(0, authorityKeyId))));
  return sequence(...out);
}

interface Issuer {
  /** The CA's subject, as it is encoded in its certificate. */
  readonly name: Buffer;
  readonly signingKey: KeyObject;
  readonly keyId: Buffer;
}

/** The subject and key identifier of a CA certificate (its own identifier extension, else one computed from its key). */
function loadIssuer(ca: PemPair): Issuer {
  const cert = new X509Certificate(ca.certPem);
  const [tbs] = children(element(cert.raw).contents);
  const fields = children(tbs!.contents);
  // version [0], serialNumber, signature, issuer, validity, subject, subjectPublicKeyInfo, ... [3] extensions
  const at = fields[0]!.tag === 0xa0 ? 1 : 0;
  const subject = fields[at + 4]!.raw;
  const spki = fields[at + 5]!.raw;
  let keyId: Buffer | undefined;
  const extensions = fields.find((f) => f.tag === 0xa3);
  for (const ext of extensions ? children(element(extensions.contents).contents) : []) {
    const parts = children(ext.contents);
    if (parts[0]!.raw.equals(oid(OID.subjectKeyIdentifier))) keyId = element(parts[parts.length - 1]!.contents).contents;
  }
  return { name: subject, signingKey: createPrivateKey(ca.keyPem), keyId: keyId ?? keyIdOf(spki) };
}

/**
 * Makes a new key pair and a certificate for it, signed by the given CA, or self-signed without one (a
 * self-signed CA carries no authority key identifier).
 */
export async function issueCertificate(req: CertificateRequest, ca?: PemPair): Promise<PemPair> {
  const keys = await promisify(generateKeyPair)('ec', { namedCurve: 'prime256v1' });
  const spki = keys.publicKey.export({ type: 'spki', format: 'der' });
  const issuer = ca ? loadIssuer(ca) : undefined;
  const subject = nameOf(req.subject);
  const tbs = sequence(
    explicit(0, unsignedInteger(Buffer.from([2]))),
    serialNumber(),
    SIGNATURE_ALGORITHM,
    issuer?.name ?? subject,
    sequence(time(req.notBefore), time(req.notAfter)),
    subject,
    spki,
    explicit(3, extensionsFor(req, keyIdOf(spki), issuer?.keyId)),
  );
  return { certPem: signedCertificate(tbs, issuer?.signingKey ?? keys.privateKey), keyPem: keys.privateKey.export({ type: 'pkcs8', format: 'pem' }) as string };
}

/** The certificate of a TBSCertificate signed with an ECDSA P-256 key, PEM. */
function signedCertificate(tbs: Buffer, key: KeyObject): string {
  // ECDSA signatures come DER-encoded (Ecdsa-Sig-Value), as X.509 carries them.
  const signature = sign('sha256', tbs, key);
  return pemEncode('CERTIFICATE', sequence(tbs, SIGNATURE_ALGORITHM, bitString(signature)));
}

// ---- certificates for signing requests (kube's CertificateAuthority.Sign with its PermissiveSigningPolicy) ----

/** What the signer decided of the certificate; the rest comes from the request. */
export interface SigningPolicy {
  readonly notBefore: Date;
  readonly notAfter: Date;
  /** KeyUsage bit numbers (RFC 5280: 0 digitalSignature ... 8 decipherOnly). */
  readonly keyUsage: readonly number[];
  /** Extended key usage OIDs, in the order they are written. */
  readonly extKeyUsage: readonly string[];
}

/** asn1.Marshal's choice for a Go string: PrintableString when every character allows it, else UTF8String. */
function goString(s: string): Buffer {
  return /^[A-Za-z0-9 '()+,\-./:=?]*$/.test(s) ? tlv(0x13, Buffer.from(s, 'latin1')) : utf8String(s);
}

/**
 * pkix.Name.ToRDNSequence: the attributes Go keeps, in its order, the values of one type together in one RDN (its SET
 * sorted, as DER wants).
 */
function goName(name: SubjectName): Buffer {
  const rdns: Buffer[] = [];
  const add = (type: string, values: readonly string[]): void => {
    if (values.length === 0) return;
    const atvs = values.map((v) => sequence(oid(type), goString(v))).sort(Buffer.compare);
    rdns.push(set(...atvs));
  };
  add(NAME_OID.country, name.country);
  add(NAME_OID.province, name.province);
  add(NAME_OID.locality, name.locality);
  add(NAME_OID.streetAddress, name.streetAddress);
  add(NAME_OID.postalCode, name.postalCode);
  add(OID.organization, name.organization);
  add(NAME_OID.organizationalUnit, name.organizationalUnit);
  if (name.commonName) add(OID.commonName, [name.commonName]);
  if (name.serialNumber) add(NAME_OID.serialNumber, [name.serialNumber]);
  return sequence(...rdns);
}

/** marshalSANs: DNS names, emails, IP addresses (IPv4 in 4 bytes), URIs. */
function requestAltNames(req: SigningRequest): Buffer[] {
  const ipv4Mapped = (ip: Buffer): Buffer => (ip.length === 16 && ip.subarray(0, 10).every((b) => b === 0) && ip[10] === 0xff && ip[11] === 0xff ? ip.subarray(12) : ip);
  return [
    ...req.dnsNames.map((n) => implicit(2, Buffer.from(n, 'latin1'))),
    ...req.emailAddresses.map((e) => implicit(1, Buffer.from(e, 'latin1'))),
    ...req.ipAddresses.map((ip) => implicit(7, ipv4Mapped(ip))),
    ...req.uris.map((u) => implicit(6, Buffer.from(u, 'latin1'))),
  ];
}

/**
 * A certificate for a signing request, as Go's x509.CreateCertificate makes kube's: the request's subject (as
 * pkix.Name re-encodes it), key and alternative names; the policy's validity and usages; not a CA; the issuer's key
 * identifier; none of the other requested extensions. PEM.
 */
export function signCertificateRequest(req: SigningRequest, policy: SigningPolicy, ca: PemPair): string {
  const issuer = loadIssuer(ca);
  const subject = goName(req.subject);
  const extensions: Buffer[] = [];
  if (policy.keyUsage.length > 0) extensions.push(extension(OID.keyUsage, true, namedBits(policy.keyUsage)));
  if (policy.extKeyUsage.length > 0) extensions.push(extension(OID.extKeyUsage, false, sequence(...policy.extKeyUsage.map(oid))));
  extensions.push(extension(OID.basicConstraints, true, sequence()));
  extensions.push(extension(OID.authorityKeyIdentifier, false, sequence(implicit(0, issuer.keyId))));
  const altNames = requestAltNames(req);
  // Critical when the subject is empty (RFC 5280 4.2.1.6).
  if (altNames.length > 0) extensions.push(extension(OID.subjectAltName, subject.length === 2, sequence(...altNames)));
  const tbs = sequence(
    explicit(0, unsignedInteger(Buffer.from([2]))),
    serialNumber(),
    SIGNATURE_ALGORITHM,
    issuer.name,
    sequence(time(policy.notBefore), time(policy.notAfter)),
    subject,
    req.publicKeyInfo,
    explicit(3, sequence(...extensions)),
  );
  return signedCertificate(tbs, issuer.signingKey);
}
