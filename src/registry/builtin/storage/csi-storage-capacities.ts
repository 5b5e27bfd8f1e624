// CSIStorageCapacities (pkg/apis/storage/validation ValidateCSIStorageCapacity and its update: nodeTopology and
// storageClassName fixed; the strategy validates an update as a create first, tolerating the invalid label values
// the old selector already had; GetWarningsForCSIStorageCapacity; printCSIStorageCapacity).

import { fieldErrors, type FieldError } from '../../../apis/errors.ts';
import { goLabelSelector } from '../../../apis/go-bad-values.ts';
import type { KubeObject } from '../../types.ts';
import { hasInvalidLabelValueInSelector, validateLabelSelector } from '../../validation/label-selector.ts';
import { validateObjectMeta } from '../../validation/meta.ts';
import { isDNS1123Subdomain } from '../../validation/names.ts';
import { DEPRECATED_NODE_LABELS } from '../core/pod-warnings.ts';
import { nonNegativeQuantityErrors } from '../core/quantity-values.ts';
import type { FactsMaker } from '../facts.ts';
import { buildStrategy } from '../generic.ts';
import { objAt, objsAt, semanticEqual, strAt } from '../object.ts';
import { column } from '../printing.ts';

function validateCapacity(obj: KubeObject, allowInvalidLabelValue: boolean): FieldError[] {
  const errs = validateLabelSelector(obj.nodeTopology, 'nodeTopology', allowInvalidLabelValue);
  const className = strAt(obj, 'storageClassName');
  for (const m of isDNS1123Subdomain(className)) errs.push(fieldErrors.invalid('storageClassName', className, m));
  return [...errs, ...nonNegativeQuantityErrors(obj.capacity, 'capacity')];
}

/** ValidateCSIStorageCapacityUpdate's own rules: the inputs of CSI GetCapacity are fixed. */
function fixedCapacityInputs(obj: KubeObject, old: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  if (!semanticEqual(obj.nodeTopology, old.nodeTopology)) errs.push(fieldErrors.invalid('nodeTopology', goLabelSelector(obj.nodeTopology), 'field is immutable'));
  const className = strAt(obj, 'storageClassName');
  if (className !== strAt(old, 'storageClassName')) errs.push(fieldErrors.invalid('storageClassName', className, 'field is immutable'));
  return errs;
}

/** nodeapi.GetWarningsForNodeSelector on nodeTopology (matchLabels in key order; Go's map order is random). */
function capacityWarnings(obj: KubeObject): string[] {
  const out: string[] = [];
  objsAt(obj, 'nodeTopology', 'matchExpressions').forEach((e, i) => {
    const key = strAt(e, 'key');
    if (Object.hasOwn(DEPRECATED_NODE_LABELS, key)) out.push(`nodeTopology.matchExpressions[${i}].key: ${key} is ${DEPRECATED_NODE_LABELS[key]}`);
  });
  for (const label of Object.keys(objAt(obj.nodeTopology, 'matchLabels') ?? {}).sort()) {
    if (Object.hasOwn(DEPRECATED_NODE_LABELS, label)) out.push(`nodeTopology.matchLabels.${label}: ${DEPRECATED_NODE_LABELS[label]}`);
  }
  return out;
}

export const csiStorageCapacityFacts: FactsMaker = (rules) => ({
  strategy: buildStrategy(rules, {
    validate: (obj) => validateCapacity(obj, false),
    placesMetaUpdate: true,
    validateUpdate: (obj, old, _ctx, _validateNew, validateMetaUpdate) => [
      ...validateObjectMeta(obj.metadata, rules),
      ...validateCapacity(obj, hasInvalidLabelValueInSelector(old.nodeTopology)),
      ...validateMetaUpdate(),
      ...fixedCapacityInputs(obj, old),
    ],
    warnings: capacityWarnings,
  }),
  printerColumns: [
    column('StorageClassName', 'string', 'The storage class.', (o) => strAt(o, 'storageClassName')),
    column('Capacity', 'string', 'Available capacity.', (o) => (o.capacity === undefined ? '<unset>' : String(o.capacity))),
  ],
  selectableFields: {},
});
