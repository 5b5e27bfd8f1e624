import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fillGoZeroValues } from '../../validation/go-zero-values.ts';
import { fieldErrorString, invalid } from '../../../apis/errors.ts';
import type { KubeObject } from '../../types.ts';
import { builtinTypeFacts } from '../index.ts';
import { testContext as ctx } from '../test-context.ts';

const deployments = builtinTypeFacts('apps', 'deployments');
const replicaSets = builtinTypeFacts('apps', 'replicasets');
const statefulSets = builtinTypeFacts('apps', 'statefulsets');
const daemonSets = builtinTypeFacts('apps', 'daemonsets');

const template = (labels: Record<string, string>) => ({ metadata: { labels }, spec: { containers: [{ name: 'c', image: 'nginx:1.25' }] } });

function create(facts: typeof deployments, spec: Record<string, unknown>): KubeObject {
  const obj: KubeObject = { metadata: { name: 'web', namespace: 'default' }, spec };
  facts.strategy.defaults?.(obj);
  facts.strategy.prepareForCreate?.(obj, ctx);
  return obj;
}

function errors(facts: typeof deployments, obj: KubeObject): string[] {
  return (facts.strategy.validate?.(obj, ctx) ?? []).map(fieldErrorString);
}

test('deployment defaults, generation 1 and empty status', () => {
  const d = create(deployments, { selector: { matchLabels: { app: 'web' } }, template: template({ app: 'web' }) });
  const spec = d.spec as Record<string, unknown>;
  assert.equal(spec.replicas, 1);
  assert.deepEqual(spec.strategy, { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '25%', maxSurge: '25%' } });
  assert.equal(spec.revisionHistoryLimit, 10);
  assert.equal(spec.progressDeadlineSeconds, 600);
  assert.deepEqual((spec.template as { metadata: unknown }).metadata, { labels: { app: 'web' } });
  assert.equal(d.metadata.generation, 1);
  assert.deepEqual(d.status, {});
  assert.deepEqual(errors(deployments, d), []);
});

test('a deployment without selector gets both kube errors', () => {
  const d = create(deployments, { template: template({ app: 'web' }) });
  const errs = deployments.strategy.validate?.(d, ctx) ?? [];
  assert.equal(
    invalid({ group: 'apps', kind: 'Deployment' }, 'web', errs).message,
    'Deployment.apps "web" is invalid: [spec.selector: Required value, spec.template.metadata.labels: Invalid value: map[string]string{"app":"web"}: `selector` does not match template `labels`]',
  );
  assert.deepEqual(errors(deployments, create(deployments, { selector: { matchLabels: { app: 'x' } }, template: template({ app: 'web' }) })), [
    'spec.template.metadata.labels: Invalid value: map[string]string{"app":"web"}: `selector` does not match template `labels`',
  ]);
  assert.deepEqual(errors(deployments, create(deployments, { selector: {}, template: template({ app: 'web' }) })), ['spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string(nil), MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: empty selector is invalid for deployment']);
  assert.deepEqual(
    errors(deployments, create(deployments, { selector: { matchLabels: { app: 'web' } }, template: { ...template({ app: 'web' }), spec: { containers: [{ name: 'c', image: 'i' }], restartPolicy: 'Never' } } })),
    ['spec.template.spec.restartPolicy: Unsupported value: "Never": supported values: "Always"'],
  );
  assert.deepEqual(
    errors(deployments, create(deployments, { selector: { matchLabels: { app: 'web' } }, template: template({ app: 'web' }), strategy: { rollingUpdate: { maxSurge: 0, maxUnavailable: '120%' } } })),
    ['spec.strategy.rollingUpdate.maxUnavailable: Invalid value: intstr.IntOrString{Type:1, IntVal:0, StrVal:"120%"}: must not be greater than 100%'],
  );
});

