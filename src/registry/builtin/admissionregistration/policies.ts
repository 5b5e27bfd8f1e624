// ValidatingAdmissionPolicy and ValidatingAdmissionPolicyBinding (admissionregistration.k8s.io/v1): v1 defaults
// and kube's validation (pkg/apis/admissionregistration/validation) in its order and with its messages, CEL
// expressions compiled by the server's CEL module (a policy that does not compile is refused with cel's error, as
// kube does), and the status writes kube checks (typeChecking warnings, conditions).

import { fieldErrors, renderedBadValue, type FieldError } from '../../../apis/errors.ts';
import { goSlice, goText } from '../../../apis/go-bad-values.ts';
import { compileJsonPath, JsonPathError } from '../../../apis/jsonpath.ts';
import { environmentIn } from '../../../cel/environment-type.ts';
import { compileAdmissionExpression, compilePolicy, NO_EXPRESSIONS, policyExpressions, type CompiledPolicy, type PolicyExpressions } from '../../../admission/policy/compile.ts';
import { admissionDeclarations } from '../../../admission/cel-context.ts';
import type { KubeObject } from '../../types.ts';
import { buildStrategy } from '../generic.ts';
import type { FactsMaker } from '../facts.ts';
import { validateLabelSelector } from '../../validation/label-selector.ts';
import { validateConditions } from '../../validation/conditions.ts';
import { isDNS1035Label, isDNS1123Subdomain, isQualifiedName, isValidPathSegment } from '../../validation/names.ts';
import { isObj, objsAt, semanticEqual, type Obj } from '../object.ts';
import { defaultMatchResources, FAILURE_POLICIES, matchConditionsErrors, matchResourcesErrors } from './rules.ts';

const specOf = (obj: KubeObject): Obj => (isObj(obj.spec) ? obj.spec : {});
const text = (v: unknown): string => (typeof v === 'string' ? v : '');
const listOf = (v: unknown): Obj[] => (Array.isArray(v) ? v.map((x) => (isObj(x) ? x : {})) : []);

// sets.NewString(...).List() of metav1's reasons a validation may name.
const REASONS = ['Forbidden', 'Invalid', 'RequestEntityTooLarge'];
const VALIDATION_ACTIONS = ['Audit', 'Deny', 'Warn'];
const NOT_FOUND_ACTIONS = ['Deny', 'Allow'];
const MAX_AUDIT_ANNOTATIONS = 20;
const MAX_VALUE_EXPRESSION_BYTES = 5 * 1024;
const CEL_RESERVED = new Set(['true', 'false', 'null', 'in', 'as', 'break', 'const', 'continue', 'else', 'for', 'function', 'if', 'import', 'let', 'loop', 'package', 'namespace', 'return', 'var', 'void', 'while']);

const isCELIdentifier = (name: string): boolean => /^[_a-zA-Z][_a-zA-Z0-9]*$/.test(name) && !CEL_RESERVED.has(name);

/** parseGroupVersion: "" and "/" are empty, one slash splits group and version, more is an error. */
export function parseGroupVersion(gv: string): { group: string; version: string } | undefined {
  if (gv === '' || gv === '/') return { group: '', version: '' };
  const parts = gv.split('/');
  if (parts.length === 1) return { group: '', version: gv };
  if (parts.length === 2) return { group: parts[0], version: parts[1] };
  return undefined;
}

/** validateParamKind. */
function paramKindErrors(pk: Obj, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const apiVersion = text(pk.apiVersion);
  const gv = parseGroupVersion(apiVersion);
  if (apiVersion === '') errs.push(fieldErrors.required(`${path}.apiVersion`));
  else if (!gv) errs.push(fieldErrors.invalid(`${path}.apiVersion`, apiVersion, `unexpected GroupVersion string: ${apiVersion}`));
  else {
    const groupErrs = gv.group === '' ? [] : isDNS1123Subdomain(gv.group);
    if (groupErrs.length > 0) errs.push(fieldErrors.invalid(`${path}.apiVersion`, gv.group, groupErrs.join(',')));
    if (gv.version === '') errs.push(fieldErrors.invalid(`${path}.apiVersion`, apiVersion, 'version must be specified'));
    else {
      const versionErrs = isDNS1035Label(gv.version);
      if (versionErrs.length > 0) errs.push(fieldErrors.invalid(`${path}.apiVersion`, gv.version, versionErrs.join(',')));
    }
  }
  const kind = text(pk.kind);
  if (kind === '') errs.push(fieldErrors.required(`${path}.kind`));
  else {
    const kindErrs = isDNS1035Label(kind.toLowerCase());
    if (kindErrs.length > 0) errs.push(fieldErrors.invalid(`${path}.kind`, kind, `may have mixed case, but should otherwise match: ${kindErrs.join(',')}`));
  }
  return errs;
}

