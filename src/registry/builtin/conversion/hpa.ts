// HorizontalPodAutoscaler conversion between autoscaling/v1 and autoscaling/v2 (kube's
// pkg/apis/autoscaling/v1/conversion.go through the internal type, which has v2's shape). Objects are stored
// as autoscaling/v2. autoscaling/v1 carries one CPU utilization target; everything else v2 has rides in
// annotations of the v1 object, in v1's own metric format (kube's round-trip annotations):
//   autoscaling.alpha.kubernetes.io/metrics          the spec metrics other than CPU utilization
//   autoscaling.alpha.kubernetes.io/current-metrics  status.currentMetrics (all of them)
//   autoscaling.alpha.kubernetes.io/conditions       status.conditions
//   autoscaling.alpha.kubernetes.io/behavior         spec.behavior, as Go marshals the internal type
//                                                    (field names capitalized: {"ScaleUp":{"Policies":...}})

import type { KubeObject } from '../../types.ts';
import { cloneJson } from '../../../apis/json-clone.ts';

export const HPA_V1 = 'autoscaling/v1';
export const HPA_V2 = 'autoscaling/v2';

export const METRIC_SPECS_ANNOTATION = 'autoscaling.alpha.kubernetes.io/metrics';
export const METRIC_STATUSES_ANNOTATION = 'autoscaling.alpha.kubernetes.io/current-metrics';
export const CONDITIONS_ANNOTATION = 'autoscaling.alpha.kubernetes.io/conditions';
export const BEHAVIOR_ANNOTATION = 'autoscaling.alpha.kubernetes.io/behavior';
const ROUND_TRIP_ANNOTATIONS = [METRIC_SPECS_ANNOTATION, METRIC_STATUSES_ANNOTATION, CONDITIONS_ANNOTATION, BEHAVIOR_ANNOTATION];

/** What v1 implied when it named no target (autoscaling.DefaultCPUUtilization). */
const DEFAULT_CPU_UTILIZATION = 80;

type Obj = Record<string, unknown>;

const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const objOf = (v: unknown): Obj => (isObj(v) ? v : {});
const objsOf = (v: unknown): Obj[] => (Array.isArray(v) ? v.filter(isObj) : []);
/** A resource.Quantity that is not a pointer in Go: serialized as "0" when unset. */
const quantity = (v: unknown): unknown => (v === undefined || v === null ? '0' : v);

/** Sets out[key] unless v is undefined or null (Go's omitempty on pointers, slices and maps). */
function put(out: Obj, key: string, v: unknown): void {
  if (v === undefined || v === null) return;
  if (Array.isArray(v) && v.length === 0) return;
  out[key] = v;
}

function parseAnnotation(annotations: Record<string, string> | undefined, key: string): unknown {
  const text = annotations?.[key];
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    // kube ignores an annotation it cannot decode.
    return undefined;
  }
}

function withoutRoundTripAnnotations(meta: KubeObject['metadata']): KubeObject['metadata'] {
  const annotations = meta.annotations;
  if (!annotations || !ROUND_TRIP_ANNOTATIONS.some((k) => k in annotations)) return meta;
  const kept = Object.fromEntries(Object.entries(annotations).filter(([k]) => !ROUND_TRIP_ANNOTATIONS.includes(k)));
  const { annotations: _dropped, ...rest } = meta;
  return Object.keys(kept).length === 0 ? rest : { ...rest, annotations: kept };
}

function identifier(name: unknown, selector: unknown): Obj {
  const out: Obj = { name: name ?? '' };
  put(out, 'selector', selector);
  return out;
}

function valueStatus(value: unknown, averageValue: unknown, averageUtilization: unknown): Obj {
  const out: Obj = {};
  put(out, 'value', value);
  put(out, 'averageValue', averageValue);
  put(out, 'averageUtilization', averageUtilization);
  return out;
}

/** A MetricTarget: a MetricValueStatus with its type first. */
function target(type: string, value: unknown, averageValue: unknown, averageUtilization: unknown): Obj {
  return { type, ...valueStatus(value, averageValue, averageUtilization) };
}

/** A containerResource source is a resource source with its container last; the same in every direction. */
function withContainer(resource: Obj, source: Obj): Obj {
  return { ...resource, container: source.container ?? '' };
}

// ---- metric specs: v2 <-> v1 (v2beta1-style) ----

