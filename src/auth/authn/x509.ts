// Client certificate authentication: a certificate verified against the client CAs names the user by its
// subject CommonName and the groups by its Organizations (kube's CommonNameUserConversion).

import type { X509Certificate } from 'node:crypto';
import { issuedByOneOf } from './request-header.ts';
import type { AuthnResult, Authenticator, ClientCertificate } from './types.ts';
import { NO_OPINION, authenticated, failed } from './types.ts';

/**
 * `clientCas`: when the listener also accepts certificates of other CAs (the authenticating proxy's), the CAs a user
 * certificate must come from.
 */
export function x509Authenticator(clientCas?: readonly X509Certificate[]): Authenticator {
  // A connection's certificate is one object (see clientCertificateOf): its requests share one read-only answer.
  const answers = new WeakMap<ClientCertificate, AuthnResult>();
  return {
    authenticate(req) {
      const cert = req.clientCertificate;
      if (!cert) return NO_OPINION;
      if (!cert.verified) return failed(`verifying client certificate failed: ${cert.verifyError ?? 'unknown authority'}`);
      if (clientCas && !(cert.raw && issuedByOneOf(cert.raw, clientCas))) return failed('verifying client certificate failed: certificate signed by unknown authority');
      if (cert.commonName === '') return NO_OPINION;
      let answer = answers.get(cert);
      if (!answer) answers.set(cert, (answer = authenticated({ name: cert.commonName, groups: [...cert.organizations] })));
      return answer;
    },
  };
}
