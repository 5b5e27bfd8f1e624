// The horizontal pod autoscaler's Pods, Object and External metrics, read as kube-controller-manager reads them: from
// the custom metrics API (custom.metrics.k8s.io, v1beta2 or else v1beta1) and the external metrics API
// (external.metrics.k8s.io/v1beta1) that an APIService registers (a prometheus-adapter or KEDA, or a test's own
// server), through the aggregation layer; then kube's replica calculator (replica_calculator.go GetMetricReplicas,
// GetObjectMetricReplicas, GetObjectPerPodMetricReplicas, GetExternalMetricReplicas,
// GetExternalPerPodMetricReplicas) and the MetricStatus each writes. Without such an APIService a metric fails as on
// a cluster without an adapter.

import { formatLabelSelector } from '../../apis/labels.ts';
import { parseQuantity } from '../../registry/validation/quantity.ts';
import type { KubeObject, ResourceDefinition } from '../../registry/types.ts';
import { formatMilli, getPlainMetricReplicas, milliValue, TOLERANCE, type MetricFailure, type MetricOutcome, type PodMetric } from './hpa-replicas.ts';
import { asObj, podReady, type Obj } from './shared.ts';

/** A GET of an aggregated API as the autoscaler: undefined when no APIService serves the group-version. */
export type AggregatedGet = (group: string, version: string, path: string) => Promise<{ status: number; body: string } | undefined>;

export interface CustomMetricContext {
  readonly namespace: string;
  readonly currentReplicas: number;
  /** The scale's status.replicas (what the per-pod targets divide by). */
  readonly statusReplicas: number;
  /** The pods the scale's selector picks, and that selector as a string. */
  readonly pods: readonly KubeObject[];
  readonly selector: string;
  readonly now: number;
  readonly get: AggregatedGet;
  /** The resource a kind names (kube's RESTMapper), for an Object metric's described object. */
  readonly resourceFor: (apiVersion: string, kind: string) => ResourceDefinition | undefined;
}

type Fetched<T> = { ok: true; value: T } | { ok: false; error: string };

/** A Go-style error of a failed GET: the Status's message, or client-go's words for the code. */
function errorOf(answer: { status: number; body: string }): string {
  try {
    const status = JSON.parse(answer.body) as { kind?: string; message?: string };
    if (status.kind === 'Status' && typeof status.message === 'string') return status.message;
  } catch {
    // not JSON
  }
  if (answer.status === 404) return 'the server could not find the requested resource';
  if (answer.status === 503) return 'the server is currently unable to handle the request';
  return `an error on the server ("${answer.body.trim()}") has prevented the request from succeeding`;
}

/** The custom metrics API's items for a path under .../v1beta2 (or v1beta1, as discovery would pick). */
async function customMetrics(get: AggregatedGet, path: string): Promise<Fetched<Obj[]> | undefined> {
  for (const version of ['v1beta2', 'v1beta1']) {
    const answer = await get('custom.metrics.k8s.io', version, `/apis/custom.metrics.k8s.io/${version}${path}`);
    if (answer === undefined) continue;
    if (answer.status < 200 || answer.status >= 300) return { ok: false, error: `unable to fetch metrics from custom metrics API: ${errorOf(answer)}` };
    return { ok: true, value: listItems(answer.body) };
  }
  return undefined;
}

function listItems(body: string): Obj[] {
  try {
    return ((JSON.parse(body) as { items?: unknown[] }).items ?? []).map(asObj);
  } catch {
    return [];
  }
}

const query = (params: Record<string, string>): string => {
  const parts = Object.entries(params).filter(([, v]) => v !== '');
  return parts.length === 0 ? '' : `?${parts.map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join('&')}`;
};

const quantityMilli = (value: unknown): bigint | undefined => {
  const q = parseQuantity(String(value ?? ''));
  return q.ok ? milliValue(q.nanos) : undefined;
};

/** metav1.LabelSelector's String() (gogo protobuf), which kube's messages print with %+v: "<nil>" for none. */
export function goLabelSelector(selector: unknown): string {
  if (!selector || typeof selector !== 'object') return '<nil>';
  const s = selector as { matchLabels?: Record<string, string>; matchExpressions?: { key?: string; operator?: string; values?: string[] }[] };
  const labels = Object.keys(s.matchLabels ?? {})
    .sort()
    .map((k) => `${k}: ${s.matchLabels![k]},`)
    .join('');
  const expressions = (s.matchExpressions ?? []).map((e) => `LabelSelectorRequirement{Key:${e.key ?? ''},Operator:${e.operator ?? ''},Values:[${(e.values ?? []).join(' ')}],},`).join('');
  return `&LabelSelector{MatchLabels:map[string]string{${labels}},MatchExpressions:[]LabelSelectorRequirement{${expressions}},}`;
}

