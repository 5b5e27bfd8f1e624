// PodDisruptionBudgets (pkg/apis/policy/validation ValidatePodDisruptionBudget and its status update; the strategy's
// status reset and generation; printPodDisruptionBudget).

import { fieldErrors, renderedBadValue, type FieldError } from '../../../apis/errors.ts';
import type { KubeObject } from '../../types.ts';
import { validateLabelSelector } from '../../validation/label-selector.ts';
import { notMoreThan100PercentErrors, nonnegativeAt, positiveIntOrPercentErrors } from '../apps/template-validation.ts';
import type { FactsMaker } from '../facts.ts';
import { buildStrategy } from '../generic.ts';
import { getPath, numAt, objAt } from '../object.ts';
import { ageColumn, column, intOrStringCell } from '../printing.ts';

const EVICTION_POLICIES = ['AlwaysAllow', 'IfHealthyBudget'];

const goIntOrString = (v: unknown) => (typeof v === 'number' ? `intstr.IntOrString{Type:0, IntVal:${v}, StrVal:""}` : `intstr.IntOrString{Type:1, IntVal:0, StrVal:${JSON.stringify(String(v))}}`);

/** ValidatePodDisruptionBudgetSpec. */
export function validatePodDisruptionBudgetSpec(obj: KubeObject): FieldError[] {
  const spec = objAt(obj, 'spec') ?? {};
  const errs: FieldError[] = [];
  const min = spec.minAvailable;
  const max = spec.maxUnavailable;
  const set = (v: unknown) => v !== undefined && v !== null;
  if (set(min) && set(max)) {
    // kube prints the spec struct (with pointer addresses); the set fields stand in for it.
    errs.push(fieldErrors.invalid('spec', renderedBadValue(`policy.PodDisruptionBudgetSpec{MinAvailable:${goIntOrString(min)}, MaxUnavailable:${goIntOrString(max)}}`), 'minAvailable and maxUnavailable cannot be both set'));
  }
  for (const [key, v] of [['minAvailable', min], ['maxUnavailable', max]] as const) {
    if (set(v)) errs.push(...positiveIntOrPercentErrors(v, `spec.${key}`), ...notMoreThan100PercentErrors(v, `spec.${key}`));
  }
  errs.push(...validateLabelSelector(spec.selector, 'spec.selector'));
  const policy = spec.unhealthyPodEvictionPolicy;
  if (typeof policy === 'string' && !EVICTION_POLICIES.includes(policy)) errs.push(fieldErrors.notSupported('spec.unhealthyPodEvictionPolicy', policy, EVICTION_POLICIES));
  return errs;
}

function validateStatus(obj: KubeObject): FieldError[] {
  const status = objAt(obj, 'status');
  return ['disruptionsAllowed', 'currentHealthy', 'desiredHealthy', 'expectedPods'].flatMap((f) => nonnegativeAt(status, `status.${f}`, f));
}

export const podDisruptionBudgetFacts: FactsMaker = (rules) => ({
  strategy: buildStrategy(rules, {
    validate: validatePodDisruptionBudgetSpec,
    validateStatusUpdate: validateStatus,
  }),
  printerColumns: [
    column('Min Available', 'string', 'Pods that must stay available.', (o) => intOrStringCell(getPath(o, 'spec', 'minAvailable'))),
    column('Max Unavailable', 'string', 'Pods that may be unavailable.', (o) => intOrStringCell(getPath(o, 'spec', 'maxUnavailable'))),
    column('Allowed Disruptions', 'integer', 'Disruptions allowed now.', (o) => numAt(o, 'status', 'disruptionsAllowed')),
    ageColumn,
  ],
  selectableFields: {},
});
