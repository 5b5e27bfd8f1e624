// kube-controller-manager's horizontal pod autoscaler (pkg/controller/podautoscaler, kube 1.31). Every 15 s (and when
// the HPA changes, the server clock moves, or the simulated usage figures change) it reads its target's scale
// subresource (AbleToScale: SucceededGetScale, or FailedGetScale with the error); a target outside [minReplicas,
// maxReplicas] is scaled back into it (SuccessfulRescale "New size: 3; reason: Current number of replicas below
// Spec.MinReplicas", AbleToScale SucceededRescale); a target at zero with a minReplicas above zero is left alone
// (ScalingActive False ScalingDisabled). Otherwise the metrics decide:
// - without a metrics API (no ResourceUsage given), as a kind cluster without metrics-server: every metric fails to
//   be fetched, with kube's events (FailedGetResourceMetric..., FailedComputeMetricsReplicas) and ScalingActive
//   False, and the target keeps its size; `kubectl get hpa` then shows `cpu: <unknown>/80%`;
// - with one (a simulated metrics-server), Resource and ContainerResource metrics are computed from the pods the
//   scale's selector picks (hpa-replicas.ts); Pods, Object and External metrics come from the custom and external
//   metrics APIs an APIService registers (hpa-custom-metrics.ts), and fail as on a cluster without an adapter when
//   none does; the proposal is normalized (stabilization, scaling policies) before the target is rescaled.
// Before the metrics, the scale's selector must pick pods no other HPA of the namespace picks (as far as this
// controller has seen the others' selectors): else ScalingActive False AmbiguousSelector, with its event.
// The recommendations and scale events each HPA's normalization reads are kept here, per HPA, until it is deleted.

import { clockDate, clockNow, onClockChange } from '../../apis/clock.ts';
import { isStatusError } from '../../apis/errors.ts';
import { LabelSelectorError, labelSelectorString, labelsMatch, parseLabelSelector, type LabelSelector } from '../../apis/labels.ts';
import type { UserInfo } from '../../auth/user.ts';
import { computeCustomMetric, type AggregatedGet, type CustomMetricContext } from './hpa-custom-metrics.ts';
import { jsonEqual, rfc3339 } from '../../registry/store-codec.ts';
import type { KubeObject, ResourceDefinition } from '../../registry/types.ts';
import type { EventRecorder, EventSink } from '../events.ts';
import type { Informers, ResourceRef } from '../informers.ts';
import { createKeyedQueue } from '../work-queue.ts';
import {
  behaviorOf,
  combineMetrics,
  computeResourceMetric,
  newHistory,
  normalizeDesiredReplicas,
  recordInitialRecommendation,
  storeScaleEvent,
  type AutoscalerHistory,
  type MetricContext,
  type MetricFailure,
  type MetricOutcome,
} from './hpa-replicas.ts';
import type { ResourceUsage } from './resource-usage.ts';
import { asObj, controllerAccount, controllerEvents, key, PODS, splitKey, type Obj } from './shared.ts';

const HPAS: ResourceRef = { group: 'autoscaling', version: 'v2', resource: 'horizontalpodautoscalers' };
const SYNC_PERIOD_MS = 15_000;
const NO_METRICS_API = 'the server could not find the requested resource';

