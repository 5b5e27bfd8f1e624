// MutatingWebhookConfiguration and ValidatingWebhookConfiguration (admissionregistration.k8s.io/v1): the v1
// defaults (SetDefaults_*Webhook) and kube's validation (pkg/apis/admissionregistration/validation) with its messages.

import { fieldErrors, goStringsValue, type FieldError } from '../../../apis/errors.ts';
import { isDNS1123Subdomain } from '../../../apis/labels.ts';
import { compileConditions } from '../../../admission/webhook/webhook.ts';
import type { KubeObject } from '../../types.ts';
import { buildStrategy } from '../generic.ts';
import type { FactsMaker } from '../facts.ts';
import { validateLabelSelector } from '../../validation/label-selector.ts';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => !!v && typeof v === 'object' && !Array.isArray(v);
const listAt = (o: Obj, k: string): unknown[] => (Array.isArray(o[k]) ? (o[k] as unknown[]) : []);

/** SetDefaults_Rule: scope "*". */
export function defaultRules(rules: unknown): void {
  if (!Array.isArray(rules)) return;
  for (const r of rules) if (isObj(r) && r.scope === undefined) r.scope = '*';
}

function defaultWebhook(w: Obj, mutating: boolean): void {
  w.failurePolicy ??= 'Fail';
  w.matchPolicy ??= 'Equivalent';
  w.namespaceSelector ??= {};
  w.objectSelector ??= {};
  w.timeoutSeconds ??= 10;
  if (mutating) w.reinvocationPolicy ??= 'Never';
  defaultRules(w.rules);
  const svc = isObj(w.clientConfig) && isObj(w.clientConfig.service) ? w.clientConfig.service : undefined;
  if (svc) svc.port ??= 443;
}

/** IsFullyQualifiedName: a DNS subdomain with at least three segments. */
function fullyQualifiedName(name: string, path: string): FieldError[] {
  if (name === '') return [fieldErrors.required(path)];
  const errs = isDNS1123Subdomain(name);
  if (errs.length > 0) return [fieldErrors.invalid(path, name, `a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`)];
  if (name.split('.').length < 3) return [fieldErrors.invalid(path, name, 'should be a domain with at least three segments separated by dots')];
  return [];
}

function nonEmpty(list: unknown, path: string, errs: FieldError[]): string[] {
  const l = Array.isArray(list) ? list.filter((x): x is string => typeof x === 'string') : [];
  if (l.length === 0) errs.push(fieldErrors.required(path));
  return l;
}

/** validateRuleWithOperations. */
export function validateRule(rule: Obj, path: string, allowSubresourceStar = true): FieldError[] {
  const errs: FieldError[] = [];
  const ops = nonEmpty(rule.operations, `${path}.operations`, errs);
  const supportedOps = ['*', 'CONNECT', 'CREATE', 'DELETE', 'UPDATE'];
  ops.forEach((op, i) => {
    if (!supportedOps.includes(op)) errs.push(fieldErrors.notSupported(`${path}.operations[${i}]`, op, supportedOps));
  });
  if (ops.length > 1 && ops.includes('*')) errs.push(fieldErrors.invalid(`${path}.operations`, goStringsValue(ops), 'if \'*\' is present, must not specify other operations'));
  const groups = nonEmpty(rule.apiGroups, `${path}.apiGroups`, errs);
  if (groups.length > 1 && groups.includes('*')) errs.push(fieldErrors.invalid(`${path}.apiGroups`, goStringsValue(groups), "if '*' is present, must not specify other API groups"));
  const versions = nonEmpty(rule.apiVersions, `${path}.apiVersions`, errs);
  versions.forEach((v, i) => {
    if (v === '') errs.push(fieldErrors.required(`${path}.apiVersions[${i}]`, 'version must not be empty'));
  });
  if (versions.length > 1 && versions.includes('*')) errs.push(fieldErrors.invalid(`${path}.apiVersions`, goStringsValue(versions), "if '*' is present, must not specify other API versions"));
  const resources = nonEmpty(rule.resources, `${path}.resources`, errs);
  resources.forEach((r, i) => {
    if (r === '') errs.push(fieldErrors.required(`${path}.resources[${i}]`));
    else if (r.split('/').length > 2 || r.startsWith('/') || r.endsWith('/')) errs.push(fieldErrors.invalid(`${path}.resources[${i}]`, r, "must be '*', '*/*', 'resource', 'resource/*', '*/subresource' or 'resource/subresource'"));
    else if (!allowSubresourceStar && r.includes('/')) errs.push(fieldErrors.invalid(`${path}.resources[${i}]`, r, 'must not specify subresources'));
  });
  if (resources.includes('*') && resources.length > 1 && !resources.every((r) => r === '*' || r.includes('/'))) {
    errs.push(fieldErrors.invalid(`${path}.resources`, goStringsValue(resources), "if '*' is present, must not specify other resources without subresources"));
  }
  if (rule.scope !== undefined && !['*', 'Cluster', 'Namespaced'].includes(rule.scope as string)) {
    errs.push(fieldErrors.notSupported(`${path}.scope`, rule.scope, ['*', 'Cluster', 'Namespaced']));
  }
  return errs;
}

