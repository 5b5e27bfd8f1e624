// Recording: one record per request (who, what, the answer's code, how long), bodies when asked for; queries over
// them and their export as audit.k8s.io/v1 Events (level Metadata, or RequestResponse with bodies).

import type { UserInfo } from '../auth/user.ts';
import type { RequestInfo } from '../endpoints/request-info.ts';

export interface RequestRecord {
  /** Ascending, from 1. */
  readonly seq: number;
  readonly auditId: string;
  /** The logical cluster ('' for the default one). */
  readonly cluster: string;
  /** When the request arrived (RFC 3339, microseconds). */
  readonly received: string;
  readonly user: string;
  readonly groups: readonly string[];
  readonly verb: string;
  readonly group: string;
  readonly version: string;
  readonly resource: string;
  readonly subresource: string;
  readonly namespace: string;
  readonly name: string;
  readonly path: string;
  readonly query: string;
  readonly code: number;
  readonly durationMs: number;
  readonly userAgent: string;
  readonly sourceIP: string;
  /** The id of the fault injected into it, if any. */
  readonly fault?: string;
  /** Parsed JSON (or the text) of the request body, when bodies are recorded. */
  readonly requestBody?: unknown;
  readonly responseBody?: unknown;
}

/** Every field optional; a record matches when all given ones are equal. `resource` may be "pods/status". */
export interface RequestQuery {
  readonly verb?: string;
  readonly group?: string;
  readonly resource?: string;
  readonly namespace?: string;
  readonly name?: string;
  readonly user?: string;
  readonly code?: number;
  readonly cluster?: string;
  /** Only records with seq greater than this. */
  readonly after?: number;
}

export interface RecordingOptions {
  /** Keep request and response bodies (up to 1 MiB each). */
  readonly bodies?: boolean;
}

export interface Recorder {
  readonly enabled: boolean;
  readonly bodies: boolean;
  configure(options: { enabled?: boolean; bodies?: boolean }): void;
  add(record: Omit<RequestRecord, 'seq'>): void;
  query(q?: RequestQuery): RequestRecord[];
  /** Last seq so far (0: none). */
  last(): number;
  clear(): void;
  /** The records matching q as an audit.k8s.io/v1 EventList. */
  auditEvents(q?: RequestQuery): AuditEventList;
}

export interface AuditEventList {
  readonly kind: 'EventList';
  readonly apiVersion: 'audit.k8s.io/v1';
  readonly metadata: Record<string, never>;
  readonly items: Record<string, unknown>[];
}

export const MAX_RECORDS = 100_000;
export const MAX_BODY_BYTES = 1024 * 1024;
const QUERY_FIELDS = new Set(['verb', 'group', 'resource', 'namespace', 'name', 'user', 'code', 'cluster', 'after']);

/** Checks a query from the HTTP door (URL parameters); throws with a message for a 400. */
export function queryFromParams(params: URLSearchParams): RequestQuery {
  const q: Record<string, string | number> = {};
  for (const [k, v] of params) {
    if (!QUERY_FIELDS.has(k)) throw new Error(`unknown request query parameter "${k}" (known: ${[...QUERY_FIELDS].join(', ')})`);
    if (k === 'code' || k === 'after') {
      const n = Number(v);
      if (!Number.isInteger(n) || n < 0) throw new Error(`request query parameter ${k} must be a non-negative integer, not ${JSON.stringify(v)}`);
      q[k] = n;
    } else {
      q[k] = v;
    }
  }
  return q as RequestQuery;
}

function matches(r: RequestRecord, q: RequestQuery): boolean {
  if (q.after !== undefined && r.seq <= q.after) return false;
  if (q.verb !== undefined && r.verb !== q.verb) return false;
  if (q.group !== undefined && r.group !== q.group) return false;
  if (q.resource !== undefined) {
    const [res, sub = ''] = q.resource.split('/', 2);
    if (r.resource !== res || r.subresource !== sub) return false;
  }
  if (q.namespace !== undefined && r.namespace !== q.namespace) return false;
  if (q.name !== undefined && r.name !== q.name) return false;
  if (q.user !== undefined && r.user !== q.user) return false;
  if (q.code !== undefined && r.code !== q.code) return false;
  if (q.cluster !== undefined && r.cluster !== q.cluster) return false;
  return true;
}

/** MicroTime: RFC 3339 with 6 fractional digits. */
export function microTime(ms: number): string {
  let whole = Math.floor(ms);
  let micros = Math.round((ms - whole) * 1000);
  if (micros === 1000) {
    whole++;
    micros = 0;
  }
  return `${new Date(whole).toISOString().slice(0, 23)}${String(micros).padStart(3, '0')}Z`;
}

/** Milliseconds (with the microseconds as a fraction) of a MicroTime text. */
function microTimeMs(text: string): number {
  return Date.parse(text) + Number(text.slice(23, 26)) / 1000;
}

