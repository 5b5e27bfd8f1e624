// The 403 a denied request gets, worded exactly as kube-apiserver's responsewriters.Forbidden.

import { StatusError } from '../../apis/errors.ts';
import type { StatusDetails } from '../../apis/errors.ts';
import type { AuthzAttributes } from './types.ts';

/** Go's strconv.Quote for the strings that appear here (printable Unicode kept, controls escaped). */
export function goQuote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const cp = ch.codePointAt(0)!;
    switch (ch) {
      case '"':
        out += '\\"';
        continue;
      case '\\':
        out += '\\\\';
        continue;
      case '\n':
        out += '\\n';
        continue;
      case '\r':
        out += '\\r';
        continue;
      case '\t':
        out += '\\t';
        continue;
    }
    if (cp < 0x20 || cp === 0x7f) out += `\\x${cp.toString(16).padStart(2, '0')}`;
    else if (cp >= 0x80 && cp < 0xa0) out += `\\u${cp.toString(16).padStart(4, '0')}`;
    else out += ch;
  }
  return out + '"';
}

export function forbiddenMessage(a: AuthzAttributes): string {
  const user = goQuote(a.user.name);
  if (!a.isResourceRequest) return `User ${user} cannot ${a.verb} path ${goQuote(a.path)}`;
  const resource = a.subresource ? `${a.resource}/${a.subresource}` : a.resource;
  const what = `User ${user} cannot ${a.verb} resource ${goQuote(resource)} in API group ${goQuote(a.apiGroup)}`;
  return a.namespace ? `${what} in the namespace ${goQuote(a.namespace)}` : `${what} at the cluster scope`;
}

// Keeps the message from looking like HTML; quotes stay.
function sanitize(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** apierrors.NewForbidden(groupResource, name, message[: reason]). */
export function forbiddenError(a: AuthzAttributes, reason: string): StatusError {
  const msg = sanitize(forbiddenMessage(a));
  const err = reason ? `${msg}: ${reason}` : msg;
  const resource = a.isResourceRequest ? a.resource : '';
  const group = a.isResourceRequest ? a.apiGroup : '';
  const name = a.isResourceRequest ? a.name : '';
  const details: StatusDetails = {};
  if (name) details.name = name;
  if (group) details.group = group;
  if (resource) details.kind = resource;
  let message: string;
  if (!resource && !group) message = `forbidden: ${err}`;
  else {
    const qualified = group ? `${resource}.${group}` : resource;
    message = name ? `${qualified} ${goQuote(name)} is forbidden: ${err}` : `${qualified} is forbidden: ${err}`;
  }
  return new StatusError(403, 'Forbidden', message, details);
}