function metricSpecToV1(m: Obj): Obj {
  const out: Obj = { type: m.type ?? '' };
  if (isObj(m.object)) {
    const s = m.object;
    const t = objOf(s.target);
    const metric = objOf(s.metric);
    const o: Obj = { target: objOf(s.describedObject), metricName: metric.name ?? '', targetValue: quantity(t.value) };
    put(o, 'selector', metric.selector);
    put(o, 'averageValue', t.averageValue);
    out.object = o;
  }
  if (isObj(m.pods)) {
    const metric = objOf(m.pods.metric);
    const p: Obj = { metricName: metric.name ?? '', targetAverageValue: quantity(objOf(m.pods.target).averageValue) };
    put(p, 'selector', metric.selector);
    out.pods = p;
  }
  if (isObj(m.resource)) out.resource = resourceSpecToV1(m.resource);
  if (isObj(m.containerResource)) out.containerResource = withContainer(resourceSpecToV1(m.containerResource), m.containerResource);
  if (isObj(m.external)) {
    const t = objOf(m.external.target);
    const metric = objOf(m.external.metric);
    const e: Obj = { metricName: metric.name ?? '' };
    put(e, 'metricSelector', metric.selector);
    put(e, 'targetValue', t.value);
    put(e, 'targetAverageValue', t.averageValue);
    out.external = e;
  }
  return out;
}

function resourceSpecToV1(s: Obj): Obj {
  const t = objOf(s.target);
  const r: Obj = { name: s.name ?? '' };
  put(r, 'targetAverageUtilization', t.averageUtilization);
  put(r, 'targetAverageValue', t.averageValue);
  return r;
}

function metricSpecFromV1(m: Obj): Obj {
  const out: Obj = { type: m.type ?? '' };
  if (isObj(m.object)) {
    const s = m.object;
    out.object = {
      describedObject: objOf(s.target),
      target: target(s.averageValue === undefined || s.averageValue === null ? 'Value' : 'AverageValue', quantity(s.targetValue), s.averageValue, undefined),
      metric: identifier(s.metricName, s.selector),
    };
  }
  if (isObj(m.pods)) {
    out.pods = { metric: identifier(m.pods.metricName, m.pods.selector), target: target('AverageValue', undefined, quantity(m.pods.targetAverageValue), undefined) };
  }
  if (isObj(m.resource)) out.resource = resourceSpecFromV1(m.resource);
  if (isObj(m.containerResource)) out.containerResource = withContainer(resourceSpecFromV1(m.containerResource), m.containerResource);
  if (isObj(m.external)) {
    const s = m.external;
    const type = s.targetValue === undefined || s.targetValue === null ? 'AverageValue' : 'Value';
    out.external = { metric: identifier(s.metricName, s.metricSelector), target: target(type, s.targetValue, s.targetAverageValue, undefined) };
  }
  return out;
}

function resourceSpecFromV1(s: Obj): Obj {
  const utilization = s.targetAverageUtilization;
  const type = utilization === undefined || utilization === null ? 'AverageValue' : 'Utilization';
  return { name: s.name ?? '', target: target(type, undefined, s.targetAverageValue, utilization) };
}

// ---- metric statuses: v2 <-> v1 ----
// Shaped like the spec conversions, but v1's status types hold some quantities by value where the spec types
// hold pointers: those are written as "0" when unset instead of being left out.

function metricStatusToV1(m: Obj): Obj {
  const out: Obj = { type: m.type ?? '' };
  if (isObj(m.object)) {
    const s = m.object;
    const cur = objOf(s.current);
    const metric = objOf(s.metric);
    const o: Obj = { target: objOf(s.describedObject), metricName: metric.name ?? '', currentValue: quantity(cur.value) };
    put(o, 'selector', metric.selector);
    put(o, 'averageValue', cur.averageValue);
    out.object = o;
  }
  if (isObj(m.pods)) {
    const metric = objOf(m.pods.metric);
    const p: Obj = { metricName: metric.name ?? '', currentAverageValue: quantity(objOf(m.pods.current).averageValue) };
    put(p, 'selector', metric.selector);
    out.pods = p;
  }
  if (isObj(m.resource)) out.resource = resourceStatusToV1(m.resource);
  if (isObj(m.containerResource)) out.containerResource = withContainer(resourceStatusToV1(m.containerResource), m.containerResource);
  if (isObj(m.external)) {
    const cur = objOf(m.external.current);
    const metric = objOf(m.external.metric);
    const e: Obj = { metricName: metric.name ?? '' };
    put(e, 'metricSelector', metric.selector);
    e.currentValue = quantity(cur.value);
    put(e, 'currentAverageValue', cur.averageValue);
    out.external = e;
  }
  return out;
}

function resourceStatusToV1(s: Obj): Obj {
  const cur = objOf(s.current);
  const r: Obj = { name: s.name ?? '' };
  put(r, 'currentAverageUtilization', cur.averageUtilization);
  r.currentAverageValue = quantity(cur.averageValue);
  return r;
}

