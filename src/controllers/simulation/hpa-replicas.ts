// The arithmetic of kube-controller-manager's horizontal pod autoscaler (pkg/controller/podautoscaler, kube 1.31),
// apart from any server, for Resource and ContainerResource metrics:
// - what the resource metrics API gives per pod (metrics/client.go: the containers' usage summed, each as its
//   MilliValue; one container's for a ContainerResource metric), with its messages;
// - the replica calculator (replica_calculator.go GetResourceReplicas, GetRawResourceReplicas and groupPods;
//   metrics/utilization.go): the 0.1 tolerance, ignored, unready and missing pods, requests, and the rebalancing;
// - computeReplicasForMetrics (horizontal.go): the highest proposal, the statuses, the invalid metrics;
// - the normalization (horizontal.go): normalizeDesiredReplicas for an HPA without spec.behavior (stabilization over
//   the last 5 minutes of recommendations, a scale-up of at most max(2 x current, 4)), and
//   normalizeDesiredReplicasWithBehaviors otherwise (stabilization windows, policies over the recent scale events,
//   selectPolicy), with the AbleToScale and ScalingLimited conditions they lead to.
// Times are milliseconds on whatever clock the caller passes as `now`; milli-values are bigints (int64 in kube).

import { formatNanos } from '../../admission/plugins/resources.ts';
import { parseQuantity } from '../../registry/validation/quantity.ts';
import type { KubeObject } from '../../registry/types.ts';
import type { PodUsage } from './resource-usage.ts';
import { asObj, type Obj } from './shared.ts';

/** --horizontal-pod-autoscaler-tolerance. */
export const TOLERANCE = 0.1;
/** --horizontal-pod-autoscaler-cpu-initialization-period. */
export const CPU_INITIALIZATION_PERIOD_MS = 5 * 60_000;
/** --horizontal-pod-autoscaler-initial-readiness-delay. */
export const INITIAL_READINESS_DELAY_MS = 30_000;
/** --horizontal-pod-autoscaler-downscale-stabilization. */
export const DOWNSCALE_STABILIZATION_MS = 5 * 60_000;

/** A metric that could not be computed: the event and condition reason, its error, and the error the list gives. */
export interface MetricFailure {
  readonly reason: string;
  /** What the event and the ScalingActive condition say. */
  readonly error: string;
  /** What computeReplicasForMetric returns (the first one is quoted in FailedComputeMetricsReplicas). */
  readonly wrapped: string;
}

/** A calculation that failed, with kube's error text. */
export type Failed = { readonly ok: false; readonly error: string };
const failed = (error: string): Failed => ({ ok: false, error });

/** One pod's figure as the calculator sees it: a milli-value, when it was taken and the window it covers. */
export interface PodMetric {
  readonly timestamp: number;
  readonly windowMs: number;
  readonly value: bigint;
}

/** Quantity.MilliValue: rounded up. */
export function milliValue(nanos: bigint): bigint {
  return nanos >= 0n ? (nanos + 999_999n) / 1_000_000n : -(-nanos / 1_000_000n);
}

/** resource.NewMilliQuantity(milli, resource.DecimalSI).String(). */
export function formatMilli(milli: bigint): string {
  return formatNanos(milli * 1_000_000n, false);
}

function usageOf(container: PodUsage['containers'][number], resource: string): bigint | undefined {
  return resource === 'cpu' ? container.cpu : resource === 'memory' ? container.memory : undefined;
}

/**
 * The resource metrics client's GetResourceMetric for these pods (those the selector picks): the pods with figures
 * (running ones), each the sum of its containers' usage, or one container's. The API serves timestamps in whole
 * seconds (metav1.Time), so they are truncated here as the controller would read them.
 */
