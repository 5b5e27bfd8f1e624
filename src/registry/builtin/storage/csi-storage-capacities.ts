// CSIStorageCapacities (pkg/apis/storage/validation ValidateCSIStorageCapacity and its update: nodeTopology and
// storageClassName fixed; printCSIStorageCapacity).

import { fieldErrors, type FieldError } from '../../../apis/errors.ts';
import type { KubeObject } from '../../types.ts';
import { validateLabelSelector } from '../../validation/label-selector.ts';
import { isDNS1123Subdomain } from '../../validation/names.ts';
import { quantityNanos } from '../../validation/quantity.ts';
import type { FactsMaker } from '../facts.ts';
import { buildStrategy } from '../generic.ts';
import { semanticEqual, strAt } from '../object.ts';
import { column } from '../printing.ts';

function validateCapacity(obj: KubeObject): FieldError[] {
  const errs = validateLabelSelector(obj.nodeTopology, 'nodeTopology');
  const className = strAt(obj, 'storageClassName');
  for (const m of isDNS1123Subdomain(className)) errs.push(fieldErrors.invalid('storageClassName', className, m));
  const nanos = quantityNanos(obj.capacity);
  if (nanos !== undefined && nanos < 0n) errs.push(fieldErrors.invalid('capacity', String(obj.capacity), 'must be greater than or equal to 0'));
  return errs;
}

export const csiStorageCapacityFacts: FactsMaker = (rules) => ({
  strategy: buildStrategy(rules, {
    validate: validateCapacity,
    // ValidateCSIStorageCapacityUpdate checks only the fixed inputs of GetCapacity.
    validateUpdate(obj, old) {
      const errs: FieldError[] = [];
      if (!semanticEqual(obj.nodeTopology, old.nodeTopology)) errs.push(fieldErrors.invalid('nodeTopology', obj.nodeTopology ?? null, 'field is immutable'));
      if (strAt(obj, 'storageClassName') !== strAt(old, 'storageClassName')) errs.push(fieldErrors.invalid('storageClassName', strAt(obj, 'storageClassName'), 'field is immutable'));
      return errs;
    },
  }),
  printerColumns: [
    column('StorageClassName', 'string', 'The storage class.', (o) => strAt(o, 'storageClassName')),
    column('Capacity', 'string', 'Available capacity.', (o) => (o.capacity === undefined ? '<unset>' : String(o.capacity))),
  ],
  selectableFields: {},
});
