// What every verb handler works with: the resolved endpoint (definition, store, subresource, served kind),
// the request, and the collaborators the API server wires in.

import type { Aggregator } from '../aggregator/aggregator.ts';
import { StatusError, type StatusDetails } from '../apis/errors.ts';
import { appliedTimestampsKeeper, loadManagedFieldsEngine, managedFieldsTracker } from './managed-fields.ts';
import type { UserInfo } from '../auth/user.ts';
import type { Logger } from '../server/log.ts';
import type { KubeObject, Registry, RequestContext, ResourceDefinition, ResourceStore } from '../registry/types.ts';
import type { ExecReply } from './handlers/simulated-exec.ts';
import type { SchemaCheckResult } from '../registry/validation/schema-check.ts';
import type { RequestInfo } from './request-info.ts';
import type { Responder } from './respond.ts';
import type { GroupVersionKind } from './body.ts';
import type { AdmissionChain } from '../admission/types.ts';
import { admissionHooks, type AdmissionRequestInfo } from '../admission/request.ts';
import { auditAnnotationsOf, Capture, requestNotesOf } from '../server/audit/request-notes.ts';

/** checkAgainstSchema: type errors (fatal) and the paths of fields the schema does not know. */
export type SchemaCheck = (obj: KubeObject, def: ResourceDefinition) => SchemaCheckResult;

/**
 * applyPatch from src/patch: the patched object, or a StatusError. The body's own strict-decoding problems
 * (duplicate fields, unknown JSON patch operation fields) are appended to options.strictErrors.
 */
export type PatchApplier = (
  patchType: 'json' | 'merge' | 'strategic',
  current: KubeObject,
  patch: string,
  def: ResourceDefinition,
  options: { fieldValidation?: 'Ignore' | 'Warn' | 'Strict'; strictErrors?: string[] },
) => KubeObject | Promise<KubeObject>;

export interface ServerSideApplyRequest {
  ctx: RequestContext;
  def: ResourceDefinition;
  subresource: string;
  /** The live object; undefined when apply creates it. */
  current: KubeObject | undefined;
  /** The apply-patch+yaml body. */
  patch: Buffer;
  fieldManager: string;
  force: boolean;
}

/** Server-side apply (src/apply): the object to store, or a StatusError (e.g. 409 conflicts). */
export type ServerSideApply = (request: ServerSideApplyRequest) => KubeObject | Promise<KubeObject>;

export interface EndpointDeps {
  readonly registry: Registry;
  readonly checkSchema: SchemaCheck;
  readonly applyPatch: PatchApplier;
  /** Absent until server-side apply exists: apply-patch+yaml is then refused with 415. */
  readonly applyServerSide: ServerSideApply | undefined;
  readonly logger: Logger | undefined;
  /** --min-request-timeout: watches without timeoutSeconds last a random time in [t, 2t). */
  readonly minRequestTimeoutSeconds: number;
  /** The WatchList feature gate (sendInitialEvents on watch). */
  readonly watchListEnabled: boolean;
  /** A watcher whose unsent bytes exceed this is dropped (slow client). */
  readonly maxWatchBufferBytes: number;
  /** The admission chain writes run through (absent: no admission). */
  readonly admission?: AdmissionChain;
  /** The APIResponseCompression feature gate (gzip of large responses). */
  readonly responseCompression: boolean;
  /** The aggregation layer: group-versions of APIServices that name a Service are proxied to it. */
  readonly aggregator?: Aggregator;
  /** What containers on simulated nodes print and answer (the containers test control); absent: nothing. */
  readonly simulatedContainers?: SimulatedContainers;
}

/** What containers on simulated nodes print (`kubectl logs`) and what commands run in them answer (`kubectl exec`). */
export interface SimulatedContainers {
  logs(pod: KubeObject, container: string): string | undefined;
  /** What the command answers, given its stdin when answersFromStdin says it reads it. */
  exec(pod: KubeObject, container: string, command: readonly string[], stdin?: Buffer): ExecReply;
  /** Whether the command's answer is made of all of its stdin (`kubectl cp`'s tar extraction). */
  answersFromStdin(pod: KubeObject, container: string, command: readonly string[]): boolean;
  /** Where a test serves the pod's port, on loopback (the containers test control's `ports`). */
  portTarget(pod: KubeObject, port: number): { host: string; port: number } | undefined;
}

