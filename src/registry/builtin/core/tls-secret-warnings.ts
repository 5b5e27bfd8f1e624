// The warning kube-apiserver sends with a valid write of a kubernetes.io/tls Secret whose tls.crt and tls.key do not
// make a key pair: the error Go's tls.X509KeyPair returns for them, read with Go's PEM rules.

import { X509Certificate, createPrivateKey, createPublicKey, type KeyObject } from 'node:crypto';
import { pemBlocks as readPem } from '../../../server/pem.ts';
import { isObj, type Obj } from '../object.ts';

/** The PEM blocks Go's pem.Decode accepts (a body that is not base64 is skipped), with their DER. */
function pemBlocks(text: string): { type: string; der: Buffer }[] {
  return readPem(text)
    .filter((b) => /^[A-Za-z0-9+/]*={0,2}$/.test(b.body) && b.body.length % 4 === 0)
    .map((b) => ({ type: b.type, der: Buffer.from(b.body, 'base64') }));
}

/** tls.parsePrivateKey: PKCS #1, then PKCS #8, then SEC 1. */
function parsePrivateKey(der: Buffer): KeyObject | undefined {
  for (const type of ['pkcs1', 'pkcs8', 'sec1'] as const) {
    try {
      return createPrivateKey({ key: der, format: 'der', type });
    } catch {
      // the next form
    }
  }
  return undefined;
}

/** tls.X509KeyPair's error for the pair, or undefined when it makes one. */
export function x509KeyPairError(certPem: string, keyPem: string): string | undefined {
  const certBlocks = pemBlocks(certPem);
  const certs = certBlocks.filter((b) => b.type === 'CERTIFICATE');
  if (certs.length === 0) {
    const skipped = certBlocks.map((b) => b.type);
    if (skipped.length === 0) return 'tls: failed to find any PEM data in certificate input';
    if (skipped.length === 1 && skipped[0]!.endsWith('PRIVATE KEY')) {
      return 'tls: failed to find certificate PEM data in certificate input, but did find a private key; PEM inputs may have been switched';
    }
    return `tls: failed to find "CERTIFICATE" PEM block in certificate input after skipping PEM blocks of the following types: [${skipped.join(' ')}]`;
  }
  const skipped: string[] = [];
  let keyBlock: { type: string; der: Buffer } | undefined;
  for (const b of pemBlocks(keyPem)) {
    if (b.type === 'PRIVATE KEY' || b.type.endsWith(' PRIVATE KEY')) {
      keyBlock = b;
      break;
    }
    skipped.push(b.type);
  }
  if (!keyBlock) {
    if (skipped.length === 0) return 'tls: failed to find any PEM data in key input';
    if (skipped.length === 1 && skipped[0] === 'CERTIFICATE') return 'tls: found a certificate rather than a key in the PEM for the private key';
    return `tls: failed to find PEM block with type ending in "PRIVATE KEY" in key input after skipping PEM blocks of the following types: [${skipped.join(' ')}]`;
  }
  let publicKey: KeyObject;
  try {
    publicKey = new X509Certificate(certs[0]!.der).publicKey;
  } catch {
    return 'x509: malformed certificate';
  }
  const privateKey = parsePrivateKey(keyBlock.der);
  if (!privateKey) return 'tls: failed to parse private key';
  if (!['rsa', 'ec', 'ed25519'].includes(publicKey.asymmetricKeyType ?? '')) return 'tls: unknown public key algorithm';
  if (publicKey.asymmetricKeyType !== privateKey.asymmetricKeyType) return 'tls: private key type does not match public key type';
  const derived = createPublicKey(privateKey).export({ format: 'der', type: 'spki' });
  if (!derived.equals(publicKey.export({ format: 'der', type: 'spki' }))) return 'tls: private key does not match public key';
  return undefined;
}

const decoded = (v: unknown): string => (typeof v === 'string' ? Buffer.from(v, 'base64').toString('latin1') : '');

/** warningsForSecret (create and update alike). */
export function secretWarnings(secret: Obj): string[] {
  if (secret.type !== 'kubernetes.io/tls') return [];
  const data = isObj(secret.data) ? secret.data : {};
  const error = x509KeyPairError(decoded(data['tls.crt']), decoded(data['tls.key']));
  return error ? [error] : [];
}
