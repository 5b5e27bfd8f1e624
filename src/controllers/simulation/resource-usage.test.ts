import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../registry/types.ts';
import { createResourceUsage, UsageRuleError } from './resource-usage.ts';

const pod = (name: string, labels: Record<string, string>, phase = 'Running', nodeName = 'n1'): KubeObject =>
  ({ metadata: { name, namespace: 'default', labels }, spec: { nodeName, containers: [{ name: 'app' }, { name: 'sidecar' }] }, status: { phase } }) as KubeObject;

const figures = (u: ReturnType<typeof createResourceUsage>, p: KubeObject) => u.pod(p)?.containers.map((c) => [c.name, c.cpu, c.memory]);

test('usage: zero by default; the last matching rule setting a resource wins, per container', () => {
  const u = createResourceUsage((node) => node === 'n1');
  const web = pod('web-1', { app: 'web' });
  assert.deepEqual(figures(u, web), [['app', 0n, 0n], ['sidecar', 0n, 0n]]);
  u.add({ selector: 'app=web', cpu: '250m', memory: '64Mi' });
  u.add({ pod: 'web-1', container: 'sidecar', cpu: '1' });
  u.add({ namespace: 'other', cpu: '9' });
  assert.deepEqual(figures(u, web), [['app', 250_000_000n, 64n * 1024n * 1024n * 1_000_000_000n], ['sidecar', 1_000_000_000n, 64n * 1024n * 1024n * 1_000_000_000n]]);
  assert.deepEqual(figures(u, pod('db-1', { app: 'db' })), [['app', 0n, 0n], ['sidecar', 0n, 0n]]);
});

test('usage: sidecars (init containers that restart always) run and use too; other init containers do not', () => {
  const u = createResourceUsage(() => true);
  const p = pod('with-sidecar', {});
  (p.spec as Record<string, unknown>).initContainers = [{ name: 'setup' }, { name: 'proxy', restartPolicy: 'Always' }];
  u.add({ container: 'proxy', cpu: '50m' });
  assert.deepEqual(figures(u, p), [['proxy', 50_000_000n, 0n], ['app', 0n, 0n], ['sidecar', 0n, 0n]]);
});

test('usage: none for a pod not Running or on a node whose kubelet does not run', () => {
  const u = createResourceUsage((node) => node === 'n1');
  assert.equal(u.pod(pod('a', {}, 'Pending')), undefined);
  assert.equal(u.pod(pod('a', {}, 'Running', 'n2')), undefined);
  assert.ok(u.pod(pod('a', {})));
});

test('usage: rules are listed, removed and cleared, and each change is announced', () => {
  const u = createResourceUsage(() => true);
  let changes = 0;
  u.onChange(() => changes++);
  const a = u.add({ cpu: '1' });
  const b = u.add({ memory: '1Gi', selector: 'x=y' });
  assert.deepEqual(u.list(), [{ id: a.id, rule: { cpu: '1' } }, { id: b.id, rule: { selector: 'x=y', memory: '1Gi' } }]);
  assert.equal(u.remove(a.id), true);
  assert.equal(u.remove(a.id), false);
  u.clear();
  u.clear();
  assert.deepEqual([u.list(), changes], [[], 4]);
  assert.throws(() => u.add({ cpu: '1', selector: 'a b' }), UsageRuleError);
  assert.throws(() => u.add({}), /a rule sets "cpu", "memory" or both/);
});