test('generation follows spec changes only; selector is immutable; status writes keep spec and labels', () => {
  const old = create(deployments, { selector: { matchLabels: { app: 'web' } }, template: template({ app: 'web' }) });
  old.metadata.resourceVersion = '9';
  const labelsOnly = structuredClone(old);
  labelsOnly.metadata.labels = { team: 'a' };
  deployments.strategy.prepareForUpdate?.(labelsOnly, old, ctx);
  assert.equal(labelsOnly.metadata.generation, 1);
  const annotated = structuredClone(old);
  annotated.metadata.annotations = { 'example.com/note': 'x' };
  deployments.strategy.prepareForUpdate?.(annotated, old, ctx);
  assert.equal(annotated.metadata.generation, 2);
  const scaled = structuredClone(old);
  (scaled.spec as Record<string, unknown>).replicas = 3;
  scaled.status = { replicas: 99 };
  deployments.strategy.prepareForUpdate?.(scaled, old, ctx);
  assert.equal(scaled.metadata.generation, 2);
  assert.deepEqual(scaled.status, {});
  const reselected = structuredClone(old);
  (reselected.spec as Record<string, unknown>).selector = { matchLabels: { app: 'web', v: '2' } };
  ((reselected.spec as { template: { metadata: { labels: Record<string, string> } } }).template.metadata.labels).v = '2';
  assert.deepEqual((deployments.strategy.validateUpdate?.(reselected, old, ctx) ?? []).map(fieldErrorString), [
    'spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string{"app":"web", "v":"2"}, MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: field is immutable',
  ]);
  const status = deployments.strategy.subresources?.status;
  assert.ok(status);
  const written = status.prepareForUpdate({ ...structuredClone(old), metadata: { ...old.metadata, labels: { x: 'y' } }, spec: {}, status: { readyReplicas: 1 } }, old, ctx);
  assert.deepEqual(written.spec, old.spec);
  assert.equal(written.metadata.labels, undefined);
  assert.deepEqual(written.status, { readyReplicas: 1 });
  assert.deepEqual((status.validateUpdate?.(written, old, ctx) ?? []).map(fieldErrorString), ['status.readyReplicas: Invalid value: 1: cannot be greater than status.replicas']);
});

test('a deployment name that is not a DNS label gets kube warning on create, not on update', () => {
  const d: KubeObject = { metadata: { name: 'web.v1', namespace: 'default' }, spec: { selector: { matchLabels: { app: 'web' } }, template: template({ app: 'web' }) } };
  deployments.strategy.defaults?.(d);
  assert.deepEqual(deployments.strategy.validate?.(d, ctx), []);
  assert.deepEqual(deployments.strategy.warnings?.(d, undefined), [
    'metadata.name: this is used in Pod names and hostnames, which can result in surprising behavior; a DNS label is recommended: [must not contain dots]',
  ]);
  assert.deepEqual(deployments.strategy.warnings?.({ ...d, metadata: { ...d.metadata, generation: 2 } }, { ...d, metadata: { ...d.metadata, generation: 1 } }), []);
});

test('deployment printer cells', () => {
  const d = create(deployments, { replicas: 3, selector: { matchLabels: { app: 'web' } }, template: template({ app: 'web' }) });
  d.status = { readyReplicas: 2, updatedReplicas: 3, availableReplicas: 2 };
  assert.deepEqual(
    deployments.printerColumns.map((c) => [c.name, c.cell(d)]).filter(([n]) => n !== 'Age'),
    [
      ['Ready', '2/3'],
      ['Up-to-date', 3],
      ['Available', 2],
      ['Containers', 'c'],
      ['Images', 'nginx:1.25'],
      ['Selector', 'app=web'],
    ],
  );
});

