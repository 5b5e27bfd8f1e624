// HorizontalPodAutoscaler validation (pkg/apis/autoscaling/validation): replica bounds, the scale target, metric
// sources and targets, scaling behavior, status counters. autoscaling/v1's CPU target is checked as the metric it
// converts to.

import { fieldErrors, type FieldError } from '../../../apis/errors.ts';
import type { KubeObject } from '../../types.ts';
import { validateNonnegative } from '../../validation/meta.ts';
import { isDNS1123Label, isValidPathSegment } from '../../validation/names.ts';
import { quantityNanos } from '../../validation/quantity.ts';
import { goQuantity } from '../core/quantity-values.ts';
import { containerResourceNameErrors } from '../core/resource-names.ts';
import { arrAt, isObj, numAt, objAt, objsAt, strAt, type Obj } from '../object.ts';
import { isV1Shape } from './hpa-defaults.ts';

const METRIC_TYPES = ['ContainerResource', 'External', 'Object', 'Pods', 'Resource'];
const SOURCE_KEYS: Record<string, string> = { Object: 'object', External: 'external', Pods: 'pods', Resource: 'resource', ContainerResource: 'containerResource' };
const SELECT_POLICIES = ['Disabled', 'Max', 'Min'];
const POLICY_TYPES = ['Percent', 'Pods'];
const MAX_STABILIZATION_SECONDS = 3600;
const MAX_PERIOD_SECONDS = 1800;

/** A name that must be given and be a valid path segment (required with the given detail when empty). */
function pathSegmentNameErrors(name: string, path: string, requiredDetail = ''): FieldError[] {
  if (name === '') return [fieldErrors.required(path, requiredDetail)];
  return isValidPathSegment(name, false).map((m) => fieldErrors.invalid(path, name, m));
}

/** ValidateCrossVersionObjectReference. */
function objectReferenceErrors(ref: Obj, path: string): FieldError[] {
  return ['kind', 'name'].flatMap((key) => pathSegmentNameErrors(strAt(ref, key), `${path}.${key}`));
}

function positive(q: unknown): boolean {
  const n = quantityNanos(q);
  return n !== undefined && n > 0n;
}

/** validateMetricTarget (a *resource.Quantity bad value prints as the Quantity struct). */
function targetErrors(t: Obj, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const type = strAt(t, 'type');
  if (type === '') errs.push(fieldErrors.required(`${path}.type`, 'must specify a metric target type'));
  if (!['Utilization', 'Value', 'AverageValue'].includes(type)) errs.push(fieldErrors.invalid(`${path}.type`, type, 'must be either Utilization, Value, or AverageValue'));
  if (t.value !== undefined && t.value !== null && !positive(t.value)) errs.push(fieldErrors.invalid(`${path}.value`, goQuantity(t.value), 'must be positive'));
  if (t.averageValue !== undefined && t.averageValue !== null && !positive(t.averageValue)) errs.push(fieldErrors.invalid(`${path}.averageValue`, goQuantity(t.averageValue), 'must be positive'));
  if (typeof t.averageUtilization === 'number' && t.averageUtilization < 1) errs.push(fieldErrors.invalid(`${path}.averageUtilization`, t.averageUtilization, 'must be greater than 0'));
  return errs;
}

/** validateMetricIdentifier: only the name is checked (kube leaves the selector alone). */
function metricIdentifierErrors(m: Obj, path: string): FieldError[] {
  return pathSegmentNameErrors(strAt(m, 'name'), `${path}.name`, 'must specify a metric name');
}

/** core/v1 ValidateContainerResourceName: the name is a plain string there, so its bad value is quoted. */
function containerResourceErrors(name: string, path: string): FieldError[] {
  if (name === '') return [fieldErrors.required(path, 'must specify a resource name')];
  return containerResourceNameErrors(name, path).map((e) => ({ ...e, badValue: name }));
}

const has = (v: unknown) => v !== undefined && v !== null;

