// MutatingWebhookConfiguration and ValidatingWebhookConfiguration (admissionregistration.k8s.io/v1): the v1
// defaults (SetDefaults_*Webhook) and kube's validation (pkg/apis/admissionregistration/validation) with its
// messages, in its order, and with the checks an update relaxes for what the stored object already held.

import { fieldErrors, type FieldError } from '../../../apis/errors.ts';
import { environmentIn } from '../../../cel/environment-type.ts';
import { compileAdmissionExpression } from '../../../admission/policy/compile.ts';
import { admissionDeclarations } from '../../../admission/cel-context.ts';
import type { KubeObject } from '../../types.ts';
import { buildStrategy } from '../generic.ts';
import type { FactsMaker } from '../facts.ts';
import { hasInvalidLabelValueInSelector, validateLabelSelector } from '../../validation/label-selector.ts';
import { isDNS1123Subdomain } from '../../validation/names.ts';
import { semanticEqual } from '../object.ts';
import { defaultRules, FAILURE_POLICIES, MATCH_POLICIES, matchConditionsErrors, ruleWithOperationsErrors } from './rules.ts';
import { reviewVersionListErrors, validateWebhookService, validateWebhookURL } from './webhook-client.ts';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => !!v && typeof v === 'object' && !Array.isArray(v);
const listAt = (o: Obj, k: string): unknown[] => (Array.isArray(o[k]) ? (o[k] as unknown[]) : []);
const hooksOf = (obj: KubeObject): Obj[] => listAt(obj, 'webhooks').map((w) => (isObj(w) ? w : {}));

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

/** utilvalidation.IsFullyQualifiedName: a DNS subdomain of at least three segments. */
function fullyQualifiedNameErrors(name: string, path: string): FieldError[] {
  if (name === '') return [fieldErrors.required(path)];
  const errs = isDNS1123Subdomain(name);
  if (errs.length > 0) return [fieldErrors.invalid(path, name, errs.join(','))];
  if (name.split('.').length < 3) return [fieldErrors.invalid(path, name, 'should be a domain with at least three segments separated by dots')];
  return [];
}

/** The options kube's validateWebhook takes: all strict on create, relaxed on update where the old object was not. */
interface WebhookOptions {
  ignoreMatchConditions: boolean;
  /** The stored webhooks' matchConditions expressions: they compile in the stored environment, others as new ones. */
  preexistingMatchConditions: ReadonlySet<string>;
  requireNoSideEffects: boolean;
  requireRecognizedAdmissionReviewVersion: boolean;
  requireUniqueWebhookNames: boolean;
  allowInvalidLabelValueInSelector: boolean;
}

const STRICT: WebhookOptions = {
  ignoreMatchConditions: false,
  preexistingMatchConditions: new Set(),
  requireNoSideEffects: true,
  requireRecognizedAdmissionReviewVersion: true,
  requireUniqueWebhookNames: true,
  allowInvalidLabelValueInSelector: false,
};

const ACCEPTED_REVIEW_VERSIONS = ['v1', 'v1beta1'];
const NO_SIDE_EFFECTS = ['None', 'NoneOnDryRun'];
const SIDE_EFFECTS = ['None', 'NoneOnDryRun', 'Some', 'Unknown'];
const REINVOCATION_POLICIES = ['IfNeeded', 'Never'];

function clientConfigErrors(cc: unknown, path: string): FieldError[] {
  const c = isObj(cc) ? cc : {};
  const hasUrl = typeof c.url === 'string';
  if (hasUrl === isObj(c.service)) return [fieldErrors.required(path, 'exactly one of url or service is required')];
  if (hasUrl) return validateWebhookURL(`${path}.url`, c.url as string);
  return validateWebhookService(`${path}.service`, c.service as Obj, true);
}

/** A webhook's matchConditions see no params (kube's stateless compiler). */
const CONDITION_DECLARATIONS = admissionDeclarations();
const webhookConditionError = (preexisting: ReadonlySet<string>) => (expression: string): string | undefined =>
  compileAdmissionExpression(expression, CONDITION_DECLARATIONS, 'bool', environmentIn(preexisting, expression)).error;

