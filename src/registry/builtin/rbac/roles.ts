// Roles and ClusterRoles (pkg/apis/rbac/validation ValidateRole, ValidateClusterRole, ValidatePolicyRule; kube prints
// only Name and Created At): every rule names its verbs, and either resources of API groups or, in a ClusterRole
// only, non-resource URLs; a ClusterRole's aggregation rule has valid label selectors.

import { fieldErrors, goStringsValue, renderedBadValue, type FieldError } from '../../../apis/errors.ts';
import { formatLabelSelector, parseLabelSelector } from '../../../apis/labels.ts';
import type { KubeObject } from '../../types.ts';
import { hasInvalidLabelValueInSelector, validateLabelSelector } from '../../validation/label-selector.ts';
import type { TypeFacts } from '../facts.ts';
import { buildStrategy } from '../generic.ts';
import { arrAt, isObj, objsAt } from '../object.ts';
import type { TypeRules } from '../type-rules.ts';

/** ValidatePolicyRule. */
export function policyRuleErrors(rule: Record<string, unknown>, namespaced: boolean, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const count = (key: string) => arrAt(rule, key).length;
  if (count('verbs') === 0) errs.push(fieldErrors.required(`${path}.verbs`, 'verbs must contain at least one value'));
  if (count('nonResourceURLs') > 0) {
    const urls = goStringsValue(arrAt(rule, 'nonResourceURLs'));
    if (namespaced) errs.push(fieldErrors.invalid(`${path}.nonResourceURLs`, urls, 'namespaced rules cannot apply to non-resource URLs'));
    if (count('apiGroups') > 0 || count('resources') > 0 || count('resourceNames') > 0) {
      errs.push(fieldErrors.invalid(`${path}.nonResourceURLs`, urls, 'rules cannot apply to both regular resources and non-resource URLs'));
    }
    return errs;
  }
  if (count('apiGroups') === 0) errs.push(fieldErrors.required(`${path}.apiGroups`, 'resource rules must supply at least one api group'));
  if (count('resources') === 0) errs.push(fieldErrors.required(`${path}.resources`, 'resource rules must supply at least one resource'));
  return errs;
}

/** The label selectors of a ClusterRole's aggregation rule. */
function clusterRoleSelectors(obj: KubeObject): unknown[] | undefined {
  return isObj(obj.aggregationRule) ? arrAt(obj.aggregationRule, 'clusterRoleSelectors') : undefined;
}

/** Whether LabelSelectorAsSelector accepts a selector. */
function convertible(selector: unknown): boolean {
  try {
    parseLabelSelector(formatLabelSelector(selector));
    return true;
  } catch {
    return false;
  }
}

function validateRole(obj: KubeObject, namespaced: boolean, allowInvalidLabelValue: boolean): FieldError[] {
  const errs = objsAt(obj, 'rules').flatMap((rule, i) => policyRuleErrors(rule, namespaced, `rules[${i}]`));
  const selectors = namespaced ? undefined : clusterRoleSelectors(obj);
  if (selectors !== undefined) {
    if (selectors.length === 0) errs.push(fieldErrors.required('aggregationRule.clusterRoleSelectors', 'at least one clusterRoleSelector required if aggregationRule is non-nil'));
    selectors.forEach((selector, i) => {
      const path = `aggregationRule.clusterRoleSelectors[${i}]`;
      errs.push(...validateLabelSelector(selector, path, allowInvalidLabelValue));
      // The converted selector is nil when conversion fails: field.Invalid prints it as "null".
      if (!convertible(selector)) errs.push(fieldErrors.invalid(path, renderedBadValue('"null"'), 'invalid label selector.'));
    });
  }
  return errs;
}

function roleFactsFor(namespaced: boolean) {
  return (rules: TypeRules): TypeFacts => ({
    strategy: buildStrategy(rules, {
      validate: (obj) => validateRole(obj, namespaced, false),
      // An update may keep label values its old selectors already held, valid or not.
      validateUpdate: (obj, old) => validateRole(obj, namespaced, (clusterRoleSelectors(old) ?? []).some(hasInvalidLabelValueInSelector)),
    }),
    printerColumns: [],
    selectableFields: {},
  });
}

export const roleFacts = roleFactsFor(true);
export const clusterRoleFacts = roleFactsFor(false);
