import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../types.ts';
import { builtinTypeFacts } from '../index.ts';
import { createErrors, statusUpdateErrors, updateErrors } from '../test-context.ts';

const hpas = builtinTypeFacts('autoscaling', 'horizontalpodautoscalers');
const ref = { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' };
const v2 = (spec: Record<string, unknown>): KubeObject => ({ apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscaler', metadata: { name: 'web', namespace: 'default' }, spec: { scaleTargetRef: ref, maxReplicas: 5, ...spec } });
const v1 = (spec: Record<string, unknown>): KubeObject => ({ apiVersion: 'autoscaling/v1', kind: 'HorizontalPodAutoscaler', metadata: { name: 'web', namespace: 'default' }, spec: { scaleTargetRef: ref, maxReplicas: 5, ...spec } });

// Sources: pkg/apis/autoscaling/v2/defaults.go, pkg/apis/autoscaling/v1/defaults.go, pkg/apis/autoscaling/validation/validation.go.
test('HPA v2: minReplicas, the CPU metric and a given behavior are defaulted as kube does', () => {
  const hpa = v2({ behavior: { scaleDown: { stabilizationWindowSeconds: 60 } } });
  assert.deepEqual(createErrors(hpas, hpa), []);
  const spec = hpa.spec as Record<string, unknown>;
  assert.equal(spec.minReplicas, 1);
  assert.deepEqual(spec.metrics, [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 80 } } }]);
  assert.deepEqual(spec.behavior, {
    scaleUp: { stabilizationWindowSeconds: 0, selectPolicy: 'Max', policies: [{ type: 'Pods', value: 4, periodSeconds: 15 }, { type: 'Percent', value: 100, periodSeconds: 15 }] },
    scaleDown: { selectPolicy: 'Max', policies: [{ type: 'Percent', value: 100, periodSeconds: 15 }], stabilizationWindowSeconds: 60 },
  });
  assert.deepEqual(hpa.status, {});
  const plain = v2({});
  createErrors(hpas, plain);
  assert.equal((plain.spec as Record<string, unknown>).behavior, undefined);
});

