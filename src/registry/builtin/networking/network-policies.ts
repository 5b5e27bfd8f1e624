// NetworkPolicies: kube's printer.

import { printedFacts } from '../facts.ts';
import { getPath } from '../object.ts';
import { ageColumn, column, formatLabelSelector } from '../printing.ts';

export const networkPolicyFacts = printedFacts(() => [
  column('Pod-Selector', 'string', 'Pods the policy applies to.', (o) => formatLabelSelector(getPath(o, 'spec', 'podSelector'))),
  ageColumn,
]);