function sourceErrors(type: string, src: Obj, path: string): FieldError[] {
  const target = objAt(src, 'target') ?? {};
  const tp = `${path}.target`;
  const errs: FieldError[] = [];
  switch (type) {
    case 'Object':
      errs.push(...objectReferenceErrors(objAt(src, 'describedObject') ?? {}, `${path}.describedObject`), ...metricIdentifierErrors(objAt(src, 'metric') ?? {}, `${path}.metric`), ...targetErrors(target, tp));
      if (!has(target.value) && !has(target.averageValue)) errs.push(fieldErrors.required(`${tp}.averageValue`, 'must set either a target value or averageValue'));
      break;
    case 'External':
      errs.push(...metricIdentifierErrors(objAt(src, 'metric') ?? {}, `${path}.metric`), ...targetErrors(target, tp));
      if (!has(target.value) && !has(target.averageValue)) errs.push(fieldErrors.required(`${tp}.averageValue`, 'must set either a target value for metric or a per-pod target'));
      if (has(target.value) && has(target.averageValue)) errs.push(fieldErrors.forbidden(`${tp}.value`, 'may not set both a target value for metric and a per-pod target'));
      break;
    case 'Pods':
      errs.push(...metricIdentifierErrors(objAt(src, 'metric') ?? {}, `${path}.metric`), ...targetErrors(target, tp));
      if (!has(target.averageValue)) errs.push(fieldErrors.required(`${tp}.averageValue`, 'must specify a positive target averageValue'));
      break;
    case 'Resource':
    case 'ContainerResource':
      if (type === 'Resource' && strAt(src, 'name') === '') errs.push(fieldErrors.required(`${path}.name`, 'must specify a resource name'));
      if (type === 'ContainerResource') {
        errs.push(...containerResourceErrors(strAt(src, 'name'), `${path}.name`));
        const container = strAt(src, 'container');
        if (container === '') errs.push(fieldErrors.required(`${path}.container`, 'must specify a container'));
        else for (const m of isDNS1123Label(container)) errs.push(fieldErrors.invalid(`${path}.container`, container, m));
      }
      errs.push(...targetErrors(target, tp));
      if (!has(target.averageUtilization) && !has(target.averageValue)) errs.push(fieldErrors.required(`${tp}.averageUtilization`, 'must set either a target raw value or a target utilization'));
      if (has(target.averageUtilization) && has(target.averageValue)) errs.push(fieldErrors.forbidden(`${tp}.averageValue`, 'may not set both a target raw value and a target utilization'));
      break;
  }
  return errs;
}

/** validateMetricSpec. */
function metricErrors(metric: Obj, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const type = strAt(metric, 'type');
  if (type === '') errs.push(fieldErrors.required(`${path}.type`, 'must specify a metric source type'));
  if (!METRIC_TYPES.includes(type)) errs.push(fieldErrors.notSupported(`${path}.type`, type, METRIC_TYPES));
  // SOURCE_KEYS is in kube's order: only the first source present is checked.
  const present = Object.entries(SOURCE_KEYS).filter(([, key]) => isObj(metric[key]));
  if (present.length > 0) {
    const [first, key] = present[0];
    errs.push(...sourceErrors(first, metric[key] as Obj, `${path}.${key}`));
  }
  if (METRIC_TYPES.includes(type)) {
    if (!isObj(metric[SOURCE_KEYS[type]])) errs.push(fieldErrors.required(`${path}.${SOURCE_KEYS[type]}`, 'must populate information for the given metric source'));
  } else errs.push(fieldErrors.notSupported(`${path}.type`, type, METRIC_TYPES));
  // kube walks a set here (Go's map order); this takes kube's field order.
  if (present.length !== 1) {
    for (const [t, key] of present) if (t !== type) errs.push(fieldErrors.forbidden(`${path}.${key}`, 'must populate the given metric source only'));
  }
  return errs;
}

