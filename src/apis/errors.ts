// StatusError: the one error type of the API. Rendered as a meta/v1 Status with kube-apiserver's codes,
// reasons and message shapes (k8s.io/apimachinery/pkg/api/errors).

import { goQuote } from '../encoding/go-format.ts';

export interface StatusCause {
  reason?: string;
  message?: string;
  field?: string;
}

export interface StatusDetails {
  name?: string;
  group?: string;
  kind?: string;
  uid?: string;
  causes?: StatusCause[];
  retryAfterSeconds?: number;
}

export interface Status {
  kind: 'Status';
  apiVersion: 'v1';
  metadata: Record<string, unknown>;
  status: 'Failure' | 'Success';
  message?: string;
  reason?: string;
  details?: StatusDetails;
  code: number;
}

export class StatusError extends Error {
  readonly code: number;
  readonly reason: string;
  readonly details: StatusDetails | undefined;
  constructor(code: number, reason: string, message: string, details?: StatusDetails) {
    super(message);
    this.name = 'StatusError';
    this.code = code;
    this.reason = reason;
    this.details = details;
  }
  /**
   * The Status in kube's field order. Details given are kept even when empty: kube sends `"details":{}` for errors
   * made with a StatusDetails (kubectl debug reads the details of a 404 and fails on a Status without them).
   */
  toStatus(): Status {
    const status = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure' } as Status;
    if (this.message) status.message = this.message;
    if (this.reason) status.reason = this.reason;
    if (this.details !== undefined) status.details = this.details;
    status.code = this.code;
    return status;
  }
}

export function isStatusError(e: unknown): e is StatusError {
  return e instanceof StatusError;
}

/** A group/resource pair as kube prints it: "configmaps", "deployments.apps". */
export interface GroupResource {
  group: string;
  resource: string;
}

export function groupResourceString(gr: GroupResource): string {
  return gr.group ? `${gr.resource}.${gr.group}` : gr.resource;
}

function details(gr: GroupResource, name?: string): StatusDetails {
  const d: StatusDetails = {};
  if (name) d.name = name;
  if (gr.group) d.group = gr.group;
  d.kind = gr.resource;
  return d;
}

export function notFound(gr: GroupResource, name: string): StatusError {
  return new StatusError(404, 'NotFound', `${groupResourceString(gr)} "${name}" not found`, details(gr, name));
}

export function alreadyExists(gr: GroupResource, name: string): StatusError {
  return new StatusError(409, 'AlreadyExists', `${groupResourceString(gr)} "${name}" already exists`, details(gr, name));
}

/** Optimistic-concurrency failure, with kube-apiserver's exact wording. */
export function conflict(gr: GroupResource, name: string, reason = 'the object has been modified; please apply your changes to the latest version and try again'): StatusError {
  return new StatusError(409, 'Conflict', `Operation cannot be fulfilled on ${groupResourceString(gr)} "${name}": ${reason}`, details(gr, name));
}

export function badRequest(message: string): StatusError {
  return new StatusError(400, 'BadRequest', message);
}

export function unauthorized(message = 'Unauthorized'): StatusError {
  return new StatusError(401, 'Unauthorized', message);
}

export function forbidden(gr: GroupResource, name: string, reason: string): StatusError {
  const subject = name ? `${groupResourceString(gr)} "${name}"` : groupResourceString(gr);
  return new StatusError(403, 'Forbidden', `${subject} is forbidden: ${reason}`, details(gr, name));
}

export function methodNotSupported(gr: GroupResource, action: string): StatusError {
  return new StatusError(405, 'MethodNotAllowed', `${action} is not supported on resources of kind "${groupResourceString(gr)}"`, details(gr));
}

export function notAcceptable(accepted: string[]): StatusError {
  return new StatusError(406, 'NotAcceptable', `only the following media types are accepted: ${accepted.join(', ')}`);
}

export function unsupportedMediaType(accepted: string[]): StatusError {
  return new StatusError(415, 'UnsupportedMediaType', `the body of the request was in an unknown format - accepted media types include: ${accepted.join(', ')}`);
}

