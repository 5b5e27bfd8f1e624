import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fillGoZeroValues } from './go-zero-values.ts';
import type { KubeObject } from '../types.ts';

function filled(obj: Record<string, unknown>): KubeObject {
  const o = structuredClone(obj) as KubeObject;
  fillGoZeroValues(o);
  return o;
}

test('struct values are written as {} with their own fields, nil lists and pointers without omitempty as null', () => {
  const ingress = filled({ apiVersion: 'networking.k8s.io/v1', kind: 'Ingress', metadata: { name: 'web' }, spec: {} });
  assert.deepEqual(ingress.status, { loadBalancer: {} });
  assert.deepEqual(ingress.spec, {});
  const role = filled({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name: 'r' } });
  assert.equal(role.rules, null);
  const limits = filled({ apiVersion: 'v1', kind: 'LimitRange', metadata: { name: 'l' } });
  assert.deepEqual(limits.spec, { limits: null });
  const slice = filled({ apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice', metadata: { name: 's' }, addressType: 'IPv4' });
  assert.equal(slice.ports, null);
  assert.equal(slice.endpoints, null);
});

test('scalars without omitempty get their zero; a Quantity "0", an IntOrString 0, a zero Time and a RawExtension null', () => {
  const hpa = filled({ apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscaler', metadata: { name: 'h' }, spec: { maxReplicas: 3 }, status: {} });
  assert.deepEqual(hpa.status, { desiredReplicas: 0, currentMetrics: null });
  assert.deepEqual((hpa.spec as Record<string, unknown>).scaleTargetRef, { kind: '', name: '' });
  const pod = filled({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'p' },
    spec: {
      containers: [{ name: 'c', env: [{ name: 'CPU', valueFrom: { resourceFieldRef: { resource: 'limits.cpu' } } }], readinessProbe: { httpGet: { path: '/' } } }],
    },
    status: { containerStatuses: [{ name: 'c', state: { terminated: { exitCode: 137, reason: 'ContainerStatusUnknown' } } }] },
  });
  const container = (pod.spec as { containers: Array<Record<string, any>> }).containers[0]!;
  assert.deepEqual(container.resources, {});
  assert.deepEqual(container.env[0].valueFrom.resourceFieldRef, { resource: 'limits.cpu', divisor: '0' });
  assert.deepEqual(container.readinessProbe.httpGet, { path: '/', port: 0 });
  const status = (pod.status as { containerStatuses: Array<Record<string, any>> }).containerStatuses[0]!;
  assert.deepEqual(status.state.terminated, { exitCode: 137, reason: 'ContainerStatusUnknown', startedAt: null, finishedAt: null });
  assert.deepEqual(status.lastState, {});
  assert.deepEqual([status.ready, status.restartCount, status.image, status.imageID], [false, 0, '', '']);
  const revision = filled({ apiVersion: 'apps/v1', kind: 'ControllerRevision', metadata: { name: 'r' }, revision: 1 });
  assert.equal(revision.data, null);
});

test('a template is written with its metadata and creationTimestamp: null; values present are kept as they are', () => {
  const deploy = filled({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'd', labels: { a: 'b' } },
    spec: { replicas: 0, selector: { matchLabels: { app: 'd' } }, template: { spec: { containers: [{ name: 'c', image: 'nginx', resources: { limits: { cpu: '1' } } }] } } },
  });
  const spec = deploy.spec as Record<string, any>;
  assert.deepEqual(spec.template.metadata, { creationTimestamp: null });
  assert.deepEqual(spec.template.spec.containers[0].resources, { limits: { cpu: '1' } });
  assert.deepEqual(spec.strategy, {});
  assert.equal(spec.replicas, 0);
  assert.deepEqual(deploy.status, {});
  assert.deepEqual(deploy.metadata, { name: 'd', labels: { a: 'b' }, creationTimestamp: null });
});

test('custom resources and kinds the model does not know are left alone', () => {
  const cr = { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w' }, spec: {} };
  assert.deepEqual(filled(cr), cr);
  const noKind = { metadata: { name: 'x' } };
  assert.deepEqual(filled(noKind), noKind);
});
