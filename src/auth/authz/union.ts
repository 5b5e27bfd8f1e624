// Asks authorizers in order: the first allow or deny decides; otherwise no opinion, with every reason given.
// Their rules (SelfSubjectRulesReview) are the concatenation of every member's, as kube's union rule resolver.

import type { Authorizer, AuthzResult, NonResourceRule, ResourceRule } from './types.ts';
import { firstAnswer } from '../maybe-async.ts';

export function unionAuthorizer(authorizers: readonly Authorizer[]): Authorizer {
  return {
    authorize(attrs) {
      const reasons: string[] = [];
      const errors: string[] = [];
      return firstAnswer(
        authorizers,
        (a) => a.authorize(attrs),
        (r: AuthzResult) => {
          if (r.error) errors.push(r.error);
          if (r.reason) reasons.push(r.reason);
          return r.decision !== 'noopinion' ? r : undefined;
        },
        (): AuthzResult => {
          const result = { decision: 'noopinion' as const, reason: reasons.join('\n') };
          return errors.length === 0 ? result : { ...result, error: aggregate(errors) };
        },
      );
    },
    async rulesFor(user, namespace) {
      const resourceRules: ResourceRule[] = [];
      const nonResourceRules: NonResourceRule[] = [];
      const errors: string[] = [];
      let incomplete = false;
      for (const a of authorizers) {
        if (!a.rulesFor) {
          incomplete = true;
          continue;
        }
        const r = await a.rulesFor(user, namespace);
        if (r.incomplete) incomplete = true;
        if (r.error) errors.push(r.error);
        resourceRules.push(...r.resourceRules);
        nonResourceRules.push(...r.nonResourceRules);
      }
      const result = { resourceRules, nonResourceRules, incomplete };
      return errors.length === 0 ? result : { ...result, error: aggregate(errors) };
    },
  };
}

/** utilerrors.NewAggregate(...).Error(): one error bare, several in brackets. */
function aggregate(errors: readonly string[]): string {
  return errors.length === 1 ? errors[0] : `[${errors.join(', ')}]`;
}
