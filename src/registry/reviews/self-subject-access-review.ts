// SelfSubjectAccessReview (pkg/registry/authorization/selfsubjectaccessreview, `kubectl auth can-i`): may the
// requesting user do what the spec's attributes describe?

import type { Authorizer } from '../../auth/authz/types.ts';
import type { KubeObject, RequestContext } from '../types.ts';
import { attributesFrom, dropDisabledSelectors, invalidReview, recordManagedFields, specOf, statusFrom, validateAttributesChoice, validateEmptyMetadata } from './access-review.ts';
import { echoedMetadata } from './create-only-store.ts';

export function selfSubjectAccessReview(authorizer: Authorizer, featureGates: Readonly<Record<string, boolean>>) {
  return async (ctx: RequestContext, obj: KubeObject): Promise<KubeObject> => {
    recordManagedFields(ctx, obj);
    const spec = specOf(obj);
    dropDisabledSelectors(spec, featureGates);
    const errs = [...validateAttributesChoice(spec), ...validateEmptyMetadata(obj.metadata, false)];
    if (errs.length > 0) throw invalidReview(errs);
    await ctx.validate?.(obj, undefined);
    obj.status = statusFrom(await authorizer.authorize(attributesFrom(spec, ctx.user)));
    echoedMetadata(obj);
    return obj;
  };
}