/** What fetching the metric says when no metrics API is served (kube's replica calculator and metrics clients). */
export function metricFailure(metric: Obj): MetricFailure {
  const resourceError = (name: string, target: Obj) => {
    const fetch = `unable to get metrics for resource ${name}: unable to fetch metrics from resource metrics API: ${NO_METRICS_API} (get pods.metrics.k8s.io)`;
    if (target.averageValue !== undefined) return `failed to get ${name} usage: ${fetch}`;
    if (target.averageUtilization === undefined) return 'invalid resource metric source: neither an average utilization target nor an average value (usage) target was set';
    return `failed to get ${name} utilization: ${fetch}`;
  };
  switch (metric.type) {
    case 'Resource': {
      const r = asObj(metric.resource);
      const error = resourceError(String(r.name), asObj(r.target));
      return { reason: 'FailedGetResourceMetric', error, wrapped: `failed to get ${String(r.name)} resource metric value: ${error}` };
    }
    case 'ContainerResource': {
      const r = asObj(metric.containerResource);
      const error = resourceError(String(r.name), asObj(r.target));
      return { reason: 'FailedGetContainerResourceMetric', error, wrapped: `failed to get ${String(r.container)} container metric value: ${error}` };
    }
    case 'Pods': {
      const name = String(asObj(asObj(metric.pods).metric).name);
      const error = `unable to get metric ${name}: unable to fetch metrics from custom metrics API: no custom metrics API (custom.metrics.k8s.io) registered`;
      return { reason: 'FailedGetPodsMetric', error, wrapped: `failed to get pods metric value: ${error}` };
    }
    case 'Object': {
      const o = asObj(metric.object);
      const name = String(asObj(o.metric).name);
      const error = `unable to get metric ${name}: unable to fetch metrics from custom metrics API: no custom metrics API (custom.metrics.k8s.io) registered`;
      return { reason: 'FailedGetObjectMetric', error, wrapped: `failed to get object metric value: ${error}` };
    }
    case 'External': {
      const name = String(asObj(asObj(metric.external).metric).name);
      const error = `unable to get external metric ${name}: unable to fetch metrics from external metrics API: ${NO_METRICS_API} (get ${name}.external.metrics.k8s.io)`;
      return { reason: 'FailedGetExternalMetric', error, wrapped: `failed to get ${name} external metric value: ${error}` };
    }
    default: {
      const error = `unknown metric source type "${String(metric.type ?? '')}"`;
      return { reason: 'InvalidMetricSourceType', error, wrapped: error };
    }
  }
}

/** setConditionInList: the condition updated in place (added at the end), its lastTransitionTime moved when its status does. */
function setCondition(conditions: Obj[], type: string, status: string, reason: string, message: string): void {
  let c = conditions.find((x) => x.type === type);
  if (!c) conditions.push((c = { type }));
  if (c.status !== status) c.lastTransitionTime = rfc3339(clockDate());
  Object.assign(c, { status, reason, message });
}

/** The scalable definition a scaleTargetRef names (kube's RESTMapper by group and kind), or kube's mapping error. */
function targetDefinition(all: readonly ResourceDefinition[], apiVersion: string, kind: string): ResourceDefinition | string {
  const parts = apiVersion.split('/');
  if (parts.length > 2) return `unexpected GroupVersion string: ${apiVersion}`;
  const [group, version] = parts.length === 2 ? [parts[0]!, parts[1]!] : ['', parts[0]!];
  const matches = all.filter((d) => d.group === group && d.kind === kind);
  if (matches.length === 0) return `no matches for kind "${kind}" in group "${group}"`;
  return matches.find((d) => d.version === version) ?? matches[0]!;
}

/** A GET of an aggregated API as a user (the aggregation layer's, for the in-process controllers). */
export type AggregatedApiGet = (group: string, version: string, path: string, user: UserInfo) => Promise<{ status: number; body: string } | undefined>;

/**
 * Resource and ContainerResource metrics from the resource metrics API, the others from the custom and external
 * metrics APIs an APIService serves; each fails as kube's clients do when its API is not there.
 */
async function computeMetric(metric: Obj, ctx: MetricContext | undefined, custom: CustomMetricContext | undefined): Promise<MetricOutcome> {
  if (metric.type === 'Resource' || metric.type === 'ContainerResource') return ctx ? computeResourceMetric(metric, ctx) : { ok: false, failure: metricFailure(metric) };
  return (custom && (await computeCustomMetric(metric, custom))) ?? { ok: false, failure: metricFailure(metric) };
}

/**
 * Starts the controller. With `usage`, a metrics API serves those figures and the HPAs scale on their resource
 * metrics; without it, every metric fails as on a cluster without metrics-server.
 */
