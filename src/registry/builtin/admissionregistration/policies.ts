// ValidatingAdmissionPolicy and ValidatingAdmissionPolicyBinding (admissionregistration.k8s.io/v1): v1 defaults
// and kube's validation, CEL expressions compiled by the server's CEL module (a policy that does not compile is
// refused with cel's error, as kube does).

import { fieldErrors, renderedBadValue, type FieldError } from '../../../apis/errors.ts';
import { compilePolicy, type Compiled } from '../../../admission/policy/compile.ts';
import type { KubeObject } from '../../types.ts';
import { buildStrategy } from '../generic.ts';
import type { FactsMaker } from '../facts.ts';
import { validateLabelSelector } from '../../validation/label-selector.ts';
import { defaultRules, validateMatchConditions, validateRule } from './webhook-configurations.ts';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => !!v && typeof v === 'object' && !Array.isArray(v);
const listAt = (o: Obj, k: string): unknown[] => (Array.isArray(o[k]) ? (o[k] as unknown[]) : []);
const specOf = (obj: KubeObject): Obj => (isObj(obj.spec) ? obj.spec : {});

function defaultMatchResources(m: unknown): void {
  if (!isObj(m)) return;
  m.namespaceSelector ??= {};
  m.objectSelector ??= {};
  m.matchPolicy ??= 'Equivalent';
  defaultRules(m.resourceRules);
  defaultRules(m.excludeResourceRules);
}

function compileError(path: string, expr: unknown, compiled: Compiled | undefined, errs: FieldError[]): void {
  if (typeof expr !== 'string' || expr.trim() === '') {
    errs.push(fieldErrors.required(path));
    return;
  }
  if (compiled?.error) errs.push(fieldErrors.invalid(path, expr, compiled.error));
}

function validateMatchResources(m: unknown, path: string, requireRules: boolean): FieldError[] {
  const errs: FieldError[] = [];
  if (!isObj(m)) return requireRules ? [fieldErrors.required(path)] : [];
  const rules = listAt(m, 'resourceRules');
  if (requireRules && rules.length === 0) errs.push(fieldErrors.required(`${path}.resourceRules`));
  rules.forEach((r, i) => errs.push(...validateRule(isObj(r) ? r : {}, `${path}.resourceRules[${i}]`)));
  listAt(m, 'excludeResourceRules').forEach((r, i) => errs.push(...validateRule(isObj(r) ? r : {}, `${path}.excludeResourceRules[${i}]`)));
  if (m.matchPolicy !== undefined && !['Equivalent', 'Exact'].includes(m.matchPolicy as string)) errs.push(fieldErrors.notSupported(`${path}.matchPolicy`, m.matchPolicy, ['Equivalent', 'Exact']));
  if (m.namespaceSelector !== undefined) errs.push(...validateLabelSelector(m.namespaceSelector, `${path}.namespaceSelector`));
  if (m.objectSelector !== undefined) errs.push(...validateLabelSelector(m.objectSelector, `${path}.objectSelector`));
  return errs;
}

const REASONS = ['Forbidden', 'Invalid', 'RequestEntityTooLarge', 'Unauthorized'];

function validatePolicy(obj: KubeObject): FieldError[] {
  const spec = specOf(obj);
  const errs: FieldError[] = [];
  const compiled = compilePolicy(obj);
  if (spec.failurePolicy !== undefined && !['Fail', 'Ignore'].includes(spec.failurePolicy as string)) errs.push(fieldErrors.notSupported('spec.failurePolicy', spec.failurePolicy, ['Fail', 'Ignore']));
  if (isObj(spec.paramKind)) {
    if (!spec.paramKind.kind) errs.push(fieldErrors.required('spec.paramKind.kind'));
    if (!spec.paramKind.apiVersion) errs.push(fieldErrors.required('spec.paramKind.apiVersion'));
  }
  errs.push(...validateMatchResources(spec.matchConstraints, 'spec.matchConstraints', true));
  const validations = listAt(spec, 'validations');
  const audits = listAt(spec, 'auditAnnotations');
  if (validations.length === 0 && audits.length === 0) errs.push(fieldErrors.required('spec.validations', 'validations or auditAnnotations must contain at least one item'));
  validations.forEach((raw, i) => {
    const v = isObj(raw) ? raw : {};
    const path = `spec.validations[${i}]`;
    compileError(`${path}.expression`, v.expression, compiled.validations[i]?.expression, errs);
    if (v.messageExpression !== undefined) compileError(`${path}.messageExpression`, v.messageExpression, compiled.validations[i]?.messageExpression, errs);
    if (typeof v.message === 'string' && v.message.includes('\n')) errs.push(fieldErrors.invalid(`${path}.message`, v.message, 'message must not contain line breaks'));
    if (v.reason !== undefined && !REASONS.includes(v.reason as string)) errs.push(fieldErrors.notSupported(`${path}.reason`, v.reason, REASONS));
  });
  audits.forEach((raw, i) => {
    const a = isObj(raw) ? raw : {};
    if (typeof a.key !== 'string' || a.key === '') errs.push(fieldErrors.required(`spec.auditAnnotations[${i}].key`));
    compileError(`spec.auditAnnotations[${i}].valueExpression`, a.valueExpression, compiled.auditAnnotations[i]?.compiled, errs);
  });
  const names = new Set<string>();
  listAt(spec, 'variables').forEach((raw, i) => {
    const v = isObj(raw) ? raw : {};
    const name = typeof v.name === 'string' ? v.name : '';
    if (name === '') errs.push(fieldErrors.required(`spec.variables[${i}].name`));
    else if (names.has(name)) errs.push(fieldErrors.duplicate(`spec.variables[${i}].name`, name));
    names.add(name);
    compileError(`spec.variables[${i}].expression`, v.expression, compiled.variables[i]?.compiled, errs);
  });
  errs.push(...validateMatchConditions(spec.matchConditions, 'spec.matchConditions', compiled.matchConditions.map((c) => c.compiled)));
  return errs;
}

