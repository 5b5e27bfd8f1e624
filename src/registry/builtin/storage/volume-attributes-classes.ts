// VolumeAttributesClasses: kube's printer.

import { printedFacts } from '../facts.ts';
import { strAt } from '../object.ts';
import { ageColumn, column } from '../printing.ts';

export const volumeAttributesClassFacts = printedFacts(() => [column('DriverName', 'string', 'The driver.', (o) => strAt(o, 'driverName')), ageColumn]);