function variableErrors(v: Obj, error: string | undefined, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const name = text(v.name);
  if (name.trim() === '') errs.push(fieldErrors.required(`${path}.name`, 'name is not specified'));
  else if (!isCELIdentifier(name)) errs.push(fieldErrors.invalid(`${path}.name`, name, 'name is not a valid CEL identifier'));
  const expression = text(v.expression);
  if (expression.trim() === '') errs.push(fieldErrors.required(`${path}.expression`, 'expression is not specified'));
  else if (error) errs.push(fieldErrors.invalid(`${path}.expression`, expression, error));
  return errs;
}

const hasNewlines = (s: string): boolean => /[\n\r]/.test(s);

/** validateValidation. */
function validationErrors(v: Obj, compiled: CompiledPolicy['validations'][number] | undefined, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const expression = text(v.expression);
  if (expression.trim() === '') errs.push(fieldErrors.required(`${path}.expression`, 'expression is not specified'));
  else if (compiled?.expression.error) errs.push(fieldErrors.invalid(`${path}.expression`, expression, compiled.expression.error));
  const messageExpression = text(v.messageExpression);
  if (messageExpression !== '' && messageExpression.trim() === '') errs.push(fieldErrors.invalid(`${path}.messageExpression`, messageExpression, 'must be non-empty if specified'));
  else if (messageExpression !== '' && compiled?.messageExpression?.error) errs.push(fieldErrors.invalid(`${path}.messageExpression`, messageExpression, compiled.messageExpression.error));
  const message = text(v.message);
  if (message !== '' && message.trim() === '') errs.push(fieldErrors.invalid(`${path}.message`, message, 'message must be non-empty if specified'));
  else if (hasNewlines(message.trim())) errs.push(fieldErrors.invalid(`${path}.message`, message, 'message must not contain line breaks'));
  if (typeof v.reason === 'string' && !REASONS.includes(v.reason)) errs.push(fieldErrors.notSupported(`${path}.reason`, v.reason, REASONS));
  return errs;
}

/** validateAuditAnnotation: the key makes `<policy name>/<key>`, a qualified name. */
function auditAnnotationErrors(a: Obj, policyName: string, error: string | undefined, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const key = text(a.key);
  if (policyName !== '') errs.push(...isQualifiedName(`${policyName}/${key}`).map((m) => fieldErrors.invalid(`${path}.key`, `${policyName}/${key}`, m)));
  else errs.push(fieldErrors.invalid(`${path}.key`, key, 'requires metadata.name be non-empty'));
  const value = text(a.valueExpression);
  const trimmed = value.trim();
  if (trimmed === '') errs.push(fieldErrors.required(`${path}.valueExpression`, 'valueExpression is not specified'));
  else if (Buffer.byteLength(trimmed) > MAX_VALUE_EXPRESSION_BYTES) errs.push(fieldErrors.required(`${path}.valueExpression`, `must not exceed ${MAX_VALUE_EXPRESSION_BYTES} bytes in length`));
  else if (error) errs.push(fieldErrors.invalid(`${path}.valueExpression`, value, error));
  return errs;
}

const goAuditAnnotation = (a: unknown): string => {
  const o = isObj(a) ? a : {};
  return `admissionregistration.AuditAnnotation{Key:${goText(o.key)}, ValueExpression:${goText(o.valueExpression)}}`;
};

function auditAnnotationsErrors(spec: Obj, policyName: string, compiled: CompiledPolicy): FieldError[] {
  if (!Array.isArray(spec.auditAnnotations)) return [];
  const errs: FieldError[] = [];
  const annotations = listOf(spec.auditAnnotations);
  if (annotations.length > MAX_AUDIT_ANNOTATIONS) {
    errs.push(fieldErrors.invalid('spec.auditAnnotations', renderedBadValue(goSlice('admissionregistration.AuditAnnotation', spec.auditAnnotations, goAuditAnnotation)), `must not have more than ${MAX_AUDIT_ANNOTATIONS} auditAnnotations`));
  }
  const keys = new Set<string>();
  annotations.forEach((a, i) => {
    const path = `spec.auditAnnotations[${i}]`;
    errs.push(...auditAnnotationErrors(a, policyName, compiled.auditAnnotations[i]?.compiled.error, path));
    const key = text(a.key);
    if (keys.has(key)) errs.push(fieldErrors.duplicate(`${path}.key`, key));
    keys.add(key);
  });
  return errs;
}

