// TokenReview (pkg/registry/authentication/tokenreview): authenticate spec.token as a bearer token with the
// server's token authenticators and report who it belongs to. Static tokens are audience-agnostic: they are
// valid for the API audiences (kube's WrapAudienceAgnosticToken), so a review asking for other audiences only
// fails to authenticate.

import { badRequest, internalError } from '../../apis/errors.ts';
import type { Authenticator } from '../../auth/authn/types.ts';
import { ANONYMOUS_USER } from '../../auth/user.ts';
import type { KubeObject, RequestContext } from '../types.ts';
import { isObj, recordManagedFields, specOf, str, type Obj } from './access-review.ts';
import { echoedMetadata } from './create-only-store.ts';
import { userInfoJson } from './self-subject-review.ts';

/** kube-apiserver's --api-audiences default to its service account issuer; kubeadm and kind use this one. */
export const DEFAULT_API_AUDIENCES: readonly string[] = ['https://kubernetes.default.svc.cluster.local'];

/** What kube answers when it cannot resolve a token at all (no opinion from every token authenticator). */
const INVALID_TOKEN = 'invalid bearer token';

function stringList(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
}

export function tokenReview(authenticator: Authenticator | undefined, apiAudiences: readonly string[]) {
  return async (ctx: RequestContext, obj: KubeObject): Promise<KubeObject> => {
    recordManagedFields(ctx, obj);
    const spec = specOf(obj);
    const token = str(spec.token);
    if (token === '') throw badRequest('token is required for TokenReview in authentication');
    await ctx.validate?.(obj, undefined);
    echoedMetadata(obj);
    if (!authenticator) return obj;

    const requested = stringList(spec.audiences);
    const audiences = requested.length > 0 ? requested : [...apiAudiences];
    const granted = audiences.length > 0 ? apiAudiences.filter((a) => audiences.includes(a)) : [];
    const prior = isObj(obj.status) ? obj.status : {};
    const status: Obj = {};
    let user: Obj = isObj(prior.user) ? prior.user : {};
    let error = str(prior.error);
    let tokenAudiences: string[] | undefined = stringList(prior.audiences);

    let result = await authenticator.authenticate({ headers: { authorization: `Bearer ${token}` }, audiences });
    // Audience-agnostic authenticators (the token file) stand for --api-audiences (kube's WrapAudienceAgnosticToken).
    if (result.kind === 'authenticated' && !result.audiences && audiences.length > 0 && granted.length === 0) result = { kind: 'error', error: INVALID_TOKEN };
    if (result.kind === 'authenticated') {
      // Anonymous is the only identity that comes without audiences; kube then refuses to vouch for any.
      if (audiences.length > 0 && result.user.name === ANONYMOUS_USER) throw internalError(new Error('error validating audiences'));
      status.authenticated = true;
      user = userInfoJson(result.user);
      const resultAudiences = result.audiences ?? granted;
      tokenAudiences = resultAudiences.length > 0 ? [...resultAudiences] : undefined;
    } else if (result.kind === 'error') {
      error = result.error;
    } else {
      error = INVALID_TOKEN;
    }
    status.user = user;
    if (tokenAudiences && tokenAudiences.length > 0) status.audiences = tokenAudiences;
    if (error) status.error = error;
    obj.status = status;
    return obj;
  };
}
