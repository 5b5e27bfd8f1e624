// The per-request filter chain: request id, panic recovery, RequestInfo, authentication, authorization,
// then health, /version, or the API.

import { randomUUID } from 'node:crypto';
import { badRequest, internalError, isStatusError, StatusError, tooManyRequests, unauthorized } from '../apis/errors.ts';
import type { Authenticator } from '../auth/authn/types.ts';
import { forbiddenError } from '../auth/authz/forbidden.ts';
import type { Authorizer } from '../auth/authz/types.ts';
import type { UserInfo } from '../auth/user.ts';
import { attributesFor } from '../auth/authz/types.ts';
import { dropImpersonationHeaders, impersonatedUser } from '../auth/impersonation.ts';
import type { RequestInfo } from '../endpoints/request-info.ts';
import { parseRequestInfo } from '../endpoints/request-info.ts';
import { clientCertificateOf, tlsSocketOf } from './client-cert.ts';
import type { HealthEndpoints } from './health.ts';
import type { Logger } from './log.ts';
import type { Auditor } from './audit/auditor.ts';
import { addAuditAnnotation, beginRequestNotes, Capture } from './audit/request-notes.ts';
import type { FlowControl } from './flowcontrol/dispatcher.ts';
import { createAdmissionFilter } from './flowcontrol/filter.ts';
import type { ServerMetrics } from './metrics.ts';
import { send, writeJson, writeStatus } from './respond.ts';
import { requestQuery } from './request-query.ts';
import { abandonRequest, isRequestBodyRead, onResponseWritten } from './unread-body.ts';
import { whenClosed } from './response-close.ts';
import { endIfStarted, responseEnded } from './write-batching.ts';
import type { IdleRelease } from './idle-release.ts';
import type { ApiServer, HttpRequest, HttpResponse } from './types.ts';
import { versionInfo } from './version.ts';

export interface PipelineOptions {
  readonly authenticator: Authenticator;
  readonly authorizer: Authorizer;
  readonly health: HealthEndpoints;
  readonly api: ApiServer;
  readonly log: Logger;
  /** --request-timeout: how long a non-long-running request may take before it is answered 504 (default 60 s). */
  readonly requestTimeoutMs?: number;
  /** Told of every request, to hand memory back when a busy period ends. */
  readonly idleRelease?: IdleRelease;
  /** Request metrics and the /metrics endpoint. */
  readonly metrics?: ServerMetrics;
  /** The test controls' seams (src/testing/request-hooks.ts); absent when they are off. */
  readonly hooks?: RequestHooks;
  /**
   * --shutdown-send-retry-after: true while the server drains at shutdown; new requests (but health checks) are
   * then answered 429 with Retry-After, as kube's WithRetryAfter filter does.
   */
  readonly draining?: () => boolean;
  /** The audit filter (--audit-policy-file with a log or webhook backend). */
  readonly audit?: Auditor;
  /** API Priority and Fairness (default), or undefined with the plain max-in-flight limits below. */
  readonly flowControl?: FlowControl;
  /** --max-requests-inflight / --max-mutating-requests-inflight without APF (0: no limit). */
  readonly maxInFlight?: { readonly readOnly: number; readonly mutating: number };
}

/** What the filter chain notes about one request for the hooks (filled in as the request goes). */
export interface RequestNote {
  readonly auditId: string;
  readonly receivedMs: number;
  /** The logical cluster ('' for the default). */
  cluster: string;
  info?: RequestInfo;
  user?: UserInfo;
  /** The fault injected into it. */
  fault?: string;
  requestBody?: Buffer;
  responseBody?: Buffer;
}

export interface RequestHooks {
  /** The API of the logical cluster a path addresses, with the path inside it; undefined for the default cluster. */
  route?(path: string): { readonly cluster: string; readonly path: string; readonly api: ApiServer } | undefined;
  /** Serves the hooks' own non-resource paths after authorization; true when it answered. */
  serve?(req: HttpRequest, res: HttpResponse, path: string, query: URLSearchParams, user: UserInfo): Promise<boolean>;
  /** Runs the API call (next); may delay it, answer instead of it, or tamper with its response. */
  around?(req: HttpRequest, res: HttpResponse, query: URLSearchParams, note: RequestNote, next: () => Promise<void>): Promise<void>;
  /** Every request, once answered (or failed). */
  finished?(req: HttpRequest, res: HttpResponse, note: RequestNote, durationMs: number): void;
}

const HEALTH_PATHS = /^\/(healthz|livez|readyz)(\/|$)/;

export const DEFAULT_REQUEST_TIMEOUT_MS = 60_000;

