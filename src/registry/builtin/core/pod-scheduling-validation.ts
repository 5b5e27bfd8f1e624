// Where a pod may be scheduled (pkg/apis/core/validation validateAffinity and validateTopologySpreadConstraints of
// kube 1.31, with its default feature gates: MatchLabelKeysInPodAffinity, MatchLabelKeysInPodTopologySpread and
// NodeInclusionPolicyInPodTopologySpread on), with kube's paths and messages.

import { fieldErrors, type FieldError } from '../../../apis/errors.ts';
import { validateLabelSelector } from '../../validation/label-selector.ts';
import { validateQualifiedName } from '../../validation/meta.ts';
import { isDNS1123Label } from '../../validation/names.ts';
import { isObj, type Obj } from '../object.ts';
import { nodeSelectorErrors, nodeSelectorTermErrors } from './node-selector-validation.ts';

/** PodValidationOptions an update earns when the old spec already broke a rule that was tightened later. */
export interface SchedulingValidationOptions {
  /** Pod (anti-)affinity selectors may keep invalid label values. */
  readonly allowInvalidLabelValueInSelector?: boolean;
  /** Topology spread constraints' label selectors are not validated. */
  readonly allowInvalidTopologySpreadConstraintLabelSelector?: boolean;
}

const NOT_POSITIVE = 'must be greater than zero';
const WEIGHT_RANGE = 'must be in the range 1-100';
const SCHEDULE_ACTIONS = ['DoNotSchedule', 'ScheduleAnyway'];
const NODE_INCLUSION_POLICIES = ['Honor', 'Ignore'];

const objAt = (v: unknown): Obj => (isObj(v) ? v : {});
const objs = (v: unknown): Obj[] => (Array.isArray(v) ? v.map(objAt) : []);
const strs = (v: unknown): string[] => (Array.isArray(v) ? v.map(str) : []);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const num = (v: unknown): number => (typeof v === 'number' ? v : 0);
const isSet = (v: unknown): boolean => v !== undefined && v !== null;

function weightErrors(weight: unknown, path: string): FieldError[] {
  const w = num(weight);
  return w <= 0 || w > 100 ? [fieldErrors.invalid(path, w, WEIGHT_RANGE)] : [];
}

// ---- node affinity ----

function nodeAffinityErrors(na: Obj, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const required = na.requiredDuringSchedulingIgnoredDuringExecution;
  if (isObj(required)) errs.push(...nodeSelectorErrors(required, `${path}.requiredDuringSchedulingIgnoredDuringExecution`));
  objs(na.preferredDuringSchedulingIgnoredDuringExecution).forEach((term, i) => {
    const p = `${path}.preferredDuringSchedulingIgnoredDuringExecution[${i}]`;
    errs.push(...weightErrors(term.weight, `${p}.weight`), ...nodeSelectorTermErrors(term.preference, `${p}.preference`));
  });
  return errs;
}

// ---- pod affinity and anti-affinity ----

function labelKeyListErrors(keys: string[], path: string, hasSelector: boolean): FieldError[] {
  if (keys.length === 0) return [];
  if (!hasSelector) return [fieldErrors.forbidden(path, 'must not be specified when labelSelector is not set')];
  return keys.flatMap((k, i) => validateQualifiedName(k, `${path}[${i}]`));
}

/**
 * validateMatchLabelKeysAndMismatchLabelKeys. kube's pod strategy has already merged matchLabelKeys into the
 * selector as match expressions, so a key is reported when an expression repeats a key the selector already names;
 * the path (the term's, indexed by the key's position) is kube's.
 */
function matchLabelKeysErrors(term: Obj, path: string): FieldError[] {
  const matchKeys = strs(term.matchLabelKeys);
  const mismatchKeys = strs(term.mismatchLabelKeys);
  const selector = isObj(term.labelSelector) ? term.labelSelector : undefined;
  const errs = [...labelKeyListErrors(matchKeys, `${path}.matchLabelKeys`, !!selector), ...labelKeyListErrors(mismatchKeys, `${path}.mismatchLabelKeys`, !!selector)];
  if (selector) {
    const position = new Map(matchKeys.map((k, i) => [k, i]));
    const named = new Set(Object.keys(objAt(selector.matchLabels)));
    for (const expr of objs(selector.matchExpressions)) {
      const key = str(expr.key);
      const i = position.get(key);
      if (i !== undefined && named.has(key)) errs.push(fieldErrors.invalid(`${path}[${i}]`, key, 'exists in both matchLabelKeys and labelSelector'));
      named.add(key);
    }
  }
  const mismatched = new Set(mismatchKeys);
  matchKeys.forEach((k, i) => {
    if (mismatched.has(k)) errs.push(fieldErrors.invalid(`${path}.matchLabelKeys[${i}]`, k, 'exists in both matchLabelKeys and mismatchLabelKeys'));
  });
  return errs;
}

