// An Indexed Job's successPolicy (kube's success_policy.go, JobSuccessPolicy beta and on in 1.31): the rules in
// order, the first one the succeeded indexes meet making the Job succeed (SuccessCriteriaMet, reason SuccessPolicy)
// before all its completions did.

import { parseIndexes } from './job-indexes.ts';
import { asObj } from './shared.ts';

/**
 * matchSucceededIndexesRule: every index the rule names succeeded, or at least its succeededCount of them.
 */
function succeededIndexesMet(ruleIndexes: readonly number[], succeeded: ReadonlySet<number>, succeededCount: unknown): boolean {
  const contains = ruleIndexes.filter((ix) => succeeded.has(ix)).length;
  return contains === ruleIndexes.length || (typeof succeededCount === 'number' && contains >= succeededCount);
}

/**
 * matchSuccessPolicy: kube's message ("Matched rules at index 1") for the first rule met — its succeededIndexes
 * (those below completions; a rule naming none is skipped), or else its succeededCount of any indexes; undefined when
 * none is, or no index succeeded yet.
 */
export function matchSuccessPolicy(policy: unknown, completions: number, succeeded: ReadonlySet<number>): string | undefined {
  const rules = asObj(policy).rules;
  if (!Array.isArray(rules) || succeeded.size === 0) return undefined;
  for (const [index, rule] of rules.map(asObj).entries()) {
    if (typeof rule.succeededIndexes === 'string') {
      const required = parseIndexes(rule.succeededIndexes, completions);
      if (required.length === 0) continue;
      if (succeededIndexesMet(required, succeeded, rule.succeededCount)) return `Matched rules at index ${index}`;
    } else if (typeof rule.succeededCount === 'number' && succeeded.size >= rule.succeededCount) return `Matched rules at index ${index}`;
  }
  return undefined;
}
