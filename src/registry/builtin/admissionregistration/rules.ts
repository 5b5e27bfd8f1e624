// What webhooks and admission policies share in kube's pkg/apis/admissionregistration/validation: the rules with
// their operations (validateRuleWithOperations, validateResources, validateNamedRuleWithOperations), the
// matchConditions and a policy's matchResources, with kube's messages, order and Go-printed bad values.

import { fieldErrors, renderedBadValue, type FieldError } from '../../../apis/errors.ts';
import { goSlice, goText } from '../../../apis/go-bad-values.ts';
import { goStringsValue } from '../../../apis/errors.ts';
import { isQualifiedName, isValidPathSegment } from '../../validation/names.ts';
import { validateLabelSelector } from '../../validation/label-selector.ts';
import { arrAt, isObj, objsAt, type Obj } from '../object.ts';

/** SetDefaults_Rule: scope "*". */
export function defaultRules(rules: unknown): void {
  if (!Array.isArray(rules)) return;
  for (const r of rules) if (isObj(r) && r.scope === undefined) r.scope = '*';
}

const texts = (o: Obj, key: string): string[] => arrAt(o, key).map((x) => (typeof x === 'string' ? x : ''));

// sets.NewString(...).List(): sorted.
const OPERATIONS = ['*', 'CONNECT', 'CREATE', 'DELETE', 'UPDATE'];
const SCOPES = ['*', 'Cluster', 'Namespaced'];
export const FAILURE_POLICIES = ['Fail', 'Ignore'];
export const MATCH_POLICIES = ['Equivalent', 'Exact'];

/** validateResources: resources with subresources, and the wildcards that may not stand beside others. */
function resourcesErrors(resources: string[], path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (resources.length === 0) errs.push(fieldErrors.required(path));
  const withWildcardSub = new Set<string>();
  const subWithWildcardRes = new Set<string>();
  let doubleWildcard = false;
  let singleWildcard = false;
  let plainResource = false;
  resources.forEach((r, i) => {
    if (r === '') {
      errs.push(fieldErrors.required(`${path}[${i}]`));
      return;
    }
    if (r === '*/*') doubleWildcard = true;
    if (r === '*') singleWildcard = true;
    const slash = r.indexOf('/');
    if (slash < 0) {
      // kube keeps only the last plain entry's answer here
      plainResource = r !== '*';
      return;
    }
    const res = r.slice(0, slash);
    const sub = r.slice(slash + 1);
    if (withWildcardSub.has(res)) errs.push(fieldErrors.invalid(`${path}[${i}]`, r, `if '${res}/*' is present, must not specify ${r}`));
    if (subWithWildcardRes.has(sub)) errs.push(fieldErrors.invalid(`${path}[${i}]`, r, `if '*/${sub}' is present, must not specify ${r}`));
    if (sub === '*') withWildcardSub.add(res);
    if (res === '*') subWithWildcardRes.add(sub);
  });
  if (resources.length > 1 && doubleWildcard) errs.push(fieldErrors.invalid(path, goStringsValue(resources), "if '*/*' is present, must not specify other resources"));
  if (singleWildcard && plainResource) errs.push(fieldErrors.invalid(path, goStringsValue(resources), "if '*' is present, must not specify other resources without subresources"));
  return errs;
}

/** validateRule (subresources allowed, as every caller in kube 1.31 asks). */
function ruleErrors(rule: Obj, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const groups = texts(rule, 'apiGroups');
  if (groups.length === 0) errs.push(fieldErrors.required(`${path}.apiGroups`));
  if (groups.length > 1 && groups.includes('*')) errs.push(fieldErrors.invalid(`${path}.apiGroups`, goStringsValue(groups), "if '*' is present, must not specify other API groups"));
  const versions = texts(rule, 'apiVersions');
  if (versions.length === 0) errs.push(fieldErrors.required(`${path}.apiVersions`));
  if (versions.length > 1 && versions.includes('*')) errs.push(fieldErrors.invalid(`${path}.apiVersions`, goStringsValue(versions), "if '*' is present, must not specify other API versions"));
  versions.forEach((v, i) => {
    if (v === '') errs.push(fieldErrors.required(`${path}.apiVersions[${i}]`));
  });
  errs.push(...resourcesErrors(texts(rule, 'resources'), `${path}.resources`));
  if (typeof rule.scope === 'string' && !SCOPES.includes(rule.scope)) errs.push(fieldErrors.notSupported(`${path}.scope`, rule.scope, SCOPES));
  return errs;
}