/** ValidatePodAffinityTermSelector: the term's labelSelector and namespaceSelector. */
function termSelectorErrors(term: Obj, path: string, allowInvalidLabelValue: boolean): FieldError[] {
  return [
    ...validateLabelSelector(term.labelSelector, `${path}.labelSelector`, allowInvalidLabelValue),
    ...validateLabelSelector(term.namespaceSelector, `${path}.namespaceSelector`, allowInvalidLabelValue),
  ];
}

function podAffinityTermErrors(term: Obj, path: string, allowInvalidLabelValue: boolean): FieldError[] {
  const errs = termSelectorErrors(term, path, allowInvalidLabelValue);
  // kube reports bad namespaces at ".namespace", singular.
  for (const ns of strs(term.namespaces)) errs.push(...isDNS1123Label(ns).map((m) => fieldErrors.invalid(`${path}.namespace`, ns, m)));
  errs.push(...matchLabelKeysErrors(term, path));
  const topologyKey = str(term.topologyKey);
  if (topologyKey === '') errs.push(fieldErrors.required(`${path}.topologyKey`, 'can not be empty'));
  errs.push(...validateQualifiedName(topologyKey, `${path}.topologyKey`));
  return errs;
}

/** validatePodAffinity and validatePodAntiAffinity: the same rules for both. */
function podAffinityErrors(affinity: Obj, path: string, allowInvalidLabelValue: boolean): FieldError[] {
  const errs: FieldError[] = [];
  objs(affinity.requiredDuringSchedulingIgnoredDuringExecution).forEach((term, i) => {
    errs.push(...podAffinityTermErrors(term, `${path}.requiredDuringSchedulingIgnoredDuringExecution[${i}]`, allowInvalidLabelValue));
  });
  objs(affinity.preferredDuringSchedulingIgnoredDuringExecution).forEach((weighted, i) => {
    const p = `${path}.preferredDuringSchedulingIgnoredDuringExecution[${i}]`;
    errs.push(...weightErrors(weighted.weight, `${p}.weight`), ...podAffinityTermErrors(objAt(weighted.podAffinityTerm), `${p}.podAffinityTerm`, allowInvalidLabelValue));
  });
  return errs;
}

/** validateAffinity: node affinity, pod affinity, pod anti-affinity. */
export function validateAffinity(affinity: unknown, path: string, opts: SchedulingValidationOptions = {}): FieldError[] {
  if (!isObj(affinity)) return [];
  const allow = opts.allowInvalidLabelValueInSelector ?? false;
  const errs: FieldError[] = [];
  if (isObj(affinity.nodeAffinity)) errs.push(...nodeAffinityErrors(affinity.nodeAffinity, `${path}.nodeAffinity`));
  if (isObj(affinity.podAffinity)) errs.push(...podAffinityErrors(affinity.podAffinity, `${path}.podAffinity`, allow));
  if (isObj(affinity.podAntiAffinity)) errs.push(...podAffinityErrors(affinity.podAntiAffinity, `${path}.podAntiAffinity`, allow));
  return errs;
}

// ---- topology spread constraints ----

function nodeInclusionPolicyErrors(policy: unknown, path: string): FieldError[] {
  if (!isSet(policy) || NODE_INCLUSION_POLICIES.includes(str(policy))) return [];
  return [fieldErrors.notSupported(path, str(policy), NODE_INCLUSION_POLICIES)];
}

function minDomainsErrors(minDomains: unknown, action: string, path: string): FieldError[] {
  if (!isSet(minDomains)) return [];
  const errs: FieldError[] = [];
  const n = num(minDomains);
  if (n <= 0) errs.push(fieldErrors.invalid(path, n, NOT_POSITIVE));
  if (action !== 'DoNotSchedule') errs.push(fieldErrors.invalid(path, n, `can only use minDomains if whenUnsatisfiable=DoNotSchedule, not ${action}`));
  return errs;
}