/** matchConditions see params only when the policy has a paramKind, and no variables. */
function policyConditionError(hasParams: boolean, preexisting: ReadonlySet<string>): (expression: string) => string | undefined {
  const declarations = admissionDeclarations({ params: hasParams });
  return (expression) => compileAdmissionExpression(expression, declarations, 'bool', environmentIn(preexisting, expression)).error;
}

/**
 * validateValidatingAdmissionPolicySpec; `ignoreMatchConditions` on an update that left them (and paramKind) alone;
 * `preexisting`, the old policy's expressions (none on create).
 */
function policyErrors(obj: KubeObject, ignoreMatchConditions: boolean, preexisting: PolicyExpressions): FieldError[] {
  const spec = specOf(obj);
  const errs: FieldError[] = [];
  const compiled = compilePolicy({ metadata: obj.metadata ?? {}, spec }, preexisting);
  if (spec.failurePolicy === undefined || spec.failurePolicy === null) errs.push(fieldErrors.required('spec.failurePolicy'));
  else if (!FAILURE_POLICIES.includes(spec.failurePolicy as string)) errs.push(fieldErrors.notSupported('spec.failurePolicy', spec.failurePolicy, FAILURE_POLICIES));
  const hasParams = isObj(spec.paramKind);
  if (isObj(spec.paramKind)) errs.push(...paramKindErrors(spec.paramKind, 'spec.paramKind'));
  if (!isObj(spec.matchConstraints)) errs.push(fieldErrors.required('spec.matchConstraints'));
  else {
    errs.push(...matchResourcesErrors(spec.matchConstraints, 'spec.matchConstraints'));
    if (objsAt(spec.matchConstraints, 'resourceRules').length === 0) errs.push(fieldErrors.required('spec.matchConstraints.resourceRules'));
  }
  if (!ignoreMatchConditions) errs.push(...matchConditionsErrors(spec.matchConditions, 'spec.matchConditions', policyConditionError(hasParams, preexisting.matchConditions)));
  listOf(spec.variables).forEach((v, i) => errs.push(...variableErrors(v, compiled.variables[i]?.compiled.error, `spec.variables[${i}]`)));
  const validations = listOf(spec.validations);
  if (validations.length === 0 && listOf(spec.auditAnnotations).length === 0) {
    errs.push(fieldErrors.required('spec.validations', 'validations or auditAnnotations must contain at least one item'));
    errs.push(fieldErrors.required('spec.auditAnnotations', 'validations or auditAnnotations must contain at least one item'));
    return errs;
  }
  validations.forEach((v, i) => errs.push(...validationErrors(v, compiled.validations[i], `spec.validations[${i}]`)));
  errs.push(...auditAnnotationsErrors(spec, text(obj.metadata?.name), compiled));
  return errs;
}

/** validateFieldRef: a JSONPath kube's jsonpath package parses once wrapped in braces. */
function fieldRefErrors(raw: unknown, path: string): FieldError[] {
  const fieldRef = text(raw).trim();
  if (fieldRef === '') return [fieldErrors.required(path)];
  try {
    // kube's parser reads a leading identifier ("spec.validations[0]") as a step: parsed here as the field it names
    compileJsonPath(`{${/^[A-Za-z0-9_]/.test(fieldRef) ? '.' : ''}${fieldRef}}`);
    return [];
  } catch (e) {
    if (e instanceof JsonPathError) return [fieldErrors.invalid(path, fieldRef, `invalid JSONPath: ${e.message}`)];
    throw e;
  }
}

/** ValidateValidatingAdmissionPolicyStatusUpdate. */
function policyStatusErrors(obj: KubeObject): FieldError[] {
  const status = isObj(obj.status) ? obj.status : {};
  const errs: FieldError[] = [];
  const typeChecking = isObj(status.typeChecking) ? status.typeChecking : undefined;
  listOf(typeChecking?.expressionWarnings).forEach((w, i) => {
    const path = `status.typeChecking.expressionWarnings[${i}]`;
    if (text(w.warning) === '') errs.push(fieldErrors.required(`${path}.warning`));
    errs.push(...fieldRefErrors(w.fieldRef, `${path}.fieldRef`));
  });
  errs.push(...validateConditions(status.conditions, 'status.conditions'));
  return errs;
}

