// PodDisruptionBudgets: kube's printer.

import { printedFacts } from '../facts.ts';
import { getPath, numAt } from '../object.ts';
import { ageColumn, column, intOrStringCell } from '../printing.ts';

export const podDisruptionBudgetFacts = printedFacts(() => [
  column('Min Available', 'string', 'Pods that must stay available.', (o) => intOrStringCell(getPath(o, 'spec', 'minAvailable'))),
  column('Max Unavailable', 'string', 'Pods that may be unavailable.', (o) => intOrStringCell(getPath(o, 'spec', 'maxUnavailable'))),
  column('Allowed Disruptions', 'integer', 'Disruptions allowed now.', (o) => numAt(o, 'status', 'disruptionsAllowed')),
  ageColumn,
]);
