// ResourceQuotas (core validation ValidateResourceQuota/Update: resource names, quantities, scopes; the
// strategy's status reset; printResourceQuota).

import { fieldErrors, goStringsText, goStringsValue, renderedBadValue, type FieldError } from '../../../apis/errors.ts';
import type { KubeObject } from '../../types.ts';
import { FIELD_IMMUTABLE } from '../../validation/meta.ts';
import { quantityNanos } from '../../validation/quantity.ts';
import { buildStrategy } from '../generic.ts';
import { arrAt, objAt, objsAt, semanticEqual, strAt } from '../object.ts';
import { ageColumn, column, quantityCell } from '../printing.ts';
import type { TypeFacts } from '../facts.ts';
import type { TypeRules } from '../type-rules.ts';
import { isHugePagesResourceName, isIntegerResourceName, resourceNameErrors } from './resource-names.ts';

const STANDARD_QUOTA_RESOURCES = new Set([
  'pods', 'memory', 'cpu', 'requests.cpu', 'requests.memory', 'requests.storage', 'requests.ephemeral-storage', 'limits.cpu', 'limits.memory',
  'limits.ephemeral-storage', 'ephemeral-storage', 'persistentvolumeclaims', 'configmaps', 'replicationcontrollers', 'resourcequotas', 'secrets',
  'services', 'services.nodeports', 'services.loadbalancers',
]);
const SCOPES = ['Terminating', 'NotTerminating', 'BestEffort', 'NotBestEffort', 'PriorityClass', 'CrossNamespacePodAffinity'];
const POD_COMPUTE_QUOTA_RESOURCES = new Set(['cpu', 'memory', 'limits.cpu', 'limits.memory', 'requests.cpu', 'requests.memory']);

/** helper.IsStandardQuotaResourceName. */
const isStandardQuotaResource = (name: string): boolean =>
  STANDARD_QUOTA_RESOURCES.has(name) || isHugePagesResourceName(name) || (name.startsWith('requests.') && isHugePagesResourceName(name.slice('requests.'.length)));

/** helper.IsResourceQuotaScopeValidForResource: BestEffort tracks pods only; the other pod scopes pods and compute. */
function scopeValidForResource(scope: string, resource: string): boolean {
  if (scope === 'BestEffort') return resource === 'pods';
  if (scope === 'Terminating' || scope === 'NotTerminating' || scope === 'NotBestEffort' || scope === 'PriorityClass' || scope === 'CrossNamespacePodAffinity') {
    return resource === 'pods' || POD_COMPUTE_QUOTA_RESOURCES.has(resource);
  }
  return true;
}

/** The standard resources of spec.hard, sorted (sets.String.List()), a scope does not apply to. */
const unscopedResources = (obj: KubeObject, scope: string): string[] =>
  Object.keys(objAt(objAt(obj, 'spec'), 'hard') ?? {})
    .sort()
    .filter((k) => isStandardQuotaResource(k) && !scopeValidForResource(scope, k));

/** Go's %#v of a core.ScopeSelector (the bad value kube reports for a selector whose scope does not fit spec.hard). */
function goScopeSelector(selector: Record<string, unknown>): ReturnType<typeof renderedBadValue> {
  const reqs = objsAt(selector, 'matchExpressions').map(
    (r) =>
      `core.ScopedResourceSelectorRequirement{ScopeName:${JSON.stringify(strAt(r, 'scopeName'))}, Operator:${JSON.stringify(strAt(r, 'operator'))}, Values:${
        goStringsText(arrAt(r, 'values').length ? arrAt(r, 'values') : undefined)
      }}`,
  );
  return renderedBadValue(`core.ScopeSelector{MatchExpressions:${reqs.length ? `[]core.ScopedResourceSelectorRequirement{${reqs.join(', ')}}` : '[]core.ScopedResourceSelectorRequirement(nil)'}}`);
}

function quotaResourceNameErrors(name: string, path: string): FieldError[] {
  const errs = resourceNameErrors(name, path);
  if (errs.length) return errs;
  const hugePages = name.startsWith('requests.') && isHugePagesResourceName(name.slice('requests.'.length));
  if (!name.includes('/') && !STANDARD_QUOTA_RESOURCES.has(name) && !hugePages && !isHugePagesResourceName(name)) return [fieldErrors.invalid(path, name, 'must be a standard resource for quota')];
  return [];
}

/** ValidateResourceQuantityValue: not negative, whole units for counted resources. */
export function quantityValueErrors(name: string, q: unknown, path: string): FieldError[] {
  const nanos = quantityNanos(q);
  if (nanos === undefined) return [];
  const text = String(q);
  const errs: FieldError[] = [];
  if (nanos < 0n) errs.push(fieldErrors.invalid(path, text, 'must be greater than or equal to 0'));
  if (isIntegerResourceName(name) && nanos % 1_000_000_000n !== 0n) errs.push(fieldErrors.invalid(path, text, 'must be an integer'));
  return errs;
}