export function resourceMetrics(
  pods: readonly KubeObject[],
  usage: (pod: KubeObject) => PodUsage | undefined,
  resource: string,
  container: string,
): { ok: true; metrics: Map<string, PodMetric>; timestamp: number } | Failed {
  const items = pods.flatMap((pod) => {
    const u = usage(pod);
    return u ? [{ pod, u }] : [];
  });
  if (items.length === 0) return failed('no metrics returned from resource metrics API');
  const metrics = new Map<string, PodMetric>();
  for (const { pod, u } of items) {
    const name = pod.metadata.name ?? '';
    const at = { timestamp: Math.floor(u.timestamp.getTime() / 1000) * 1000, windowMs: u.windowMs };
    if (container !== '') {
      const c = u.containers.find((x) => x.name === container);
      if (!c) return failed(`failed to get container metrics: container ${container} not present in metrics for pod ${pod.metadata.namespace ?? ''}/${name}`);
      const value = usageOf(c, resource);
      if (value !== undefined) metrics.set(name, { ...at, value: milliValue(value) });
      continue;
    }
    // A pod without containers, or one whose container lacks the resource, is left out (a missing pod).
    let sum = 0n;
    let missing = u.containers.length === 0;
    for (const c of u.containers) {
      const value = usageOf(c, resource);
      if (value === undefined) {
        missing = true;
        break;
      }
      sum += milliValue(value);
    }
    if (!missing) metrics.set(name, { ...at, value: sum });
  }
  return { ok: true, metrics, timestamp: Math.floor(items[0]!.u.timestamp.getTime() / 1000) * 1000 };
}

/** A time from the API; an absent one is Go's zero time, before everything. */
function timeOf(value: unknown): number {
  const t = typeof value === 'string' ? Date.parse(value) : NaN;
  return Number.isNaN(t) ? -Infinity : t;
}

interface PodGroups {
  readyPodCount: number;
  unready: Set<string>;
  missing: Set<string>;
  ignored: Set<string>;
}

/** groupPods. */
function groupPods(pods: readonly KubeObject[], metrics: ReadonlyMap<string, PodMetric>, resource: string, now: number): PodGroups {
  const groups: PodGroups = { readyPodCount: 0, unready: new Set(), missing: new Set(), ignored: new Set() };
  for (const pod of pods) {
    const name = pod.metadata.name ?? '';
    const status = asObj(pod.status);
    if (pod.metadata.deletionTimestamp || status.phase === 'Failed') {
      groups.ignored.add(name);
      continue;
    }
    if (status.phase === 'Pending') {
      groups.unready.add(name);
      continue;
    }
    const metric = metrics.get(name);
    if (!metric) {
      groups.missing.add(name);
      continue;
    }
    if (resource === 'cpu') {
      const ready = ((status.conditions as unknown[] | undefined) ?? []).map(asObj).find((c) => c.type === 'Ready');
      let unready: boolean;
      if (!ready || status.startTime === undefined || status.startTime === null) {
        unready = true;
      } else {
        const started = timeOf(status.startTime);
        const transition = timeOf(ready.lastTransitionTime);
        if (started + CPU_INITIALIZATION_PERIOD_MS > now) {
          // Still initializing: unready, or not a whole metric window since its last readiness change.
          unready = ready.status === 'False' || metric.timestamp < transition + metric.windowMs;
        } else {
          // Unready and never ready since it started.
          unready = ready.status === 'False' && started + INITIAL_READINESS_DELAY_MS > transition;
        }
      }
      if (unready) {
        groups.unready.add(name);
        continue;
      }
    }
    groups.readyPodCount++;
  }
  return groups;
}

function containersOf(pod: KubeObject): Obj[] {
  const spec = asObj(pod.spec);
  const sidecars = ((spec.initContainers as unknown[] | undefined) ?? []).map(asObj).filter((c) => c.restartPolicy === 'Always');
  return [...((spec.containers as unknown[] | undefined) ?? []).map(asObj), ...sidecars];
}

/** calculatePodRequests: each pod's requests (regular and restartable init containers, or the one container), in milli. */
function podRequests(pods: readonly KubeObject[], container: string, resource: string): { ok: true; requests: Map<string, bigint> } | Failed {
  const requests = new Map<string, bigint>();
  for (const pod of pods) {
    let sum = 0n;
    for (const c of containersOf(pod)) {
      if (container !== '' && c.name !== container) continue;
      const request = asObj(asObj(c.resources).requests)[resource];
      const q = request === undefined || request === null ? undefined : parseQuantity(String(request));
      if (!q?.ok) return failed(`missing request for ${resource} in container ${String(c.name ?? '')} of Pod ${pod.metadata.name ?? ''}`);
      sum += milliValue(q.nanos);
    }
    requests.set(pod.metadata.name ?? '', sum);
  }
  return { ok: true, requests };
}

