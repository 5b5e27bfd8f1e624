import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fieldErrorString } from '../../../apis/errors.ts';
import type { KubeObject } from '../../types.ts';
import { builtinTypeFacts } from '../index.ts';
import { testContext as ctx } from '../test-context.ts';

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
    'spec.taints[0].effect: Unsupported value: "Sometimes": supported values: "NoSchedule", "PreferNoSchedule", "NoExecute"',
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