/** validateRuleWithOperations. */
export function ruleWithOperationsErrors(rule: Obj, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const ops = texts(rule, 'operations');
  if (ops.length === 0) errs.push(fieldErrors.required(`${path}.operations`));
  if (ops.length > 1 && ops.includes('*')) {
    errs.push(fieldErrors.invalid(`${path}.operations`, renderedBadValue(goSlice('admissionregistration.OperationType', ops, goText)), "if '*' is present, must not specify other operations"));
  }
  ops.forEach((op, i) => {
    if (!OPERATIONS.includes(op)) errs.push(fieldErrors.notSupported(`${path}.operations[${i}]`, op, OPERATIONS));
  });
  return [...errs, ...ruleErrors(rule, path)];
}

/** validateNamedRuleWithOperations: resourceNames are path segments, each once. */
function namedRuleErrors(rule: Obj, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  texts(rule, 'resourceNames').forEach((name, i) => {
    for (const m of isValidPathSegment(name, false)) errs.push(fieldErrors.invalid(`${path}.resourceNames[${i}]`, name, m));
    if (seen.has(name)) errs.push(fieldErrors.duplicate(`${path}.resourceNames[${i}]`, name));
    seen.add(name);
  });
  return [...errs, ...ruleWithOperationsErrors(rule, path)];
}

/** validateMatchResources (a policy's matchConstraints, a binding's matchResources; selectors checked strictly). */
export function matchResourcesErrors(m: Obj, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (m.matchPolicy === undefined || m.matchPolicy === null) errs.push(fieldErrors.required(`${path}.matchPolicy`));
  else if (!MATCH_POLICIES.includes(m.matchPolicy as string)) errs.push(fieldErrors.notSupported(`${path}.matchPolicy`, m.matchPolicy, MATCH_POLICIES));
  for (const key of ['namespaceSelector', 'objectSelector']) {
    if (!isObj(m[key])) errs.push(fieldErrors.required(`${path}.${key}`));
    else errs.push(...validateLabelSelector(m[key], `${path}.${key}`));
  }
  objsAt(m, 'resourceRules').forEach((r, i) => errs.push(...namedRuleErrors(r, `${path}.resourceRules[${i}]`)));
  objsAt(m, 'excludeResourceRules').forEach((r, i) => errs.push(...namedRuleErrors(r, `${path}.excludeResourceRules[${i}]`)));
  return errs;
}

/** SetDefaults_MatchResources. */
export function defaultMatchResources(m: unknown): void {
  if (!isObj(m)) return;
  m.namespaceSelector ??= {};
  m.objectSelector ??= {};
  m.matchPolicy ??= 'Equivalent';
  defaultRules(m.resourceRules);
  defaultRules(m.excludeResourceRules);
}

const MAX_MATCH_CONDITIONS = 64;

/**
 * validateMatchConditions: per condition the expression (compiled trimmed; `compileError` answers cel's detail),
 * then the name (a qualified name), then whether the name came before.
 */
export function matchConditionsErrors(conditions: unknown, path: string, compileError: (trimmed: string) => string | undefined): FieldError[] {
  const list = Array.isArray(conditions) ? conditions : [];
  const errs: FieldError[] = [];
  if (list.length > MAX_MATCH_CONDITIONS) errs.push(fieldErrors.tooMany(path, list.length, MAX_MATCH_CONDITIONS));
  const names = new Set<string>();
  list.forEach((raw, i) => {
    const c = isObj(raw) ? raw : {};
    const p = `${path}[${i}]`;
    const expression = (typeof c.expression === 'string' ? c.expression : '').trim();
    if (expression === '') errs.push(fieldErrors.required(`${p}.expression`));
    else {
      const error = compileError(expression);
      if (error) errs.push(fieldErrors.invalid(`${p}.expression`, expression, error));
    }
    const name = typeof c.name === 'string' ? c.name : '';
    if (name === '') errs.push(fieldErrors.required(`${p}.name`));
    else for (const m of isQualifiedName(name)) errs.push(fieldErrors.invalid(`${p}.name`, name, m));
    if (name !== '') {
      if (names.has(name)) errs.push(fieldErrors.duplicate(`${p}.name`, name));
      names.add(name);
    }
  });
  return errs;
}
