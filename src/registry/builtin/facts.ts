// What the registry needs from a built-in type besides its discovery facts.

import type { KubeObject, PrinterColumn, Strategy } from '../types.ts';
import { buildStrategy } from './generic.ts';
import type { TypeRules } from './type-rules.ts';

export interface TypeFacts {
  strategy: Strategy;
  /** Table columns after Name (a column with format "name" means the type places Name itself). */
  printerColumns: PrinterColumn[];
  /** Field selector fields beyond metadata.name and metadata.namespace. */
  selectableFields: Record<string, (obj: KubeObject) => string | undefined>;
}

/** How a type module builds its facts from the type's rules. */
export type FactsMaker = (rules: TypeRules) => TypeFacts;

/** A type whose strategy is the generic one: only its printer columns (and field selectors) are its own. */
export function printedFacts(columns: () => PrinterColumn[], selectableFields: TypeFacts['selectableFields'] = {}): FactsMaker {
  return (rules) => ({ strategy: buildStrategy(rules), printerColumns: columns(), selectableFields });
}
