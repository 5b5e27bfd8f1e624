// The audit filter (k8s.io/apiserver/pkg/endpoints/filters/audit.go): the policy decides a level per request;
// events are made at the stages kube makes them (RequestReceived, ResponseStarted for long-running requests,
// ResponseComplete, Panic) and handed to every backend. Bodies are decoded only at the levels that log them.

import type { AuthzAttributes } from '../../auth/authz/types.ts';
import type { UserInfo } from '../../auth/user.ts';
import type { HttpRequest, HttpResponse } from '../types.ts';
import { evaluatePolicy } from './policy.ts';
import { beginRequestNotes, Capture, type RequestNotes } from './request-notes.ts';
import { microTime } from '../../registry/store-codec.ts';
import { levelAtLeast, type AuditBackend, type AuditEvent, type AuditPolicy, type AuditStage, type AuditUser, type ObjectReference, type RequestAuditConfig, type ResponseStatus } from './types.ts';

export interface Auditor {
  /** Starts auditing one authenticated request; undefined when the policy's level for it is None. */
  begin(req: HttpRequest, res: HttpResponse, attrs: AuthzAttributes, auditId: string, receivedAtMs: number, longRunning: boolean, impersonated?: UserInfo): AuditedRequest | undefined;
  shutdown(): Promise<void>;
}

export interface AuditedRequest {
  /** The handler failed unexpectedly: the Panic stage (kube's WithPanicRecovery + audit). */
  panic(error: unknown): void;
}

const CAPTURE_FOR = { None: Capture.None, Metadata: Capture.Metadata, Request: Capture.Request, RequestResponse: Capture.RequestResponse } as const;

// Authentication answers a connection's or a token's requests with one UserInfo: its AuditUser is made once.
const auditUsers = new WeakMap<UserInfo, AuditUser>();

function auditUser(user: UserInfo): AuditUser {
  let u = auditUsers.get(user);
  if (!u) auditUsers.set(user, (u = newAuditUser(user)));
  return u;
}

function newAuditUser(user: UserInfo): AuditUser {
  const u: AuditUser = { username: user.name };
  if (user.uid) u.uid = user.uid;
  if (user.groups.length > 0) u.groups = [...user.groups];
  if (user.extra && Object.keys(user.extra).length > 0) u.extra = Object.fromEntries(Object.entries(user.extra).map(([k, v]) => [k, [...v]]));
  return u;
}

// The peer's address alone, for the requests of a connection that name no other (backends never change events).
const PEER_IPS = Symbol('capstan.auditPeerIPs');

/** utilnet.SourceIPs: X-Forwarded-For entries, X-Real-Ip, then the peer address, without repeats. */
export function sourceIPs(req: HttpRequest): string[] {
  if (req.headers['x-forwarded-for'] === undefined && req.headers['x-real-ip'] === undefined && req.socket) {
    const socket = req.socket as { [PEER_IPS]?: string[] };
    return (socket[PEER_IPS] ??= peerIPs(req));
  }
  return peerIPs(req);
}

function peerIPs(req: HttpRequest): string[] {
  const ips: string[] = [];
  const add = (ip: string | undefined): void => {
    const t = ip?.trim();
    if (t && !ips.includes(t)) ips.push(t);
  };
  const xff = req.headers['x-forwarded-for'];
  for (const part of (Array.isArray(xff) ? xff.join(',') : (xff ?? '')).split(',')) add(part);
  const real = req.headers['x-real-ip'];
  add(Array.isArray(real) ? real[0] : real);
  add(req.socket?.remoteAddress?.replace(/^::ffff:/, ''));
  return ips;
}

function isJson(contentType: string | undefined): boolean {
  // JSON bodies and patches; apply patches are YAML or JSON (a YAML one is not logged).
  return !!contentType && (contentType.includes('json') || contentType.startsWith('application/apply-patch'));
}

function parseJson(body: string | Uint8Array | undefined): unknown {
  if (body === undefined) return undefined;
  try {
    return JSON.parse(typeof body === 'string' ? body : Buffer.from(body).toString('utf8'));
  } catch {
    return undefined;
  }
}

function withoutManagedFields(value: unknown): unknown {
  if (!value || typeof value !== 'object') return value;
  const o = value as Record<string, unknown>;
  const meta = o.metadata as Record<string, unknown> | undefined;
  let out = o;
  if (meta && 'managedFields' in meta) {
    const { managedFields: _, ...rest } = meta;
    out = { ...o, metadata: rest };
  }
  if (Array.isArray(out.items)) out = { ...out, items: out.items.map(withoutManagedFields) };
  return out;
}

function objectRefOf(attrs: AuthzAttributes): ObjectReference | undefined {
  if (!attrs.isResourceRequest) return undefined;
  const ref: ObjectReference = { resource: attrs.resource };
  if (attrs.namespace) ref.namespace = attrs.namespace;
  if (attrs.name) ref.name = attrs.name;
  if (attrs.apiGroup) ref.apiGroup = attrs.apiGroup;
  if (attrs.apiVersion) ref.apiVersion = attrs.apiVersion;
  if (attrs.subresource) ref.subresource = attrs.subresource;
  return ref;
}

