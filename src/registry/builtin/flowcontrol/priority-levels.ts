// PriorityLevelConfigurations: kube's printer.

import { printedFacts } from '../facts.ts';
import { getPath, strAt } from '../object.ts';
import { ageColumn, column } from '../printing.ts';

export const priorityLevelConfigurationFacts = printedFacts(() => [
  column('Type', 'string', 'Limited or Exempt.', (o) => strAt(o, 'spec', 'type')),
  column('NominalConcurrencyShares', 'string', 'Concurrency shares.', (o) => getPath(o, 'spec', 'limited', 'nominalConcurrencyShares') ?? '<none>'),
  column('Queues', 'string', 'Queues.', (o) => getPath(o, 'spec', 'limited', 'limitResponse', 'queuing', 'queues') ?? '<none>'),
  column('HandSize', 'string', 'Hand size.', (o) => getPath(o, 'spec', 'limited', 'limitResponse', 'queuing', 'handSize') ?? '<none>'),
  column('QueueLengthLimit', 'string', 'Queue length limit.', (o) => getPath(o, 'spec', 'limited', 'limitResponse', 'queuing', 'queueLengthLimit') ?? '<none>'),
  ageColumn,
]);
