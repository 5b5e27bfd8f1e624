// Assembles the request authenticator the way kube-apiserver does: the credential authenticators in order
// (client certificate, static token file), system:authenticated added to whoever they accept, and anonymous
// last, reached only when no credential was presented at all.

import { anonymousAuthenticator } from './anonymous.ts';
import type { TokenFile } from './token-file.ts';
import { tokenFileAuthenticator } from './token-file.ts';
import type { Authenticator } from './types.ts';
import { unionAuthenticator, withAuthenticatedGroup } from './union.ts';
import { x509Authenticator } from './x509.ts';

export interface AuthenticationConfig {
  /** Accept TLS client certificates (verified by the listener against the client CAs). */
  readonly clientCertificates: boolean;
  readonly tokenFile?: TokenFile;
  readonly anonymous: boolean;
}

export function buildAuthenticator(config: AuthenticationConfig): Authenticator {
  const credentialAuthenticators: Authenticator[] = [];
  if (config.clientCertificates) credentialAuthenticators.push(x509Authenticator());
  if (config.tokenFile) credentialAuthenticators.push(tokenFileAuthenticator(config.tokenFile));
  const credentials = withAuthenticatedGroup(unionAuthenticator(credentialAuthenticators));
  if (!config.anonymous) return credentials;
  return unionAuthenticator([credentials, anonymousAuthenticator()], { failOnError: true });
}
