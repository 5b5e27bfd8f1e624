// An audit event as kube's log and webhook backends write it: Go's encoding/json of the audit.k8s.io/v1 types, so
// struct fields in their declared order (ObjectReference: name before apiGroup; Status: code last), map keys
// (annotations, user extra) sorted, and <, >, &, U+2028 and U+2029 escaped as \u003c... (a requestURI's query
// separators included). Written field by field: an event is made for every request a policy logs.

import { goEscape } from '../../encoding/json.ts';
import type { AuditEvent, AuditUser, ObjectReference, ResponseStatus } from './types.ts';

// Strings that JSON and Go's encoder both write as they are: no quote, backslash, control character, HTML
// character, line or paragraph separator, or surrogate (a lone one is escaped).
const VERBATIM = /^[^"\\<>&\u0000-\u001f\u2028\u2029\ud800-\udfff]*$/;

function quote(s: string): string {
  return VERBATIM.test(s) ? `"${s}"` : goEscape(JSON.stringify(s));
}

/** A value Go encodes as JSON (bodies, Status details): JSON.stringify's text, Go-escaped. */
function goJson(value: unknown): string {
  return goEscape(JSON.stringify(value));
}

/** A map[string]string or map[string][]string, keys sorted as Go writes maps. */
function sortedMap(map: Readonly<Record<string, string | readonly string[]>>): string {
  let out = '{';
  for (const key of Object.keys(map).sort()) {
    const v = map[key]!;
    out += `${out.length > 1 ? ',' : ''}${quote(key)}:${typeof v === 'string' ? quote(v) : stringList(v)}`;
  }
  return `${out}}`;
}

function stringList(list: readonly string[]): string {
  let out = '[';
  for (let i = 0; i < list.length; i++) out += `${i > 0 ? ',' : ''}${quote(list[i]!)}`;
  return `${out}]`;
}

// Events of one user share its AuditUser (the auditor makes one per authenticated user).
const userJson = new WeakMap<AuditUser, string>();

function user(u: AuditUser): string {
  let json = userJson.get(u);
  if (json === undefined) {
    // authentication/v1 UserInfo: every field omitempty
    const fields: string[] = [];
    if (u.username) fields.push(`"username":${quote(u.username)}`);
    if (u.uid) fields.push(`"uid":${quote(u.uid)}`);
    if (u.groups && u.groups.length > 0) fields.push(`"groups":${stringList(u.groups)}`);
    if (u.extra && Object.keys(u.extra).length > 0) fields.push(`"extra":${sortedMap(u.extra)}`);
    json = `{${fields.join(',')}}`;
    userJson.set(u, json);
  }
  return json;
}

const REF_FIELDS = ['resource', 'namespace', 'name', 'uid', 'apiGroup', 'apiVersion', 'resourceVersion', 'subresource'] as const;

function objectRef(ref: ObjectReference): string {
  let out = '{';
  for (const field of REF_FIELDS) {
    const v = ref[field];
    if (v) out += `${out.length > 1 ? ',' : ''}"${field}":${quote(v)}`;
  }
  return `${out}}`;
}

function responseStatus(s: ResponseStatus): string {
  let out = '{"metadata":{}';
  if (s.status) out += `,"status":${quote(s.status)}`;
  if (s.message) out += `,"message":${quote(s.message)}`;
  if (s.reason) out += `,"reason":${quote(s.reason)}`;
  if (s.details !== undefined) out += `,"details":${goJson(s.details)}`;
  return `${out},"code":${s.code}}`;
}

/** One event's JSON, without a trailing newline. */
export function auditEventJson(e: AuditEvent): string {
  let out = `{"kind":"Event","apiVersion":"audit.k8s.io/v1","level":"${e.level}","auditID":${quote(e.auditID)},"stage":"${e.stage}","requestURI":${quote(e.requestURI)},"verb":${quote(e.verb)},"user":${user(e.user)}`;
  if (e.impersonatedUser) out += `,"impersonatedUser":${user(e.impersonatedUser)}`;
  if (e.sourceIPs && e.sourceIPs.length > 0) out += `,"sourceIPs":${stringList(e.sourceIPs)}`;
  if (e.userAgent) out += `,"userAgent":${quote(e.userAgent)}`;
  if (e.objectRef) out += `,"objectRef":${objectRef(e.objectRef)}`;
  if (e.responseStatus) out += `,"responseStatus":${responseStatus(e.responseStatus)}`;
  if (e.requestObject !== undefined) out += `,"requestObject":${goJson(e.requestObject)}`;
  if (e.responseObject !== undefined) out += `,"responseObject":${goJson(e.responseObject)}`;
  out += `,"requestReceivedTimestamp":${quote(e.requestReceivedTimestamp)},"stageTimestamp":${quote(e.stageTimestamp)}`;
  if (e.annotations && Object.keys(e.annotations).length > 0) out += `,"annotations":${sortedMap(e.annotations)}`;
  return `${out}}`;
}

/** The EventList a webhook backend posts. */
export function auditEventListJson(events: readonly AuditEvent[]): string {
  return `{"kind":"EventList","apiVersion":"audit.k8s.io/v1","metadata":{},"items":[${events.map(auditEventJson).join(',')}]}`;
}
