// The seam between the HTTP server (listeners, TLS, filters, health) and the API (endpoints + registry).

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Http2ServerRequest, Http2ServerResponse } from 'node:http2';
import type { UserInfo } from '../auth/user.ts';
import type { RequestInfo } from '../endpoints/request-info.ts';
import type { Storage } from '../storage/types.ts';
import type { Authenticator } from '../auth/authn/types.ts';
import type { Authorizer } from '../auth/authz/types.ts';
import type { Logger } from './log.ts';

export type HttpRequest = IncomingMessage | Http2ServerRequest;
export type HttpResponse = ServerResponse | Http2ServerResponse;

/** A named readiness/liveness check, as listed by /readyz?verbose. Resolves when healthy, throws when not. */
export interface HealthCheck {
  readonly name: string;
  check(): Promise<void>;
}

export interface ApiServerOptions {
  readonly storage: Storage;
  /** --runtime-config, e.g. "api/all=true,batch/v1beta1=false" ('' for defaults). */
  readonly runtimeConfig: string;
  /** --feature-gates, parsed: gate name -> enabled. */
  readonly featureGates: Readonly<Record<string, boolean>>;
  /** --history-window: seconds of change history storage keeps (also given to openStorage). */
  readonly historyWindowSeconds?: number;
  /** --min-request-timeout: watches get a random timeout between this and twice this, in seconds. */
  readonly minRequestTimeoutSeconds?: number;
  /** The server's authorizer (for SubjectAccessReview, SelfSubjectAccessReview, ...). */
  readonly authorizer?: Authorizer;
  /**
   * The server's bearer token authenticators alone (TokenReview authenticates `Authorization: Bearer <token>`
   * with it; client certificates play no part).
   */
  readonly tokenAuthenticator?: Authenticator;
  /** The port the API is served on, when known before listening (the `kubernetes` Service's target port; default 6443). */
  readonly securePort?: number;
  /** The IPv4 address the `kubernetes` Endpoints list (kube's --advertise-address; default 127.0.0.1). */
  readonly advertiseAddress?: string;
  /** Structured logger (JSON lines on stderr); never log credentials. */
  readonly logger?: Logger;
  /** The data directory (certificates, sqlite database, admin.kubeconfig). */
  readonly dataDir?: string;
  /** More options live here as the API grows. */
  readonly [option: string]: unknown;
}

/** What createApiServer (src/endpoints/api-server.ts) returns: the handler the filter chain calls after authn/authz. */
export interface ApiServer {
  /** Serve one authenticated, authorized request (resource and API discovery/OpenAPI paths). Never throws: errors are written as Status. */
  handle(req: HttpRequest, res: HttpResponse, info: RequestInfo, user: UserInfo): Promise<void>;
  /** Extra /readyz checks (storage, informer sync, ...) and /livez checks. */
  readonly readyChecks: readonly HealthCheck[];
  readonly liveChecks: readonly HealthCheck[];
  close(): Promise<void>;
}