/** GetResourceUtilizationRatio. */
function utilizationRatio(
  metrics: ReadonlyMap<string, bigint>,
  requests: ReadonlyMap<string, bigint>,
  target: number,
): { ok: true; ratio: number; utilization: number; rawAverage: bigint } | Failed {
  let metricsTotal = 0n;
  let requestsTotal = 0n;
  let entries = 0n;
  for (const [name, value] of metrics) {
    const request = requests.get(name);
    // Missing requests are checked elsewhere: such a metric is extraneous.
    if (request === undefined) continue;
    metricsTotal += value;
    requestsTotal += request;
    entries++;
  }
  if (requestsTotal === 0n) return failed('no metrics returned matched known pods');
  const utilization = Number((metricsTotal * 100n) / requestsTotal);
  return { ok: true, ratio: utilization / target, utilization, rawAverage: metricsTotal / entries };
}

/** GetMetricUsageRatio. */
function usageRatio(metrics: ReadonlyMap<string, bigint>, target: bigint): { ratio: number; usage: bigint } {
  let total = 0n;
  for (const value of metrics.values()) total += value;
  const usage = total / BigInt(metrics.size);
  return { ratio: Number(usage) / Number(target), usage };
}

/** What a Resource or ContainerResource metric is computed from. */
export interface ResourceMetricInput {
  /** The target's scale spec.replicas. */
  readonly currentReplicas: number;
  readonly resource: string;
  /** '' for a Resource metric (the whole pod); the container of a ContainerResource metric. */
  readonly container: string;
  /** The pods the target's scale selector picks in the HPA's namespace. */
  readonly pods: readonly KubeObject[];
  /** What the resource metrics API reports for a pod, undefined for none. */
  readonly usage: (pod: KubeObject) => PodUsage | undefined;
  /** The controller's clock, ms. */
  readonly now: number;
}

/** The samples both calculations start from: the fetched metrics less those of ignored and unready pods. */
function samples(input: ResourceMetricInput): { ok: true; metrics: Map<string, bigint>; groups: PodGroups; timestamp: number } | Failed {
  const fetched = resourceMetrics(input.pods, input.usage, input.resource, input.container);
  if (!fetched.ok) return failed(`unable to get metrics for resource ${input.resource}: ${fetched.error}`);
  return samplesOf(input, fetched);
}

/** What the plain-metric calculation needs besides the figures: the pods, their resource ('' for a custom metric). */
export type PlainMetricInput = Pick<ResourceMetricInput, 'currentReplicas' | 'pods' | 'resource' | 'now'>;

function samplesOf(input: PlainMetricInput, fetched: { metrics: ReadonlyMap<string, PodMetric>; timestamp: number }): { ok: true; metrics: Map<string, bigint>; groups: PodGroups; timestamp: number } | Failed {
  if (input.pods.length === 0) return failed('no pods returned by selector while calculating replica count');
  const groups = groupPods(input.pods, fetched.metrics, input.resource, input.now);
  const metrics = new Map<string, bigint>();
  for (const [name, m] of fetched.metrics) if (!groups.ignored.has(name) && !groups.unready.has(name)) metrics.set(name, m.value);
  if (metrics.size === 0) return failed('did not receive metrics for targeted pods (pods might be unready)');
  return { ok: true, metrics, groups, timestamp: fetched.timestamp };
}

const withinTolerance = (ratio: number): boolean => Math.abs(1 - ratio) <= TOLERANCE;
/** The re-run ratio would scale the other way (or not far enough): keep the current count. */
const flips = (ratio: number, newRatio: number): boolean => withinTolerance(newRatio) || (ratio < 1 && newRatio > 1) || (ratio > 1 && newRatio < 1);

