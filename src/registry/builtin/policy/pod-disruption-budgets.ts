// PodDisruptionBudgets (pkg/apis/policy/validation ValidatePodDisruptionBudget and its status update; the strategy's
// status reset, generation, old-selector allowance and conditional updates; printPodDisruptionBudget).

import { fieldErrorBody, fieldErrors, renderedBadValue, type FieldError } from '../../../apis/errors.ts';
import { goIntOrString, goLabelSelector, goPointer, goText } from '../../../apis/go-bad-values.ts';
import type { KubeObject } from '../../types.ts';
import { validateConditions } from '../../validation/conditions.ts';
import { validateLabelSelector } from '../../validation/label-selector.ts';
import { notMoreThan100PercentErrors, nonnegativeAt, positiveIntOrPercentErrors } from '../apps/template-validation.ts';
import type { FactsMaker } from '../facts.ts';
import { buildStrategy } from '../generic.ts';
import { getPath, numAt, objAt, type Obj } from '../object.ts';
import { ageColumn, column, intOrStringCell } from '../printing.ts';

const EVICTION_POLICIES = ['AlwaysAllow', 'IfHealthyBudget'];
const STATUS_COUNTERS = ['disruptionsAllowed', 'currentHealthy', 'desiredHealthy', 'expectedPods'];

const isSet = (v: unknown): boolean => v !== undefined && v !== null;

/** The text of a bad value go-bad-values rendered, to nest it inside a struct. */
const nestedText = (rendered: unknown): string => fieldErrorBody({ type: 'FieldValueInvalid', field: '', badValue: rendered }).replace(/^Invalid value: /, '');

/** %#v of a policy.PodDisruptionBudgetSpec (its pointer fields show their values, as elsewhere in Capstan). */
function goPodDisruptionBudgetSpec(spec: Obj): unknown {
  const fields = [
    `MinAvailable:${goPointer('intstr.IntOrString', spec.minAvailable, goIntOrString)}`,
    `Selector:${goPointer('v1.LabelSelector', spec.selector, (s) => nestedText(goLabelSelector(s)))}`,
    `MaxUnavailable:${goPointer('intstr.IntOrString', spec.maxUnavailable, goIntOrString)}`,
    `UnhealthyPodEvictionPolicy:${goPointer('policy.UnhealthyPodEvictionPolicyType', spec.unhealthyPodEvictionPolicy, goText)}`,
  ];
  return renderedBadValue(`policy.PodDisruptionBudgetSpec{${fields.join(', ')}}`);
}

/**
 * ValidatePodDisruptionBudgetSpec. allowInvalidLabelValue is the strategy's update allowance: selector values that
 * are not label values may stay when the stored selector does not validate either.
 */
export function validatePodDisruptionBudgetSpec(obj: KubeObject, allowInvalidLabelValue = false): FieldError[] {
  const spec = objAt(obj, 'spec') ?? {};
  const errs: FieldError[] = [];
  if (isSet(spec.minAvailable) && isSet(spec.maxUnavailable)) {
    errs.push(fieldErrors.invalid('spec', goPodDisruptionBudgetSpec(spec), 'minAvailable and maxUnavailable cannot be both set'));
  }
  for (const key of ['minAvailable', 'maxUnavailable']) {
    const v = spec[key];
    if (isSet(v)) errs.push(...positiveIntOrPercentErrors(v, `spec.${key}`), ...notMoreThan100PercentErrors(v, `spec.${key}`));
  }
  errs.push(...validateLabelSelector(spec.selector, 'spec.selector', allowInvalidLabelValue));
  const policy = spec.unhealthyPodEvictionPolicy;
  if (typeof policy === 'string' && !EVICTION_POLICIES.includes(policy)) errs.push(fieldErrors.notSupported('spec.unhealthyPodEvictionPolicy', policy, EVICTION_POLICIES));
  return errs;
}

/** hasInvalidLabelValueInLabelSelector: the stored selector fails validation in any way. */
const storedSelectorInvalid = (old: KubeObject): boolean => validateLabelSelector(getPath(old, 'spec', 'selector'), 'spec.selector').length > 0;

/** ValidatePodDisruptionBudgetStatusUpdate (policy/v1): the conditions, then the counters. */
function validateStatus(obj: KubeObject): FieldError[] {
  const status = objAt(obj, 'status');
  return [...validateConditions(status?.conditions, 'status.conditions'), ...STATUS_COUNTERS.flatMap((f) => nonnegativeAt(status, `status.${f}`, f))];
}

export const podDisruptionBudgetFacts: FactsMaker = (rules) => {
  const strategy = buildStrategy(rules, {
    // ValidatePodDisruptionBudget checks no ObjectMeta: only the generic checks every write gets apply.
    genericMetaOnly: true,
    validate: (obj) => validatePodDisruptionBudgetSpec(obj),
    validateUpdate: (obj, old) => validatePodDisruptionBudgetSpec(obj, storedSelectorInvalid(old)),
    validateStatusUpdate: validateStatus,
  });
  // AllowUnconditionalUpdate is false: a PUT without metadata.resourceVersion is refused.
  strategy.allowUnconditionalUpdate = false;
  return {
    strategy,
    printerColumns: [
      column('Min Available', 'string', 'Pods that must stay available.', (o) => intOrStringCell(getPath(o, 'spec', 'minAvailable'))),
      column('Max Unavailable', 'string', 'Pods that may be unavailable.', (o) => intOrStringCell(getPath(o, 'spec', 'maxUnavailable'))),
      column('Allowed Disruptions', 'integer', 'Disruptions allowed now.', (o) => numAt(o, 'status', 'disruptionsAllowed')),
      ageColumn,
    ],
    selectableFields: {},
  };
};
