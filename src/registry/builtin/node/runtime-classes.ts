// RuntimeClasses: kube's printer.

import { printedFacts } from '../facts.ts';
import { strAt } from '../object.ts';
import { ageColumn, column } from '../printing.ts';

export const runtimeClassFacts = printedFacts(() => [column('Handler', 'string', 'The runtime handler.', (o) => strAt(o, 'handler')), ageColumn]);