/** The Status fields kube copies into responseStatus (LogResponseObject), or just the code. */
function responseStatusOf(code: number, notes: RequestNotes): ResponseStatus {
  if (code >= 300 && isJson(notes.responseContentType)) {
    const s = parseJson(notes.responseBody) as Record<string, unknown> | undefined;
    if (s?.kind === 'Status') {
      const out: ResponseStatus = { metadata: {}, code };
      if (s.status) out.status = s.status as string;
      if (s.message) out.message = s.message as string;
      if (s.reason) out.reason = s.reason as string;
      if (s.details) out.details = s.details;
      return out;
    }
  }
  return { metadata: {}, code };
}

export function createAuditor(policy: AuditPolicy, backends: readonly AuditBackend[]): Auditor {
  const emit = (event: AuditEvent): void => {
    for (const b of backends) b.processEvents([event]);
  };

  return {
    begin(req, res, attrs, auditId, receivedAtMs, longRunning, impersonated) {
      const config: RequestAuditConfig = evaluatePolicy(policy, attrs);
      if (config.level === 'None') return undefined;
      const notes = beginRequestNotes(req, CAPTURE_FOR[config.level]);
      const omitted = (stage: AuditStage): boolean => config.omitStages.includes(stage);
      const received = microTime(receivedAtMs);
      const userAgent = req.headers['user-agent'];
      // What every stage's event shares, made once (backends serialize or keep events, never change them).
      const user = auditUser(attrs.user);
      const impersonatedUser = impersonated ? auditUser(impersonated) : undefined;
      const ips = sourceIPs(req);
      const objectRef = objectRefOf(attrs);
      const ua = typeof userAgent === 'string' ? userAgent : undefined;
      /** One event, in kube's field order; absent fields stay undefined (not serialized). */
      const event = (stage: AuditStage, responseStatus?: ResponseStatus, requestObject?: unknown, responseObject?: unknown, ref = objectRef, annotations?: Record<string, string>): AuditEvent => ({
        kind: 'Event',
        apiVersion: 'audit.k8s.io/v1',
        level: config.level,
        auditID: auditId,
        stage,
        requestURI: req.url ?? '/',
        verb: attrs.verb,
        user,
        impersonatedUser,
        sourceIPs: ips,
        userAgent: ua,
        objectRef: ref,
        responseStatus,
        requestObject,
        responseObject,
        requestReceivedTimestamp: received,
        stageTimestamp: stage === 'RequestReceived' ? received : microTime(performance.timeOrigin + performance.now()),
        annotations,
      });
      const complete = (stage: AuditStage, code: number): AuditEvent => {
        const responseStatus = responseStatusOf(code, notes);
        const requestObject = notes.requestBody && isJson(notes.requestContentType) ? parseJson(notes.requestBody) : undefined;
        let ref = objectRef;
        if (ref && !ref.name && attrs.verb === 'create' && requestObject && typeof requestObject === 'object') {
          const meta = (requestObject as { metadata?: { name?: string } }).metadata;
          if (meta?.name) ref = { ...ref, name: meta.name };
        }
        const logRequest = levelAtLeast(config.level, 'Request') && requestObject !== undefined;
        let responseObject: unknown;
        if (levelAtLeast(config.level, 'RequestResponse') && !longRunning && isJson(notes.responseContentType)) responseObject = parseJson(notes.responseBody);
        const strip = (o: unknown): unknown => (config.omitManagedFields && o !== undefined ? withoutManagedFields(o) : o);
        // ResponseComplete is the last event: it may share the notes' annotations; an earlier stage gets a copy.
        const annotations = notes.annotations && (stage === 'ResponseComplete' ? notes.annotations : { ...notes.annotations });
        return event(stage, responseStatus, logRequest ? strip(requestObject) : undefined, strip(responseObject), ref, annotations);
      };
      const base = (stage: AuditStage): AuditEvent => event(stage);

      if (!omitted('RequestReceived')) emit(base('RequestReceived'));
      let done = false;
      if (longRunning && !omitted('ResponseStarted')) {
        const r = res as unknown as { writeHead: (...args: unknown[]) => unknown };
        const writeHead = r.writeHead;
        r.writeHead = function (this: unknown, ...args: unknown[]) {
          r.writeHead = writeHead;
          const result = writeHead.apply(this, args);
          if (!done) emit(complete('ResponseStarted', typeof args[0] === 'number' ? args[0] : res.statusCode));
          return result;
        };
      }
      res.once('close', () => {
        if (done) return;
        done = true;
        if (!omitted('ResponseComplete')) emit(complete('ResponseComplete', res.statusCode));
      });
      return {
        panic(error) {
          if (done) return;
          done = true;
          if (omitted('Panic')) return;
          const status: ResponseStatus = { metadata: {}, status: 'Failure', message: `APIServer panic'd: ${error instanceof Error ? error.message : String(error)}`, reason: 'InternalError', code: 500 };
          emit(event('Panic', status, undefined, undefined, objectRef, notes.annotations));
        },
      };
    },
    async shutdown() {
      for (const b of backends) await b.shutdown();
    },
  };
}
