// ResourceQuotas (core validation ValidateResourceQuota/Update/StatusUpdate of kube 1.31: resource names,
// quantities, scopes and the scope selector; the strategy's status reset; printResourceQuota).

import { fieldErrors, goStringsText, renderedBadValue, type FieldError } from '../../../apis/errors.ts';
import { goSlice, goText } from '../../../apis/go-bad-values.ts';
import type { KubeObject } from '../../types.ts';
import { FIELD_IMMUTABLE } from '../../validation/meta.ts';
import { buildStrategy } from '../generic.ts';
import { arrAt, getPath, isObj, objAt, objsAt, semanticEqual, strAt, type Obj } from '../object.ts';
import { ageColumn, column, quantityCell } from '../printing.ts';
import type { TypeFacts } from '../facts.ts';
import type { TypeRules } from '../type-rules.ts';
import { resourceQuantityValueErrors } from './quantity-values.ts';
import { isQuotaHugePagesResourceName, resourceNameErrors, resourceNameValue } from './resource-names.ts';

const STANDARD_QUOTA_RESOURCES = new Set([
  'pods', 'memory', 'cpu', 'requests.cpu', 'requests.memory', 'requests.storage', 'requests.ephemeral-storage', 'limits.cpu', 'limits.memory',
  'limits.ephemeral-storage', 'ephemeral-storage', 'persistentvolumeclaims', 'configmaps', 'replicationcontrollers', 'resourcequotas', 'secrets',
  'services', 'services.nodeports', 'services.loadbalancers',
]);
const SCOPES = ['Terminating', 'NotTerminating', 'BestEffort', 'NotBestEffort', 'PriorityClass', 'CrossNamespacePodAffinity'];
const POD_COMPUTE_QUOTA_RESOURCES = new Set(['cpu', 'memory', 'limits.cpu', 'limits.memory', 'requests.cpu', 'requests.memory']);

/** helper.IsStandardQuotaResourceName. */
const isStandardQuotaResource = (name: string): boolean => STANDARD_QUOTA_RESOURCES.has(name) || isQuotaHugePagesResourceName(name);

/** helper.IsResourceQuotaScopeValidForResource: BestEffort tracks pods only; the other pod scopes pods and compute. */
function scopeValidForResource(scope: string, resource: string): boolean {
  if (scope === 'BestEffort') return resource === 'pods';
  if (scope === 'Terminating' || scope === 'NotTerminating' || scope === 'NotBestEffort' || scope === 'PriorityClass' || scope === 'CrossNamespacePodAffinity') {
    return resource === 'pods' || POD_COMPUTE_QUOTA_RESOURCES.has(resource);
  }
  return true;
}

/** The standard resources of spec.hard, sorted (sets.List), a scope does not apply to. */
const unscopedResources = (spec: Obj, scope: string): string[] =>
  Object.keys(objAt(spec, 'hard') ?? {})
    .sort()
    .filter((k) => isStandardQuotaResource(k) && !scopeValidForResource(scope, k));

/** Go's %#v of a []string that JSON held (an empty list decodes to an empty, non-nil slice). */
const goValues = (v: unknown): string => goStringsText(Array.isArray(v) ? v : null);

/** Go's %#v of a core.ScopeSelector (the bad value kube reports for a selector whose scope does not fit spec.hard). */
function goScopeSelector(selector: Obj): unknown {
  const reqs = objsAt(selector, 'matchExpressions').map(
    (r) => `core.ScopedResourceSelectorRequirement{ScopeName:${goText(r.scopeName)}, Operator:${goText(r.operator)}, Values:${goValues(r.values)}}`,
  );
  const list = Array.isArray(selector.matchExpressions) ? `[]core.ScopedResourceSelectorRequirement{${reqs.join(', ')}}` : '[]core.ScopedResourceSelectorRequirement(nil)';
  return renderedBadValue(`core.ScopeSelector{MatchExpressions:${list}}`);
}

/** ValidateResourceQuotaResourceName: validateResourceName's errors, then the quota rule on top of them. */
function quotaResourceNameErrors(name: string, path: string): FieldError[] {
  const errs = resourceNameErrors(name, path);
  if (!name.includes('/') && !isStandardQuotaResource(name)) errs.push(fieldErrors.invalid(path, resourceNameValue(name), 'must be a standard resource for quota'));
  return errs;
}

/** The names and quantities of a ResourceList of a quota (spec.hard, status.hard, status.used). */
function quotaListErrors(list: unknown, path: string): FieldError[] {
  return Object.entries(isObj(list) ? list : {}).flatMap(([name, q]) => [...quotaResourceNameErrors(name, `${path}[${name}]`), ...resourceQuantityValueErrors(name, q, `${path}[${name}]`)]);
}

const goScopes = (scopes: unknown): unknown => renderedBadValue(goSlice('core.ResourceQuotaScope', scopes, goText));

/** The pairs of scopes that exclude each other, in kube's order. */
const CONFLICTING_SCOPES = [
  ['BestEffort', 'NotBestEffort'],
  ['Terminating', 'NotTerminating'],
];
const conflictCount = (scopes: Set<string>): number => CONFLICTING_SCOPES.filter((pair) => pair.every((s) => scopes.has(s))).length;

