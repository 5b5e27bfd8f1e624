// SelfSubjectRulesReview (pkg/registry/authorization/selfsubjectrulesreview, `kubectl auth can-i --list`): the
// rules the authorizers can enumerate for the requesting user in spec.namespace. The answer is a new object:
// the request's spec and metadata are not echoed.

import { badRequest } from '../../apis/errors.ts';
import type { Authorizer, NonResourceRule, ResourceRule, RulesResult } from '../../auth/authz/types.ts';
import type { KubeObject, RequestContext } from '../types.ts';
import { isObj, str, type Obj } from './access-review.ts';

const UNKNOWN_RULES: RulesResult = { resourceRules: [], nonResourceRules: [], incomplete: true };

function resourceRule(r: ResourceRule): Obj {
  const out: Obj = { verbs: [...r.verbs] };
  if (r.apiGroups.length > 0) out.apiGroups = [...r.apiGroups];
  if (r.resources.length > 0) out.resources = [...r.resources];
  if (r.resourceNames.length > 0) out.resourceNames = [...r.resourceNames];
  return out;
}

function nonResourceRule(r: NonResourceRule): Obj {
  const out: Obj = { verbs: [...r.verbs] };
  if (r.nonResourceURLs.length > 0) out.nonResourceURLs = [...r.nonResourceURLs];
  return out;
}

export function selfSubjectRulesReview(authorizer: Authorizer) {
  return async (ctx: RequestContext, obj: KubeObject): Promise<KubeObject> => {
    const namespace = str(isObj(obj.spec) ? obj.spec.namespace : undefined);
    if (namespace === '') throw badRequest('no namespace on request');
    await ctx.validate?.(obj, undefined);
    const rules = authorizer.rulesFor ? await authorizer.rulesFor(ctx.user, namespace) : UNKNOWN_RULES;
    const status: Obj = {
      resourceRules: rules.resourceRules.map(resourceRule),
      nonResourceRules: rules.nonResourceRules.map(nonResourceRule),
      incomplete: rules.incomplete,
    };
    if (rules.error) status.evaluationError = rules.error;
    return { metadata: { creationTimestamp: null }, spec: {}, status };
  };
}
