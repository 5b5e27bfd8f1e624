// CSIDrivers and CSINodes: kube's printers.

import { printedFacts } from '../facts.ts';
import { arrAt, getPath, isObj, strAt } from '../object.ts';
import { ageColumn, column, orNone } from '../printing.ts';

export const csiDriverFacts = printedFacts(() => [
  column('AttachRequired', 'boolean', 'Whether volumes need attaching.', (o) => getPath(o, 'spec', 'attachRequired') !== false),
  column('PodInfoOnMount', 'boolean', 'Whether pod info is passed on mount.', (o) => getPath(o, 'spec', 'podInfoOnMount') === true),
  column('StorageCapacity', 'boolean', 'Whether capacity is tracked.', (o) => getPath(o, 'spec', 'storageCapacity') === true),
  column('TokenRequests', 'string', 'Audiences of requested tokens.', (o) => {
    const t = getPath(o, 'spec', 'tokenRequests');
    return Array.isArray(t) ? t.filter(isObj).map((x) => strAt(x, 'audience')).join(',') : '<unset>';
  }),
  column('RequiresRepublish', 'boolean', 'Whether volumes are republished periodically.', (o) => getPath(o, 'spec', 'requiresRepublish') === true),
  column('Modes', 'string', 'Volume lifecycle modes.', (o) => orNone(arrAt(o, 'spec', 'volumeLifecycleModes').map(String).join(','))),
  ageColumn,
]);

export const csiNodeFacts = printedFacts(() => [column('Drivers', 'integer', 'Registered CSI drivers.', (o) => arrAt(o, 'spec', 'drivers').length), ageColumn]);