export function gone(message: string): StatusError {
  return new StatusError(410, 'Gone', message);
}

/** 410 for an expired resourceVersion or continue token. */
export function resourceExpired(message: string): StatusError {
  return new StatusError(410, 'Expired', message);
}

export function timeout(message: string, retryAfterSeconds = 0): StatusError {
  const d: StatusDetails | undefined = retryAfterSeconds > 0 ? { retryAfterSeconds } : undefined;
  return new StatusError(504, 'Timeout', message, d);
}

export function tooManyRequests(message: string, retryAfterSeconds: number): StatusError {
  return new StatusError(429, 'TooManyRequests', message, { retryAfterSeconds });
}

export function serviceUnavailable(message: string): StatusError {
  return new StatusError(503, 'ServiceUnavailable', message);
}

/**
 * Where kube-apiserver's own code panics on a request (a Go runtime error in a library it calls, such as the JSON
 * patch or strategic merge patch library): nothing on the way recovers it but the outermost panic filter, which
 * answers a plain-text 500 (PANIC_ANSWER), not a Status.
 */
export class HandlerPanic extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'HandlerPanic';
  }
}

/** WithPanicRecovery's answer, as http.Error writes it (text/plain; charset=utf-8, X-Content-Type-Options: nosniff). */
export const PANIC_ANSWER = 'This request caused apiserver to panic. Look in the logs for details.\n';

export function internalError(err: unknown): StatusError {
  const text = err instanceof Error ? err.message : String(err);
  return new StatusError(500, 'InternalError', `Internal error occurred: ${text}`, { causes: [{ message: text }] });
}

export function notFoundPath(): StatusError {
  return new StatusError(404, 'NotFound', 'the server could not find the requested resource', {});
}

// ---- field errors (k8s.io/apimachinery/pkg/util/validation/field) ----

export type FieldErrorType =
  | 'FieldValueNotFound'
  | 'FieldValueRequired'
  | 'FieldValueDuplicate'
  | 'FieldValueInvalid'
  | 'FieldValueNotSupported'
  | 'FieldValueForbidden'
  | 'FieldValueTooLong'
  | 'FieldValueTooMany'
  | 'InternalError'
  | 'FieldValueTypeInvalid';

const typeText: Record<FieldErrorType, string> = {
  FieldValueNotFound: 'Not found',
  FieldValueRequired: 'Required value',
  FieldValueDuplicate: 'Duplicate value',
  FieldValueInvalid: 'Invalid value',
  FieldValueNotSupported: 'Unsupported value',
  FieldValueForbidden: 'Forbidden',
  FieldValueTooLong: 'Too long',
  FieldValueTooMany: 'Too many',
  InternalError: 'Internal error',
  FieldValueTypeInvalid: 'Invalid value',
};

export interface FieldError {
  type: FieldErrorType;
  field: string;
  badValue?: unknown;
  detail?: string;
}

const RENDERED = Symbol('capstan.renderedBadValue');

/**
 * A bad value already rendered the way Go's field.Error prints it (e.g. %#v of a Go struct or a []string), for
 * values a JSON rendering cannot reproduce: printed verbatim.
 */
export function renderedBadValue(text: string): unknown {
  return { [RENDERED]: text };
}

/** Go's %#v of a []string: `[]string{"a", "b"}`, or `[]string(nil)` for a nil slice. */
export function goStringsText(list: readonly unknown[] | null | undefined): string {
  return list ? `[]string{${list.map((s) => goQuote(String(s))).join(', ')}}` : '[]string(nil)';
}

/** field.OmitValueType: an error printed without its value ("Invalid value: <detail>"). */
export const OMITTED_VALUE: unknown = Object.freeze({ [RENDERED]: '' });

/** A []string bad value as field.Error prints it (%#v). */
export function goStringsValue(list: readonly unknown[] | null | undefined): unknown {
  return renderedBadValue(goStringsText(list));
}

