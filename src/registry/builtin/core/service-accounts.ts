// ServiceAccounts: kube's printer (the number of listed secrets).

import { buildStrategy } from '../generic.ts';
import { arrAt } from '../object.ts';
import { ageColumn, column } from '../printing.ts';
import type { TypeFacts } from '../facts.ts';
import type { TypeRules } from '../type-rules.ts';

export function serviceAccountFacts(rules: TypeRules): TypeFacts {
  return {
    strategy: buildStrategy(rules),
    printerColumns: [column('Secrets', 'string', 'Number of secrets listed.', (o) => arrAt(o, 'secrets').length), ageColumn],
    selectableFields: {},
  };
}