/** validateMatchLabelKeysInTopologySpread: label names the selector does not already use. */
function spreadMatchLabelKeysErrors(keys: string[], selector: unknown, path: string): FieldError[] {
  if (keys.length === 0) return [];
  const errs: FieldError[] = [];
  const named = new Set<string>();
  if (isObj(selector)) {
    for (const k of Object.keys(objAt(selector.matchLabels))) named.add(k);
    for (const expr of objs(selector.matchExpressions)) named.add(str(expr.key));
  } else errs.push(fieldErrors.forbidden(path, 'must not be specified when labelSelector is not set'));
  keys.forEach((k, i) => {
    errs.push(...validateQualifiedName(k, `${path}[${i}]`));
    if (named.has(k)) errs.push(fieldErrors.invalid(`${path}[${i}]`, k, 'exists in both matchLabelKeys and labelSelector'));
  });
  return errs;
}

function spreadConstraintErrors(c: Obj, later: Obj[], path: string, opts: SchedulingValidationOptions): FieldError[] {
  const errs: FieldError[] = [];
  const maxSkew = num(c.maxSkew);
  if (maxSkew <= 0) errs.push(fieldErrors.invalid(`${path}.maxSkew`, maxSkew, NOT_POSITIVE));
  const topologyKey = str(c.topologyKey);
  if (topologyKey === '') errs.push(fieldErrors.required(`${path}.topologyKey`, 'can not be empty'));
  const action = str(c.whenUnsatisfiable);
  if (!SCHEDULE_ACTIONS.includes(action)) errs.push(fieldErrors.notSupported(`${path}.whenUnsatisfiable`, action, SCHEDULE_ACTIONS));
  if (later.some((o) => str(o.topologyKey) === topologyKey && str(o.whenUnsatisfiable) === action)) {
    errs.push(fieldErrors.duplicate(`${path}.{topologyKey, whenUnsatisfiable}`, `{${topologyKey}, ${action}}`));
  }
  errs.push(...minDomainsErrors(c.minDomains, action, `${path}.minDomains`));
  errs.push(...nodeInclusionPolicyErrors(c.nodeAffinityPolicy, `${path}.nodeAffinityPolicy`));
  errs.push(...nodeInclusionPolicyErrors(c.nodeTaintsPolicy, `${path}.nodeTaintsPolicy`));
  errs.push(...spreadMatchLabelKeysErrors(strs(c.matchLabelKeys), c.labelSelector, `${path}.matchLabelKeys`));
  if (!opts.allowInvalidTopologySpreadConstraintLabelSelector) errs.push(...validateLabelSelector(c.labelSelector, `${path}.labelSelector`));
  return errs;
}

/** validateTopologySpreadConstraints; a (topologyKey, whenUnsatisfiable) pair may appear once. */
export function validateTopologySpreadConstraints(constraints: unknown, path: string, opts: SchedulingValidationOptions = {}): FieldError[] {
  const list = objs(constraints);
  return list.flatMap((c, i) => spreadConstraintErrors(c, list.slice(i + 1), `${path}[${i}]`, opts));
}

// ---- update relaxations ----

function podAffinityTerms(spec: Obj): Obj[] {
  const affinity = objAt(spec.affinity);
  return [affinity.podAffinity, affinity.podAntiAffinity].filter(isObj).flatMap((a) => [
    ...objs(a.requiredDuringSchedulingIgnoredDuringExecution),
    ...objs(a.preferredDuringSchedulingIgnoredDuringExecution).map((w) => objAt(w.podAffinityTerm)),
  ]);
}

/** The relaxations an update earns from the spec it replaces (GetValidationOptionsFromPodSpecAndMeta). */
export function schedulingUpdateOptions(oldSpec: unknown): SchedulingValidationOptions {
  const spec = objAt(oldSpec);
  return {
    allowInvalidLabelValueInSelector: podAffinityTerms(spec).some((t) => termSelectorErrors(t, '', false).length > 0),
    allowInvalidTopologySpreadConstraintLabelSelector: objs(spec.topologySpreadConstraints).some((c) => validateLabelSelector(c.labelSelector, '').length > 0),
  };
}
