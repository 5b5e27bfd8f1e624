// The service account issuer discovery documents (kube's pkg/routes/openidmetadata.go): the OpenID configuration
// at /.well-known/openid-configuration and the public keys at /openid/v1/jwks, cacheable for an hour.

import type { HttpRequest, HttpResponse } from '../server/types.ts';
import type { PathHandler } from './handler.ts';
import type { RequestInfo } from './request-info.ts';

export const OPENID_CONFIGURATION_PATH = '/.well-known/openid-configuration';
export const JWKS_PATH = '/openid/v1/jwks';

export interface OpenIdMetadata {
  readonly configuration: unknown;
  readonly jwks: unknown;
}

function send(res: HttpResponse, contentType: string, value: unknown): void {
  const body = JSON.stringify(value);
  res.statusCode = 200;
  res.setHeader('Content-Type', contentType);
  res.setHeader('Cache-Control', 'public, max-age=3600');
  res.setHeader('Content-Length', Buffer.byteLength(body));
  res.end(body);
}

export function openIdMetadataHandler(metadata: () => OpenIdMetadata): PathHandler {
  return async (req: HttpRequest, res: HttpResponse, info: RequestInfo) => {
    // kube serves them through go-restful, whose routing trims trailing slashes: `/openid/v1/jwks/` is the same route
    const path = info.path.endsWith('/') ? info.path.replace(/\/+$/, '') : info.path;
    if (path !== OPENID_CONFIGURATION_PATH && path !== JWKS_PATH) return false;
    if (req.method !== 'GET' && req.method !== 'HEAD') return false;
    const m = metadata();
    if (path === OPENID_CONFIGURATION_PATH) send(res, 'application/json', m.configuration);
    else send(res, 'application/jwk-set+json', m.jwks);
    return true;
  };
}
