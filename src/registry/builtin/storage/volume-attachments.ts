// VolumeAttachments: kube's printer.

import { printedFacts } from '../facts.ts';
import { getPath, strAt } from '../object.ts';
import { ageColumn, column } from '../printing.ts';

export const volumeAttachmentFacts = printedFacts(() => [
  column('Attacher', 'string', 'The attaching driver.', (o) => strAt(o, 'spec', 'attacher'), 0, 'name'),
  column('PV', 'string', 'The persistent volume.', (o) => strAt(o, 'spec', 'source', 'persistentVolumeName')),
  column('Node', 'string', 'The node.', (o) => strAt(o, 'spec', 'nodeName')),
  column('Attached', 'boolean', 'Whether the volume is attached.', (o) => getPath(o, 'status', 'attached') === true),
  ageColumn,
]);