const cases: [string, KubeObject, string[]][] = [
  ['maxReplicas below minReplicas', v2({ minReplicas: 3, maxReplicas: 2 }), ['spec.maxReplicas: Invalid value: 2: must be greater than or equal to `minReplicas`']],
  ['minReplicas 0', v2({ minReplicas: 0 }), ['spec.minReplicas: Invalid value: 0: must be greater than or equal to 1', 'spec.metrics: Forbidden: must specify at least one Object or External metric to support scaling to zero replicas']],
  ['no scale target name', v2({ scaleTargetRef: { kind: 'Deployment' } }), ['spec.scaleTargetRef.name: Required value']],
  [
    'resource metric without a target',
    v2({ metrics: [{ type: 'Resource', resource: { name: 'memory', target: { type: 'Utilization' } } }] }),
    ['spec.metrics[0].resource.target.averageUtilization: Required value: must set either a target raw value or a target utilization'],
  ],
  ['pods metric without averageValue', v2({ metrics: [{ type: 'Pods', pods: { metric: { name: 'qps' }, target: { type: 'Value', value: '10' } } }] }), ['spec.metrics[0].pods.target.averageValue: Required value: must specify a positive target averageValue']],
  ['wrong source for type', v2({ metrics: [{ type: 'Pods', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 50 } } }] }), ['spec.metrics[0].pods: Required value: must populate information for the given metric source']],
  [
    'bad behavior',
    v2({ behavior: { scaleUp: { selectPolicy: 'Most', policies: [{ type: 'Pods', value: 0, periodSeconds: 3600 }] } } }),
    [
      'spec.behavior.scaleUp.selectPolicy: Unsupported value: "Most": supported values: "Disabled", "Max", "Min"',
      'spec.behavior.scaleUp.policies[0].value: Invalid value: 0: must be greater than zero',
      'spec.behavior.scaleUp.policies[0].periodSeconds: Invalid value: 3600: must be less than or equal to 1800',
    ],
  ],
  [
    'a negative pods target and a metric name with a slash (the selector is not checked)',
    v2({ metrics: [{ type: 'Pods', pods: { metric: { name: 'a/b', selector: { matchLabels: { x: '!!' } } }, target: { type: 'AverageValue', averageValue: '-1' } } }] }),
    [
      `spec.metrics[0].pods.metric.name: Invalid value: "a/b": may not contain '/'`,
      'spec.metrics[0].pods.target.averageValue: Invalid value: resource.Quantity{i:resource.int64Amount{value:-1, scale:0}, d:resource.infDecAmount{Dec:(*inf.Dec)(nil)}, s:"-1", Format:"DecimalSI"}: must be positive',
    ],
  ],
  [
    'container resource name and container',
    v2({ metrics: [{ type: 'ContainerResource', containerResource: { name: 'gpu', container: 'App', target: { type: 'Utilization', averageUtilization: 50 } } }] }),
    [
      'spec.metrics[0].containerResource.name: Invalid value: "gpu": must be a standard resource type or fully qualified',
      'spec.metrics[0].containerResource.name: Invalid value: "gpu": must be a standard resource for containers',
      `spec.metrics[0].containerResource.container: Invalid value: "App": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')`,
    ],
  ],
  [
    'a second source besides the one of the type',
    v2({ metrics: [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 50 } }, containerResource: { name: 'cpu', container: 'app', target: { type: 'Utilization', averageUtilization: 50 } } }] }),
    ['spec.metrics[0].containerResource: Forbidden: must populate the given metric source only'],
  ],
  ['v1 CPU target 0', v1({ targetCPUUtilizationPercentage: 0 }), ['spec.metrics[0].resource.target.averageUtilization: Invalid value: 0: must be greater than 0']],
];
for (const [name, obj, want] of cases) test(`HPA: ${name}`, () => assert.deepEqual(createErrors(hpas, obj), want));

test('HPA: minReplicas 0 needs the HPAScaleToZero gate, or an update of an object that has 0 already', () => {
  const gated = builtinTypeFacts('autoscaling', 'horizontalpodautoscalers', { HPAScaleToZero: true });
  const external = [{ type: 'External', external: { metric: { name: 'queue' }, target: { type: 'Value', value: '5' } } }];
  assert.deepEqual(createErrors(gated, v2({ minReplicas: 0, metrics: external })), []);
  assert.deepEqual(createErrors(gated, v2({ minReplicas: 0 })), ['spec.metrics: Forbidden: must specify at least one Object or External metric to support scaling to zero replicas']);
  const old = v2({ minReplicas: 0, metrics: external });
  old.metadata = { ...old.metadata, resourceVersion: '2' };
  assert.deepEqual(updateErrors(hpas, v2({ minReplicas: 0, metrics: external, maxReplicas: 7 }), old), []);
});

test('HPA v1: minReplicas defaulted, v1 status shape; status counters not negative', () => {
  const hpa = v1({ targetCPUUtilizationPercentage: 50 });
  assert.deepEqual(createErrors(hpas, hpa), []);
  assert.equal((hpa.spec as Record<string, unknown>).minReplicas, 1);
  assert.deepEqual(hpa.status, {});
  hpa.metadata = { ...hpa.metadata, resourceVersion: '2' };
  assert.deepEqual(updateErrors(hpas, v1({ targetCPUUtilizationPercentage: 60, minReplicas: 2 }), hpa), []);
  const { errors } = statusUpdateErrors(hpas, { ...structuredClone(hpa), status: { currentReplicas: -1, desiredReplicas: 1 } }, hpa);
  assert.deepEqual(errors, ['status.currentReplicas: Invalid value: -1: must be greater than or equal to 0']);
});