/** ReplicaCalculator.GetResourceReplicas: replicas for a target utilization (percent of the requests). */
export function getResourceReplicas(
  input: ResourceMetricInput,
  targetUtilization: number,
): { ok: true; replicas: number; utilization: number; rawUtilization: bigint; timestamp: number } | Failed {
  const s = samples(input);
  if (!s.ok) return s;
  const { metrics, groups, timestamp } = s;
  const req = podRequests(input.pods, input.container, input.resource);
  if (!req.ok) return req;
  const first = utilizationRatio(metrics, req.requests, targetUtilization);
  if (!first.ok) return first;
  const { ratio, utilization, rawAverage: rawUtilization } = first;
  const done = (replicas: number) => ({ ok: true as const, replicas, utilization, rawUtilization, timestamp });

  const scaleUpWithUnready = groups.unready.size > 0 && ratio > 1;
  if (!scaleUpWithUnready && groups.missing.size === 0) {
    if (withinTolerance(ratio)) return done(input.currentReplicas);
    return done(Math.ceil(ratio * groups.readyPodCount));
  }
  if (groups.missing.size > 0) {
    // On a scale-down a missing pod counts as using its request (or the target, above 100%); on a scale-up nothing.
    const fallback = BigInt(Math.max(100, targetUtilization));
    for (const name of groups.missing) {
      if (ratio < 1) metrics.set(name, ((req.requests.get(name) ?? 0n) * fallback) / 100n);
      else if (ratio > 1) metrics.set(name, 0n);
    }
  }
  if (scaleUpWithUnready) for (const name of groups.unready) metrics.set(name, 0n);

  const rerun = utilizationRatio(metrics, req.requests, targetUtilization);
  if (!rerun.ok) return rerun;
  if (flips(ratio, rerun.ratio)) return done(input.currentReplicas);
  const replicas = Math.ceil(rerun.ratio * metrics.size);
  if ((rerun.ratio < 1 && replicas > input.currentReplicas) || (rerun.ratio > 1 && replicas < input.currentReplicas)) return done(input.currentReplicas);
  return done(replicas);
}

/** ReplicaCalculator.GetRawResourceReplicas: replicas for a target average value (milli) of a resource. */
export function getRawResourceReplicas(input: ResourceMetricInput, targetUsage: bigint): { ok: true; replicas: number; usage: bigint; timestamp: number } | Failed {
  const fetched = resourceMetrics(input.pods, input.usage, input.resource, input.container);
  if (!fetched.ok) return failed(`unable to get metrics for resource ${input.resource}: ${fetched.error}`);
  return getPlainMetricReplicas(input, fetched, targetUsage);
}

/** calcPlainMetricReplicas: replicas for a target average value (milli) of the pods' figures. */
export function getPlainMetricReplicas(input: PlainMetricInput, fetched: { metrics: ReadonlyMap<string, PodMetric>; timestamp: number }, targetUsage: bigint): { ok: true; replicas: number; usage: bigint; timestamp: number } | Failed {
  const s = samplesOf(input, fetched);
  if (!s.ok) return s;
  const { metrics, groups, timestamp } = s;
  const { ratio, usage } = usageRatio(metrics, targetUsage);
  const done = (replicas: number) => ({ ok: true as const, replicas, usage, timestamp });

  const scaleUpWithUnready = groups.unready.size > 0 && ratio > 1;
  if (!scaleUpWithUnready && groups.missing.size === 0) {
    if (withinTolerance(ratio)) return done(input.currentReplicas);
    return done(Math.ceil(ratio * groups.readyPodCount));
  }
  if (groups.missing.size > 0) {
    for (const name of groups.missing) {
      if (ratio < 1) metrics.set(name, targetUsage);
      else if (ratio > 1) metrics.set(name, 0n);
    }
  }
  if (scaleUpWithUnready) for (const name of groups.unready) metrics.set(name, 0n);

  const rerun = usageRatio(metrics, targetUsage);
  if (flips(ratio, rerun.ratio)) return done(input.currentReplicas);
  const replicas = Math.ceil(rerun.ratio * metrics.size);
  if ((rerun.ratio < 1 && replicas > input.currentReplicas) || (rerun.ratio > 1 && replicas < input.currentReplicas)) return done(input.currentReplicas);
  return done(replicas);
}

/** One metric's outcome: a proposal with its name and status, or its failure. */
export type MetricOutcome =
  | { readonly ok: true; readonly replicas: number; readonly metricName: string; readonly status: Obj; readonly timestamp: number }
  | { readonly ok: false; readonly failure: MetricFailure };

/** What computing a Resource or ContainerResource metric needs besides its spec. */
export type MetricContext = Omit<ResourceMetricInput, 'resource' | 'container'>;

