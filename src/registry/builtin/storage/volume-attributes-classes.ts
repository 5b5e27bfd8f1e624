// VolumeAttributesClasses (pkg/apis/storage/validation ValidateVolumeAttributesClass and its update: driverName
// and parameters fixed; printVolumeAttributesClass).

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

export const volumeAttributesClassFacts: FactsMaker = (rules) => ({
  strategy: buildStrategy(rules, {
    validate: validateClass,
    validateUpdate(vac, old) {
      const errs: FieldError[] = [];
      if (strAt(vac, 'driverName') !== strAt(old, 'driverName')) errs.push(fieldErrors.forbidden('driverName', 'updates to driverName are forbidden.'));
      if (!sameStringMap(vac.parameters, old.parameters)) errs.push(fieldErrors.forbidden('parameters', 'updates to parameters are forbidden.'));
      return [...errs, ...validateClass(vac)];
    },
  }),
  printerColumns: [column('DriverName', 'string', 'The driver.', (o) => strAt(o, 'driverName')), ageColumn],
  selectableFields: {},
});
