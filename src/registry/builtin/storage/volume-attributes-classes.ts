// VolumeAttributesClasses (pkg/apis/storage/validation ValidateVolumeAttributesClass and its update: driverName
// and parameters fixed; the strategy validates an update as a create first; printVolumeAttributesClass).

import { fieldErrors, type FieldError } from '../../../apis/errors.ts';
import type { KubeObject } from '../../types.ts';
import type { FactsMaker } from '../facts.ts';
import { buildStrategy } from '../generic.ts';
import { strAt } from '../object.ts';
import { ageColumn, column } from '../printing.ts';
import { parameterErrors, provisionerErrors, sameStringMap } from './storage-classes.ts';

function validateClass(vac: KubeObject): FieldError[] {
  return [...provisionerErrors(strAt(vac, 'driverName'), 'driverName'), ...parameterErrors(vac.parameters, false, 'parameters')];
}

function fixedFields(vac: KubeObject, old: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  if (strAt(vac, 'driverName') !== strAt(old, 'driverName')) errs.push(fieldErrors.forbidden('driverName', 'updates to driverName are forbidden.'));
  if (!sameStringMap(vac.parameters, old.parameters)) errs.push(fieldErrors.forbidden('parameters', 'updates to parameters are forbidden.'));
  return errs;
}

export const volumeAttributesClassFacts: FactsMaker = (rules) => ({
  strategy: buildStrategy(rules, {
    validate: validateClass,
    // The strategy: ValidateVolumeAttributesClass, then ValidateVolumeAttributesClassUpdate (ObjectMeta's update
    // rules, the fixed fields, and ValidateVolumeAttributesClass again).
    placesMetaUpdate: true,
    validateUpdate: (vac, old, _ctx, validateNew, validateMetaUpdate) => [...validateNew(), ...validateMetaUpdate(), ...fixedFields(vac, old), ...validateNew()],
  }),
  printerColumns: [column('DriverName', 'string', 'The driver.', (o) => strAt(o, 'driverName')), ageColumn],
  selectableFields: {},
});
