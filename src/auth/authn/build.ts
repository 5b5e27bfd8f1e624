// Assembles the request authenticator the way kube-apiserver does: the credential authenticators in order
// (client certificate, static token file), system:authenticated added to whoever they accept, and anonymous
// last, reached only when no credential was presented at all.

import { anonymousAuthenticator } from './anonymous.ts';
import type { TokenFile } from './token-file.ts';
import { tokenFileAuthenticator } from './token-file.ts';
import { requestBearerToken } from './token-key.ts';
import { andThen } from '../maybe-async.ts';
import { NO_OPINION, failed, type Authenticator } from './types.ts';
import { unionAuthenticator, withAuthenticatedGroup } from './union.ts';
import { x509Authenticator } from './x509.ts';
import { parseCertificates, requestHeaderAuthenticator, type RequestHeaderConfig } from './request-header.ts';

export interface AuthenticationConfig {
  /** Accept TLS client certificates (verified by the listener against the client CAs). */
  readonly clientCertificates: boolean;
  /** The authenticating proxy (--requestheader-*), tried first. */
  readonly requestHeader?: RequestHeaderConfig;
  /** The client CAs, given when the listener also accepts the proxy's CA (user certificates must come from these). */
  readonly clientCaPems?: readonly string[];
  readonly tokenFile?: TokenFile;
  /** More bearer token authenticators (service account tokens), after the token file. */
  readonly tokenAuthenticators?: readonly Authenticator[];
  readonly anonymous: boolean;
}

/** kube's bearertoken authenticator: a bearer token that no token authenticator accepts is an error, not "no credential". */
function bearerTokenAuthenticator(tokens: Authenticator): Authenticator {
  return {
    authenticate(req) {
      if (requestBearerToken(req) === undefined) return NO_OPINION;
      return andThen(tokens.authenticate(req), (r) => (r.kind === 'none' ? failed('invalid bearer token') : r));
    },
  };
}

export function buildAuthenticator(config: AuthenticationConfig): Authenticator {
  const credentialAuthenticators: Authenticator[] = [];
  if (config.requestHeader) credentialAuthenticators.push(requestHeaderAuthenticator(config.requestHeader));
  if (config.clientCertificates) credentialAuthenticators.push(x509Authenticator(config.requestHeader && config.clientCaPems ? parseCertificates(config.clientCaPems) : undefined));
  const tokens: Authenticator[] = [];
  if (config.tokenFile) tokens.push(tokenFileAuthenticator(config.tokenFile));
  tokens.push(...(config.tokenAuthenticators ?? []));
  if (tokens.length > 0) credentialAuthenticators.push(bearerTokenAuthenticator(unionAuthenticator(tokens)));
  const credentials = withAuthenticatedGroup(unionAuthenticator(credentialAuthenticators));
  if (!config.anonymous) return credentials;
  return unionAuthenticator([credentials, anonymousAuthenticator()], { failOnError: true });
}
