// Impersonation (k8s.io/apiserver/pkg/endpoints/filters/impersonation.go): Impersonate-User, -Group, -Uid and
// Impersonate-Extra-<key> headers turn the request into one of another user, when the requestor may `impersonate`
// each of them (users, groups, serviceaccounts, uids, userextras/<key>). Used by kubectl --as and --as-group.

import { internalError, type StatusError } from '../apis/errors.ts';
import { forbiddenError } from './authz/forbidden.ts';
import type { Authorizer, AuthzAttributes } from './authz/types.ts';
import { ALL_AUTHENTICATED, ALL_UNAUTHENTICATED, ANONYMOUS_USER, type UserInfo } from './user.ts';

const USER_HEADER = 'impersonate-user';
const GROUP_HEADER = 'impersonate-group';
const UID_HEADER = 'impersonate-uid';
const EXTRA_PREFIX = 'impersonate-extra-';
const SA_PREFIX = 'system:serviceaccount:';
const AUTHENTICATION_V1 = 'authentication.k8s.io/v1';

/** One thing to impersonate (kube builds a v1.ObjectReference per header value). */
interface ImpersonationRequest {
  readonly kind: 'ServiceAccount' | 'User' | 'Group' | 'UserExtra' | 'UID';
  readonly namespace: string;
  readonly name: string;
  readonly apiVersion: string;
  readonly fieldPath: string;
}

/** Header values by lowercased name, repeated headers kept apart (Node joins some of them in req.headers). */
function headerValues(rawHeaders: readonly string[]): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    const raw = rawHeaders[i];
    // Most requests carry none: look at the first letter before lowercasing anything.
    if (raw.length < 12 || (raw.charCodeAt(0) | 0x20) !== 0x69) continue;
    const name = raw.toLowerCase();
    if (!name.startsWith('impersonate-')) continue;
    const list = out.get(name) ?? [];
    list.push(rawHeaders[i + 1]);
    out.set(name, list);
  }
  return out;
}

/** serviceaccount.SplitUsername. */
function splitServiceAccount(user: string): { namespace: string; name: string } | undefined {
  if (!user.startsWith(SA_PREFIX)) return undefined;
  const parts = user.slice(SA_PREFIX.length).split(':');
  if (parts.length !== 2 || parts[0] === '' || parts[1] === '') return undefined;
  return { namespace: parts[0], name: parts[1] };
}

function unescapeExtraKey(key: string): string {
  try {
    return decodeURIComponent(key);
  } catch {
    return key;
  }
}

/** Go's %v of a v1.ObjectReference, as the "without impersonating a user" error prints the requests. */
function goString(r: ImpersonationRequest): string {
  return `{${r.kind} ${r.namespace} ${r.name}  ${r.apiVersion}  ${r.fieldPath}}`;
}

function requestsFrom(headers: Map<string, string[]>): ImpersonationRequest[] {
  const requests: ImpersonationRequest[] = [];
  const user = headers.get(USER_HEADER)?.[0] ?? '';
  if (user !== '') {
    const sa = splitServiceAccount(user);
    requests.push(sa ? { kind: 'ServiceAccount', ...sa, apiVersion: '', fieldPath: '' } : { kind: 'User', namespace: '', name: user, apiVersion: '', fieldPath: '' });
  }
  for (const group of headers.get(GROUP_HEADER) ?? []) requests.push({ kind: 'Group', namespace: '', name: group, apiVersion: '', fieldPath: '' });
  let hasExtra = false;
  for (const [name, values] of headers) {
    if (!name.startsWith(EXTRA_PREFIX)) continue;
    hasExtra = true;
    const key = unescapeExtraKey(name.slice(EXTRA_PREFIX.length));
    for (const value of values) requests.push({ kind: 'UserExtra', namespace: '', name: value, apiVersion: AUTHENTICATION_V1, fieldPath: key });
  }
  const uid = headers.get(UID_HEADER)?.[0] ?? '';
  if (uid !== '') requests.push({ kind: 'UID', namespace: '', name: uid, apiVersion: AUTHENTICATION_V1, fieldPath: '' });
  const others = (headers.get(GROUP_HEADER)?.length ?? 0) > 0 || hasExtra || uid !== '';
  if (others && user === '') throw internalError(new Error(`requested [${requests.map(goString).join(' ')}] without impersonating a user`));
  return requests;
}

function attributes(requestor: UserInfo, r: ImpersonationRequest): AuthzAttributes {
  const base = { user: requestor, verb: 'impersonate', isResourceRequest: true, path: '', namespace: '', apiGroup: '', apiVersion: '', subresource: '', name: r.name };
  switch (r.kind) {
    case 'ServiceAccount':
      return { ...base, namespace: r.namespace, resource: 'serviceaccounts' };
    case 'User':
      return { ...base, resource: 'users' };
    case 'Group':
      return { ...base, resource: 'groups' };
    case 'UserExtra':
      return { ...base, apiGroup: 'authentication.k8s.io', apiVersion: 'v1', resource: 'userextras', subresource: r.fieldPath };
    case 'UID':
      return { ...base, apiGroup: 'authentication.k8s.io', apiVersion: 'v1', resource: 'uids' };
  }
}

/**
 * The user a request acts as: the requestor itself without impersonation headers, else the impersonated user
 * once every part is authorized. Throws the StatusError to answer (500 for headers without a user, 403).
 */
export function impersonatedUser(requestor: UserInfo, rawHeaders: readonly string[], authorizer: Authorizer): undefined | Promise<UserInfo | undefined> {
  const headers = headerValues(rawHeaders);
  if (headers.size === 0) return undefined;
  return impersonate(requestor, headers, authorizer);
}

async function impersonate(requestor: UserInfo, headers: ReturnType<typeof headerValues>, authorizer: Authorizer): Promise<UserInfo | undefined> {
  const requests = requestsFrom(headers);
  if (requests.length === 0) return undefined;
  const groupsSpecified = (headers.get(GROUP_HEADER)?.length ?? 0) > 0;
  let name = '';
  let uid: string | undefined;
  let groups: string[] = [];
  const extra: Record<string, string[]> = {};
  for (const r of requests) {
    switch (r.kind) {
      case 'ServiceAccount':
        name = `${SA_PREFIX}${r.namespace}:${r.name}`;
        if (!groupsSpecified) groups = ['system:serviceaccounts', `system:serviceaccounts:${r.namespace}`];
        break;
      case 'User':
        name = r.name;
        break;
      case 'Group':
        groups.push(r.name);
        break;
      case 'UserExtra':
        (extra[r.fieldPath] ??= []).push(r.name);
        break;
      case 'UID':
        uid = r.name;
        break;
    }
    const attrs = attributes(requestor, r);
    const decision = await authorizer.authorize(attrs);
    if (decision.decision !== 'allow') throw forbiddenError(attrs, decision.reason) satisfies StatusError;
  }
  if (name !== ANONYMOUS_USER) {
    if (!groups.includes(ALL_AUTHENTICATED) && !groups.includes(ALL_UNAUTHENTICATED)) groups.push(ALL_AUTHENTICATED);
  } else if (!groups.includes(ALL_UNAUTHENTICATED)) groups.push(ALL_UNAUTHENTICATED);
  return { name, groups, ...(uid !== undefined ? { uid } : {}), ...(Object.keys(extra).length > 0 ? { extra } : {}) };
}

/** Removes the impersonation headers once they have been acted on (nothing downstream sees them). */
export function dropImpersonationHeaders(headers: Record<string, unknown>): void {
  for (const name of Object.keys(headers)) if (name.startsWith('impersonate-')) delete headers[name];
}
