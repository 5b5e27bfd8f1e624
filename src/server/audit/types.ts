// The audit.k8s.io/v1 model: the Policy a --audit-policy-file holds and the Event every backend writes.
// Plain data shared by the audit filter, its backends and the test recording (src/testing/).

export type AuditLevel = 'None' | 'Metadata' | 'Request' | 'RequestResponse';
export type AuditStage = 'RequestReceived' | 'ResponseStarted' | 'ResponseComplete' | 'Panic';

export const AUDIT_LEVELS: readonly AuditLevel[] = ['None', 'Metadata', 'Request', 'RequestResponse'];
export const AUDIT_STAGES: readonly AuditStage[] = ['RequestReceived', 'ResponseStarted', 'ResponseComplete', 'Panic'];

export interface GroupResources {
  readonly group?: string;
  readonly resources?: readonly string[];
  readonly resourceNames?: readonly string[];
}

export interface PolicyRule {
  readonly level: AuditLevel;
  readonly users?: readonly string[];
  readonly userGroups?: readonly string[];
  readonly verbs?: readonly string[];
  readonly resources?: readonly GroupResources[];
  readonly namespaces?: readonly string[];
  readonly nonResourceURLs?: readonly string[];
  readonly omitStages?: readonly AuditStage[];
  readonly omitManagedFields?: boolean;
}

export interface AuditPolicy {
  readonly apiVersion: string;
  readonly kind: 'Policy';
  readonly rules: readonly PolicyRule[];
  readonly omitStages?: readonly AuditStage[];
  readonly omitManagedFields?: boolean;
}

/** What the policy asks for one request. */
export interface RequestAuditConfig {
  readonly level: AuditLevel;
  readonly omitStages: readonly AuditStage[];
  readonly omitManagedFields: boolean;
}

export interface ObjectReference {
  resource?: string;
  namespace?: string;
  name?: string;
  uid?: string;
  apiGroup?: string;
  apiVersion?: string;
  resourceVersion?: string;
  subresource?: string;
}

export interface ResponseStatus {
  metadata: Record<string, never>;
  status?: string;
  message?: string;
  reason?: string;
  details?: unknown;
  code: number;
}

export interface AuditUser {
  username: string;
  uid?: string;
  groups?: string[];
  extra?: Record<string, string[]>;
}

/** audit.k8s.io/v1 Event, with kube's field order (it is what the log line shows). */
export interface AuditEvent {
  kind: 'Event';
  apiVersion: 'audit.k8s.io/v1';
  level: AuditLevel;
  auditID: string;
  stage: AuditStage;
  requestURI: string;
  verb: string;
  user: AuditUser;
  impersonatedUser?: AuditUser;
  sourceIPs?: string[];
  userAgent?: string;
  objectRef?: ObjectReference;
  responseStatus?: ResponseStatus;
  requestObject?: unknown;
  responseObject?: unknown;
  requestReceivedTimestamp: string;
  stageTimestamp: string;
  annotations?: Record<string, string>;
}

/** Where events go: a log file, a webhook, the test recording. */
export interface AuditBackend {
  processEvents(events: readonly AuditEvent[]): void;
  /** Flushes what is buffered and releases files and timers. */
  shutdown(): Promise<void>;
}

export function levelAtLeast(level: AuditLevel, min: AuditLevel): boolean {
  return AUDIT_LEVELS.indexOf(level) >= AUDIT_LEVELS.indexOf(min);
}