/**
 * computeStatusForResourceMetric and computeStatusForContainerResourceMetric (through
 * computeStatusForResourceMetricGeneric): the proposal, its metric name and MetricStatus, or the failure.
 */
export function computeResourceMetric(metric: Obj, ctx: MetricContext): MetricOutcome {
  const container = metric.type === 'ContainerResource';
  const source = asObj(container ? metric.containerResource : metric.resource);
  const name = String(source.name ?? '');
  const containerName = container ? String(source.container ?? '') : '';
  const target = asObj(source.target);
  const fail = (error: string): MetricOutcome => ({
    ok: false,
    failure: container
      ? { reason: 'FailedGetContainerResourceMetric', error, wrapped: `failed to get ${containerName} container metric value: ${error}` }
      : { reason: 'FailedGetResourceMetric', error, wrapped: `failed to get ${name} resource metric value: ${error}` },
  });
  const status = (current: Obj): Obj =>
    container
      ? { type: 'ContainerResource', containerResource: { name, container: containerName, current } }
      : { type: 'Resource', resource: { name, current } };
  const input: ResourceMetricInput = { ...ctx, resource: name, container: containerName };

  if (target.averageValue !== undefined && target.averageValue !== null) {
    const q = parseQuantity(String(target.averageValue));
    if (!q.ok) return fail(`failed to get ${name} usage: ${q.error}`);
    const r = getRawResourceReplicas(input, milliValue(q.nanos));
    if (!r.ok) return fail(`failed to get ${name} usage: ${r.error}`);
    return { ok: true, replicas: r.replicas, metricName: `${name} resource`, status: status({ averageValue: formatMilli(r.usage) }), timestamp: r.timestamp };
  }
  if (typeof target.averageUtilization !== 'number') {
    return fail('invalid resource metric source: neither an average utilization target nor an average value (usage) target was set');
  }
  const r = getResourceReplicas(input, target.averageUtilization);
  if (!r.ok) return fail(`failed to get ${name} utilization: ${r.error}`);
  return {
    ok: true,
    replicas: r.replicas,
    metricName: container ? `${name} container resource utilization (percentage of request)` : `${name} resource utilization (percentage of request)`,
    status: status({ averageValue: formatMilli(r.rawUtilization), averageUtilization: r.utilization }),
    timestamp: r.timestamp,
  };
}

export interface MetricsOutcome {
  /** The highest proposal; -1 when the HPA cannot act on them (all failed, or some failed and the rest scale down). */
  readonly replicas: number;
  /** The metric the proposal came from. */
  readonly metricName: string;
  readonly timestamp: number;
  /** currentMetrics: a failed metric's status stays empty (`{type: ""}`), as kube writes it. */
  readonly statuses: Obj[];
  /** The failed metrics, in order (each was an event). */
  readonly failures: MetricFailure[];
  /** "invalid metrics (n invalid out of m), first error is: ...", when any failed. */
  readonly error?: string;
}

/** computeReplicasForMetrics over each metric's outcome (in spec order), with the target's spec.replicas. */
export function combineMetrics(outcomes: readonly MetricOutcome[], specReplicas: number): MetricsOutcome {
  let replicas = 0;
  let metricName = '';
  let timestamp = 0;
  const failures: MetricFailure[] = [];
  const statuses = outcomes.map((o) => (o.ok ? o.status : { type: '' }));
  for (const o of outcomes) {
    if (!o.ok) {
      failures.push(o.failure);
      continue;
    }
    if (replicas === 0 || o.replicas > replicas) [replicas, metricName, timestamp] = [o.replicas, o.metricName, o.timestamp];
  }
  const error = failures.length > 0 ? `invalid metrics (${failures.length} invalid out of ${outcomes.length}), first error is: ${failures[0]!.wrapped}` : undefined;
  if (failures.length >= outcomes.length || (failures.length > 0 && replicas < specReplicas)) return { replicas: -1, metricName: '', timestamp: 0, statuses, failures, error };
  return { replicas, metricName, timestamp, statuses, failures, error };
}

// ---- normalization ----

export interface ScalingPolicy {
  readonly type: string;
  readonly value: number;
  readonly periodSeconds: number;
}

export interface ScalingRules {
  readonly stabilizationWindowSeconds: number;
  /** Max, Min or Disabled. */
  readonly selectPolicy: string;
  readonly policies: readonly ScalingPolicy[];
}