test('replica sets, stateful sets and daemon sets', () => {
  const rs = create(replicaSets, { selector: { matchLabels: { app: 'web' } }, template: template({ app: 'web' }) });
  // The status is reset; the counters Go writes as 0 are the store's to fill (validation/go-zero-values.ts).
  assert.deepEqual(rs.status, {});
  fillGoZeroValues(Object.assign(rs, { apiVersion: 'apps/v1', kind: 'ReplicaSet' }));
  assert.deepEqual(rs.status, { replicas: 0 });
  assert.deepEqual(errors(replicaSets, rs), []);
  assert.equal(replicaSets.selectableFields['status.replicas'](rs), '0');
  assert.deepEqual(
    replicaSets.printerColumns.map((c) => c.name),
    ['Desired', 'Current', 'Ready', 'Age', 'Containers', 'Images', 'Selector'],
  );

  const sts = create(statefulSets, { serviceName: 'web', selector: { matchLabels: { app: 'web' } }, template: template({ app: 'web' }), volumeClaimTemplates: [{ metadata: { name: 'data' }, spec: {} }] });
  const spec = sts.spec as Record<string, unknown>;
  assert.equal(spec.podManagementPolicy, 'OrderedReady');
  assert.deepEqual(spec.updateStrategy, { type: 'RollingUpdate', rollingUpdate: { partition: 0 } });
  assert.deepEqual(spec.persistentVolumeClaimRetentionPolicy, { whenDeleted: 'Retain', whenScaled: 'Retain' });
  assert.deepEqual(spec.volumeClaimTemplates, [{ metadata: { name: 'data' }, spec: { volumeMode: 'Filesystem' }, status: { phase: 'Pending' } }]);
  assert.deepEqual(sts.status, {});
  assert.deepEqual(errors(statefulSets, sts), []);
  const changed = structuredClone(sts);
  changed.metadata.resourceVersion = '1';
  (changed.spec as Record<string, unknown>).serviceName = 'other';
  assert.deepEqual((statefulSets.strategy.validateUpdate?.(changed, { ...sts, metadata: { ...sts.metadata, resourceVersion: '1' } }, ctx) ?? []).map(fieldErrorString), [
    "spec: Forbidden: updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden",
  ]);

  const ds = create(daemonSets, { selector: { matchLabels: { app: 'agent' } }, template: template({ app: 'agent' }) });
  assert.deepEqual((ds.spec as Record<string, unknown>).updateStrategy, { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1, maxSurge: 0 } });
  assert.deepEqual(ds.status, {});
  assert.deepEqual(errors(daemonSets, ds), []);
  assert.equal(daemonSets.printerColumns.find((c) => c.name === 'Node Selector')?.cell(ds), '<none>');
  // The template generation: 1 at create, one more for each template change only, not settable by clients.
  assert.deepEqual(ds.metadata.annotations, { 'deprecated.daemonset.template.generation': '1' });
  const update = (spec: Record<string, unknown>, annotations: Record<string, string> = {}) => {
    const next: KubeObject = { metadata: { ...structuredClone(ds.metadata), annotations }, spec: { ...structuredClone(ds.spec as Record<string, unknown>), ...spec } };
    daemonSets.strategy.prepareForUpdate?.(next, ds, ctx);
    return next.metadata.annotations;
  };
  assert.deepEqual(update({ minReadySeconds: 5 }), { 'deprecated.daemonset.template.generation': '1' });
  assert.deepEqual(update({ template: template({ app: 'agent', v: '2' }) }, { 'deprecated.daemonset.template.generation': '9' }), { 'deprecated.daemonset.template.generation': '2' });
});

function statusErrors(facts: typeof deployments, obj: KubeObject, status: Record<string, unknown>, oldStatus: Record<string, unknown> = {}): string[] {
  const sub = facts.strategy.subresources?.status;
  assert.ok(sub);
  const meta = { ...obj.metadata, resourceVersion: '3' };
  return (sub.validateUpdate?.({ ...structuredClone(obj), metadata: meta, status }, { ...structuredClone(obj), metadata: meta, status: oldStatus }, ctx) ?? []).map(fieldErrorString);
}

