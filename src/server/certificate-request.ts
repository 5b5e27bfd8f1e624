// PKCS#10 certificate signing requests (RFC 2986), read as Go's x509.ParseCertificateRequest reads them: the
// subject's attributes pkix.Name keeps, the public key, the subject alternative names of the extension request,
// and the signature, checked apart (CheckSignature) as kube's signer checks it only when it signs.

import { createPublicKey, verify } from 'node:crypto';
import { children, element, oidText, type Element } from './der.ts';
import { pemBlocks } from './pem.ts';

/** The attributes of a subject that Go's pkix.Name keeps (others are dropped when a certificate is made from it). */
export interface SubjectName {
  readonly country: readonly string[];
  readonly province: readonly string[];
  readonly locality: readonly string[];
  readonly streetAddress: readonly string[];
  readonly postalCode: readonly string[];
  readonly organization: readonly string[];
  readonly organizationalUnit: readonly string[];
  readonly commonName: string;
  readonly serialNumber: string;
}

export interface SigningRequest {
  readonly subject: SubjectName;
  /** SubjectPublicKeyInfo, DER. */
  readonly publicKeyInfo: Buffer;
  readonly dnsNames: readonly string[];
  readonly emailAddresses: readonly string[];
  /** 4 or 16 bytes each. */
  readonly ipAddresses: readonly Buffer[];
  readonly uris: readonly string[];
  /** The signed part, its algorithm and the signature. */
  readonly signed: { readonly info: Buffer; readonly algorithm: string; readonly signature: Buffer };
}

const OID = {
  extensionRequest: '1.2.840.113549.1.9.14',
  subjectAltName: '2.5.29.17',
};

/** Go's attribute numbers under 2.5.4 that pkix.Name keeps. */
const NAME_ATTRIBUTES: Record<string, keyof SubjectName> = {
  '2.5.4.3': 'commonName',
  '2.5.4.5': 'serialNumber',
  '2.5.4.6': 'country',
  '2.5.4.7': 'locality',
  '2.5.4.8': 'province',
  '2.5.4.9': 'streetAddress',
  '2.5.4.10': 'organization',
  '2.5.4.11': 'organizationalUnit',
  '2.5.4.17': 'postalCode',
};

/** Signature algorithms a CSR may use: the digest (null for Ed25519). */
const SIGNATURE_DIGESTS: Record<string, string | null> = {
  '1.2.840.113549.1.1.5': 'sha1',
  '1.2.840.113549.1.1.11': 'sha256',
  '1.2.840.113549.1.1.12': 'sha384',
  '1.2.840.113549.1.1.13': 'sha512',
  '1.2.840.10045.4.1': 'sha1',
  '1.2.840.10045.4.3.2': 'sha256',
  '1.2.840.10045.4.3.3': 'sha384',
  '1.2.840.10045.4.3.4': 'sha512',
  '1.3.101.112': null,
};

/** parseASN1String: the string types a name attribute may have; undefined for other values. */
function asn1String(e: Element): string | undefined {
  switch (e.tag) {
    case 0x0c: // UTF8String
      return e.contents.toString('utf8');
    case 0x12: // NumericString
    case 0x13: // PrintableString
    case 0x14: // T61String
    case 0x16: // IA5String
      return e.contents.toString('latin1');
    case 0x1e: // BMPString, UTF-16 big-endian
      return Buffer.from(e.contents).swap16().toString('utf16le');
    default:
      return undefined;
  }
}

function subjectOf(name: Element): SubjectName {
  const lists: Record<string, string[]> = { country: [], province: [], locality: [], streetAddress: [], postalCode: [], organization: [], organizationalUnit: [] };
  let commonName = '';
  let serialNumber = '';
  for (const rdn of children(name.contents)) {
    for (const atv of children(rdn.contents)) {
      const [type, value] = children(atv.contents);
      if (type?.tag !== 0x06 || !value) throw new Error('x509: invalid RDNSequence');
      const field = NAME_ATTRIBUTES[oidText(type.contents)];
      const text = asn1String(value);
      if (field === undefined || text === undefined) continue;
      if (field === 'commonName') commonName = text;
      else if (field === 'serialNumber') serialNumber = text;
      else lists[field]!.push(text);
    }
  }
  return { ...(lists as unknown as Omit<SubjectName, 'commonName' | 'serialNumber'>), commonName, serialNumber };
}