export interface Behavior {
  readonly scaleUp: ScalingRules;
  readonly scaleDown: ScalingRules;
}

function rules(given: unknown, defaults: ScalingRules): ScalingRules {
  const r = asObj(given);
  return {
    stabilizationWindowSeconds: typeof r.stabilizationWindowSeconds === 'number' ? r.stabilizationWindowSeconds : defaults.stabilizationWindowSeconds,
    selectPolicy: typeof r.selectPolicy === 'string' ? r.selectPolicy : defaults.selectPolicy,
    policies: Array.isArray(r.policies)
      ? r.policies.map(asObj).map((p) => ({ type: String(p.type ?? ''), value: Number(p.value ?? 0), periodSeconds: Number(p.periodSeconds ?? 0) }))
      : defaults.policies,
  };
}

/**
 * spec.behavior as the controller uses it: undefined when the HPA has none (kube then normalizes the legacy way),
 * else completed as the API server defaults it (GenerateHPAScaleUpRules / GenerateHPAScaleDownRules), with the
 * scale-down stabilization window at the controller's 300 s when unset (maybeInitScaleDownStabilizationWindow).
 */
export function behaviorOf(behavior: unknown): Behavior | undefined {
  if (behavior === undefined || behavior === null) return undefined;
  const b = asObj(behavior);
  return {
    scaleUp: rules(b.scaleUp, {
      stabilizationWindowSeconds: 0,
      selectPolicy: 'Max',
      policies: [
        { type: 'Pods', value: 4, periodSeconds: 15 },
        { type: 'Percent', value: 100, periodSeconds: 15 },
      ],
    }),
    scaleDown: rules(b.scaleDown, {
      stabilizationWindowSeconds: DOWNSCALE_STABILIZATION_MS / 1000,
      selectPolicy: 'Max',
      policies: [{ type: 'Percent', value: 100, periodSeconds: 15 }],
    }),
  };
}

export interface Recommendation {
  readonly replicas: number;
  readonly at: number;
}

export interface ScaleEvent {
  /** How many replicas were added (or removed), never negative. */
  readonly change: number;
  readonly at: number;
  outdated: boolean;
}

/** What the controller remembers of one HPA between passes (dropped when the HPA goes). */
export interface AutoscalerHistory {
  /** The unstabilized recommendations (the oldest reused in place once out of every window). */
  readonly recommendations: Recommendation[];
  readonly scaleUpEvents: ScaleEvent[];
  readonly scaleDownEvents: ScaleEvent[];
}

export function newHistory(): AutoscalerHistory {
  return { recommendations: [], scaleUpEvents: [], scaleDownEvents: [] };
}

/** recordInitialRecommendation: the first pass records the current size as a recommendation. */
export function recordInitialRecommendation(history: AutoscalerHistory, currentReplicas: number, now: number): void {
  if (history.recommendations.length === 0) history.recommendations.push({ replicas: currentReplicas, at: now });
}

export interface NormalizationArgs {
  readonly behavior: Behavior | undefined;
  readonly currentReplicas: number;
  /** What the metrics propose. */
  readonly desiredReplicas: number;
  readonly minReplicas: number;
  readonly maxReplicas: number;
  readonly now: number;
}

export interface Normalization {
  readonly replicas: number;
  /** The AbleToScale condition (status True). */
  readonly ableToScale: { readonly reason: string; readonly message: string };
  /** The ScalingLimited condition. */
  readonly scalingLimited: { readonly status: 'True' | 'False'; readonly reason: string; readonly message: string };
}

const READY_FOR_NEW_SCALE = { reason: 'ReadyForNewScale', message: 'recommended size matches current size' };
const SCALE_DOWN_STABILIZED = { reason: 'ScaleDownStabilized', message: 'recent recommendations were higher than current one, applying the highest recent recommendation' };
const SCALE_UP_STABILIZED = { reason: 'ScaleUpStabilized', message: 'recent recommendations were lower than current one, applying the lowest recent recommendation' };
const WITHIN_RANGE = { reason: 'DesiredWithinRange', message: 'the desired count is within the acceptable range' };
const TOO_FEW = { reason: 'TooFewReplicas', message: 'the desired replica count is less than the minimum replica count' };
const TOO_MANY = { reason: 'TooManyReplicas', message: 'the desired replica count is more than the maximum replica count' };
const SCALE_UP_LIMIT = { reason: 'ScaleUpLimit', message: 'the desired replica count is increasing faster than the maximum scale rate' };
const SCALE_DOWN_LIMIT = { reason: 'ScaleDownLimit', message: 'the desired replica count is decreasing faster than the maximum scale rate' };

