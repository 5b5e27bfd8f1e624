// kube-controller-manager's horizontal pod autoscaler (pkg/controller/podautoscaler, kube 1.31) for a cluster with no
// metrics API, as a kind cluster without metrics-server: every 15 s (and when the HPA changes, or the server clock
// moves) it reads its target's scale subresource (AbleToScale: SucceededGetScale, or FailedGetScale with the error);
// a target outside [minReplicas, maxReplicas] is scaled back into it (SuccessfulRescale "New size: 3; reason:
// Current number of replicas below Spec.MinReplicas", AbleToScale SucceededRescale); a target at zero with a
// minReplicas above zero is left alone (ScalingActive False ScalingDisabled); otherwise every metric fails to be
// fetched, with kube's events (FailedGetResourceMetric..., FailedComputeMetricsReplicas) and ScalingActive False,
// and the target keeps its size. `kubectl get hpa` then shows `cpu: <unknown>/80%`, as on such a cluster.

import { clockDate, onClockChange } from '../../apis/clock.ts';
import { isStatusError } from '../../apis/errors.ts';
import { jsonEqual, rfc3339 } from '../../registry/store-codec.ts';
import type { KubeObject, ResourceDefinition } from '../../registry/types.ts';
import type { EventRecorder, EventSink } from '../events.ts';
import type { Informers, ResourceRef } from '../informers.ts';
import { createKeyedQueue } from '../work-queue.ts';
import { asObj, controllerAccount, controllerEvents, key, splitKey, type Obj } from './shared.ts';

const HPAS: ResourceRef = { group: 'autoscaling', version: 'v2', resource: 'horizontalpodautoscalers' };
const SYNC_PERIOD_MS = 15_000;
const NO_METRICS_API = 'the server could not find the requested resource';

/** A metric's failure without a metrics API: the event and condition reason, its error, and the error the list gives. */
interface MetricFailure {
  readonly reason: string;
  /** What the event and the ScalingActive condition say. */
  readonly error: string;
  /** What computeReplicasForMetric returns (the first one is quoted in FailedComputeMetricsReplicas). */
  readonly wrapped: string;
}

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

export function startHorizontalPodAutoscaler(informers: Informers, eventSink: EventSink): { stop(): Promise<void> } {
  const user = controllerAccount('horizontal-pod-autoscaler');
  const hpas = informers.of(HPAS).as(user);
  const events: EventRecorder = controllerEvents(eventSink, 'horizontal-pod-autoscaler', user);
  const registry = informers.registry;

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

    let desired: number;
    let reason = '';
    if (current === 0 && min !== 0) {
      setCondition(conditions, 'ScalingActive', 'False', 'ScalingDisabled', 'scaling is disabled since the replica count of the target is zero');
      return writeStatus(current, current, undefined, false);
    } else if (current > max) {
      [desired, reason] = [max, 'Current number of replicas above Spec.MaxReplicas'];
    } else if (current < min) {
      [desired, reason] = [min, 'Current number of replicas below Spec.MinReplicas'];
    } else {
      // computeReplicasForMetrics: with no metrics API, every metric fails.
      const previousDesired = Number(old.desiredReplicas ?? 0);
      if (!asObj(scale.status).selector) {
        events.event(hpa, 'Warning', 'SelectorRequired', 'selector is required');
        setCondition(conditions, 'ScalingActive', 'False', 'InvalidSelector', "the HPA target's scale is missing a selector");
        await writeStatus(current, previousDesired, undefined, false);
        events.event(hpa, 'Warning', 'FailedComputeMetricsReplicas', 'selector is required');
        return;
      }
      const metrics = ((spec.metrics as unknown[] | undefined) ?? []).map(asObj);
      const failures = metrics.map(metricFailure);
      for (const f of failures) events.event(hpa, 'Warning', f.reason, f.error);
      const first = failures[0];
      if (first) setCondition(conditions, 'ScalingActive', 'False', first.reason, `the HPA was unable to compute the replica count: ${first.error}`);
      // The statuses of metrics that could not be fetched stay empty: `currentMetrics: [{type: ""}]`, as kube writes them.
      await writeStatus(current, previousDesired, metrics.map(() => ({ type: '' })), false);
      if (first) events.event(hpa, 'Warning', 'FailedComputeMetricsReplicas', `invalid metrics (${failures.length} invalid out of ${failures.length}), first error is: ${first.wrapped}`);
      return;
    }

    try {
      const ctx = informers.writeContext(def, namespace, user, 'scale', 'Scale');
      await registry.store(def).update(ctx, name, (cur) => ({ ...cur!, spec: { ...asObj(cur!.spec), replicas: desired } }), { subresource: 'scale' });
    } catch (e) {
      const message = e instanceof Error ? e.message : String(e);
      events.event(hpa, 'Warning', 'FailedRescale', `New size: ${desired}; reason: ${reason}; error: ${message}`);
      setCondition(conditions, 'AbleToScale', 'False', 'FailedUpdateScale', `the HPA controller was unable to update the target scale: ${message}`);
      return writeStatus(current, Number(old.desiredReplicas ?? 0), undefined, false);
    }
    setCondition(conditions, 'AbleToScale', 'True', 'SucceededRescale', `the HPA controller was able to update the target scale to ${desired}`);
    events.event(hpa, 'Normal', 'SuccessfulRescale', `New size: ${desired}; reason: ${reason}`);
    await writeStatus(current, desired, undefined, true);
  }

  const queue = createKeyedQueue(async (k) => {
    await hpas.synced;
    const { namespace, name } = splitKey(k);
    const hpa = hpas.get(namespace, name);
    if (hpa && !hpa.metadata.deletionTimestamp) await reconcile(hpa);
  }, 500, informers.activity);
  // Its own status writes are no reason for another pass; any other change is, and so is every sync period.
  hpas.onEvent((ev) => ev.type !== 'DELETED' && ev.written !== 'status' && queue.enqueue(key(ev.object)));
  const resync = () => {
    for (const hpa of hpas.list()) queue.enqueue(key(hpa));
  };
  const timer = setInterval(resync, SYNC_PERIOD_MS);
  timer.unref();
  const stopClock = onClockChange(resync);
  return {
    async stop() {
      clearInterval(timer);
      stopClock();
      await queue.stop();
    },
  };
}
