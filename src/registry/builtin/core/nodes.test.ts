import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fieldErrorString } from '../../../apis/errors.ts';
import type { KubeObject } from '../../types.ts';
import { builtinTypeFacts } from '../index.ts';
import { createErrors, statusUpdateErrors, testContext as ctx, updateErrors } from '../test-context.ts';

const nodes = builtinTypeFacts('', 'nodes');

test('nodes keep their status on create and print kubectl cells', () => {
  const node: KubeObject = {
    metadata: { name: 'n1', labels: { 'node-role.kubernetes.io/control-plane': '', 'kubernetes.io/role': 'worker' } },
    spec: { unschedulable: true, taints: [{ key: 'k', effect: 'Sometimes' }] },
    status: { capacity: { cpu: '4' }, conditions: [{ type: 'Ready', status: 'True' }], nodeInfo: { kubeletVersion: 'v1.31.0' }, addresses: [{ type: 'InternalIP', address: '10.0.0.1' }] },
  };
  nodes.strategy.defaults?.(node);
  nodes.strategy.prepareForCreate?.(node, ctx);
  const status = node.status as Record<string, unknown>;
  assert.deepEqual(status.allocatable, { cpu: '4' });
  assert.deepEqual(status.daemonEndpoints, { kubeletEndpoint: { Port: 0 } });
  assert.deepEqual((nodes.strategy.validate?.(node, ctx) ?? []).map(fieldErrorString), [
    'metadata.taints[0].effect: Unsupported value: "Sometimes": supported values: "NoSchedule", "PreferNoSchedule", "NoExecute"',
  ]);
  const cells = Object.fromEntries(nodes.printerColumns.map((c) => [c.name, c.cell(node)]));
  assert.equal(cells.Status, 'Ready,SchedulingDisabled');
  assert.equal(cells.Roles, 'control-plane,worker');
  assert.equal(cells.Version, 'v1.31.0');
  assert.equal(cells['Internal-IP'], '10.0.0.1');
  assert.equal(cells['External-IP'], '<none>');
  assert.equal(cells['OS-Image'], '<unknown>');
  assert.equal(nodes.selectableFields['spec.unschedulable'](node), 'true');
});


// Source: pkg/apis/core/validation/validation.go (ValidateNode, validateNodeTaints, ValidateNodeUpdate).
test('node taints: unique by key and effect, reported under metadata.taints as kube does', () => {
  const node: KubeObject = { metadata: { name: 'n2' }, spec: { taints: [{ key: 'a', effect: 'NoSchedule' }, { key: 'a', value: 'x', effect: 'NoSchedule' }, { key: 'b' }] } };
  assert.deepEqual(createErrors(nodes, node), [
    'metadata.taints[1]: Duplicate value: core.Taint{Key:"a", Value:"x", Effect:"NoSchedule", TimeAdded:<nil>}: taints must be unique by key and effect pair',
    'metadata.taints[2].effect: Required value',
  ]);
});

test('node pod CIDRs: valid, one per family; set once', () => {
  const node: KubeObject = { metadata: { name: 'n3' }, spec: { podCIDRs: ['10.0.0.0/24', '10.1.0.0/24'] } };
  assert.deepEqual(createErrors(nodes, node), ['spec.podCIDRs: Invalid value: []string{"10.0.0.0/24", "10.1.0.0/24"}: may specify no more than one CIDR for each IP family']);
  const old: KubeObject = { metadata: { name: 'n3', resourceVersion: '2' }, spec: { podCIDRs: ['10.0.0.0/24'], providerID: 'p1' } };
  assert.deepEqual(updateErrors(nodes, { metadata: { name: 'n3' }, spec: { podCIDRs: ['10.9.0.0/24'], providerID: 'p2' } }, old), [
    'spec.podCIDRs: Forbidden: node updates may not change podCIDR except from "" to valid',
    'spec.providerID: Forbidden: node updates may not change providerID except from "" to valid',
  ]);
  assert.deepEqual(updateErrors(nodes, { metadata: { name: 'n3' }, spec: { podCIDRs: ['10.0.0.0/24'], providerID: 'p1', unschedulable: true } }, old), []);
});

