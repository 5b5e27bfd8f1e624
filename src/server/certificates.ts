// Issuing X.509 v3 certificates with @peculiar/x509 on Node's WebCrypto: ECDSA P-256 keys, SHA-256 signatures,
// and the few extensions a cluster PKI needs (basic constraints, key usage, extended key usage, SANs, key
// identifiers). The library (with the reflect-metadata polyfill its dependency tsyringe needs first) takes over
// 100 ms to import, so it is loaded on the first certificate to issue: restarts that reuse theirs never load it.

import { KeyObject, createPrivateKey, randomBytes, webcrypto } from 'node:crypto';
import { isIP } from 'node:net';
import type * as X509 from '@peculiar/x509';

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

const EC_KEY = { name: 'ECDSA', namedCurve: 'P-256' } as const;
const SIGNATURE = { name: 'ECDSA', hash: 'SHA-256' } as const;

let library: Promise<typeof X509> | undefined;

function loadX509(): Promise<typeof X509> {
  library ??= (async () => {
    await import('reflect-metadata');
    const x509 = await import('@peculiar/x509');
    x509.cryptoProvider.set(webcrypto);
    return x509;
  })();
  return library;
}

/** One RDN per attribute, organizations first then the common name (as openssl and Go print it: O=..., CN=...), all UTF8String. */
function nameOf(x509: typeof X509, name: DistinguishedName): X509.Name {
  return new x509.Name([...(name.organizations ?? []).map((o) => ({ O: [{ utf8String: o }] })), { CN: [{ utf8String: name.commonName }] }]);
}

/** 16 random bytes as a positive INTEGER without a leading zero octet. */
function serialNumber(): string {
  const serial = randomBytes(16);
  serial[0] = (serial[0] & 0x7f) | 0x01;
  return serial.toString('hex');
}

async function extensionsFor(x509: typeof X509, req: CertificateRequest, publicKey: webcrypto.CryptoKey, authorityKeyId: string | undefined): Promise<X509.Extension[]> {
  const usages = req.isCa ? x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign : x509.KeyUsageFlags.digitalSignature;
  const out: X509.Extension[] = [new x509.BasicConstraintsExtension(req.isCa, undefined, true), new x509.KeyUsagesExtension(usages, true)];
  if (req.usage) out.push(new x509.ExtendedKeyUsageExtension([req.usage === 'server' ? x509.ExtendedKeyUsage.serverAuth : x509.ExtendedKeyUsage.clientAuth], false));
  if (req.altNames && req.altNames.length > 0) {
    out.push(new x509.SubjectAlternativeNameExtension(req.altNames.map((n): X509.JsonGeneralName => ({ type: isIP(n) ? 'ip' : 'dns', value: n })), false));
  }
  // SHA-1 of the public key bits (RFC 5280 4.2.1.2 method 1).
  out.push(await x509.SubjectKeyIdentifierExtension.create(publicKey, false));
  if (authorityKeyId !== undefined) out.push(new x509.AuthorityKeyIdentifierExtension(authorityKeyId, false));
  return out;
}

interface LoadedIssuer {
  readonly name: X509.Name;
  readonly signingKey: webcrypto.CryptoKey;
  readonly keyId: string;
}

async function loadIssuer(x509: typeof X509, ca: PemPair): Promise<LoadedIssuer> {
  const cert = new x509.X509Certificate(ca.certPem);
  const pkcs8 = createPrivateKey(ca.keyPem).export({ type: 'pkcs8', format: 'der' });
  const signingKey = await webcrypto.subtle.importKey('pkcs8', pkcs8, EC_KEY, false, ['sign']);
  const ski = cert.getExtension(x509.SubjectKeyIdentifierExtension);
  const keyId = ski?.keyId ?? (await x509.SubjectKeyIdentifierExtension.create(cert.publicKey, false)).keyId;
  // The issuer Name is taken from the CA certificate as it is encoded there.
  return { name: cert.subjectName, signingKey, keyId };
}

/**
 * Makes a new key pair and a certificate for it, signed by the given CA, or self-signed without one (a
 * self-signed CA carries no authority key identifier).
 */
export async function issueCertificate(req: CertificateRequest, ca?: PemPair): Promise<PemPair> {
  const x509 = await loadX509();
  const keys = (await webcrypto.subtle.generateKey(EC_KEY, true, ['sign', 'verify'])) as webcrypto.CryptoKeyPair;
  const issuer = ca ? await loadIssuer(x509, ca) : undefined;
  const subject = nameOf(x509, req.subject);
  const cert = await x509.X509CertificateGenerator.create({
    serialNumber: serialNumber(),
    subject,
    issuer: issuer?.name ?? subject,
    notBefore: req.notBefore,
    notAfter: req.notAfter,
    publicKey: keys.publicKey,
    signingKey: issuer?.signingKey ?? keys.privateKey,
    signingAlgorithm: SIGNATURE,
    extensions: await extensionsFor(x509, req, keys.publicKey, issuer?.keyId),
  });
  const keyPem = KeyObject.from(keys.privateKey).export({ type: 'pkcs8', format: 'pem' }) as string;
  return { certPem: `${cert.toString('pem')}\n`, keyPem };
}
