// StorageClasses: kube's printer.

import type { KubeObject } from '../../types.ts';
import { printedFacts } from '../facts.ts';
import { strAt } from '../object.ts';
import { ageColumn, column } from '../printing.ts';

function storageClassName(obj: KubeObject): string {
  const a = obj.metadata?.annotations ?? {};
  const isDefault = a['storageclass.kubernetes.io/is-default-class'] === 'true' || a['storageclass.beta.kubernetes.io/is-default-class'] === 'true';
  return isDefault ? `${obj.metadata?.name ?? ''} (default)` : (obj.metadata?.name ?? '');
}

export const storageClassFacts = printedFacts(() => [
  // kube marks the default class in the name cell itself.
  column('Name', 'string', 'The name of the storage class; "(default)" marks the default one.', storageClassName, 0, 'name'),
  column('Provisioner', 'string', 'The volume provisioner.', (o) => strAt(o, 'provisioner')),
  column('ReclaimPolicy', 'string', 'What happens to released volumes.', (o) => strAt(o, 'reclaimPolicy') || 'Delete'),
  column('VolumeBindingMode', 'string', 'When volumes are bound.', (o) => strAt(o, 'volumeBindingMode') || 'Immediate'),
  column('AllowVolumeExpansion', 'string', 'Whether volumes may grow.', (o) => o.allowVolumeExpansion === true),
  ageColumn,
]);