/** validateResourceQuotaScopes. */
function scopeErrors(spec: Obj): FieldError[] {
  const scopes = arrAt(spec, 'scopes').map(String);
  if (scopes.length === 0) return [];
  const bad = goScopes(spec.scopes);
  const errs: FieldError[] = [];
  for (const scope of scopes) {
    if (!SCOPES.includes(scope)) errs.push(fieldErrors.invalid('spec.scopes', bad, 'unsupported scope'));
    for (const _ of unscopedResources(spec, scope)) errs.push(fieldErrors.invalid('spec.scopes', bad, 'unsupported scope applied to resource'));
  }
  for (let i = conflictCount(new Set(scopes)); i > 0; i--) errs.push(fieldErrors.invalid('spec.scopes', bad, 'conflicting scopes'));
  return errs;
}

const EXISTS_ONLY = "must be 'Exist' when scope is any of ResourceQuotaScopeTerminating, ResourceQuotaScopeNotTerminating, ResourceQuotaScopeBestEffort, ResourceQuotaScopeNotBestEffort or ResourceQuotaScopeCrossNamespacePodAffinity";

/** validateScopeSelector: kube reports a requirement's errors without its index. */
function scopeSelectorErrors(spec: Obj): FieldError[] {
  const selector = objAt(spec, 'scopeSelector');
  if (!selector) return [];
  const p = 'spec.scopeSelector.matchExpressions';
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  for (const req of objsAt(selector, 'matchExpressions')) {
    const scope = strAt(req, 'scopeName');
    if (!SCOPES.includes(scope)) errs.push(fieldErrors.invalid(`${p}.scopeName`, scope, 'unsupported scope'));
    for (const _ of unscopedResources(spec, scope)) errs.push(fieldErrors.invalid(p, goScopeSelector(selector), 'unsupported scope applied to resource'));
    const op = strAt(req, 'operator');
    if (SCOPES.includes(scope) && scope !== 'PriorityClass' && op !== 'Exists') errs.push(fieldErrors.invalid(`${p}.operator`, op, EXISTS_ONLY));
    const values = arrAt(req, 'values');
    if (op === 'In' || op === 'NotIn') {
      if (values.length === 0) errs.push(fieldErrors.required(`${p}.values`, "must be at least one value when `operator` is 'In' or 'NotIn' for scope selector"));
    } else if (op === 'Exists' || op === 'DoesNotExist') {
      if (values.length > 0) errs.push(fieldErrors.invalid(`${p}.values`, renderedBadValue(goValues(req.values)), "must be no value when `operator` is 'Exist' or 'DoesNotExist' for scope selector"));
    } else errs.push(fieldErrors.invalid(`${p}.operator`, op, 'not a valid selector operator'));
    seen.add(scope);
  }
  // kube reports the conflict with spec.scopes as the bad value.
  for (let i = conflictCount(seen); i > 0; i--) errs.push(fieldErrors.invalid(p, goScopes(spec.scopes), 'conflicting scopes'));
  return errs;
}

/** ValidateResourceQuotaSpec. */
function quotaSpecErrors(obj: KubeObject): FieldError[] {
  const spec = objAt(obj, 'spec') ?? {};
  return [...quotaListErrors(spec.hard, 'spec.hard'), ...scopeErrors(spec), ...scopeSelectorErrors(spec)];
}

/** ValidateResourceQuotaStatus. */
function quotaStatusErrors(obj: KubeObject): FieldError[] {
  const status = objAt(obj, 'status') ?? {};
  return [...quotaListErrors(status.hard, 'status.hard'), ...quotaListErrors(status.used, 'status.used')];
}

/** ValidateResourceQuotaUpdate: the spec (not the status, nor ObjectMeta's create rules), and scopes kept. */
function validateQuotaUpdate(obj: KubeObject, old: KubeObject): FieldError[] {
  const errs = quotaSpecErrors(obj);
  const setOf = (o: KubeObject) => [...new Set(arrAt(o, 'spec', 'scopes').map(String))].sort();
  if (!semanticEqual(setOf(obj), setOf(old))) errs.push(fieldErrors.invalid('spec.scopes', goScopes(getPath(obj, 'spec', 'scopes')), FIELD_IMMUTABLE));
  return errs;
}

function quotaCells(obj: KubeObject): { request: string; limit: string } {
  const hard = objAt(objAt(obj, 'status'), 'hard') ?? {};
  const used = objAt(objAt(obj, 'status'), 'used') ?? {};
  const request: string[] = [];
  const limit: string[] = [];
  for (const name of Object.keys(hard).sort()) {
    const text = `${name}: ${quantityCell(used[name] ?? '0')}/${quantityCell(hard[name])}`;
    (name.split('.').length > 1 && name.split('.')[0] === 'limits' ? limit : request).push(text);
  }
  return { request: request.join(', '), limit: limit.join(', ') };
}

export function resourceQuotaFacts(rules: TypeRules): TypeFacts {
  return {
    strategy: buildStrategy(rules, {
      validate: (obj) => [...quotaSpecErrors(obj), ...quotaStatusErrors(obj)],
      validateUpdate: (obj, old) => validateQuotaUpdate(obj, old),
      validateStatusUpdate: quotaStatusErrors,
    }),
    printerColumns: [
      ageColumn,
      column('Request', 'string', 'Request represents a minimum amount of cpu/memory that a container may consume.', (o) => quotaCells(o).request),
      column('Limit', 'string', 'Limits control the maximum amount of cpu/memory that a container may use independent of contention on the node.', (o) => quotaCells(o).limit),
    ],
    selectableFields: {},
  };
}
