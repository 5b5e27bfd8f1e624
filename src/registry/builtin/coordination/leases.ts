// Leases: kube's printer.

import { printedFacts } from '../facts.ts';
import { strAt } from '../object.ts';
import { ageColumn, column } from '../printing.ts';

export const leaseFacts = printedFacts(() => [column('Holder', 'string', 'The current holder of the lease.', (o) => strAt(o, 'spec', 'holderIdentity')), ageColumn]);
