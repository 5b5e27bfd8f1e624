// A Job's podFailurePolicy as kube 1.31's validatePodFailurePolicy checks it: at most 20 rules; each with a supported
// action (FailIndex only with backoffLimitPerIndex) and exactly one of onExitCodes (an operator, a container of the
// template, 1 to 255 sorted and unique exit codes, no 0 for In) and onPodConditions (at most 20 patterns, each a
// qualified condition type and a supported status).

import { fieldErrors, OMITTED_VALUE, type FieldError } from '../../../apis/errors.ts';
import { validateQualifiedName } from '../../validation/meta.ts';
import { isObj, objsAt, type Obj } from '../object.ts';
import { goInt32s } from './go-batch-values.ts';

const MAX_RULES = 20;
const MAX_EXIT_CODE_VALUES = 255;
const MAX_POD_CONDITION_PATTERNS = 20;
// Sorted, as kube lists its sets.
const ACTIONS = ['Count', 'FailIndex', 'FailJob', 'Ignore'];
const OPERATORS = ['In', 'NotIn'];
const STATUSES = ['False', 'True', 'Unknown'];

const isSet = (v: unknown): boolean => v !== undefined && v !== null;
const str = (v: unknown): string => (typeof v === 'string' ? v : '');
/** fmt's %q of a []string: `["a" "b"]`. */
const quotedList = (values: readonly string[]): string => `[${values.map((v) => JSON.stringify(v)).join(' ')}]`;

function actionErrors(action: string, spec: Obj, path: string): FieldError[] {
  if (action === '') return [fieldErrors.required(path, `valid values: ${quotedList(ACTIONS)}`)];
  if (action === 'FailIndex') return isSet(spec.backoffLimitPerIndex) ? [] : [fieldErrors.invalid(path, action, 'requires the backoffLimitPerIndex to be set')];
  return ACTIONS.includes(action) ? [] : [fieldErrors.notSupported(path, action, ACTIONS)];
}

function exitCodesErrors(req: Obj, path: string, containerNames: ReadonlySet<string>): FieldError[] {
  const errs: FieldError[] = [];
  const operator = str(req.operator);
  if (operator === '') errs.push(fieldErrors.required(`${path}.operator`, `valid values: ${quotedList(OPERATORS)}`));
  else if (!OPERATORS.includes(operator)) errs.push(fieldErrors.notSupported(`${path}.operator`, operator, OPERATORS));
  if (typeof req.containerName === 'string' && !containerNames.has(req.containerName)) {
    errs.push(fieldErrors.invalid(`${path}.containerName`, req.containerName, 'must be one of the container or initContainer names in the pod template'));
  }
  const values = Array.isArray(req.values) ? (req.values as number[]) : [];
  if (values.length === 0) errs.push(fieldErrors.invalid(`${path}.values`, goInt32s(req.values), 'at least one value is required'));
  else if (values.length > MAX_EXIT_CODE_VALUES) errs.push(fieldErrors.tooMany(`${path}.values`, values.length, MAX_EXIT_CODE_VALUES));
  const seen = new Set<number>();
  values.forEach((code, i) => {
    if (operator === 'In' && code === 0) errs.push(fieldErrors.invalid(`${path}.values[${i}]`, code, 'must not be 0 for the In operator'));
    if (seen.has(code)) errs.push(fieldErrors.duplicate(`${path}.values[${i}]`, code));
    else seen.add(code);
  });
  if (values.some((code, i) => i > 0 && values[i - 1]! > code)) errs.push(fieldErrors.invalid(`${path}.values`, goInt32s(values), 'must be ordered'));
  return errs;
}

function podConditionsErrors(patterns: Obj[], path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (patterns.length > MAX_POD_CONDITION_PATTERNS) errs.push(fieldErrors.tooMany(path, patterns.length, MAX_POD_CONDITION_PATTERNS));
  patterns.forEach((pattern, j) => {
    errs.push(...validateQualifiedName(str(pattern.type), `${path}[${j}].type`));
    const status = str(pattern.status);
    if (status === '') errs.push(fieldErrors.required(`${path}[${j}].status`, `valid values: ${quotedList(STATUSES)}`));
    else if (!STATUSES.includes(status)) errs.push(fieldErrors.notSupported(`${path}[${j}].status`, status, STATUSES));
  });
  return errs;
}

function ruleErrors(spec: Obj, rule: Obj, path: string, containerNames: ReadonlySet<string>): FieldError[] {
  const errs = actionErrors(str(rule.action), spec, `${path}.action`);
  const onExitCodes = isObj(rule.onExitCodes) ? rule.onExitCodes : undefined;
  const patterns = objsAt(rule, 'onPodConditions');
  if (onExitCodes) errs.push(...exitCodesErrors(onExitCodes, `${path}.onExitCodes`, containerNames));
  if (patterns.length > 0) errs.push(...podConditionsErrors(patterns, `${path}.onPodConditions`));
  if (onExitCodes && patterns.length > 0) errs.push(fieldErrors.invalid(path, OMITTED_VALUE, 'specifying both OnExitCodes and OnPodConditions is not supported'));
  if (!onExitCodes && patterns.length === 0) errs.push(fieldErrors.invalid(path, OMITTED_VALUE, 'specifying one of OnExitCodes and OnPodConditions is required'));
  return errs;
}

/** validatePodFailurePolicy of a job spec whose podFailurePolicy is set. */
export function podFailurePolicyErrors(spec: Obj, path: string): FieldError[] {
  const rules = objsAt(spec.podFailurePolicy, 'rules');
  const errs: FieldError[] = [];
  if (rules.length > MAX_RULES) errs.push(fieldErrors.tooMany(`${path}.rules`, rules.length, MAX_RULES));
  const podSpec = isObj(spec.template) ? spec.template.spec : undefined;
  const containerNames = new Set([...objsAt(podSpec, 'containers'), ...objsAt(podSpec, 'initContainers')].map((c) => str(c.name)));
  rules.forEach((rule, i) => errs.push(...ruleErrors(spec, rule, `${path}.rules[${i}]`, containerNames)));
  return errs;
}