/** Records the recommendation in place of the old sample, if any, else at the end. */
function record(history: AutoscalerHistory, oldIndex: number, replicas: number, now: number): void {
  if (oldIndex >= 0) history.recommendations[oldIndex] = { replicas, at: now };
  else history.recommendations.push({ replicas, at: now });
}

/** normalizeDesiredReplicas (no spec.behavior) or normalizeDesiredReplicasWithBehaviors; records the recommendation. */
export function normalizeDesiredReplicas(history: AutoscalerHistory, args: NormalizationArgs): Normalization {
  const { stabilized, able } = args.behavior ? stabilizeWithBehaviors(history, args, args.behavior) : stabilize(history, args);
  const limited = args.behavior ? limitWithBehaviors(history, args, args.behavior, stabilized) : limitWithRules(args, stabilized);
  return {
    replicas: limited.replicas,
    ableToScale: stabilized !== args.desiredReplicas ? able : READY_FOR_NEW_SCALE,
    scalingLimited: { status: limited.replicas === stabilized ? 'False' : 'True', reason: limited.reason, message: limited.message },
  };
}

/** stabilizeRecommendation: the highest recommendation of the last 5 minutes. */
function stabilize(history: AutoscalerHistory, args: NormalizationArgs): { stabilized: number; able: typeof SCALE_DOWN_STABILIZED } {
  const cutoff = args.now - DOWNSCALE_STABILIZATION_MS;
  let stabilized = args.desiredReplicas;
  let oldIndex = -1;
  history.recommendations.forEach((rec, i) => {
    if (rec.at < cutoff) oldIndex = i;
    else if (rec.replicas > stabilized) stabilized = rec.replicas;
  });
  record(history, oldIndex, args.desiredReplicas, args.now);
  return { stabilized, able: SCALE_DOWN_STABILIZED };
}

/** convertDesiredReplicasWithRules: within [min, max], and no more than max(2 x current, 4). */
function limitWithRules(args: NormalizationArgs, desired: number): { replicas: number; reason: string; message: string } {
  const scaleUpLimit = Math.trunc(Math.max(2 * args.currentReplicas, 4));
  const [maximum, limit] = args.maxReplicas > scaleUpLimit ? [scaleUpLimit, SCALE_UP_LIMIT] : [args.maxReplicas, TOO_MANY];
  if (desired < args.minReplicas) return { replicas: args.minReplicas, ...TOO_FEW };
  if (desired > maximum) return { replicas: maximum, ...limit };
  return { replicas: desired, ...WITHIN_RANGE };
}

/** stabilizeRecommendationWithBehaviors: the current size brought within the lowest and highest recent recommendations. */
function stabilizeWithBehaviors(history: AutoscalerHistory, args: NormalizationArgs, behavior: Behavior): { stabilized: number; able: typeof SCALE_UP_STABILIZED } {
  const upCutoff = args.now - behavior.scaleUp.stabilizationWindowSeconds * 1000;
  const downCutoff = args.now - behavior.scaleDown.stabilizationWindowSeconds * 1000;
  let up = args.desiredReplicas;
  let down = args.desiredReplicas;
  let oldIndex = -1;
  history.recommendations.forEach((rec, i) => {
    if (rec.at > upCutoff) up = Math.min(rec.replicas, up);
    if (rec.at > downCutoff) down = Math.max(rec.replicas, down);
    if (rec.at < upCutoff && rec.at < downCutoff) oldIndex = i;
  });
  let stabilized = args.currentReplicas;
  if (stabilized < up) stabilized = up;
  if (stabilized > down) stabilized = down;
  record(history, oldIndex, args.desiredReplicas, args.now);
  return { stabilized, able: args.desiredReplicas >= args.currentReplicas ? SCALE_UP_STABILIZED : SCALE_DOWN_STABILIZED };
}

