// SelfSubjectReview (pkg/registry/authentication/selfsubjectreview, `kubectl auth whoami`): the attributes of
// the requesting user. A new object stamped with the time of the request.

import type { KubeObject, RequestContext } from '../types.ts';
import type { Obj } from './access-review.ts';
import type { UserInfo } from '../../auth/user.ts';

/** authentication/v1 UserInfo with Go's omitempty fields left out. */
export function userInfoJson(user: UserInfo): Obj {
  const out: Obj = {};
  if (user.name) out.username = user.name;
  if (user.uid) out.uid = user.uid;
  if (user.groups.length > 0) out.groups = [...user.groups];
  const extra = user.extra ?? {};
  if (Object.keys(extra).length > 0) out.extra = Object.fromEntries(Object.entries(extra).map(([k, v]) => [k, [...v]]));
  return out;
}

/** RFC 3339 to the second, as metav1.Time marshals. */
function rfc3339Seconds(d: Date): string {
  return d.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

export function selfSubjectReview(now: () => Date) {
  return async (ctx: RequestContext, obj: KubeObject): Promise<KubeObject> => {
    await ctx.validate?.(obj, undefined);
    return { metadata: { creationTimestamp: rfc3339Seconds(now()) }, status: { userInfo: userInfoJson(ctx.user) } };
  };
}
