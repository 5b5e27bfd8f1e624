// HorizontalPodAutoscalers of both versions (defaults and validation in hpa-defaults.ts and hpa-validation.ts;
// the strategy's status reset; printHorizontalPodAutoscaler).

import type { KubeObject } from '../../types.ts';
import type { FactsMaker } from '../facts.ts';
import { buildStrategy } from '../generic.ts';
import { defaultHorizontalPodAutoscaler } from './hpa-defaults.ts';
import { hpaMinReplicas, validateHorizontalPodAutoscaler, validateHorizontalPodAutoscalerStatus } from './hpa-validation.ts';
import { getPath, numAt, objAt, objsAt, strAt } from '../object.ts';
import { ageColumn, column } from '../printing.ts';

function hpaTargets(obj: KubeObject): string {
  const specs = objsAt(obj, 'spec', 'metrics');
  if (specs.length === 0) {
    // autoscaling/v1 objects carry a single CPU target.
    const target = getPath(obj, 'spec', 'targetCPUUtilizationPercentage');
    if (typeof target === 'number') {
      const current = getPath(obj, 'status', 'currentCPUUtilizationPercentage');
      return `cpu: ${typeof current === 'number' ? `${current}%` : '<unknown>'}/${target}%`;
    }
    return '<none>';
  }
  const statuses = objsAt(obj, 'status', 'currentMetrics');
  const list = specs.map((spec, i) => {
    const status = statuses[i];
    if (spec.type === 'Resource' || spec.type === 'ContainerResource') {
      const key = spec.type === 'Resource' ? 'resource' : 'containerResource';
      const s = objAt(spec, key) ?? {};
      const target = objAt(s, 'target') ?? {};
      const cur = objAt(objAt(status, key), 'current') ?? {};
      if (target.averageValue !== undefined) return `${strAt(s, 'name')}: ${cur.averageValue !== undefined ? String(cur.averageValue) : '<unknown>'}/${String(target.averageValue)}`;
      const current = typeof cur.averageUtilization === 'number' ? `${cur.averageUtilization}%` : '<unknown>';
      const want = typeof target.averageUtilization === 'number' ? `${target.averageUtilization}%` : '<auto>';
      return `${strAt(s, 'name')}: ${current}/${want}`;
    }
    const key = spec.type === 'Pods' ? 'pods' : spec.type === 'Object' ? 'object' : spec.type === 'External' ? 'external' : '';
    if (key === '') return '<unknown type>';
    const target = objAt(objAt(spec, key), 'target') ?? {};
    const cur = objAt(objAt(status, key), 'current') ?? {};
    if (target.averageValue !== undefined) {
      const suffix = key === 'pods' ? '' : ' (avg)';
      return `${cur.averageValue !== undefined ? String(cur.averageValue) : '<unknown>'}/${String(target.averageValue)}${suffix}`;
    }
    return `${cur.value !== undefined ? String(cur.value) : '<unknown>'}/${String(target.value ?? '')}`;
  });
  const max = 2;
  if (list.length > max) return `${list.slice(0, max).join(', ')} + ${list.length - max} more...`;
  return list.join(', ');
}

export const horizontalPodAutoscalerFacts: FactsMaker = (rules) => {
  // minReplicas may be 0 with the HPAScaleToZero gate, or on an update of an object that already has 0.
  const scaleToZero = rules.featureGates.HPAScaleToZero === true;
  return {
    strategy: buildStrategy(rules, {
      defaults: defaultHorizontalPodAutoscaler,
      validate: (hpa) => validateHorizontalPodAutoscaler(hpa, scaleToZero ? 0 : 1),
      validateUpdate: (hpa, old) => validateHorizontalPodAutoscaler(hpa, scaleToZero || hpaMinReplicas(old) === 0 ? 0 : 1),
      validateStatusUpdate: validateHorizontalPodAutoscalerStatus,
    }),
    printerColumns: [
      column('Reference', 'string', 'The scaled object.', (o) => `${strAt(o, 'spec', 'scaleTargetRef', 'kind')}/${strAt(o, 'spec', 'scaleTargetRef', 'name')}`),
      column('Targets', 'string', 'Current and target metric values.', hpaTargets),
      column('MinPods', 'string', 'The lower replica bound.', (o) => (typeof getPath(o, 'spec', 'minReplicas') === 'number' ? String(getPath(o, 'spec', 'minReplicas')) : '<unset>')),
      column('MaxPods', 'string', 'The upper replica bound.', (o) => numAt(o, 'spec', 'maxReplicas')),
      column('Replicas', 'string', 'Current replicas.', (o) => numAt(o, 'status', 'currentReplicas')),
      ageColumn,
    ],
    selectableFields: {},
  };
};
