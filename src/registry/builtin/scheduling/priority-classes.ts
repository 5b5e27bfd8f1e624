// PriorityClasses (scheduling/v1 SetDefaults_PriorityClass; pkg/apis/scheduling/validation ValidatePriorityClass
// and its update: reserved system- names, the user-definable ceiling, value and preemptionPolicy fixed; the
// registry's refusal to delete the system classes; printPriorityClass).

import { fieldErrors, type FieldError } from '../../../apis/errors.ts';
import { forbiddenError } from '../../store-errors.ts';
import type { KubeObject } from '../../types.ts';
import { FIELD_IMMUTABLE } from '../../validation/meta.ts';
import type { FactsMaker } from '../facts.ts';
import { buildStrategy } from '../generic.ts';
import { numAt, setDefault, strAt } from '../object.ts';
import { ageColumn, column } from '../printing.ts';

export const HIGHEST_USER_DEFINABLE_PRIORITY = 1_000_000_000;
const SYSTEM_PREFIX = 'system-';
const SYSTEM_CLASSES: Record<string, { value: number; globalDefault: boolean }> = {
  'system-node-critical': { value: 2_000_001_000, globalDefault: false },
  'system-cluster-critical': { value: 2_000_000_000, globalDefault: false },
};
const PREEMPTION_POLICIES = ['PreemptLowerPriority', 'Never'];

/** scheduling.IsKnownSystemPriorityClass's complaint, if any. */
function systemClassError(name: string, value: number, globalDefault: boolean): string | undefined {
  const known = SYSTEM_CLASSES[name];
  if (!known) return `${name} is not a known system priority class`;
  if (known.value !== value) return `value of ${name} PriorityClass must be ${known.value}`;
  if (known.globalDefault !== globalDefault) return `globalDefault of ${name} PriorityClass must be ${known.globalDefault}`;
  return undefined;
}

/** ValidatePreemptionPolicy. */
export function preemptionPolicyErrors(policy: unknown, path: string): FieldError[] {
  if (policy === undefined || policy === null) return [];
  if (policy === '') return [fieldErrors.required(path)];
  return PREEMPTION_POLICIES.includes(String(policy)) ? [] : [fieldErrors.notSupported(path, policy, PREEMPTION_POLICIES)];
}

function validatePriorityClass(pc: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  const name = pc.metadata?.name ?? '';
  const value = numAt(pc, 'value');
  if (name.startsWith(SYSTEM_PREFIX)) {
    const err = systemClassError(name, value, pc.globalDefault === true);
    if (err) errs.push(fieldErrors.forbidden('metadata.name', `priority class names with '${SYSTEM_PREFIX}' prefix are reserved for system use only. error: ${err}`));
  } else if (value > HIGHEST_USER_DEFINABLE_PRIORITY) {
    errs.push(fieldErrors.forbidden('value', `maximum allowed value of a user defined priority is ${HIGHEST_USER_DEFINABLE_PRIORITY}`));
  }
  return [...errs, ...preemptionPolicyErrors(pc.preemptionPolicy, 'preemptionPolicy')];
}

function validatePriorityClassUpdate(pc: KubeObject, old: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  if (numAt(pc, 'value') !== numAt(old, 'value')) errs.push(fieldErrors.forbidden('value', 'may not be changed in an update.'));
  if (strAt(pc, 'preemptionPolicy') !== strAt(old, 'preemptionPolicy')) errs.push(fieldErrors.invalid('preemptionPolicy', pc.preemptionPolicy ?? null, FIELD_IMMUTABLE));
  return errs;
}

export const priorityClassFacts: FactsMaker = (rules) => ({
  strategy: buildStrategy(rules, {
    defaults: (pc) => setDefault(pc, 'preemptionPolicy', 'PreemptLowerPriority'),
    validate: validatePriorityClass,
    validateUpdate: (pc, old) => validatePriorityClassUpdate(pc, old),
    // REST.Delete: the system classes stay (a deletecollection does not ask, as in kube).
    refuseDelete: (name) =>
      SYSTEM_CLASSES[name] ? forbiddenError({ group: 'scheduling.k8s.io', resource: 'priorityclasses' }, name, 'this is a system priority class and cannot be deleted') : undefined,
  }),
  printerColumns: [
    column('Value', 'integer', 'The priority value.', (o) => numAt(o, 'value')),
    column('Global-Default', 'boolean', 'Whether this is the default class.', (o) => o.globalDefault === true),
    ageColumn,
    column('PreemptionPolicy', 'string', 'Whether pods of the class preempt others.', (o) => strAt(o, 'preemptionPolicy')),
  ],
  selectableFields: {},
});
