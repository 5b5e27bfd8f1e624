// RuntimeClasses (pkg/apis/node/validation ValidateRuntimeClass and its update: a DNS-label handler fixed at
// creation, overhead as resource limits, scheduling labels and tolerations; printRuntimeClass).

import { fieldErrors, type FieldError } from '../../../apis/errors.ts';
import type { KubeObject } from '../../types.ts';
import { FIELD_IMMUTABLE, validateLabels } from '../../validation/meta.ts';
import { isDNS1123Label } from '../../validation/names.ts';
import { validateResources, validateTolerations } from '../core/pod-validation.ts';
import { runtimeClassWarnings } from '../core/pod-warnings.ts';
import type { FactsMaker } from '../facts.ts';
import { buildStrategy } from '../generic.ts';
import { getPath, objAt, objsAt, strAt } from '../object.ts';
import { ageColumn, column } from '../printing.ts';

function validateRuntimeClass(rc: KubeObject): FieldError[] {
  const handler = strAt(rc, 'handler');
  const errs = isDNS1123Label(handler).map((m) => fieldErrors.invalid('handler', handler, m));
  const podFixed = getPath(rc, 'overhead', 'podFixed');
  if (podFixed !== undefined) errs.push(...validateResources({ limits: podFixed }, 'overhead'));
  const scheduling = objAt(rc, 'scheduling');
  if (scheduling) {
    errs.push(...validateLabels(scheduling.nodeSelector, 'scheduling.nodeSelector'));
    errs.push(...validateTolerations(objsAt(scheduling, 'tolerations'), 'scheduling.tolerations'));
  }
  return errs;
}

export const runtimeClassFacts: FactsMaker = (rules) => ({
  strategy: buildStrategy(rules, {
    validate: validateRuntimeClass,
    // ValidateRuntimeClass again, then ValidateRuntimeClassUpdate: the handler stays.
    validateUpdate: (rc, old, _ctx, validateNew) => [
      ...validateNew(),
      ...(strAt(rc, 'handler') === strAt(old, 'handler') ? [] : [fieldErrors.invalid('handler', strAt(rc, 'handler'), FIELD_IMMUTABLE)]),
    ],
    warnings: (rc) => runtimeClassWarnings(rc),
  }),
  printerColumns: [column('Handler', 'string', 'The runtime handler.', (o) => strAt(o, 'handler')), ageColumn],
  selectableFields: {},
});
