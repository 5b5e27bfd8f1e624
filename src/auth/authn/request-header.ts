// The authenticating proxy (k8s.io/apiserver/pkg/authentication/request/headerrequest and x509request): a request
// whose client certificate verifies against --requestheader-client-ca-file (with a CN in
// --requestheader-allowed-names, when given) names its user in the first non-empty --requestheader-username-headers
// header, its groups in every --requestheader-group-headers value, and extra values in headers starting with a
// --requestheader-extra-headers-prefix. Without such a certificate the headers mean nothing.

import { X509Certificate } from 'node:crypto';
import type { UserInfo } from '../user.ts';
import { NO_OPINION, authenticated, failed, type Authenticator } from './types.ts';

export interface RequestHeaderConfig {
  readonly caPems: readonly string[];
  readonly allowedNames: readonly string[];
  readonly usernameHeaders: readonly string[];
  readonly groupHeaders: readonly string[];
  readonly extraHeaderPrefixes: readonly string[];
}

/** Whether a DER certificate was issued (and signed) by one of the CAs and is valid now. */
export function issuedByOneOf(raw: Buffer, cas: readonly X509Certificate[], now = Date.now()): boolean {
  let cert: X509Certificate;
  try {
    cert = new X509Certificate(raw);
  } catch {
    return false;
  }
  if (now < Date.parse(cert.validFrom) || now > Date.parse(cert.validTo)) return false;
  return cas.some((ca) => {
    try {
      return cert.checkIssued(ca) && cert.verify(ca.publicKey);
    } catch {
      return false;
    }
  });
}

export function parseCertificates(pems: readonly string[]): X509Certificate[] {
  return pems.map((p) => new X509Certificate(p));
}

/** Header values by lowercased name, repeated headers kept apart. */
function headerValues(rawHeaders: readonly string[]): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    const name = rawHeaders[i].toLowerCase();
    const list = out.get(name);
    if (list) list.push(rawHeaders[i + 1]);
    else out.set(name, [rawHeaders[i + 1]]);
  }
  return out;
}

function unescape(key: string): string {
  try {
    return decodeURIComponent(key);
  } catch {
    return key;
  }
}

export function requestHeaderAuthenticator(config: RequestHeaderConfig): Authenticator {
  const cas = parseCertificates(config.caPems);
  const usernameHeaders = config.usernameHeaders.map((h) => h.toLowerCase());
  const groupHeaders = config.groupHeaders.map((h) => h.toLowerCase());
  const prefixes = config.extraHeaderPrefixes.map((h) => h.toLowerCase());
  return {
    authenticate(req) {
      const cert = req.clientCertificate;
      if (!cert?.raw) return NO_OPINION;
      if (!issuedByOneOf(cert.raw, cas)) return failed('x509: certificate signed by unknown authority (request header client CA)');
      if (config.allowedNames.length > 0 && !config.allowedNames.includes(cert.commonName)) return failed(`x509: subject with cn=${cert.commonName} is not in the allowed list`);
      const headers = headerValues(req.rawHeaders ?? []);
      let name = '';
      for (const h of usernameHeaders) {
        name = (headers.get(h) ?? []).find((v) => v !== '') ?? '';
        if (name !== '') break;
      }
      if (name === '') return NO_OPINION;
      const groups: string[] = [];
      for (const h of groupHeaders) for (const v of headers.get(h) ?? []) if (v !== '') groups.push(v);
      const extra: Record<string, string[]> = {};
      for (const [h, values] of headers) {
        for (const prefix of prefixes) {
          if (!h.startsWith(prefix) || h.length === prefix.length) continue;
          const key = unescape(h.slice(prefix.length));
          (extra[key] ??= []).push(...values);
        }
      }
      const user: UserInfo = { name, groups, ...(Object.keys(extra).length > 0 ? { extra } : {}) };
      return authenticated(user);
    },
  };
}