/** validateValidatingWebhook / validateMutatingWebhook. */
function webhookErrors(w: Obj, path: string, mutating: boolean, opts: WebhookOptions): FieldError[] {
  const errs = fullyQualifiedNameErrors(typeof w.name === 'string' ? w.name : '', `${path}.name`);
  listAt(w, 'rules').forEach((r, i) => errs.push(...ruleWithOperationsErrors(isObj(r) ? r : {}, `${path}.rules[${i}]`)));
  if (typeof w.failurePolicy === 'string' && !FAILURE_POLICIES.includes(w.failurePolicy)) errs.push(fieldErrors.notSupported(`${path}.failurePolicy`, w.failurePolicy, FAILURE_POLICIES));
  if (typeof w.matchPolicy === 'string' && !MATCH_POLICIES.includes(w.matchPolicy)) errs.push(fieldErrors.notSupported(`${path}.matchPolicy`, w.matchPolicy, MATCH_POLICIES));
  const allowedSideEffects = opts.requireNoSideEffects ? NO_SIDE_EFFECTS : SIDE_EFFECTS;
  if (typeof w.sideEffects !== 'string') errs.push(fieldErrors.required(`${path}.sideEffects`, `must specify one of ${allowedSideEffects.join(', ')}`));
  else if (!allowedSideEffects.includes(w.sideEffects)) errs.push(fieldErrors.notSupported(`${path}.sideEffects`, w.sideEffects, allowedSideEffects));
  const t = w.timeoutSeconds;
  if (typeof t === 'number' && (t > 30 || t < 1)) errs.push(fieldErrors.invalid(`${path}.timeoutSeconds`, t, 'the timeout value must be between 1 and 30 seconds'));
  for (const key of ['namespaceSelector', 'objectSelector']) {
    if (isObj(w[key])) errs.push(...validateLabelSelector(w[key], `${path}.${key}`, opts.allowInvalidLabelValueInSelector));
  }
  if (mutating && typeof w.reinvocationPolicy === 'string' && !REINVOCATION_POLICIES.includes(w.reinvocationPolicy)) {
    errs.push(fieldErrors.notSupported(`${path}.reinvocationPolicy`, w.reinvocationPolicy, REINVOCATION_POLICIES));
  }
  errs.push(...clientConfigErrors(w.clientConfig, `${path}.clientConfig`));
  if (!opts.ignoreMatchConditions) errs.push(...matchConditionsErrors(w.matchConditions, `${path}.matchConditions`, webhookConditionError(opts.preexistingMatchConditions)));
  return errs;
}

/** validateAdmissionReviewVersions. */
function reviewVersionsErrors(raw: unknown, path: string, requireRecognized: boolean): FieldError[] {
  const versions = Array.isArray(raw) ? raw.map((v) => (typeof v === 'string' ? v : '')) : [];
  if (versions.length === 0) return [fieldErrors.required(path, `must specify one of ${ACCEPTED_REVIEW_VERSIONS.join(', ')}`)];
  return reviewVersionListErrors(versions, ACCEPTED_REVIEW_VERSIONS, requireRecognized, path);
}

function configurationErrors(obj: KubeObject, mutating: boolean, opts: WebhookOptions): FieldError[] {
  const errs: FieldError[] = [];
  const names = new Set<string>();
  hooksOf(obj).forEach((hook, i) => {
    errs.push(...webhookErrors(hook, `webhooks[${i}]`, mutating, opts));
    errs.push(...reviewVersionsErrors(hook.admissionReviewVersions, `webhooks[${i}].admissionReviewVersions`, opts.requireRecognizedAdmissionReviewVersion));
    const name = typeof hook.name === 'string' ? hook.name : '';
    if (opts.requireUniqueWebhookNames && name !== '') {
      if (names.has(name)) errs.push(fieldErrors.duplicate(`webhooks[${i}].name`, name));
      names.add(name);
    }
  });
  return errs;
}

/** ValidateMutating/ValidatingWebhookConfigurationUpdate: what the stored webhooks already broke stays allowed. */
function updateOptions(obj: KubeObject, old: KubeObject): WebhookOptions {
  const hooks = hooksOf(obj);
  const oldHooks = hooksOf(old);
  const oldNames = oldHooks.map((h) => (typeof h.name === 'string' ? h.name : ''));
  return {
    ignoreMatchConditions: hooks.length === oldHooks.length && oldHooks.every((h, i) => semanticEqual(hooks[i].matchConditions, h.matchConditions)),
    preexistingMatchConditions: new Set(oldHooks.flatMap((h) => listAt(h, 'matchConditions').map((c) => (isObj(c) ? c.expression : undefined)).filter((e): e is string => typeof e === 'string'))),
    requireNoSideEffects: oldHooks.every((h) => typeof h.sideEffects === 'string' && NO_SIDE_EFFECTS.includes(h.sideEffects)),
    requireRecognizedAdmissionReviewVersion: oldHooks.every((h) => {
      const versions = Array.isArray(h.admissionReviewVersions) ? h.admissionReviewVersions : [];
      return versions.length === 0 || versions.some((v) => ACCEPTED_REVIEW_VERSIONS.includes(v as string));
    }),
    requireUniqueWebhookNames: new Set(oldNames).size === oldNames.length,
    allowInvalidLabelValueInSelector: oldHooks.some((h) => hasInvalidLabelValueInSelector(h.namespaceSelector) || hasInvalidLabelValueInSelector(h.objectSelector)),
  };
}

/** The configuration's facts: this strategy, with the printer columns of `printed`. */
export function webhookConfigurationFacts(mutating: boolean, printed: FactsMaker): FactsMaker {
  return (rules) => ({
    ...printed(rules),
    strategy: buildStrategy(rules, {
      defaults: (obj) => {
        for (const w of listAt(obj, 'webhooks')) if (isObj(w)) defaultWebhook(w, mutating);
      },
      validate: (obj) => configurationErrors(obj, mutating, STRICT),
      validateUpdate: (obj, old) => configurationErrors(obj, mutating, updateOptions(obj, old)),
    }),
  });
}