export interface Scope {
  readonly deps: EndpointDeps;
  readonly info: RequestInfo;
  readonly def: ResourceDefinition;
  readonly store: ResourceStore;
  /** '' for the main resource, else "status" or "scale". */
  readonly subresource: string;
  /** The kind served at this endpoint (autoscaling/v1 Scale for the scale subresource). */
  readonly kind: GroupVersionKind;
  readonly r: Responder;
  readonly user: UserInfo;
  readonly userAgent: string | undefined;
  readonly signal: AbortSignal;
  /** The namespace of the request path ('' when none). */
  readonly namespace: string;
  readonly name: string;
}

export function groupResource(def: ResourceDefinition): { group: string; resource: string } {
  return { group: def.group, resource: def.resource };
}

/** The per-request context the store, strategies and admission see. */
/** The store's view of a request. `trackManagedFields`: record a non-apply write under fieldManager. */
export function requestContext(
  scope: Scope,
  extra: { dryRun?: boolean; fieldManager?: string; trackManagedFields?: boolean; admission?: boolean; deleteOptions?: Record<string, unknown> } = {},
): RequestContext {
  const hooks = extra.admission && scope.deps.admission ? admissionHooks(scope.deps.admission, admissionInfo(scope, extra)) : undefined;
  const ctx: RequestContext = {
    admit: hooks?.admit,
    validate: hooks?.validate,
    user: scope.user,
    namespace: scope.def.namespaced ? scope.namespace : '',
    dryRun: extra.dryRun ?? false,
    fieldManager: extra.fieldManager,
    userAgent: scope.userAgent,
    warnings: scope.r.warnings,
    signal: scope.signal,
    trackManagedFields: extra.trackManagedFields && extra.fieldManager !== undefined ? managedFieldsTracker(scope.def, extra.fieldManager) : undefined,
  };
  return ctx;
}

/** What admission is told about the request of a scope. */
export function admissionInfo(scope: Scope, extra: { dryRun?: boolean; fieldManager?: string; deleteOptions?: Record<string, unknown> }): AdmissionRequestInfo {
  return {
    def: scope.def,
    subresource: scope.subresource,
    kind: scope.kind,
    user: scope.user,
    namespace: scope.def.namespaced ? scope.namespace : '',
    dryRun: extra.dryRun ?? false,
    fieldManager: extra.fieldManager,
    warnings: scope.r.warnings,
    signal: scope.signal,
    deleteOptions: extra.deleteOptions,
    auditAnnotations: auditAnnotationsOf(scope.r.req),
    auditedAtRequestLevel: (requestNotesOf(scope.r.req)?.capture ?? Capture.None) >= Capture.Request,
  };
}

/** The context of a server-side apply (loads the apply engine on first use): see appliedTimestampsKeeper. */
export async function applyContext(scope: Scope, extra: { dryRun?: boolean; fieldManager?: string }): Promise<RequestContext> {
  await loadManagedFieldsEngine();
  return { ...requestContext(scope, { ...extra, admission: true }), trackManagedFields: appliedTimestampsKeeper() };
}

/** The context of a write that records itself in managedFields (loads the apply engine on first use). */
export async function writeContext(scope: Scope, extra: { dryRun?: boolean; fieldManager?: string }): Promise<RequestContext> {
  await loadManagedFieldsEngine();
  return requestContext(scope, { ...extra, trackManagedFields: true, admission: true });
}

/** Errors kube's go-restful router answers itself, rendered through kube's generic server response. */
function genericResponse(code: number, reason: string, message: string): StatusError {
  const details: StatusDetails = {};
  return new StatusError(code, reason, message, details);
}

export function methodNotAllowedPath(): StatusError {
  return genericResponse(405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource');
}

export function restfulUnsupportedMediaType(available?: readonly string[]): StatusError {
  const suffix = available === undefined ? '' : `\n\nAvailable representations: ${available.join(', ')}`;
  return genericResponse(415, 'UnsupportedMediaType', `415: Unsupported Media Type${suffix}`);
}

export function restfulNotAcceptable(available: readonly string[]): StatusError {
  return genericResponse(406, 'NotAcceptable', `406: Not Acceptable\n\nAvailable representations: ${available.join(', ')}`);
}