/** getReplicasChangePerPeriod: the replicas changed by the events of the last periodSeconds. */
function changeInPeriod(periodSeconds: number, events: readonly ScaleEvent[], now: number): number {
  const cutoff = now - periodSeconds * 1000;
  return events.reduce((sum, e) => (e.at > cutoff ? sum + e.change : sum), 0);
}

const INT32_MAX = 2 ** 31 - 1;
const INT32_MIN = -(2 ** 31);

/** calculateScaleUpLimitWithScalingRules. */
function scaleUpLimit(current: number, history: AutoscalerHistory, rules: ScalingRules, now: number): number {
  if (rules.selectPolicy === 'Disabled') return current;
  const useMin = rules.selectPolicy === 'Min';
  let result = useMin ? INT32_MAX : INT32_MIN;
  for (const policy of rules.policies) {
    const start = current - changeInPeriod(policy.periodSeconds, history.scaleUpEvents, now) + changeInPeriod(policy.periodSeconds, history.scaleDownEvents, now);
    let proposed = 0;
    if (policy.type === 'Pods') proposed = start + policy.value;
    else if (policy.type === 'Percent') proposed = Math.ceil(start * (1 + policy.value / 100));
    result = useMin ? Math.min(result, proposed) : Math.max(result, proposed);
  }
  return result;
}

/** calculateScaleDownLimitWithBehaviors. */
function scaleDownLimit(current: number, history: AutoscalerHistory, rules: ScalingRules, now: number): number {
  if (rules.selectPolicy === 'Disabled') return current;
  const useMin = rules.selectPolicy === 'Min';
  let result = useMin ? INT32_MIN : INT32_MAX;
  for (const policy of rules.policies) {
    const start = current - changeInPeriod(policy.periodSeconds, history.scaleUpEvents, now) + changeInPeriod(policy.periodSeconds, history.scaleDownEvents, now);
    let proposed = 0;
    if (policy.type === 'Pods') proposed = start - policy.value;
    else if (policy.type === 'Percent') proposed = Math.trunc(start * (1 - policy.value / 100));
    // The smallest change of a scale-down is the highest count.
    result = useMin ? Math.max(result, proposed) : Math.min(result, proposed);
  }
  return result;
}

/** convertDesiredReplicasWithBehaviorRate. */
function limitWithBehaviors(history: AutoscalerHistory, args: NormalizationArgs, behavior: Behavior, desired: number): { replicas: number; reason: string; message: string } {
  const current = args.currentReplicas;
  if (desired > current) {
    const limit = Math.max(scaleUpLimit(current, history, behavior.scaleUp, args.now), current);
    const [maximum, why] = args.maxReplicas > limit ? [limit, SCALE_UP_LIMIT] : [args.maxReplicas, TOO_MANY];
    if (desired > maximum) return { replicas: maximum, ...why };
  } else if (desired < current) {
    const limit = Math.min(scaleDownLimit(current, history, behavior.scaleDown, args.now), current);
    const [minimum, why] = args.minReplicas < limit ? [limit, SCALE_DOWN_LIMIT] : [args.minReplicas, TOO_FEW];
    if (desired < minimum) return { replicas: minimum, ...why };
  }
  return { replicas: desired, ...WITHIN_RANGE };
}

function longestPeriod(rules: ScalingRules): number {
  return rules.policies.reduce((longest, p) => Math.max(longest, p.periodSeconds), 0);
}

/** storeScaleEvent: a rescale remembered for the policies (only with spec.behavior), reusing an outdated slot. */
export function storeScaleEvent(history: AutoscalerHistory, behavior: Behavior | undefined, prevReplicas: number, newReplicas: number, now: number): void {
  if (!behavior) return;
  const up = newReplicas > prevReplicas;
  const events = up ? history.scaleUpEvents : history.scaleDownEvents;
  const cutoff = now - longestPeriod(up ? behavior.scaleUp : behavior.scaleDown) * 1000;
  let oldIndex = -1;
  events.forEach((e, i) => {
    if (e.at < cutoff) e.outdated = true;
    if (e.outdated) oldIndex = i;
  });
  const event: ScaleEvent = { change: up ? newReplicas - prevReplicas : prevReplicas - newReplicas, at: now, outdated: false };
  if (oldIndex >= 0) events[oldIndex] = event;
  else events.push(event);
}
