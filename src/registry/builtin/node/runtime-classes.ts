// RuntimeClasses (pkg/apis/node/validation ValidateRuntimeClass and its update: a DNS-label handler fixed at
// creation, overhead as resource limits, scheduling labels and tolerations, each toleration once; the strategy
// validates an update as a create first; printRuntimeClass).

import { fieldErrors, renderedBadValue, type FieldError } from '../../../apis/errors.ts';
import { goInt, goPointer, goText } from '../../../apis/go-bad-values.ts';
import type { KubeObject } from '../../types.ts';
import { FIELD_IMMUTABLE, validateLabels } from '../../validation/meta.ts';
import { isDNS1123Label } from '../../validation/names.ts';
import { validateResources, validateTolerations } from '../core/pod-validation.ts';
import { runtimeClassWarnings } from '../core/pod-warnings.ts';
import type { FactsMaker } from '../facts.ts';
import { buildStrategy } from '../generic.ts';
import { getPath, objAt, objsAt, strAt } from '../object.ts';
import { ageColumn, column } from '../printing.ts';

/** Go's %#v of a core.Toleration (the pointer shown by its pointee). */
function goToleration(t: Record<string, unknown>): unknown {
  return renderedBadValue(
    `core.Toleration{Key:${goText(t.key)}, Operator:${goText(t.operator)}, Value:${goText(t.value)}, Effect:${goText(t.effect)}, ` +
      `TolerationSeconds:${goPointer('int64', t.tolerationSeconds, goInt)}}`,
  );
}

/** validateTolerations: the core rules, then each toleration once by its list keys (key, operator, value, effect). */
function schedulingTolerationErrors(tolerations: Record<string, unknown>[], path: string): FieldError[] {
  const errs = validateTolerations(tolerations, path);
  const seen = new Set<string>();
  tolerations.forEach((t, i) => {
    const listKey = JSON.stringify([t.key, t.operator, t.value, t.effect].map((v) => (typeof v === 'string' ? v : '')));
    if (seen.has(listKey)) errs.push(fieldErrors.duplicate(`${path}[${i}]`, goToleration(t)));
    seen.add(listKey);
  });
  return errs;
}

function validateRuntimeClass(rc: KubeObject): FieldError[] {
  const handler = strAt(rc, 'handler');
  const errs = isDNS1123Label(handler).map((m) => fieldErrors.invalid('handler', handler, m));
  const podFixed = getPath(rc, 'overhead', 'podFixed');
  if (podFixed !== undefined) errs.push(...validateResources({ limits: podFixed }, 'overhead'));
  const scheduling = objAt(rc, 'scheduling');
  if (scheduling) {
    errs.push(...validateLabels(scheduling.nodeSelector, 'scheduling.nodeSelector'));
    errs.push(...schedulingTolerationErrors(objsAt(scheduling, 'tolerations'), 'scheduling.tolerations'));
  }
  return errs;
}

export const runtimeClassFacts: FactsMaker = (rules) => ({
  strategy: buildStrategy(rules, {
    validate: validateRuntimeClass,
    // ValidateRuntimeClass again, then ValidateRuntimeClassUpdate: ObjectMeta's update rules, and the handler stays.
    placesMetaUpdate: true,
    validateUpdate: (rc, old, _ctx, validateNew, validateMetaUpdate) => [
      ...validateNew(),
      ...validateMetaUpdate(),
      ...(strAt(rc, 'handler') === strAt(old, 'handler') ? [] : [fieldErrors.invalid('handler', strAt(rc, 'handler'), FIELD_IMMUTABLE)]),
    ],
    warnings: (rc) => runtimeClassWarnings(rc),
  }),
  printerColumns: [column('Handler', 'string', 'The runtime handler.', (o) => strAt(o, 'handler')), ageColumn],
  selectableFields: {},
});
