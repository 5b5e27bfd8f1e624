// PEM test material for CertificateSigningRequests and trust bundles (used by unit and end-to-end tests).

import { generateKeyPairSync, sign } from 'node:crypto';
import { bitString, oid, sequence, tlv } from '../../../server/der.ts';

/** A PEM block of this type around the base64 body. */
export const pemText = (type: string, body: string): string => `-----BEGIN ${type}-----\n${body}\n-----END ${type}-----\n`;

/** A PKCS#10 request signed by a new Ed25519 key, as PEM; `tamper` spoils its signature. */
export function signedRequestPem(tamper = false): string {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  const info = sequence(tlv(0x02, Buffer.from([0])), sequence(), publicKey.export({ type: 'spki', format: 'der' }), tlv(0xa0, Buffer.alloc(0)));
  const signature = sign(null, info, privateKey);
  if (tamper) signature[0] ^= 1;
  return pemText('CERTIFICATE REQUEST', sequence(info, sequence(oid('1.3.101.112')), bitString(signature)).toString('base64'));
}