/** getReadyPodsCount, then the proposal for a usage ratio (getUsageRatioReplicaCount). */
function usageRatioReplicas(ctx: CustomMetricContext, ratio: number): Fetched<number> {
  if (ctx.currentReplicas === 0) return { ok: true, value: Math.ceil(ratio) };
  if (Math.abs(1 - ratio) <= TOLERANCE) return { ok: true, value: ctx.currentReplicas };
  if (ctx.pods.length === 0) return { ok: false, error: 'unable to calculate ready pods: no pods returned by selector while calculating replica count' };
  const ready = ctx.pods.filter((p) => podReady(p)).length;
  return { ok: true, value: Math.ceil(ratio * ready) };
}

/** A per-pod target: the replica count of the usage over the target, unless within tolerance; the usage per pod. */
function perPodReplicas(ctx: CustomMetricContext, usage: bigint, target: bigint): { replicas: number; usage: bigint } {
  let replicas = ctx.statusReplicas;
  const ratio = Number(usage) / (Number(target) * replicas);
  if (Math.abs(1 - ratio) > TOLERANCE) replicas = Math.ceil(Number(usage) / Number(target));
  return { replicas, usage: BigInt(Math.ceil(Number(usage) / ctx.statusReplicas)) };
}

const failure = (reason: string, error: string, wrapped: string): MetricOutcome => ({ ok: false, failure: { reason, error, wrapped } satisfies MetricFailure });

/** A Pods metric: the pods' values from the custom metrics API, against an average value target. */
async function podsMetric(metric: Obj, ctx: CustomMetricContext): Promise<MetricOutcome | undefined> {
  const source = asObj(metric.pods);
  const m = asObj(source.metric);
  const name = String(m.name ?? '');
  const fail = (error: string) => failure('FailedGetPodsMetric', error, `failed to get pods metric value: ${error}`);
  const target = quantityMilli(asObj(source.target).averageValue);
  if (target === undefined) return fail('invalid pods metric source: neither a value target nor an average value target was set');
  const fetched = await customMetrics(ctx.get, `/namespaces/${ctx.namespace}/pods/*/${name}${query({ labelSelector: ctx.selector, metricLabelSelector: formatLabelSelector(m.selector) })}`);
  if (fetched === undefined) return undefined;
  const unable = (why: string) => fail(`unable to get metric ${name}: ${why}`);
  if (!fetched.ok) return unable(fetched.error);
  if (fetched.value.length === 0) return unable('no metrics returned from custom metrics API');
  const metrics = new Map<string, PodMetric>();
  for (const item of fetched.value) {
    const value = quantityMilli(item.value);
    if (value === undefined) continue;
    const timestamp = Date.parse(String(item.timestamp ?? '')) || 0;
    const windowMs = typeof item.windowSeconds === 'number' ? item.windowSeconds * 1000 : 60_000;
    metrics.set(String(asObj(item.describedObject).name ?? ''), { timestamp, windowMs, value });
  }
  const r = getPlainMetricReplicas({ currentReplicas: ctx.currentReplicas, pods: ctx.pods, now: ctx.now, resource: '' }, { metrics, timestamp: Date.parse(String(fetched.value[0]!.timestamp ?? '')) || 0 }, target);
  if (!r.ok) return fail(r.error);
  return {
    ok: true,
    replicas: r.replicas,
    metricName: `pods metric ${name}`,
    status: { type: 'Pods', pods: { metric: metricIdentifier(m), current: { averageValue: formatMilli(r.usage) } } },
    timestamp: r.timestamp,
  };
}

const metricIdentifier = (m: Obj): Obj => ({ name: m.name, ...(m.selector ? { selector: m.selector } : {}) });