function validateClientConfig(cc: unknown, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const c = isObj(cc) ? cc : {};
  const hasUrl = typeof c.url === 'string' && c.url !== '';
  const hasService = isObj(c.service);
  if (hasUrl === hasService) return [fieldErrors.required(path, 'exactly one of url or service is required')];
  if (hasUrl) {
    const url = c.url as string;
    let u: URL | undefined;
    try {
      u = new URL(url);
    } catch {
      errs.push(fieldErrors.invalid(`${path}.url`, url, 'host must be specified'));
    }
    if (u) {
      if (u.protocol !== 'https:') errs.push(fieldErrors.invalid(`${path}.url`, url, "'https' is the only allowed URL scheme"));
      if (!u.hostname) errs.push(fieldErrors.invalid(`${path}.url`, url, 'host must be specified'));
      if (u.username || u.password) errs.push(fieldErrors.invalid(`${path}.url`, url, 'user information is not permitted in the URL'));
      if (u.hash) errs.push(fieldErrors.invalid(`${path}.url`, url, 'fragments are not permitted in the URL'));
      if (u.search) errs.push(fieldErrors.invalid(`${path}.url`, url, 'query parameters are not permitted in the URL'));
    }
  } else {
    const s = c.service as Obj;
    if (typeof s.name !== 'string' || s.name === '') errs.push(fieldErrors.required(`${path}.service.name`, 'service name is required'));
    if (typeof s.namespace !== 'string' || s.namespace === '') errs.push(fieldErrors.required(`${path}.service.namespace`, 'service namespace is required'));
    const port = s.port;
    if (typeof port === 'number' && (port < 1 || port > 65535)) errs.push(fieldErrors.invalid(`${path}.service.port`, port, 'port is not valid: must be between 1 and 65535, inclusive'));
    if (typeof s.path === 'string' && s.path !== '' && !s.path.startsWith('/')) errs.push(fieldErrors.invalid(`${path}.service.path`, s.path, "must start with a '/'"));
  }
  return errs;
}

const MAX_MATCH_CONDITIONS = 64;

/** matchConditions' names and expressions; `compiled` holds each one's compile error (a webhook's by default). */
export function validateMatchConditions(conditions: unknown, path: string, compiled: readonly { error?: string }[] = compileConditions(conditions)): FieldError[] {
  const errs: FieldError[] = [];
  const list = Array.isArray(conditions) ? conditions : [];
  if (list.length > MAX_MATCH_CONDITIONS) errs.push(fieldErrors.tooMany(path, list.length, MAX_MATCH_CONDITIONS));
  const names = new Set<string>();
  list.forEach((c, i) => {
    const o = isObj(c) ? c : {};
    const name = typeof o.name === 'string' ? o.name : '';
    if (name === '') errs.push(fieldErrors.required(`${path}[${i}].name`));
    else if (names.has(name)) errs.push(fieldErrors.duplicate(`${path}[${i}].name`, name));
    names.add(name);
    const expr = typeof o.expression === 'string' ? o.expression : '';
    if (expr.trim() === '') errs.push(fieldErrors.required(`${path}[${i}].expression`));
    else if (compiled[i]?.error) errs.push(fieldErrors.invalid(`${path}[${i}].expression`, expr, compiled[i].error));
  });
  return errs;
}