function validateBinding(obj: KubeObject): FieldError[] {
  const spec = specOf(obj);
  const errs: FieldError[] = [];
  if (typeof spec.policyName !== 'string' || spec.policyName === '') errs.push(fieldErrors.required('spec.policyName'));
  const actions = listAt(spec, 'validationActions') as string[];
  if (actions.length === 0) errs.push(fieldErrors.required('spec.validationActions', 'at least one validation action is required'));
  const seen = new Set<string>();
  actions.forEach((a, i) => {
    if (!['Audit', 'Deny', 'Warn'].includes(a)) errs.push(fieldErrors.notSupported(`spec.validationActions[${i}]`, a, ['Audit', 'Deny', 'Warn']));
    if (seen.has(a)) errs.push(fieldErrors.duplicate(`spec.validationActions[${i}]`, a));
    seen.add(a);
  });
  if (seen.has('Deny') && seen.has('Warn')) {
    errs.push(fieldErrors.invalid('spec.validationActions', renderedBadValue(`[]admissionregistration.ValidationAction{${actions.map((a) => JSON.stringify(a)).join(', ')}}`), 'must not contain both Deny and Warn (repeating the same validation failure information in the API response and headers serves no purpose)'));
  }
  if (isObj(spec.paramRef)) {
    const p = spec.paramRef;
    if (p.name !== undefined && p.selector !== undefined) errs.push(fieldErrors.forbidden('spec.paramRef.name', 'name and selector are mutually exclusive'));
    if (p.name === undefined && p.selector === undefined) errs.push(fieldErrors.required('spec.paramRef', 'one of name or selector must be specified'));
    if (p.selector !== undefined) errs.push(...validateLabelSelector(p.selector, 'spec.paramRef.selector'));
    if (p.parameterNotFoundAction === undefined) errs.push(fieldErrors.required('spec.paramRef.parameterNotFoundAction'));
    else if (!['Allow', 'Deny'].includes(p.parameterNotFoundAction as string)) errs.push(fieldErrors.notSupported('spec.paramRef.parameterNotFoundAction', p.parameterNotFoundAction, ['Allow', 'Deny']));
  }
  errs.push(...validateMatchResources(spec.matchResources, 'spec.matchResources', false));
  return errs;
}

export function validatingAdmissionPolicyStrategyFacts(printed: FactsMaker): FactsMaker {
  return (rules) => {
    const base = printed(rules);
    const strategy = buildStrategy(rules, {
      defaults: (obj) => {
        const spec = specOf(obj);
        if (!isObj(obj.spec)) obj.spec = spec;
        spec.failurePolicy ??= 'Fail';
        defaultMatchResources(spec.matchConstraints);
      },
      validate: (obj) => validatePolicy(obj),
    });
    return { ...base, strategy };
  };
}

export function validatingAdmissionPolicyBindingStrategyFacts(printed: FactsMaker): FactsMaker {
  return (rules) => ({
    ...printed(rules),
    strategy: buildStrategy(rules, {
      defaults: (obj) => defaultMatchResources(specOf(obj).matchResources),
      validate: (obj) => validateBinding(obj),
    }),
  });
}
