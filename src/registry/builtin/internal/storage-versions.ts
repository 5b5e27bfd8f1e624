// StorageVersions: kube's printer.

import { printedFacts } from '../facts.ts';
import { objsAt, strAt } from '../object.ts';
import { ageColumn, column, listWithMore, orUnset } from '../printing.ts';

export const storageVersionFacts = printedFacts(() => [
  column('CommonEncodingVersion', 'string', 'The version all servers encode in.', (o) => orUnset(strAt(o, 'status', 'commonEncodingVersion'))),
  column('StorageVersions', 'string', 'Versions per server.', (o) => {
    const list = objsAt(o, 'status', 'storageVersions').map((s) => `${strAt(s, 'apiServerID')}=${strAt(s, 'encodingVersion')}`);
    return listWithMore(list.slice(0, 3), list.length > 3, list.length, 3);
  }),
  ageColumn,
]);
