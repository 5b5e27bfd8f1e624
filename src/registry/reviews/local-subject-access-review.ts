// LocalSubjectAccessReview (pkg/registry/authorization/localsubjectaccessreview): a SubjectAccessReview
// confined to the namespace of the request path.

import { badRequest, fieldErrors, renderedBadValue } from '../../apis/errors.ts';
import type { Authorizer } from '../../auth/authz/types.ts';
import type { KubeObject, RequestContext } from '../types.ts';
import {
  attributesFrom,
  dropDisabledSelectors,
  invalidReview,
  nonResourceAttributesOf,
  recordManagedFields,
  resourceAttributesOf,
  specOf,
  statusFrom,
  str,
  subjectOf,
  validateEmptyMetadata,
  validateSubjectSpec,
} from './access-review.ts';
import { echoedMetadata } from './create-only-store.ts';
import { nonResourceAttributesGoString } from './go-render.ts';

export function localSubjectAccessReview(authorizer: Authorizer, featureGates: Readonly<Record<string, boolean>>) {
  return async (ctx: RequestContext, obj: KubeObject): Promise<KubeObject> => {
    recordManagedFields(ctx, obj);
    const spec = specOf(obj);
    dropDisabledSelectors(spec, featureGates);
    const objNamespace = obj.metadata.namespace ?? '';
    const errs = [...validateSubjectSpec(spec), ...validateEmptyMetadata(obj.metadata, true)];
    const ra = resourceAttributesOf(spec);
    if (ra && str(ra.namespace) !== objNamespace) {
      errs.push(fieldErrors.invalid('spec.resourceAttributes.namespace', str(ra.namespace), 'must match metadata.namespace'));
    }
    const nra = nonResourceAttributesOf(spec);
    if (nra) errs.push(fieldErrors.invalid('spec.nonResourceAttributes', renderedBadValue(nonResourceAttributesGoString(nra)), 'disallowed on this kind of request'));
    if (errs.length > 0) throw invalidReview(errs);
    if (ctx.namespace === '') throw badRequest(`namespace is required on this type: ${ctx.namespace}`);
    if (ctx.namespace !== objNamespace) throw badRequest(`spec.resourceAttributes.namespace must match namespace: ${ctx.namespace}`);
    await ctx.validate?.(obj, undefined);
    obj.status = statusFrom(await authorizer.authorize(attributesFrom(spec, subjectOf(spec))));
    echoedMetadata(obj);
    return obj;
  };
}
