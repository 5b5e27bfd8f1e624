// Client certificate authentication: a certificate verified against the client CAs names the user by its
// subject CommonName and the groups by its Organizations (kube's CommonNameUserConversion).

import type { Authenticator } from './types.ts';
import { NO_OPINION, authenticated, failed } from './types.ts';

export function x509Authenticator(): Authenticator {
  return {
    authenticate(req) {
      const cert = req.clientCertificate;
      if (!cert) return NO_OPINION;
      if (!cert.verified) return failed(`verifying client certificate failed: ${cert.verifyError ?? 'unknown authority'}`);
      if (cert.commonName === '') return NO_OPINION;
      return authenticated({ name: cert.commonName, groups: [...cert.organizations] });
    },
  };
}