test('workload status writes are checked as kube 1.31 checks them, collision counts only grow', () => {
  const rs = create(replicaSets, { selector: { matchLabels: { app: 'web' } }, template: template({ app: 'web' }) });
  assert.deepEqual(statusErrors(replicaSets, rs, { replicas: 1, readyReplicas: 2, availableReplicas: 3, observedGeneration: -1 }), [
    'status.observedGeneration: Invalid value: -1: must be greater than or equal to 0',
    'status.readyReplicas: Invalid value: 2: cannot be greater than status.replicas',
    'status.availableReplicas: Invalid value: 3: cannot be greater than status.replicas',
    'status.availableReplicas: Invalid value: 3: cannot be greater than readyReplicas',
  ]);
  const sts = create(statefulSets, { serviceName: 'web', selector: { matchLabels: { app: 'web' } }, template: template({ app: 'web' }) });
  assert.deepEqual(statusErrors(statefulSets, sts, { replicas: 2, readyReplicas: 1, currentReplicas: 3, availableReplicas: 2, collisionCount: 1 }, { collisionCount: 2 }), [
    'status.currentReplicas: Invalid value: 3: cannot be greater than status.replicas',
    'status.availableReplicas: Invalid value: 2: cannot be greater than status.readyReplicas',
    'status.collisionCount: Invalid value: 1: cannot be decremented',
  ]);
  assert.deepEqual(statusErrors(statefulSets, sts, { replicas: 1, readyReplicas: 1, availableReplicas: 1, collisionCount: 2 }, { collisionCount: 2 }), []);
  const d = create(deployments, { selector: { matchLabels: { app: 'web' } }, template: template({ app: 'web' }) });
  assert.deepEqual(statusErrors(deployments, d, { replicas: 1, collisionCount: -1 }), ['status.collisionCount: Invalid value: -1: must be greater than or equal to 0']);
  assert.deepEqual(statusErrors(deployments, d, { replicas: 1 }, { collisionCount: 1 }), ['status.collisionCount: Invalid value: 0: cannot be decremented']);
  const ds = create(daemonSets, { selector: { matchLabels: { app: 'agent' } }, template: template({ app: 'agent' }) });
  assert.deepEqual(statusErrors(daemonSets, ds, { currentNumberScheduled: -1, numberMisscheduled: 0, desiredNumberScheduled: 1, numberReady: -2, numberUnavailable: -3 }), [
    'status.currentNumberScheduled: Invalid value: -1: must be greater than or equal to 0',
    'status.numberReady: Invalid value: -2: must be greater than or equal to 0',
    'status.numberUnavailable: Invalid value: -3: must be greater than or equal to 0',
  ]);
});

