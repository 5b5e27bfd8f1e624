// HorizontalPodAutoscaler defaulting (autoscaling/v1 and v2 SetDefaults_HorizontalPodAutoscaler and
// SetDefaults_HorizontalPodAutoscalerBehavior): minReplicas 1, a CPU target at 80% when v2 names no metric, and
// a given behavior completed with kube's scale-up and scale-down rules.

import type { KubeObject } from '../../types.ts';
import { ensureObj, isObj, objAt, setDefault, type Obj } from '../object.ts';

export const DEFAULT_CPU_UTILIZATION = 80;

const scaleUpRules = (): Obj => ({
  stabilizationWindowSeconds: 0,
  selectPolicy: 'Max',
  policies: [
    { type: 'Pods', value: 4, periodSeconds: 15 },
    { type: 'Percent', value: 100, periodSeconds: 15 },
  ],
});

const scaleDownRules = (): Obj => ({ selectPolicy: 'Max', policies: [{ type: 'Percent', value: 100, periodSeconds: 15 }] });

/** copyHPAScalingRules: the given fields over the defaults. */
function completeRules(given: unknown, defaults: Obj): Obj {
  if (!isObj(given)) return defaults;
  for (const key of ['selectPolicy', 'stabilizationWindowSeconds', 'policies']) {
    if (given[key] !== undefined && given[key] !== null) defaults[key] = given[key];
  }
  return defaults;
}

/** Is this object in autoscaling/v1's shape (a single CPU target, no metrics list)? */
export function isV1Shape(hpa: KubeObject): boolean {
  return hpa.apiVersion === 'autoscaling/v1' || (objAt(hpa, 'spec')?.targetCPUUtilizationPercentage !== undefined && !Array.isArray(objAt(hpa, 'spec')?.metrics));
}

export function defaultHorizontalPodAutoscaler(hpa: KubeObject): void {
  const spec = ensureObj(hpa, 'spec');
  setDefault(spec, 'minReplicas', 1);
  if (isV1Shape(hpa)) return;
  if (!Array.isArray(spec.metrics) || spec.metrics.length === 0) {
    spec.metrics = [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: DEFAULT_CPU_UTILIZATION } } }];
  }
  const behavior = objAt(spec, 'behavior');
  if (behavior) {
    behavior.scaleUp = completeRules(behavior.scaleUp, scaleUpRules());
    behavior.scaleDown = completeRules(behavior.scaleDown, scaleDownRules());
  }
}
