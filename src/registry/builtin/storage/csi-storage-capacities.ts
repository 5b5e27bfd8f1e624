// CSIStorageCapacities: kube's printer.

import { printedFacts } from '../facts.ts';
import { strAt } from '../object.ts';
import { column } from '../printing.ts';

export const csiStorageCapacityFacts = printedFacts(() => [
  column('StorageClassName', 'string', 'The storage class.', (o) => strAt(o, 'storageClassName')),
  column('Capacity', 'string', 'Available capacity.', (o) => (o.capacity === undefined ? '<unset>' : String(o.capacity))),
]);