test('dynamic kubelet configuration: dropped on create, kept on update only where the node had it; externalID warned about', () => {
  const node: KubeObject = { metadata: { name: 'n2' }, spec: { externalID: 'i-123', configSource: { configMap: { name: 'c' } } }, status: { config: { active: {} } } };
  nodes.strategy.defaults?.(node);
  nodes.strategy.prepareForCreate?.(node, ctx);
  assert.equal((node.spec as Record<string, unknown>).configSource, undefined);
  assert.equal((node.status as Record<string, unknown>).config, undefined);
  assert.deepEqual(nodes.strategy.warnings?.(node, undefined), ['spec.externalID: this field is deprecated, and is unused by Kubernetes']);

  const update: KubeObject = { ...structuredClone(node), spec: { configSource: { configMap: { name: 'c' } } } };
  nodes.strategy.prepareForUpdate?.(update, node, ctx);
  assert.equal((update.spec as Record<string, unknown>).configSource, undefined);
  const had: KubeObject = { ...structuredClone(node), spec: { configSource: { configMap: { name: 'old' } } } };
  const kept: KubeObject = { ...structuredClone(node), spec: { configSource: { configMap: { name: 'new' } } } };
  nodes.strategy.prepareForUpdate?.(kept, had, ctx);
  assert.deepEqual((kept.spec as Record<string, unknown>).configSource, { configMap: { name: 'new' } });
  assert.deepEqual(nodes.strategy.warnings?.(kept, had), ['spec.configSource: the feature is removed']);
});

// %#v calls time.Time's GoString through the *metav1.Time; a nil one panics inside fmt, which prints <nil>.
test('a duplicate taint prints its timeAdded as time.Date in time.Local', () => {
  const taint = { key: 'a', effect: 'NoExecute', timeAdded: '2024-05-06T07:08:09.5Z' };
  assert.deepEqual(createErrors(nodes, { metadata: { name: 'n4' }, spec: { taints: [taint, taint] } }), [
    'metadata.taints[1]: Duplicate value: core.Taint{Key:"a", Value:"", Effect:"NoExecute", TimeAdded:time.Date(2024, time.May, 6, 7, 8, 9, 500000000, time.Local)}: taints must be unique by key and effect pair',
  ]);
});

test('pod CIDRs: each one checked by IsValidCIDR, then the dual-stack check and repeats', () => {
  assert.deepEqual(createErrors(nodes, { metadata: { name: 'n5' }, spec: { podCIDRs: ['bogus'] } }), [
    'spec.podCIDRs[0]: Invalid value: "bogus": must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)',
  ]);
  assert.deepEqual(createErrors(nodes, { metadata: { name: 'n5' }, spec: { podCIDRs: ['10.0.0.0/24', 'bogus'] } }), [
    'spec.podCIDRs[1]: Invalid value: "bogus": must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)',
    'spec.podCIDRs: Internal error: invalid PodCIDRs. failed to check with dual stack with error:failed to parse cidr value:"bogus" with error:invalid CIDR address: bogus',
    'spec.podCIDRs: Invalid value: []string{"10.0.0.0/24", "bogus"}: may specify no more than one CIDR for each IP family',
  ]);
  assert.deepEqual(createErrors(nodes, { metadata: { name: 'n5' }, spec: { podCIDRs: ['10.0.0.0/24', '10.0.0.0/24', 'fd00::/64'] } }), [
    'spec.podCIDRs: Invalid value: []string{"10.0.0.0/24", "10.0.0.0/24", "fd00::/64"}: may specify no more than one CIDR for each IP family',
    'spec.podCIDRs[1]: Duplicate value: "10.0.0.0/24"',
  ]);
  assert.deepEqual(createErrors(nodes, { metadata: { name: 'n5' }, spec: { podCIDRs: ['10.0.0.0/24', 'fd00::/64'] } }), []);
});

test('capacity and allocatable: not negative, whole numbers for integer resources', () => {
  assert.deepEqual(createErrors(nodes, { metadata: { name: 'n6' }, status: { capacity: { cpu: '-1' }, allocatable: { cpu: '1' } } }), [
    'status.capacity.cpu: Invalid value: "-1": must be greater than or equal to 0',
  ]);
  assert.deepEqual(createErrors(nodes, { metadata: { name: 'n6' }, status: { capacity: { pods: '1.5' }, allocatable: { pods: '1' } } }), [
    'status.capacity.pods: Invalid value: resource.Quantity{i:resource.int64Amount{value:15, scale:-1}, d:resource.infDecAmount{Dec:(*inf.Dec)(nil)}, s:"", Format:"DecimalSI"}: must be an integer',
  ]);
});

