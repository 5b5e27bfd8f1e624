// ComponentStatuses' printer (printComponentStatus): the Healthy condition's status, message and error. The objects
// themselves are made when asked (registry/component-statuses.ts).

import type { KubeObject } from '../../types.ts';
import { printedFacts } from '../facts.ts';
import { objsAt, strAt } from '../object.ts';
import { column } from '../printing.ts';

const healthy = (o: KubeObject) => objsAt(o, 'conditions').find((c) => strAt(c, 'type') === 'Healthy');

export const componentStatusFacts = printedFacts(() => [
  column('Status', 'string', 'Whether the component answered healthy.', (o) => {
    const c = healthy(o);
    return c === undefined ? 'Unknown' : strAt(c, 'status') === 'True' ? 'Healthy' : 'Unhealthy';
  }),
  column('Message', 'string', 'What the component answered.', (o) => strAt(healthy(o) ?? {}, 'message')),
  column('Error', 'string', 'Why the component could not be checked.', (o) => strAt(healthy(o) ?? {}, 'error')),
]);