/** Go's %v-like rendering of a bad value, as field.Error does (strings quoted). */
function formatBadValue(v: unknown): string {
  if (typeof v === 'object' && v !== null && RENDERED in v) return String((v as Record<symbol, unknown>)[RENDERED]);
  // ErrorBody turns a nil value (or nil pointer) into the string "null", which it then quotes as any string.
  if (typeof v === 'string') return goQuote(v);
  if (v === null || v === undefined) return '"null"';
  if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint') return String(v);
  return JSON.stringify(v);
}

/** The message of a field error without its field path (a Status cause's message). */
export function fieldErrorBody(e: FieldError): string {
  let s: string;
  switch (e.type) {
    case 'FieldValueRequired':
    case 'FieldValueForbidden':
    case 'FieldValueTooLong':
    case 'InternalError':
      s = typeText[e.type];
      break;
    default:
      s = (e.badValue === undefined && e.type === 'FieldValueNotFound') || e.badValue === OMITTED_VALUE ? typeText[e.type] : `${typeText[e.type]}: ${formatBadValue(e.badValue)}`;
  }
  if (e.detail) s += `: ${e.detail}`;
  return s;
}

export function fieldErrorString(e: FieldError): string {
  return `${e.field}: ${fieldErrorBody(e)}`;
}

/** utilerrors.NewAggregate(...).Error(): one error bare, several in brackets. */
export function aggregateFieldErrors(errors: readonly FieldError[]): string {
  const texts = errors.map(fieldErrorString);
  return texts.length === 1 ? texts[0] : `[${texts.join(', ')}]`;
}

export const fieldErrors = {
  required: (field: string, detail = ''): FieldError => ({ type: 'FieldValueRequired', field, detail }),
  invalid: (field: string, badValue: unknown, detail: string): FieldError => ({ type: 'FieldValueInvalid', field, badValue, detail }),
  forbidden: (field: string, detail: string): FieldError => ({ type: 'FieldValueForbidden', field, detail }),
  notSupported: (field: string, badValue: unknown, supported: string[]): FieldError => ({
    type: 'FieldValueNotSupported',
    field,
    badValue,
    detail: supported.length ? `supported values: ${supported.map((v) => JSON.stringify(v)).join(', ')}` : '',
  }),
  duplicate: (field: string, badValue: unknown): FieldError => ({ type: 'FieldValueDuplicate', field, badValue }),
  tooLong: (field: string, maxLength: number): FieldError => ({ type: 'FieldValueTooLong', field, detail: `may not be more than ${maxLength} bytes` }),
  tooMany: (field: string, actual: number, max: number): FieldError => ({ type: 'FieldValueTooMany', field, badValue: actual, detail: `must have at most ${max} items` }),
  typeInvalid: (field: string, badValue: unknown, detail: string): FieldError => ({ type: 'FieldValueTypeInvalid', field, badValue, detail }),
  notFound: (field: string, badValue: unknown): FieldError => ({ type: 'FieldValueNotFound', field, badValue }),
};

/** A group/kind pair as kube prints it in Invalid messages: "ConfigMap", "Deployment.apps". */
export interface GroupKind {
  group: string;
  kind: string;
}

/** 422 Invalid, message and causes exactly as apierrors.NewInvalid builds them. */
export function invalid(gk: GroupKind, name: string, errs: FieldError[]): StatusError {
  const causes: StatusCause[] = errs.map((e) => ({ reason: e.type, message: fieldErrorBody(e), field: e.field }));
  const d: StatusDetails = {};
  if (name) d.name = name;
  if (gk.group) d.group = gk.group;
  d.kind = gk.kind;
  d.causes = causes;
  const qualified = gk.group ? `${gk.kind}.${gk.group}` : gk.kind;
  // utilerrors.NewAggregate dedups identical messages; one error prints bare, several in brackets.
  const messages = [...new Set(errs.map(fieldErrorString))];
  const agg = messages.length === 0 ? '' : messages.length === 1 ? messages[0] : `[${messages.join(', ')}]`;
  const message = agg ? `${qualified} "${name}" is invalid: ${agg}` : `${qualified} "${name}" is invalid`;
  return new StatusError(422, 'Invalid', message, d);
}
