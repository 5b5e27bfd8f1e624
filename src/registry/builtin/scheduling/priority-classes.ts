// PriorityClasses: kube's printer.

import { printedFacts } from '../facts.ts';
import { numAt, strAt } from '../object.ts';
import { ageColumn, column } from '../printing.ts';

export const priorityClassFacts = printedFacts(() => [
  column('Value', 'integer', 'The priority value.', (o) => numAt(o, 'value')),
  column('Global-Default', 'boolean', 'Whether this is the default class.', (o) => o.globalDefault === true),
  ageColumn,
  column('PreemptionPolicy', 'string', 'Whether pods of the class preempt others.', (o) => strAt(o, 'preemptionPolicy')),
]);