test('the serialized taints and preferAvoidPods annotations decode as encoding/json does and hold valid entries', () => {
  const annotated = (annotations: Record<string, string>): KubeObject => ({ metadata: { name: 'n7', annotations } });
  assert.deepEqual(createErrors(nodes, annotated({ 'scheduler.alpha.kubernetes.io/taints': '[x' })), [
    'metadata.annotations: Invalid value: "scheduler.alpha.kubernetes.io/taints": invalid character \'x\' looking for beginning of value',
  ]);
  assert.deepEqual(createErrors(nodes, annotated({ 'scheduler.alpha.kubernetes.io/taints': '[{"key":1}]' })), [
    'metadata.annotations: Invalid value: "scheduler.alpha.kubernetes.io/taints": json: cannot unmarshal number into Go struct field Taint.key of type string',
  ]);
  assert.deepEqual(createErrors(nodes, annotated({ 'scheduler.alpha.kubernetes.io/taints': '[{"key":"k","effect":"Often"}]' })), [
    'metadata.annotations.scheduler.alpha.kubernetes.io/taints[0].effect: Unsupported value: "Often": supported values: "NoSchedule", "PreferNoSchedule", "NoExecute"',
  ]);
  const avoid = '{"preferAvoidPods":[{"podSignature":{}},{"podSignature":{"podController":{"controller":false}}}]}';
  assert.deepEqual(createErrors(nodes, annotated({ 'scheduler.alpha.kubernetes.io/preferAvoidPods': avoid })), [
    'metadata.annotations.scheduler.alpha.kubernetes.io/preferAvoidPods[0].PodSignature: Required value',
    'metadata.annotations.scheduler.alpha.kubernetes.io/preferAvoidPods[1].PodSignature.PodController.Controller: Invalid value: false: must point to a controller',
  ]);
  assert.deepEqual(createErrors(nodes, annotated({ 'scheduler.alpha.kubernetes.io/preferAvoidPods': '{"preferAvoidPods":[{"evictionTime":"yesterday"}]}' })), [
    'metadata.annotations.AvoidPods: Invalid value: "scheduler.alpha.kubernetes.io/preferAvoidPods": parsing time "yesterday" as "2006-01-02T15:04:05Z07:00": cannot parse "yesterday" as "2006"',
  ]);
});

// The strategy runs ValidateNode (ObjectMeta included) and then ValidateNodeUpdate, so ObjectMeta errors come twice.
test('updates: ValidateNode first, then the update rules: config source, status config, externalID', () => {
  const old: KubeObject = {
    metadata: { name: 'n8', resourceVersion: '3' },
    spec: { externalID: 'e1', configSource: { configMap: { name: 'c', namespace: 'kube-system', kubeletConfigKey: 'k' } } },
    status: { config: { active: { configMap: { name: 'c' } } } },
  };
  const label = "metadata.labels: Invalid value: \"a b\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
  const update: KubeObject = { metadata: { name: 'n8', labels: { 'a b': 'x' } }, spec: { externalID: 'e2', configSource: { configMap: { name: 'c', uid: 'u' } } } };
  assert.deepEqual(updateErrors(nodes, update, structuredClone(old)), [
    label,
    label,
    'spec.configSource.configMap.uid: Forbidden: uid must not be set in spec',
    'spec.configSource.configMap.namespace: Required value: namespace must be set',
    'spec.configSource.configMap.kubeletConfigKey: Required value: kubeletConfigKey must be set',
    'status.config.active.configMap.uid: Required value: uid must be set in status',
    'status.config.active.configMap.resourceVersion: Required value: resourceVersion must be set in status',
    'status.config.active.configMap.namespace: Required value: namespace must be set',
    'status.config.active.configMap.kubeletConfigKey: Required value: kubeletConfigKey must be set',
    'spec.externalID: Forbidden: may not be updated',
  ]);
  const status = { config: { active: {} }, addresses: [{ type: 'InternalIP', address: '10.0.0.1' }, { type: 'InternalIP', address: '10.0.0.1' }] };
  assert.deepEqual(statusUpdateErrors(nodes, { metadata: { name: 'n8' }, status }, structuredClone(old)).errors, [
    'status.addresses[1]: Duplicate value: core.NodeAddress{Type:"InternalIP", Address:"10.0.0.1"}',
    'status.config.active: Invalid value: core.NodeConfigSource{ConfigMap:(*core.ConfigMapNodeConfigSource)(nil)}: exactly one reference subfield must be non-nil',
  ]);
});

// pkg/apis/core/v1/conversion.go: the internal NodeSpec holds podCIDRs only.
test('podCIDR converts into podCIDRs (and wins when it differs) and is written back as podCIDRs[0]', () => {
  const single: KubeObject = { metadata: { name: 'n9' }, spec: { podCIDR: 'bogus' } };
  assert.deepEqual(createErrors(nodes, single), ['spec.podCIDRs[0]: Invalid value: "bogus": must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)']);
  assert.deepEqual(single.spec, { podCIDR: 'bogus', podCIDRs: ['bogus'] });
  const differing: KubeObject = { metadata: { name: 'n9' }, spec: { podCIDR: '10.1.0.0/24', podCIDRs: ['10.2.0.0/24', 'fd00::/64'] } };
  nodes.strategy.defaults?.(differing);
  assert.deepEqual(differing.spec, { podCIDR: '10.1.0.0/24', podCIDRs: ['10.1.0.0/24'] });
  const listOnly: KubeObject = { metadata: { name: 'n9' }, spec: { podCIDRs: ['10.2.0.0/24', 'fd00::/64'] } };
  nodes.strategy.defaults?.(listOnly);
  assert.deepEqual(listOnly.spec, { podCIDRs: ['10.2.0.0/24', 'fd00::/64'], podCIDR: '10.2.0.0/24' });
});