interface AltNames {
  dnsNames: string[];
  emailAddresses: string[];
  ipAddresses: Buffer[];
  uris: string[];
}

/** parseSANExtension. */
function readAltNames(value: Buffer, into: AltNames): void {
  for (const name of children(element(value).contents)) {
    switch (name.tag) {
      case 0x81:
        into.emailAddresses.push(name.contents.toString('latin1'));
        break;
      case 0x82:
        into.dnsNames.push(name.contents.toString('latin1'));
        break;
      case 0x86:
        into.uris.push(name.contents.toString('latin1'));
        break;
      case 0x87:
        if (name.contents.length !== 4 && name.contents.length !== 16) throw new Error(`x509: cannot parse IP address of length ${name.contents.length}`);
        into.ipAddresses.push(Buffer.from(name.contents));
        break;
    }
  }
}

/** The requested extensions' subject alternative names (attributes [0] of the request info). */
function altNamesOf(attributes: Element | undefined): AltNames {
  const names: AltNames = { dnsNames: [], emailAddresses: [], ipAddresses: [], uris: [] };
  for (const attribute of attributes ? children(attributes.contents) : []) {
    const [type, values] = children(attribute.contents);
    if (type?.tag !== 0x06 || oidText(type.contents) !== OID.extensionRequest || !values) continue;
    for (const extensions of children(values.contents)) {
      for (const extension of children(extensions.contents)) {
        const parts = children(extension.contents);
        const value = parts[parts.length - 1];
        if (parts[0]?.tag === 0x06 && oidText(parts[0].contents) === OID.subjectAltName && value?.tag === 0x04) readAltNames(value.contents, names);
      }
    }
  }
  return names;
}

/** certificates.ParseCSR: the first PEM block, which must be a CERTIFICATE REQUEST, parsed. */
export function parseCertificateRequest(pem: string): SigningRequest {
  const block = pemBlocks(pem)[0];
  if (!block || block.type !== 'CERTIFICATE REQUEST') throw new Error('PEM block type must be CERTIFICATE REQUEST');
  const der = Buffer.from(block.body, 'base64');
  const [info, algorithm, signature] = children(element(der).contents);
  if (info?.tag !== 0x30 || algorithm?.tag !== 0x30 || signature?.tag !== 0x03) throw new Error('x509: malformed certificate request');
  const [version, subject, publicKeyInfo, attributes] = children(info.contents);
  if (version?.tag !== 0x02 || subject?.tag !== 0x30 || publicKeyInfo?.tag !== 0x30) throw new Error('x509: malformed certificate request');
  const algorithmOid = children(algorithm.contents)[0];
  return {
    subject: subjectOf(subject),
    publicKeyInfo: Buffer.from(publicKeyInfo.raw),
    ...altNamesOf(attributes?.tag === 0xa0 ? attributes : undefined),
    signed: { info: Buffer.from(info.raw), algorithm: algorithmOid?.tag === 0x06 ? oidText(algorithmOid.contents) : '', signature: Buffer.from(signature.contents.subarray(1)) },
  };
}

/** CheckSignature: throws unless the request is signed by the key it carries. */
export function checkRequestSignature(request: SigningRequest): void {
  const { info, algorithm, signature } = request.signed;
  if (!(algorithm in SIGNATURE_DIGESTS)) throw new Error('x509: cannot verify signature: algorithm unimplemented');
  let valid: boolean;
  try {
    const key = createPublicKey({ key: request.publicKeyInfo, format: 'der', type: 'spki' });
    valid = verify(SIGNATURE_DIGESTS[algorithm]!, info, { key, dsaEncoding: 'der' }, signature);
  } catch {
    valid = false;
  }
  if (!valid) throw new Error('x509: invalid signature');
}
