// The seam between the HTTP server (listeners, TLS, filters, health) and the API (endpoints + registry).

import type { Aggregator } from '../aggregator/aggregator.ts';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Http2ServerRequest, Http2ServerResponse } from 'node:http2';
import type { UserInfo } from '../auth/user.ts';
import type { RequestInfo } from '../endpoints/request-info.ts';
import type { Registry } from '../registry/types.ts';
import type { SimulatedContainers } from '../endpoints/scope.ts';
import type { OpenIdMetadata } from '../endpoints/openid-metadata.ts';
import type { Logger } from './log.ts';
import type { AdmissionChain } from '../admission/types.ts';

export type HttpRequest = IncomingMessage | Http2ServerRequest;
export type HttpResponse = ServerResponse | Http2ServerResponse;

/** A named readiness/liveness check, as listed by /readyz?verbose. Resolves when healthy, throws when not. */
export interface HealthCheck {
  readonly name: string;
  /** Throws (or rejects) when the check fails; a check that answers at once need not return a promise. */
  check(): void | Promise<void>;
}

/** What createApiServer is handed by start-up (src/cli/start.ts), which builds the registry and the control plane. */
export interface ApiServerOptions {
  /** The registry every part of the server shares (endpoints, authorizers, controllers). */
  readonly registry: Registry;
  /** --feature-gates, parsed: gate name -> enabled. */
  readonly featureGates: Readonly<Record<string, boolean>>;
  /** --min-request-timeout: watches get a random timeout between this and twice this, in seconds. */
  readonly minRequestTimeoutSeconds: number;
  /** A watcher whose unsent bytes exceed this is dropped (default 32 MiB). */
  readonly maxWatchBufferBytes?: number;
  /** The service account issuer discovery documents, when the server issues tokens. */
  readonly openIdMetadata?: () => OpenIdMetadata;
  /** Post-start hooks' /readyz checks (the control plane's), served among the API's own. */
  readonly postStartChecks?: readonly HealthCheck[];
  /** Structured logger (JSON lines on stderr); never log credentials. */
  readonly logger?: Logger;
  /** The data directory (certificates, sqlite database, admin.kubeconfig). */
  readonly dataDir?: string;
  /** The admission chain every write runs through (src/admission); absent: none. */
  readonly admission?: AdmissionChain;
  /** The aggregation layer (src/aggregator); absent: APIServices are stored but not served. */
  readonly aggregator?: Aggregator;
  /** What containers on simulated nodes print and answer (the containers test control); absent: nothing. */
  readonly simulatedContainers?: SimulatedContainers;
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
