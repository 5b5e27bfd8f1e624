import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fieldErrorString } from '../../../apis/errors.ts';
import type { KubeObject } from '../../types.ts';
import { builtinTypeFacts } from '../index.ts';
import { createErrors, testContext as ctx, updateErrors } from '../test-context.ts';

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
    'metadata.taints[1]: Duplicate value: core.Taint{Key:"a", Value:"x", Effect:"NoSchedule", TimeAdded:(*v1.Time)(nil)}: taints must be unique by key and effect pair',
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