const goScopes = (scopes: unknown[]) => renderedBadValue(`[]core.ResourceQuotaScope{${scopes.map((s) => JSON.stringify(String(s))).join(', ')}}`);

function validateQuotaSpec(obj: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  for (const [name, q] of Object.entries(objAt(objAt(obj, 'spec'), 'hard') ?? {})) {
    errs.push(...quotaResourceNameErrors(name, `spec.hard[${name}]`), ...quantityValueErrors(name, q, `spec.hard[${name}]`));
  }
  for (const key of ['hard', 'used']) {
    for (const [name, q] of Object.entries(objAt(objAt(obj, 'status'), key) ?? {})) {
      errs.push(...quotaResourceNameErrors(name, `status.${key}[${name}]`), ...quantityValueErrors(name, q, `status.${key}[${name}]`));
    }
  }
  const scopes = arrAt(obj, 'spec', 'scopes');
  const set = new Set(scopes.map(String));
  for (const s of scopes.map(String)) {
    if (!SCOPES.includes(s)) errs.push(fieldErrors.invalid('spec.scopes', goScopes(scopes), 'unsupported scope'));
    for (const _ of unscopedResources(obj, s)) errs.push(fieldErrors.invalid('spec.scopes', goScopes(scopes), 'unsupported scope applied to resource'));
  }
  if ((set.has('Terminating') && set.has('NotTerminating')) || (set.has('BestEffort') && set.has('NotBestEffort'))) {
    errs.push(fieldErrors.invalid('spec.scopes', goScopes(scopes), 'conflicting scopes'));
  }
  // kube reports these without the requirement's index.
  const p = 'spec.scopeSelector.matchExpressions';
  for (const req of objsAt(obj, 'spec', 'scopeSelector', 'matchExpressions')) {
    const scope = strAt(req, 'scopeName');
    if (!SCOPES.includes(scope)) errs.push(fieldErrors.invalid(`${p}.scopeName`, scope, 'unsupported scope'));
    for (const _ of unscopedResources(obj, scope)) errs.push(fieldErrors.invalid(p, goScopeSelector(objAt(objAt(obj, 'spec'), 'scopeSelector') ?? {}), 'unsupported scope applied to resource'));
    const op = strAt(req, 'operator');
    if (SCOPES.includes(scope) && scope !== 'PriorityClass' && op !== 'Exists') {
      errs.push(
        fieldErrors.invalid(
          `${p}.operator`,
          op,
          "must be 'Exist' when scope is any of ResourceQuotaScopeTerminating, ResourceQuotaScopeNotTerminating, ResourceQuotaScopeBestEffort, ResourceQuotaScopeNotBestEffort or ResourceQuotaScopeCrossNamespacePodAffinity",
        ),
      );
    }
    const values = arrAt(req, 'values');
    if (op === 'In' || op === 'NotIn') {
      if (values.length === 0) errs.push(fieldErrors.required(`${p}.values`, "must be at least one value when `operator` is 'In' or 'NotIn' for scope selector"));
    } else if (op === 'Exists' || op === 'DoesNotExist') {
      if (values.length > 0) errs.push(fieldErrors.invalid(`${p}.values`, goStringsValue(values), "must be no value when `operator` is 'Exist' or 'DoesNotExist' for scope selector"));
    } else errs.push(fieldErrors.invalid(`${p}.operator`, op, 'not a valid selector operator'));
  }
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
      validate: validateQuotaSpec,
      validateUpdate(obj, old, _ctx, validateNew) {
        const errs = validateNew();
        const scopes = arrAt(obj, 'spec', 'scopes');
        if (!semanticEqual([...new Set(scopes.map(String))].sort(), [...new Set(arrAt(old, 'spec', 'scopes').map(String))].sort())) {
          errs.push(fieldErrors.invalid('spec.scopes', goScopes(scopes), FIELD_IMMUTABLE));
        }
        return errs;
      },
      validateStatusUpdate: (obj) => validateQuotaSpec(obj).filter((e) => e.field.startsWith('status')),
    }),
    printerColumns: [
      ageColumn,
      column('Request', 'string', 'Request represents a minimum amount of cpu/memory that a container may consume.', (o) => quotaCells(o).request),
      column('Limit', 'string', 'Limits control the maximum amount of cpu/memory that a container may use independent of contention on the node.', (o) => quotaCells(o).limit),
    ],
    selectableFields: {},
  };
}