/** The timeout filter's answer (k8s.io/apiserver/pkg/server/filters/timeout.go: NewTimeoutError(..., 0)). */
export function requestTimeoutError(): StatusError {
  return new StatusError(504, 'Timeout', 'Timeout: request did not complete within requested timeout - context deadline exceeded', {});
}

export interface RequestHandler {
  (req: HttpRequest, res: HttpResponse): void;
  /** Requests being served now, not counting long-running ones (watch, exec, logs, ...). */
  inFlight(): number;
}

const AUDIT_ID = /^[\x21-\x7e]{1,128}$/;
const LONG_RUNNING_VERBS = new Set(['watch', 'proxy']);
const LONG_RUNNING_SUBRESOURCES = new Set(['attach', 'exec', 'proxy', 'log', 'portforward']);

/** kube's default long-running check: such requests are not waited for at shutdown. */
export function isLongRunning(info: RequestInfo): boolean {
  return LONG_RUNNING_VERBS.has(info.verb) || (info.isResourceRequest && LONG_RUNNING_SUBRESOURCES.has(info.subresource));
}

function pathOf(url: string): string {
  const q = url.indexOf('?');
  return q < 0 ? url : url.slice(0, q);
}

function decodePath(rawPath: string): string {
  if (!rawPath.includes('%')) return rawPath;
  try {
    return decodeURIComponent(rawPath);
  } catch {
    const bad = /%(?![0-9a-fA-F]{2})..?/.exec(rawPath)?.[0] ?? '%';
    throw badRequest(`invalid URL escape ${JSON.stringify(bad)}`);
  }
}