/** validateParamRef. */
function paramRefErrors(p: Obj, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const name = text(p.name);
  const hasSelector = isObj(p.selector);
  if (name !== '') {
    for (const m of isValidPathSegment(name, false)) errs.push(fieldErrors.invalid(`${path}.name`, name, m));
    if (hasSelector) errs.push(fieldErrors.forbidden(`${path}.name`, 'name and selector are mutually exclusive'));
  }
  if (hasSelector) {
    errs.push(...validateLabelSelector(p.selector, `${path}.selector`));
    if (name !== '') errs.push(fieldErrors.forbidden(`${path}.selector`, 'name and selector are mutually exclusive'));
  }
  if (name === '' && !hasSelector) errs.push(fieldErrors.required(path, 'one of name or selector must be specified'));
  const action = text(p.parameterNotFoundAction);
  if (action === '') errs.push(fieldErrors.required(`${path}.parameterNotFoundAction`));
  else if (!NOT_FOUND_ACTIONS.includes(action)) errs.push(fieldErrors.notSupported(`${path}.parameterNotFoundAction`, action, NOT_FOUND_ACTIONS));
  return errs;
}

/** validateValidationActions. */
function validationActionsErrors(raw: unknown, path: string): FieldError[] {
  const actions = Array.isArray(raw) ? raw.map(text) : [];
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  actions.forEach((a, i) => {
    if (!VALIDATION_ACTIONS.includes(a)) errs.push(fieldErrors.notSupported(`${path}[${i}]`, a, VALIDATION_ACTIONS));
    if (seen.has(a)) errs.push(fieldErrors.duplicate(`${path}[${i}]`, a));
    seen.add(a);
  });
  if (seen.has('Deny') && seen.has('Warn')) {
    errs.push(fieldErrors.invalid(path, renderedBadValue(goSlice('admissionregistration.ValidationAction', raw, goText)), 'must not contain both Deny and Warn (repeating the same validation failure information in the API response and headers serves no purpose)'));
  }
  if (seen.size === 0) errs.push(fieldErrors.required(path, 'at least one validation action is required'));
  return errs;
}

/** validateValidatingAdmissionPolicyBindingSpec. */
function bindingErrors(obj: KubeObject): FieldError[] {
  const spec = specOf(obj);
  const errs: FieldError[] = [];
  const policyName = text(spec.policyName);
  if (policyName === '') errs.push(fieldErrors.required('spec.policyName'));
  else for (const m of isDNS1123Subdomain(policyName)) errs.push(fieldErrors.invalid('spec.policyName', policyName, m));
  if (isObj(spec.paramRef)) errs.push(...paramRefErrors(spec.paramRef, 'spec.paramRef'));
  if (isObj(spec.matchResources)) errs.push(...matchResourcesErrors(spec.matchResources, 'spec.matchResources'));
  errs.push(...validationActionsErrors(spec.validationActions, 'spec.validationActions'));
  return errs;
}

/** ignoreValidatingAdmissionPolicyMatchConditions: neither paramKind nor matchConditions changed. */
const matchConditionsUnchanged = (obj: KubeObject, old: KubeObject): boolean =>
  semanticEqual(specOf(obj).paramKind, specOf(old).paramKind) && semanticEqual(specOf(obj).matchConditions, specOf(old).matchConditions);

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
      validate: (obj) => policyErrors(obj, false, NO_EXPRESSIONS),
      validateUpdate: (obj, old) => policyErrors(obj, matchConditionsUnchanged(obj, old), policyExpressions(old.spec)),
      validateStatusUpdate: (obj) => policyStatusErrors(obj),
    });
    return { ...base, strategy };
  };
}

export function validatingAdmissionPolicyBindingStrategyFacts(printed: FactsMaker): FactsMaker {
  return (rules) => ({
    ...printed(rules),
    strategy: buildStrategy(rules, {
      defaults: (obj) => defaultMatchResources(specOf(obj).matchResources),
      validate: (obj) => bindingErrors(obj),
    }),
  });
}