function auditEvent(r: RequestRecord, bodies: boolean): Record<string, unknown> {
  const objectRef: Record<string, string> = {};
  if (r.resource) objectRef.resource = r.resource;
  if (r.namespace) objectRef.namespace = r.namespace;
  if (r.name) objectRef.name = r.name;
  if (r.group) objectRef.apiGroup = r.group;
  if (r.version) objectRef.apiVersion = r.version;
  if (r.subresource) objectRef.subresource = r.subresource;
  const responseBody = r.responseBody as { kind?: string; status?: string; message?: string; reason?: string } | undefined;
  const responseStatus: Record<string, unknown> = { metadata: {}, code: r.code };
  if (responseBody?.kind === 'Status') {
    if (responseBody.status) responseStatus.status = responseBody.status;
    if (responseBody.message) responseStatus.message = responseBody.message;
    if (responseBody.reason) responseStatus.reason = responseBody.reason;
  }
  const ev: Record<string, unknown> = {
    level: bodies ? 'RequestResponse' : 'Metadata',
    auditID: r.auditId,
    stage: 'ResponseComplete',
    requestURI: r.query ? `${r.path}?${r.query}` : r.path,
    verb: r.verb,
    user: { username: r.user, groups: r.groups },
    sourceIPs: r.sourceIP ? [r.sourceIP] : [],
    userAgent: r.userAgent,
    ...(r.resource ? { objectRef } : {}),
    responseStatus,
    ...(bodies && r.requestBody !== undefined ? { requestObject: r.requestBody } : {}),
    ...(bodies && r.responseBody !== undefined ? { responseObject: r.responseBody } : {}),
    requestReceivedTimestamp: r.received,
    stageTimestamp: microTime(microTimeMs(r.received) + r.durationMs),
  };
  if (r.cluster) ev.annotations = { 'capstan.io/cluster': r.cluster };
  return ev;
}

export function createRecorder(options: { enabled?: boolean; bodies?: boolean } = {}): Recorder {
  let enabled = options.enabled ?? true;
  let bodies = options.bodies ?? false;
  let records: RequestRecord[] = [];
  let seq = 0;
  return {
    get enabled() {
      return enabled;
    },
    get bodies() {
      return bodies;
    },
    configure(o) {
      if (o.enabled !== undefined) enabled = o.enabled;
      if (o.bodies !== undefined) bodies = o.bodies;
    },
    add(record) {
      if (!enabled) return;
      records.push({ seq: ++seq, ...record });
      if (records.length > MAX_RECORDS + MAX_RECORDS / 10) records = records.slice(-MAX_RECORDS);
    },
    query: (q = {}) => records.filter((r) => matches(r, q)),
    last: () => seq,
    clear() {
      records = [];
    },
    auditEvents(q = {}) {
      return { kind: 'EventList', apiVersion: 'audit.k8s.io/v1', metadata: {}, items: records.filter((r) => matches(r, q)).map((r) => auditEvent(r, bodies || r.requestBody !== undefined || r.responseBody !== undefined)) };
    },
  };
}

/** The parts of a finished request a record is made from (the filter chain fills it in). */
export interface FinishedRequest {
  readonly auditId: string;
  readonly cluster: string;
  readonly receivedMs: number;
  readonly durationMs: number;
  readonly info: RequestInfo | undefined;
  readonly method: string;
  readonly path: string;
  readonly query: string;
  readonly user: UserInfo | undefined;
  readonly code: number;
  readonly userAgent: string;
  readonly sourceIP: string;
  readonly fault?: string;
  readonly requestBody?: Buffer;
  readonly responseBody?: Buffer;
}

function bodyValue(b: Buffer | undefined): unknown {
  if (b === undefined || b.length === 0) return undefined;
  const text = b.toString('utf8');
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

export function recordOf(f: FinishedRequest): Omit<RequestRecord, 'seq'> {
  const info = f.info;
  return {
    auditId: f.auditId,
    cluster: f.cluster,
    received: microTime(f.receivedMs),
    user: f.user?.name ?? '',
    groups: f.user?.groups ?? [],
    verb: info?.verb ?? f.method.toLowerCase(),
    group: info?.apiGroup ?? '',
    version: info?.apiVersion ?? '',
    resource: info?.resource ?? '',
    subresource: info?.subresource ?? '',
    namespace: info?.namespace ?? '',
    name: info?.name ?? '',
    path: f.path,
    query: f.query,
    code: f.code,
    durationMs: Math.round(f.durationMs * 1000) / 1000,
    userAgent: f.userAgent,
    sourceIP: f.sourceIP,
    ...(f.fault ? { fault: f.fault } : {}),
    ...(f.requestBody ? { requestBody: bodyValue(f.requestBody) } : {}),
    ...(f.responseBody ? { responseBody: bodyValue(f.responseBody) } : {}),
  };
}