/** An Object metric: one object's value from the custom metrics API, against a value or an average value target. */
async function objectMetric(metric: Obj, ctx: CustomMetricContext): Promise<MetricOutcome | undefined> {
  const source = asObj(metric.object);
  const m = asObj(source.metric);
  const name = String(m.name ?? '');
  const described = asObj(source.describedObject);
  const kind = String(described.kind ?? '');
  const objectName = String(described.name ?? '');
  const target = asObj(source.target);
  const fail = (error: string) => failure('FailedGetObjectMetric', error, `failed to get object metric value: ${error}`);
  const value = target.type === 'Value' ? quantityMilli(target.value) : undefined;
  const average = target.type === 'AverageValue' ? quantityMilli(target.averageValue) : undefined;
  if (value === undefined && average === undefined) return fail('invalid object metric source: neither a value target nor an average value target was set');
  const def = ctx.resourceFor(String(described.apiVersion ?? ''), kind);
  const resource = def ? (def.group ? `${def.resource}.${def.group}` : def.resource) : `${kind.toLowerCase()}s`;
  const selector = query({ metricLabelSelector: formatLabelSelector(m.selector) });
  const path = kind === 'Namespace' ? `/namespaces/${objectName}/metrics/${name}${selector}` : `/namespaces/${ctx.namespace}/${resource}/${objectName}/${name}${selector}`;
  const fetched = await customMetrics(ctx.get, path);
  if (fetched === undefined) return undefined;
  // What kube's fmt.Errorf("unable to get metric %s: %v on %s %s/%s", metricName, objectRef.Kind, namespace,
  // objectRef.Name, err) prints: its arguments fill the verbs in that order, so the error comes last.
  const unable = (why: string) => `unable to get metric ${name}: ${kind} on ${ctx.namespace} ${objectName}/${why}`;
  if (!fetched.ok) return fail(unable(fetched.error));
  const usage = fetched.value.length > 0 ? quantityMilli(fetched.value[0]!.value) : undefined;
  if (usage === undefined) return fail(unable('unable to fetch metrics from custom metrics API: no metrics returned from custom metrics API'));
  const timestamp = Date.parse(String(fetched.value[0]!.timestamp ?? '')) || 0;
  const status = (current: Obj): Obj => ({ type: 'Object', object: { metric: metricIdentifier(m), current, describedObject: described } });
  if (value !== undefined) {
    const r = usageRatioReplicas(ctx, Number(usage) / Number(value));
    if (!r.ok) return fail(r.error);
    return { ok: true, replicas: r.value, metricName: `${kind} metric ${name}`, status: status({ value: formatMilli(usage) }), timestamp };
  }
  const r = perPodReplicas(ctx, usage, average!);
  return { ok: true, replicas: r.replicas, metricName: `${kind} metric ${name}`, status: status({ averageValue: formatMilli(r.usage) }), timestamp };
}

/** An External metric: the sum of the external metrics API's values, against a value or an average value target. */
async function externalMetric(metric: Obj, ctx: CustomMetricContext): Promise<MetricOutcome | undefined> {
  const source = asObj(metric.external);
  const m = asObj(source.metric);
  const name = String(m.name ?? '');
  const target = asObj(source.target);
  const fail = (error: string) => failure('FailedGetExternalMetric', error, `failed to get ${name} external metric value: ${error}`);
  const value = target.value !== undefined ? quantityMilli(target.value) : undefined;
  const average = target.averageValue !== undefined ? quantityMilli(target.averageValue) : undefined;
  if (value === undefined && average === undefined) return fail('invalid external metric source: neither a value target nor an average value target was set');
  const answer = await ctx.get('external.metrics.k8s.io', 'v1beta1', `/apis/external.metrics.k8s.io/v1beta1/namespaces/${ctx.namespace}/${name}${query({ labelSelector: formatLabelSelector(m.selector) })}`);
  if (answer === undefined) return undefined;
  const unable = (why: string) => `unable to get external metric ${ctx.namespace}/${name}/${goLabelSelector(m.selector)}: ${why}`;
  if (answer.status < 200 || answer.status >= 300) return fail(unable(`unable to fetch metrics from external metrics API: ${errorOf(answer)}`));
  const items = listItems(answer.body);
  if (items.length === 0) return fail(unable('no metrics returned from external metrics API'));
  let usage = 0n;
  for (const item of items) usage += quantityMilli(item.value) ?? 0n;
  const timestamp = Date.parse(String(items[0]!.timestamp ?? '')) || 0;
  const metricName = `external metric ${name}(${goLabelSelector(m.selector)})`;
  const status = (current: Obj): Obj => ({ type: 'External', external: { metric: metricIdentifier(m), current } });
  if (average !== undefined) {
    const r = perPodReplicas(ctx, usage, average);
    return { ok: true, replicas: r.replicas, metricName, status: status({ averageValue: formatMilli(r.usage) }), timestamp };
  }
  const r = usageRatioReplicas(ctx, Number(usage) / Number(value!));
  if (!r.ok) return fail(r.error);
  return { ok: true, replicas: r.value, metricName, status: status({ value: formatMilli(usage) }), timestamp };
}

/** A Pods, Object or External metric from the aggregated APIs; undefined when no APIService serves its API. */
export function computeCustomMetric(metric: Obj, ctx: CustomMetricContext): Promise<MetricOutcome | undefined> {
  if (metric.type === 'Pods') return podsMetric(metric, ctx);
  if (metric.type === 'Object') return objectMetric(metric, ctx);
  if (metric.type === 'External') return externalMetric(metric, ctx);
  return Promise.resolve(undefined);
}
