// What the registry needs from a built-in type besides its discovery facts.

import type { KubeObject, PrinterColumn, Strategy } from '../types.ts';

export interface TypeFacts {
  strategy: Strategy;
  /** Table columns after Name (a column with format "name" means the type places Name itself). */
  printerColumns: PrinterColumn[];
  /** Field selector fields beyond metadata.name and metadata.namespace. */
  selectableFields: Record<string, (obj: KubeObject) => string | undefined>;
}
