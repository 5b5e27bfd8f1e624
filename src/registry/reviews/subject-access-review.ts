// SubjectAccessReview (pkg/registry/authorization/subjectaccessreview): may the user or groups of the spec do
// what its attributes describe? Answered by the server's authorizer.

import type { Authorizer } from '../../auth/authz/types.ts';
import type { KubeObject, RequestContext } from '../types.ts';
import { attributesFrom, dropDisabledSelectors, invalidReview, recordManagedFields, specOf, statusFrom, subjectOf, validateEmptyMetadata, validateSubjectSpec } from './access-review.ts';
import { echoedMetadata } from './create-only-store.ts';

export function subjectAccessReview(authorizer: Authorizer, featureGates: Readonly<Record<string, boolean>>) {
  return async (ctx: RequestContext, obj: KubeObject): Promise<KubeObject> => {
    recordManagedFields(ctx, obj);
    const spec = specOf(obj);
    dropDisabledSelectors(spec, featureGates);
    const errs = [...validateSubjectSpec(spec), ...validateEmptyMetadata(obj.metadata, false)];
    if (errs.length > 0) throw invalidReview(errs);
    await ctx.validate?.(obj, undefined);
    obj.status = statusFrom(await authorizer.authorize(attributesFrom(spec, subjectOf(spec))));
    echoedMetadata(obj);
    return obj;
  };
}