export function createRequestHandler(options: PipelineOptions): RequestHandler {
  const { authenticator, authorizer, health, api, log, metrics, hooks, audit, flowControl, maxInFlight } = options;
  const admitRequest = createAdmissionFilter(flowControl, maxInFlight);
  const requestTimeoutMs = options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
  const idleRelease = options.idleRelease;
  const touchIdle = idleRelease ? () => idleRelease.touch() : undefined;
  let inFlight = 0;

  /** Requests answered by the timeout: their connection (or stream) is given up, small body or not. */
  const timedOut = new WeakSet<HttpRequest>();

  /** WithTimeoutForNonLongRunningRequests: a 504 Status, then the connection (or stream) is given up. */
  function timeOut(req: HttpRequest, res: HttpResponse): void {
    if (responseEnded(res)) return;
    timedOut.add(req);
    log.v(2, 'request timed out', { method: req.method, path: req.url?.split('?')[0] });
    if (res.headersSent) {
      abandonRequest(req, true);
      return;
    }
    writeStatus(res, requestTimeoutError());
  }

  async function serve(req: HttpRequest, res: HttpResponse, note: RequestNote, stopTimer: () => void, started: number, audited: { panic?: (e: unknown) => void }): Promise<{ info?: RequestInfo; user?: string }> {
    const rawPath = pathOf(req.url ?? '/');
    const query = requestQuery(req);
    let path = decodePath(rawPath || '/');
    const routed = hooks?.route?.(path);
    if (routed) {
      path = routed.path;
      note.cluster = routed.cluster;
    }
    const info = parseRequestInfo(req.method ?? 'GET', path, query);
    if (options.draining?.() && !HEALTH_PATHS.test(path)) {
      // k8s.io/apiserver/pkg/server/filters/with_retry_after.go
      writeStatus(res, tooManyRequests('The apiserver is shutting down, please try again later.', 5), { 'Retry-After': '5', Connection: 'close' });
      return { info };
    }
    note.info = info;
    const longRunning = isLongRunning(info);
    const recorded = metrics?.begin(req, info, longRunning);
    if (recorded) whenClosed(res, () => recorded(res, (performance.now() - started) / 1000));
    if (!longRunning) {
      inFlight++;
      whenClosed(res, () => inFlight--);
    } else stopTimer();

    // Authenticators and authorizers that answer synchronously are not awaited (see src/auth/maybe-async.ts).
    let authn = authenticator.authenticate({ headers: req.headers, rawHeaders: req.rawHeaders, clientCertificate: clientCertificateOf(req), connection: tlsSocketOf(req) });
    if (authn instanceof Promise) authn = await authn;
    if (authn.kind !== 'authenticated') {
      if (authn.kind === 'error') log.v(2, 'unable to authenticate the request', { path, error: authn.error });
      writeStatus(res, unauthorized());
      return { info };
    }
    // The credential stays here: nothing downstream (proxies, logs) gets to see it.
    delete req.headers.authorization;
    const impersonating = impersonatedUser(authn.user, req.rawHeaders, authorizer);
    const user = (impersonating && (await impersonating)) ?? authn.user;
    if (user !== authn.user) {
      log.v(4, 'impersonating', { requestor: authn.user.name, user: user.name });
      dropImpersonationHeaders(req.headers);
    }
    note.user = user;

    const attrs = attributesFor(user, info);
    // The policy sees the requestor, as kube's audit filter (outside impersonation) does; the event names both.
    const auditing = audit?.begin(req, res, user === authn.user ? attrs : attributesFor(authn.user, info), note.auditId, performance.timeOrigin + started, longRunning, user === authn.user ? undefined : user);
    if (auditing) audited.panic = auditing.panic;
    else if (metrics) beginRequestNotes(req, Capture.None);
    let admitted = admitRequest(res, user, info, longRunning);
    if (typeof admitted !== 'boolean') admitted = await admitted;
    if (!admitted) return { info, user: user.name };
    let decision = authorizer.authorize(attrs);
    if (decision instanceof Promise) decision = await decision;
    if (auditing) {
      addAuditAnnotation(req, 'authorization.k8s.io/decision', decision.decision === 'allow' ? 'allow' : 'forbid');
      addAuditAnnotation(req, 'authorization.k8s.io/reason', decision.reason);
    }
    if (decision.decision !== 'allow') {
      if (decision.error) {
        log.error('authorization error', { path, error: decision.error });
        writeStatus(res, internalError(new Error(decision.error)));
        return { info, user: user.name };
      }
      log.v(4, 'forbidden', { path, user: user.name, reason: decision.reason });
      writeStatus(res, forbiddenError(attrs, decision.reason), { 'X-Content-Type-Options': 'nosniff' });
      return { info, user: user.name };
    }

    if (!info.isResourceRequest) {
      if (hooks?.serve && (await hooks.serve(req, res, path, query, user))) return { info, user: user.name };
      if (await health.serve(path, query, res)) return { info, user: user.name };
      if (path === '/version' || path === '/version/') {
        writeJson(res, 200, versionInfo(), true);
        return { info, user: user.name };
      }
      if (path === '/metrics' && metrics) {
        send(res, 200, metrics.contentType, await metrics.render());
        return { info, user: user.name };
      }
      if (path === '/metrics/slis' && metrics) {
        send(res, 200, metrics.contentType, health.slis());
        return { info, user: user.name };
      }
    }
    const target = routed?.api ?? api;
    if (hooks?.around) await hooks.around(req, res, query, note, () => target.handle(req, res, info, user));
    else await target.handle(req, res, info, user);
    return { info, user: user.name };
  }

  const handler = ((req: HttpRequest, res: HttpResponse): void => {
    const started = performance.now();
    if (touchIdle) {
      touchIdle();
      whenClosed(res, touchIdle);
    }
    // A client-chosen Audit-ID is kept when it is a plain token (it is echoed in a response header).
    const given = req.headers['audit-id'];
    const auditId = typeof given === 'string' && AUDIT_ID.test(given) ? given : randomUUID();
    res.setHeader('Audit-Id', auditId);
    res.setHeader('Cache-Control', 'no-cache, private');
    const note: RequestNote = { auditId, receivedMs: Date.now(), cluster: '' };
    if (hooks?.finished) whenClosed(res, () => hooks.finished!(req, res, note, performance.now() - started));
    const timer = requestTimeoutMs > 0 ? setTimeout(() => timeOut(req, res), requestTimeoutMs) : undefined;
    const stopTimer = (): void => clearTimeout(timer);
    whenClosed(res, stopTimer);
    // A body left unread (413, early errors, timeouts): a small one's rest is dropped and the connection kept, as Go
    // does; otherwise the connection or stream is given up.
    onResponseWritten(req, res, () => {
      stopTimer();
      if (!isRequestBodyRead(req)) abandonRequest(req, false, !timedOut.has(req));
    });
    const audited: { panic?: (e: unknown) => void } = {};
    // Not served within the request event: a bodiless request is complete only once the parser returns from it, and
    // a response written before that would count its body as unread (and give the connection up).
    Promise.resolve().then(() => serve(req, res, note, stopTimer, started, audited)).then(
      ({ info, user }) => {
        if (log.enabled(3)) {
          log.v(3, 'request', { verb: info?.verb ?? req.method, path: info?.path, code: res.statusCode, ms: Math.round(performance.now() - started), user, auditId });
        }
      },
      (err: unknown) => {
        // Panic recovery: the request gets a 500 Status (or the StatusError thrown), the server stays up.
        if (!isStatusError(err) || err.code >= 500) log.error('request failed', { method: req.method, error: err instanceof Error ? (err.stack ?? err.message) : String(err), auditId });
        if (!isStatusError(err)) audited.panic?.(err);
        try {
          if (!endIfStarted(res)) writeStatus(res, isStatusError(err) ? err : internalError(err));
        } catch {
          // The connection is already gone.
        }
      },
    );
  }) as RequestHandler;
  handler.inFlight = () => inFlight;
  return handler;
}

