// What the layers below the filter chain tell the audit filter and the metrics about one request: audit
// annotations, the request and response bodies (kept only when the audit level asks for them), and the deprecated
// API it addressed. Keyed by the request object; a request without notes costs its notes' callers one lookup.

import type { HttpRequest, HttpResponse } from '../types.ts';

/** How much of the bodies to keep: none, Metadata (creates' names, error Statuses), Request, RequestResponse. */
export const Capture = { None: 0, Metadata: 1, Request: 2, RequestResponse: 3 } as const;
export type Capture = (typeof Capture)[keyof typeof Capture];

export interface RequestNotes {
  capture: Capture;
  annotations?: Record<string, string>;
  requestBody?: Buffer;
  requestContentType?: string;
  responseBody?: string | Uint8Array;
  responseContentType?: string;
  /** Set when the request addressed a deprecated built-in version ('' when no removal release is planned). */
  deprecatedRemovedRelease?: string;
}

// A property of the request rather than a WeakMap entry: weak keys cost every garbage collection extra work.
const NOTES = Symbol('capstan.requestNotes');
type Noted = { [NOTES]?: RequestNotes };
const notesOf = (req: object): RequestNotes | undefined => (req as Noted)[NOTES];

export function beginRequestNotes(req: HttpRequest, capture: Capture): RequestNotes {
  const n: RequestNotes = { capture };
  (req as Noted)[NOTES] = n;
  return n;
}

export function requestNotesOf(req: HttpRequest): RequestNotes | undefined {
  return notesOf(req);
}

/** audit.AddAuditAnnotation: the first value given for a key is kept. */
export function addAuditAnnotation(req: HttpRequest, key: string, value: string): void {
  const n = notesOf(req);
  if (!n) return;
  n.annotations ??= {};
  if (!(key in n.annotations)) n.annotations[key] = value;
}

/** The request's audit annotations, for admission to add to (a record of its own when the request is not audited). */
export function auditAnnotationsOf(req: HttpRequest): Record<string, string> {
  const n = notesOf(req);
  return n ? (n.annotations ??= {}) : {};
}

export function noteRequestBody(req: HttpRequest, body: Buffer): void {
  const n = notesOf(req);
  if (!n || n.capture === Capture.None) return;
  n.requestBody = body;
  n.requestContentType = String(req.headers['content-type'] ?? '');
}

export function noteResponseBody(res: HttpResponse, body: string | Uint8Array, contentType: string): void {
  const req = (res as { req?: HttpRequest }).req;
  const n = req && notesOf(req);
  if (!n || n.capture === Capture.None) return;
  n.responseBody = body;
  n.responseContentType = contentType;
}

/** kube's installer for deprecated built-in versions: the audit annotations; the metric reads the note. */
export function noteDeprecatedApi(req: HttpRequest, removedRelease: string): void {
  const n = notesOf(req);
  if (!n) return;
  n.deprecatedRemovedRelease = removedRelease;
  addAuditAnnotation(req, 'k8s.io/deprecated', 'true');
  if (removedRelease) addAuditAnnotation(req, 'k8s.io/removed-release', removedRelease);
}