export function startHorizontalPodAutoscaler(informers: Informers, eventSink: EventSink, usage?: ResourceUsage, aggregated?: AggregatedApiGet): { stop(): Promise<void> } {
  const user = controllerAccount('horizontal-pod-autoscaler');
  const hpas = informers.of(HPAS).as(user);
  const pods = informers.of(PODS);
  const metricsFetched = usage !== undefined || aggregated !== undefined;
  const metricsApis: AggregatedGet | undefined = aggregated && ((group, version, path) => aggregated(group, version, path, user));
  const events: EventRecorder = controllerEvents(eventSink, 'horizontal-pod-autoscaler', user);
  const registry = informers.registry;
  /** Each HPA's recommendations and scale events, by "namespace/name". */
  const histories = new Map<string, AutoscalerHistory>();
  /**
   * Each known HPA's last parsed selector, by "namespace/name" (kube's hpaSelectors): none until its first pass, as
   * kube registers an HPA with a selector matching nothing.
   */
  const selectors = new Map<string, LabelSelector | undefined>();

  /** hpasControllingPodsUnderSelector: the HPAs whose selectors pick any of these pods, sorted (kube's order is a map's). */
  function hpasSelecting(namespace: string, selected: readonly KubeObject[]): string[] {
    const found = new Set<string>();
    for (const [k, sel] of selectors) {
      if (sel === undefined || splitKey(k).namespace !== namespace) continue;
      if (selected.some((p) => labelsMatch(sel, p.metadata.labels))) found.add(k);
    }
    return [...found].sort();
  }

  async function reconcile(hpa: KubeObject): Promise<void> {
    const namespace = hpa.metadata.namespace ?? '';
    const spec = asObj(hpa.spec);
    const old = asObj(hpa.status);
    const conditions = ((old.conditions as unknown[] | undefined) ?? []).map((c) => ({ ...asObj(c) }));
    const writeStatus = async (current: number, desired: number, metrics: Obj[] | undefined, scaled: boolean) => {
      const status: Obj = {
        ...(current ? { currentReplicas: current } : {}),
        desiredReplicas: desired,
        ...(scaled ? { lastScaleTime: rfc3339(clockDate()) } : old.lastScaleTime ? { lastScaleTime: old.lastScaleTime } : {}),
        ...(metrics && metrics.length > 0 ? { currentMetrics: metrics } : {}),
        ...(conditions.length > 0 ? { conditions } : {}),
      };
      if (jsonEqual(status, old)) return;
      await hpas.update(namespace, hpa.metadata.name ?? '', (cur) => (cur && cur.metadata.uid === hpa.metadata.uid ? { ...cur, status } : cur!), { subresource: 'status' }).catch((e) => {
        if (!isStatusError(e) || (e.code !== 404 && e.code !== 409)) throw e;
      });
    };
    const failScale = async (message: string) => {
      events.event(hpa, 'Warning', 'FailedGetScale', message);
      setCondition(conditions, 'AbleToScale', 'False', 'FailedGetScale', `the HPA controller was unable to get the target's current scale: ${message}`);
      await writeStatus(Number(old.currentReplicas ?? 0), Number(old.desiredReplicas ?? 0), old.currentMetrics as Obj[] | undefined, false);
    };

    const ref = asObj(spec.scaleTargetRef);
    const def = targetDefinition(registry.all(), String(ref.apiVersion ?? ''), String(ref.kind ?? ''));
    if (typeof def === 'string') return failScale(def);
    const name = String(ref.name ?? '');
    let scale: KubeObject;
    try {
      if (!def.subresources.some((s) => s.name === 'scale')) throw new Error(NO_METRICS_API);
      scale = await registry.store(def).get(informers.writeContext(def, namespace, user), name, { subresource: 'scale' });
    } catch (e) {
      return failScale(e instanceof Error ? e.message : String(e));
    }
    setCondition(conditions, 'AbleToScale', 'True', 'SucceededGetScale', "the HPA controller was able to get the target's current scale");
    const current = Number(asObj(scale.spec).replicas ?? 0);
    const min = typeof spec.minReplicas === 'number' ? spec.minReplicas : 1;
    const max = Number(spec.maxReplicas ?? 0);
    const now = clockNow();
    let history = histories.get(key(hpa));
    if (!history) histories.set(key(hpa), (history = newHistory()));
    recordInitialRecommendation(history, current, now);
    const behavior = behaviorOf(spec.behavior);

    let desired: number;
    let reason = '';
    let statuses: Obj[] | undefined;
    if (current === 0 && min !== 0) {
      setCondition(conditions, 'ScalingActive', 'False', 'ScalingDisabled', 'scaling is disabled since the replica count of the target is zero');
      return writeStatus(current, current, undefined, false);
    } else if (current > max) {
      [desired, reason] = [max, 'Current number of replicas above Spec.MaxReplicas'];
    } else if (current < min) {
      [desired, reason] = [min, 'Current number of replicas below Spec.MinReplicas'];
    } else {
      // computeReplicasForMetrics.
      const previousDesired = Number(old.desiredReplicas ?? 0);
      const selectorText = String(asObj(scale.status).selector ?? '');
      const failSelector = async (eventReason: string, event: string, message: string, conditionReason = 'InvalidSelector') => {
        events.event(hpa, 'Warning', eventReason, event);
        setCondition(conditions, 'ScalingActive', 'False', conditionReason, message);
        await writeStatus(current, previousDesired, undefined, false);
        events.event(hpa, 'Warning', 'FailedComputeMetricsReplicas', event);
      };
      if (!selectorText) return failSelector('SelectorRequired', 'selector is required', "the HPA target's scale is missing a selector");
      let selector: LabelSelector;
      try {
        selector = parseLabelSelector(selectorText);
      } catch (e) {
        if (!(e instanceof LabelSelectorError)) throw e;
        const message = `couldn't convert selector into a corresponding internal selector object: ${e.message}`;
        return failSelector('InvalidSelector', message, message);
      }
      if (selectors.has(key(hpa))) selectors.set(key(hpa), selector);
      const selected = pods.list(namespace).filter((p) => labelsMatch(selector, p.metadata.labels));
      const selecting = hpasSelecting(namespace, selected);
      if (selecting.length > 1) {
        const message = `pods by selector ${selectorText} are controlled by multiple HPAs: [${selecting.join(' ')}]`;
        return failSelector('AmbiguousSelector', message, message, 'AmbiguousSelector');
      }
      const metrics = ((spec.metrics as unknown[] | undefined) ?? []).map(asObj);
      if (!metricsFetched) {
        const failures = metrics.map(metricFailure);
        for (const f of failures) events.event(hpa, 'Warning', f.reason, f.error);
        const first = failures[0];
        if (first) setCondition(conditions, 'ScalingActive', 'False', first.reason, `the HPA was unable to compute the replica count: ${first.error}`);
        // The statuses of metrics that could not be fetched stay empty: `currentMetrics: [{type: ""}]`, as kube writes them.
        await writeStatus(current, previousDesired, metrics.map(() => ({ type: '' })), false);
        if (first) events.event(hpa, 'Warning', 'FailedComputeMetricsReplicas', `invalid metrics (${failures.length} invalid out of ${failures.length}), first error is: ${first.wrapped}`);
        return;
      }
      const ctx: MetricContext | undefined = usage && { currentReplicas: current, pods: selected, usage: (p) => usage.pod(p), now };
      const custom: CustomMetricContext | undefined = metricsApis && {
        namespace,
        currentReplicas: current,
        statusReplicas: Number(asObj(scale.status).replicas ?? 0),
        pods: selected,
        selector: labelSelectorString(selector),
        now,
        get: metricsApis,
        resourceFor: (apiVersion, kind) => {
          const found = targetDefinition(registry.all(), apiVersion, kind);
          return typeof found === 'string' ? undefined : found;
        },
      };
      const outcome = combineMetrics(await Promise.all(metrics.map((m) => computeMetric(m, ctx, custom))), current);
      for (const f of outcome.failures) events.event(hpa, 'Warning', f.reason, f.error);
      const first = outcome.failures[0];
      if (outcome.replicas === -1 && outcome.error !== undefined && first) {
        setCondition(conditions, 'ScalingActive', 'False', first.reason, `the HPA was unable to compute the replica count: ${first.error}`);
        await writeStatus(current, previousDesired, outcome.statuses, false);
        events.event(hpa, 'Warning', 'FailedComputeMetricsReplicas', outcome.error);
        return;
      }
      // Some metrics may have failed: the others still scale the target up (kube logs the error, no event).
      if (outcome.replicas !== -1) setCondition(conditions, 'ScalingActive', 'True', 'ValidMetricFound', `the HPA was able to successfully calculate a replica count from ${outcome.metricName}`);
      statuses = outcome.statuses;
      desired = 0;
      let rescaleMetric = '';
      if (outcome.replicas > desired) [desired, rescaleMetric] = [outcome.replicas, outcome.metricName];
      if (desired > current) reason = `${rescaleMetric} above target`;
      if (desired < current) reason = 'All metrics below target';
      const normalized = normalizeDesiredReplicas(history, { behavior, currentReplicas: current, desiredReplicas: desired, minReplicas: min, maxReplicas: max, now });
      setCondition(conditions, 'AbleToScale', 'True', normalized.ableToScale.reason, normalized.ableToScale.message);
      setCondition(conditions, 'ScalingLimited', normalized.scalingLimited.status, normalized.scalingLimited.reason, normalized.scalingLimited.message);
      desired = normalized.replicas;
      if (desired === current) return writeStatus(current, current, statuses, false);
    }

    try {
      const ctx = informers.writeContext(def, namespace, user, 'scale', 'Scale');
      await registry.store(def).update(ctx, name, (cur) => ({ ...cur!, spec: { ...asObj(cur!.spec), replicas: desired } }), { subresource: 'scale' });
    } catch (e) {
      const message = e instanceof Error ? e.message : String(e);
      events.event(hpa, 'Warning', 'FailedRescale', `New size: ${desired}; reason: ${reason}; error: ${message}`);
      setCondition(conditions, 'AbleToScale', 'False', 'FailedUpdateScale', `the HPA controller was unable to update the target scale: ${message}`);
      return writeStatus(current, Number(old.desiredReplicas ?? 0), statuses, false);
    }
    setCondition(conditions, 'AbleToScale', 'True', 'SucceededRescale', `the HPA controller was able to update the target scale to ${desired}`);
    events.event(hpa, 'Normal', 'SuccessfulRescale', `New size: ${desired}; reason: ${reason}`);
    storeScaleEvent(history, behavior, current, desired, clockNow());
    await writeStatus(current, desired, statuses, true);
  }

  const queue = createKeyedQueue(async (k) => {
    await hpas.synced;
    await pods.synced;
    const { namespace, name } = splitKey(k);
    const hpa = hpas.get(namespace, name);
    if (hpa && !hpa.metadata.deletionTimestamp) await reconcile(hpa);
    else if (!hpa) histories.delete(k);
  }, 500, informers.activity);
  // Its own status writes are no reason for another pass; any other change is, and so is every sync period.
  hpas.onEvent((ev) => {
    if (ev.type === 'DELETED') {
      histories.delete(key(ev.object));
      selectors.delete(key(ev.object));
      return;
    }
    if (!selectors.has(key(ev.object))) selectors.set(key(ev.object), undefined);
    if (ev.written !== 'status') queue.enqueue(key(ev.object));
  });
  const resync = () => {
    for (const hpa of hpas.list()) queue.enqueue(key(hpa));
  };
  const timer = setInterval(resync, SYNC_PERIOD_MS);
  timer.unref();
  const stopClock = onClockChange(resync);
  // New usage figures: the same passes, sooner.
  const stopUsage = usage?.onChange(resync);
  return {
    async stop() {
      clearInterval(timer);
      stopClock();
      stopUsage?.();
      await queue.stop();
    },
  };
}