function scalingRuleErrors(rules: unknown, path: string): FieldError[] {
  if (!isObj(rules)) return [];
  const errs: FieldError[] = [];
  const window = rules.stabilizationWindowSeconds;
  if (typeof window === 'number' && window < 0) errs.push(fieldErrors.invalid(`${path}.stabilizationWindowSeconds`, window, 'must be greater than or equal to zero'));
  if (typeof window === 'number' && window > MAX_STABILIZATION_SECONDS) errs.push(fieldErrors.invalid(`${path}.stabilizationWindowSeconds`, window, `must be less than or equal to ${MAX_STABILIZATION_SECONDS}`));
  const select = rules.selectPolicy;
  if (typeof select === 'string' && !SELECT_POLICIES.includes(select)) errs.push(fieldErrors.notSupported(`${path}.selectPolicy`, select, SELECT_POLICIES));
  const policies = objsAt(rules, 'policies');
  if (policies.length === 0) errs.push(fieldErrors.required(`${path}.policies`, 'must specify at least one Policy'));
  policies.forEach((p, i) => {
    const pp = `${path}.policies[${i}]`;
    const type = strAt(p, 'type');
    if (!POLICY_TYPES.includes(type)) errs.push(fieldErrors.notSupported(`${pp}.type`, type, POLICY_TYPES));
    const value = numAt(p, 'value');
    if (value <= 0) errs.push(fieldErrors.invalid(`${pp}.value`, value, 'must be greater than zero'));
    const period = numAt(p, 'periodSeconds');
    if (period <= 0) errs.push(fieldErrors.invalid(`${pp}.periodSeconds`, period, 'must be greater than zero'));
    if (period > MAX_PERIOD_SECONDS) errs.push(fieldErrors.invalid(`${pp}.periodSeconds`, period, `must be less than or equal to ${MAX_PERIOD_SECONDS}`));
  });
  return errs;
}

/** The metrics an object names, as the internal version holds them (v1's CPU target becomes one). */
function metricsOf(hpa: KubeObject): Obj[] {
  const spec = objAt(hpa, 'spec') ?? {};
  if (!isV1Shape(hpa)) return objsAt(spec, 'metrics');
  const target = spec.targetCPUUtilizationPercentage;
  return typeof target === 'number' ? [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: target } } }] : [];
}

/** validateHorizontalPodAutoscalerSpec; minReplicas may be 0 only when the stored object already had 0. */
export function validateHorizontalPodAutoscaler(hpa: KubeObject, minReplicasLowerBound = 1): FieldError[] {
  const spec = objAt(hpa, 'spec') ?? {};
  const errs: FieldError[] = [];
  const min = spec.minReplicas;
  const max = numAt(spec, 'maxReplicas');
  if (typeof min === 'number' && min < minReplicasLowerBound) errs.push(fieldErrors.invalid('spec.minReplicas', min, `must be greater than or equal to ${minReplicasLowerBound}`));
  if (max < 1) errs.push(fieldErrors.invalid('spec.maxReplicas', max, 'must be greater than 0'));
  if (typeof min === 'number' && max < min) errs.push(fieldErrors.invalid('spec.maxReplicas', max, 'must be greater than or equal to `minReplicas`'));
  errs.push(...objectReferenceErrors(objAt(spec, 'scaleTargetRef') ?? {}, 'spec.scaleTargetRef'));
  const metrics = metricsOf(hpa);
  metrics.forEach((m, i) => errs.push(...metricErrors(m, `spec.metrics[${i}]`)));
  if (min === 0 && !metrics.some((m) => m.type === 'Object' || m.type === 'External')) {
    errs.push(fieldErrors.forbidden('spec.metrics', 'must specify at least one Object or External metric to support scaling to zero replicas'));
  }
  const behavior = objAt(spec, 'behavior');
  if (behavior) errs.push(...scalingRuleErrors(behavior.scaleUp, 'spec.behavior.scaleUp'), ...scalingRuleErrors(behavior.scaleDown, 'spec.behavior.scaleDown'));
  return errs;
}

/** ValidateHorizontalPodAutoscalerStatusUpdate. */
export function validateHorizontalPodAutoscalerStatus(hpa: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  for (const key of ['currentReplicas', 'desiredReplicas']) {
    const v = objAt(hpa, 'status')?.[key];
    if (typeof v === 'number') errs.push(...validateNonnegative(v, `status.${key}`));
  }
  return errs;
}

export const hpaMinReplicas = (hpa: KubeObject): number | undefined => {
  const v = objAt(hpa, 'spec')?.minReplicas;
  return typeof v === 'number' ? v : undefined;
};

export const hpaMetricCount = (hpa: KubeObject): number => arrAt(hpa, 'spec', 'metrics').length;
