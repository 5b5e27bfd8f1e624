// FlowSchemas: kube's printer.

import { printedFacts } from '../facts.ts';
import { numAt, objsAt, strAt } from '../object.ts';
import { ageColumn, column, orNone } from '../printing.ts';

export const flowSchemaFacts = printedFacts(() => [
  column('PriorityLevel', 'string', 'The priority level of matching requests.', (o) => strAt(o, 'spec', 'priorityLevelConfiguration', 'name')),
  column('MatchingPrecedence', 'string', 'Lower numbers match first.', (o) => numAt(o, 'spec', 'matchingPrecedence')),
  column('DistinguisherMethod', 'string', 'How flows are told apart.', (o) => orNone(strAt(o, 'spec', 'distinguisherMethod', 'type'))),
  ageColumn,
  column('MissingPL', 'string', 'Whether the priority level is missing.', (o) => {
    const c = objsAt(o, 'status', 'conditions').find((x) => x.type === 'Dangling');
    return c ? strAt(c, 'status') : '?';
  }),
]);