test('daemon set rolling updates: exactly one of maxUnavailable and maxSurge, each at most 100%', () => {
  const ds = (rollingUpdate: Record<string, unknown>) =>
    errors(daemonSets, create(daemonSets, { selector: { matchLabels: { app: 'a' } }, template: template({ app: 'a' }), updateStrategy: { type: 'RollingUpdate', rollingUpdate } }));
  assert.deepEqual(ds({ maxUnavailable: 0, maxSurge: 0 }), ['spec.updateStrategy.rollingUpdate.maxUnavailable: Required value: cannot be 0 when maxSurge is 0']);
  assert.deepEqual(ds({ maxUnavailable: 1, maxSurge: '10%' }), ['spec.updateStrategy.rollingUpdate.maxSurge: Invalid value: intstr.IntOrString{Type:1, IntVal:0, StrVal:"10%"}: may not be set when maxUnavailable is non-zero']);
  assert.deepEqual(ds({ maxUnavailable: 0, maxSurge: '150%' }), ['spec.updateStrategy.rollingUpdate.maxSurge: Invalid value: intstr.IntOrString{Type:1, IntVal:0, StrVal:"150%"}: must not be greater than 100%']);
  // IntValue() reads a numeric string: "2" is not a percent, but it is not 0 either.
  assert.deepEqual(ds({ maxUnavailable: '2', maxSurge: 0 }), [
    `spec.updateStrategy.rollingUpdate.maxUnavailable: Invalid value: intstr.IntOrString{Type:1, IntVal:0, StrVal:"2"}: a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')`,
  ]);
  assert.deepEqual(
    errors(daemonSets, create(daemonSets, { selector: { matchLabels: { app: 'a' } }, template: template({ app: 'a' }), updateStrategy: { type: 'Sometimes' } })),
    ['spec.updateStrategy: Unsupported value: apps.DaemonSetUpdateStrategy{Type:"Sometimes", RollingUpdate:(*apps.RollingUpdateDaemonSet)(nil)}: supported values: "RollingUpdate", "OnDelete"'],
  );
  assert.deepEqual(
    errors(deployments, create(deployments, { selector: { matchLabels: { app: 'a' } }, template: template({ app: 'a' }), strategy: { type: 'Blue', rollingUpdate: { maxSurge: 1 } } })),
    [
      'spec.strategy: Unsupported value: apps.DeploymentStrategy{Type:"Blue", RollingUpdate:(*apps.RollingUpdateDeployment)(apps.RollingUpdateDeployment{MaxUnavailable:intstr.IntOrString{Type:0, IntVal:0, StrVal:""}, MaxSurge:intstr.IntOrString{Type:0, IntVal:1, StrVal:""}})}: supported values: "Recreate", "RollingUpdate"',
    ],
  );
});

test('stateful sets: maxUnavailable only behind MaxUnavailableStatefulSet, pod annotations of the template checked', () => {
  const spec = (updateStrategy: Record<string, unknown>, annotations?: Record<string, string>) => ({
    serviceName: 'web',
    selector: { matchLabels: { app: 'web' } },
    template: { ...template({ app: 'web' }), metadata: { labels: { app: 'web' }, annotations } },
    updateStrategy,
  });
  const sts = create(statefulSets, spec({ type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 0 } }));
  sts.metadata.resourceVersion = '3';
  assert.deepEqual((sts.spec as Record<string, unknown>).updateStrategy, { type: 'RollingUpdate', rollingUpdate: { partition: 0 } });
  // An object stored with the field keeps it, and it is checked.
  const old = structuredClone(sts);
  ((old.spec as { updateStrategy: { rollingUpdate: Record<string, unknown> } }).updateStrategy.rollingUpdate).maxUnavailable = 2;
  const next = structuredClone(old);
  ((next.spec as { updateStrategy: { rollingUpdate: Record<string, unknown> } }).updateStrategy.rollingUpdate).maxUnavailable = 0;
  statefulSets.strategy.prepareForUpdate?.(next, old, ctx);
  assert.deepEqual((statefulSets.strategy.validateUpdate?.(next, old, ctx) ?? []).map(fieldErrorString), ['spec.updateStrategy.rollingUpdate.maxUnavailable: Invalid value: intstr.IntOrString{Type:0, IntVal:0, StrVal:""}: cannot be 0']);
  assert.deepEqual(errors(statefulSets, create(statefulSets, spec({ type: 'OnDelete', rollingUpdate: { partition: 1 } }))), [
    "spec.updateStrategy.rollingUpdate: Invalid value: apps.RollingUpdateStatefulSetStrategy{Partition:1, MaxUnavailable:(*intstr.IntOrString)(nil)}: only allowed for updateStrategy 'RollingUpdate'",
  ]);
  assert.deepEqual(errors(statefulSets, create(statefulSets, spec({ type: 'RollingUpdate' }, { 'controller.kubernetes.io/pod-deletion-cost': 'high' }))), [
    'spec.template.annotations[controller.kubernetes.io/pod-deletion-cost]: Invalid value: "high": must be a 32bit integer',
  ]);
});