function validateWebhook(w: Obj, path: string, mutating: boolean): FieldError[] {
  const errs: FieldError[] = [...fullyQualifiedName(typeof w.name === 'string' ? w.name : '', `${path}.name`)];
  listAt(w, 'rules').forEach((r, i) => errs.push(...validateRule(isObj(r) ? r : {}, `${path}.rules[${i}]`)));
  if (!['Fail', 'Ignore'].includes(w.failurePolicy as string)) errs.push(fieldErrors.notSupported(`${path}.failurePolicy`, w.failurePolicy, ['Fail', 'Ignore']));
  if (!['Equivalent', 'Exact'].includes(w.matchPolicy as string)) errs.push(fieldErrors.notSupported(`${path}.matchPolicy`, w.matchPolicy, ['Equivalent', 'Exact']));
  if (w.sideEffects === undefined || w.sideEffects === null) errs.push(fieldErrors.required(`${path}.sideEffects`, 'must specify one of None, NoneOnDryRun'));
  else if (!['None', 'NoneOnDryRun'].includes(w.sideEffects as string)) errs.push(fieldErrors.notSupported(`${path}.sideEffects`, w.sideEffects, ['None', 'NoneOnDryRun']));
  const t = w.timeoutSeconds;
  if (typeof t === 'number' && (t < 1 || t > 30)) errs.push(fieldErrors.invalid(`${path}.timeoutSeconds`, t, 'the timeout value must be between 1 and 30 seconds'));
  const versions = Array.isArray(w.admissionReviewVersions) ? (w.admissionReviewVersions as string[]) : [];
  if (versions.length === 0) errs.push(fieldErrors.required(`${path}.admissionReviewVersions`, 'must specify one of v1, v1beta1'));
  else if (!versions.some((v) => v === 'v1' || v === 'v1beta1')) {
    errs.push(fieldErrors.invalid(`${path}.admissionReviewVersions`, goStringsValue(versions), 'must include at least one of v1, v1beta1'));
  }
  if (w.namespaceSelector !== undefined) errs.push(...validateLabelSelector(w.namespaceSelector, `${path}.namespaceSelector`));
  if (w.objectSelector !== undefined) errs.push(...validateLabelSelector(w.objectSelector, `${path}.objectSelector`));
  if (mutating && !['Never', 'IfNeeded'].includes(w.reinvocationPolicy as string)) errs.push(fieldErrors.notSupported(`${path}.reinvocationPolicy`, w.reinvocationPolicy, ['IfNeeded', 'Never']));
  errs.push(...validateClientConfig(w.clientConfig, `${path}.clientConfig`));
  errs.push(...validateMatchConditions(w.matchConditions, `${path}.matchConditions`));
  return errs;
}

function validateConfiguration(obj: KubeObject, mutating: boolean): FieldError[] {
  const errs: FieldError[] = [];
  const names = new Set<string>();
  listAt(obj, 'webhooks').forEach((w, i) => {
    const hook = isObj(w) ? w : {};
    const name = typeof hook.name === 'string' ? hook.name : '';
    if (name && names.has(name)) errs.push(fieldErrors.duplicate(`webhooks[${i}].name`, name));
    names.add(name);
    errs.push(...validateWebhook(hook, `webhooks[${i}]`, mutating));
  });
  return errs;
}

/** The configuration's facts: this strategy, with the printer columns of `printed`. */
export function webhookConfigurationFacts(mutating: boolean, printed: FactsMaker): FactsMaker {
  return (rules) => ({
    ...printed(rules),
    strategy: buildStrategy(rules, {
      defaults: (obj) => {
        for (const w of listAt(obj, 'webhooks')) if (isObj(w)) defaultWebhook(w, mutating);
      },
      validate: (obj) => validateConfiguration(obj, mutating),
    }),
  });
}