function metricStatusFromV1(m: Obj): Obj {
  const out: Obj = { type: m.type ?? '' };
  if (isObj(m.object)) {
    const s = m.object;
    out.object = {
      metric: identifier(s.metricName, s.selector),
      current: valueStatus(quantity(s.currentValue), s.averageValue, undefined),
      describedObject: objOf(s.target),
    };
  }
  if (isObj(m.pods)) {
    out.pods = { metric: identifier(m.pods.metricName, m.pods.selector), current: valueStatus(undefined, quantity(m.pods.currentAverageValue), undefined) };
  }
  if (isObj(m.resource)) out.resource = resourceStatusFromV1(m.resource);
  if (isObj(m.containerResource)) out.containerResource = withContainer(resourceStatusFromV1(m.containerResource), m.containerResource);
  if (isObj(m.external)) {
    const s = m.external;
    out.external = { metric: identifier(s.metricName, s.metricSelector), current: valueStatus(quantity(s.currentValue), s.currentAverageValue, undefined) };
  }
  return out;
}

function resourceStatusFromV1(s: Obj): Obj {
  return { name: s.name ?? '', current: valueStatus(undefined, quantity(s.currentAverageValue), s.currentAverageUtilization) };
}

// ---- behavior: v2 <-> the internal type's Go JSON ----

/** A key of `o` matched case-insensitively, as Go's json.Unmarshal matches field names. */
function field(o: Obj, name: string): unknown {
  if (name in o) return o[name];
  const lower = name.toLowerCase();
  for (const k of Object.keys(o)) if (k.toLowerCase() === lower) return o[k];
  return undefined;
}

function rulesToInternal(r: unknown): unknown {
  if (!isObj(r)) return null;
  const policies = Array.isArray(r.policies) ? objsOf(r.policies).map((p) => ({ Type: p.type ?? '', Value: p.value ?? 0, PeriodSeconds: p.periodSeconds ?? 0 })) : null;
  return { StabilizationWindowSeconds: r.stabilizationWindowSeconds ?? null, SelectPolicy: r.selectPolicy ?? null, Policies: policies };
}

function rulesFromInternal(r: unknown): Obj | undefined {
  if (!isObj(r)) return undefined;
  const out: Obj = {};
  put(out, 'stabilizationWindowSeconds', field(r, 'StabilizationWindowSeconds'));
  put(out, 'selectPolicy', field(r, 'SelectPolicy'));
  const policies = field(r, 'Policies');
  if (Array.isArray(policies)) {
    out.policies = objsOf(policies).map((p) => ({ type: field(p, 'Type') ?? '', value: field(p, 'Value') ?? 0, periodSeconds: field(p, 'PeriodSeconds') ?? 0 }));
  }
  return out;
}

function behaviorFromInternal(b: unknown): Obj | undefined {
  if (!isObj(b)) return undefined;
  const out: Obj = {};
  put(out, 'scaleUp', rulesFromInternal(field(b, 'ScaleUp')));
  put(out, 'scaleDown', rulesFromInternal(field(b, 'ScaleDown')));
  // kube keeps a decoded behavior only when it is not the zero value.
  return Object.keys(out).length > 0 ? out : undefined;
}

// ---- whole objects ----

const isCpuUtilization = (m: Obj): boolean => m.type === 'Resource' && isObj(m.resource) && m.resource.name === 'cpu' && objOf(m.resource.target).averageUtilization != null;

function v2ToV1(hpa: Obj): KubeObject {
  const meta = withoutRoundTripAnnotations(objOf(hpa.metadata) as KubeObject['metadata']);
  const spec = objOf(hpa.spec);
  const status = objOf(hpa.status);
  const metrics = objsOf(spec.metrics);
  const currentMetrics = objsOf(status.currentMetrics);
  const conditions = objsOf(status.conditions);
  const annotations: Record<string, string> = { ...(meta.annotations ?? {}) };
  const others = metrics.filter((m) => !isCpuUtilization(m)).map(metricSpecToV1);
  if (others.length > 0) annotations[METRIC_SPECS_ANNOTATION] = JSON.stringify(others);
  if (currentMetrics.length > 0) annotations[METRIC_STATUSES_ANNOTATION] = JSON.stringify(currentMetrics.map(metricStatusToV1));
  if (isObj(spec.behavior)) {
    annotations[BEHAVIOR_ANNOTATION] = JSON.stringify({ ScaleUp: rulesToInternal(spec.behavior.scaleUp), ScaleDown: rulesToInternal(spec.behavior.scaleDown) });
  }
  if (conditions.length > 0) annotations[CONDITIONS_ANNOTATION] = JSON.stringify(conditions);
  const outMeta = { ...meta };
  if (Object.keys(annotations).length > 0) outMeta.annotations = annotations;

  const v1Spec: Obj = { scaleTargetRef: objOf(spec.scaleTargetRef) };
  put(v1Spec, 'minReplicas', spec.minReplicas);
  v1Spec.maxReplicas = spec.maxReplicas ?? 0;
  const cpu = metrics.find(isCpuUtilization);
  if (cpu) v1Spec.targetCPUUtilizationPercentage = objOf(objOf(cpu.resource).target).averageUtilization;

  const v1Status: Obj = {};
  put(v1Status, 'observedGeneration', status.observedGeneration);
  put(v1Status, 'lastScaleTime', status.lastScaleTime);
  v1Status.currentReplicas = status.currentReplicas ?? 0;
  v1Status.desiredReplicas = status.desiredReplicas ?? 0;
  for (const m of currentMetrics) {
    if (m.type !== 'Resource' || !isObj(m.resource) || m.resource.name !== 'cpu') continue;
    const utilization = objOf(m.resource.current).averageUtilization;
    if (utilization != null) v1Status.currentCPUUtilizationPercentage = utilization;
  }
  return { kind: 'HorizontalPodAutoscaler', apiVersion: HPA_V1, metadata: outMeta, spec: v1Spec, status: v1Status } as KubeObject;
}

function v1ToV2(hpa: Obj, apiVersion: string): KubeObject {
  const meta = objOf(hpa.metadata) as KubeObject['metadata'];
  const spec = objOf(hpa.spec);
  const status = objOf(hpa.status);

  let metrics: Obj[] = [];
  const cpuTarget = spec.targetCPUUtilizationPercentage;
  const cpuMetric = (utilization: unknown): Obj => ({ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: utilization } } });
  if (cpuTarget != null) metrics = [cpuMetric(cpuTarget)];
  const others = parseAnnotation(meta.annotations, METRIC_SPECS_ANNOTATION);
  if (Array.isArray(others)) metrics = [...objsOf(others).map(metricSpecFromV1), ...metrics];
  // v1 once left the CPU target to the controller's default; the conversion makes it explicit.
  if (metrics.length === 0) metrics = [cpuMetric(DEFAULT_CPU_UTILIZATION)];
  const behavior = behaviorFromInternal(parseAnnotation(meta.annotations, BEHAVIOR_ANNOTATION));

  let currentMetrics: Obj[] = [];
  const cpuCurrent = status.currentCPUUtilizationPercentage;
  if (cpuCurrent != null) currentMetrics = [{ type: 'Resource', resource: { name: 'cpu', current: { averageUtilization: cpuCurrent } } }];
  const statuses = parseAnnotation(meta.annotations, METRIC_STATUSES_ANNOTATION);
  if (Array.isArray(statuses)) currentMetrics = objsOf(statuses).map(metricStatusFromV1);
  const conditionsAnnotation = parseAnnotation(meta.annotations, CONDITIONS_ANNOTATION);
  const conditions = Array.isArray(conditionsAnnotation) ? objsOf(conditionsAnnotation) : [];

  const v2Spec: Obj = { scaleTargetRef: objOf(spec.scaleTargetRef) };
  put(v2Spec, 'minReplicas', spec.minReplicas);
  v2Spec.maxReplicas = spec.maxReplicas ?? 0;
  put(v2Spec, 'metrics', metrics);
  put(v2Spec, 'behavior', behavior);

  const v2Status: Obj = {};
  put(v2Status, 'observedGeneration', status.observedGeneration);
  put(v2Status, 'lastScaleTime', status.lastScaleTime);
  if (typeof status.currentReplicas === 'number' && status.currentReplicas !== 0) v2Status.currentReplicas = status.currentReplicas;
  v2Status.desiredReplicas = status.desiredReplicas ?? 0;
  put(v2Status, 'currentMetrics', currentMetrics);
  put(v2Status, 'conditions', conditions);
  return { kind: 'HorizontalPodAutoscaler', apiVersion, metadata: withoutRoundTripAnnotations(meta), spec: v2Spec, status: v2Status } as KubeObject;
}

/** An HPA of either version as `apiVersion` ("autoscaling/v1" or "autoscaling/v2") serves it; a new object. */
export function convertHorizontalPodAutoscaler(obj: KubeObject, apiVersion: string): KubeObject {
  const from = obj.apiVersion === HPA_V1 ? 'v1' : 'v2';
  const to = apiVersion === HPA_V1 ? 'v1' : 'v2';
  const copy = cloneJson(obj) as Obj;
  if (from === to) return { ...copy, apiVersion } as KubeObject;
  return to === 'v1' ? v2ToV1(copy) : v1ToV2(copy, apiVersion);
}
