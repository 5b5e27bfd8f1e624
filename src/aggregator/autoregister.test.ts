import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Registry, ResourceDefinition } from '../registry/types.ts';
import { MANAGED_LABEL, wantedApiServices } from './autoregister.ts';

const registryOf = (defs: Partial<ResourceDefinition>[]): Registry => ({ all: () => defs as ResourceDefinition[] }) as unknown as Registry;

test('built-in group-versions with a kube priority are registered on start, custom resource ones continuously', () => {
  const { onStart, continuously } = wantedApiServices(
    registryOf([
      { group: '', version: 'v1', custom: false },
      { group: 'apps', version: 'v1', custom: false },
      { group: 'apps', version: 'v1', custom: false },
      { group: 'autoscaling', version: 'v2', custom: false },
      { group: 'apiregistration.k8s.io', version: 'v1', custom: false },
      { group: 'metrics.k8s.io', version: 'v1beta1', custom: false },
      { group: 'example.com', version: 'v1', custom: true },
    ]),
  );
  assert.deepEqual([...onStart.keys()], ['v1.', 'v1.apps', 'v2.autoscaling']);
  assert.deepEqual(onStart.get('v1.'), {
    apiVersion: 'apiregistration.k8s.io/v1',
    kind: 'APIService',
    metadata: { name: 'v1.', labels: { [MANAGED_LABEL]: 'onstart' } },
    spec: { version: 'v1', groupPriorityMinimum: 18000, versionPriority: 1 },
  });
  assert.deepEqual((onStart.get('v2.autoscaling') as unknown as { spec: unknown }).spec, { group: 'autoscaling', version: 'v2', groupPriorityMinimum: 17500, versionPriority: 30 });
  assert.deepEqual([...continuously.keys()], ['v1.example.com']);
  assert.deepEqual(continuously.get('v1.example.com')!.metadata.labels, { [MANAGED_LABEL]: 'true' });
  assert.deepEqual((continuously.get('v1.example.com') as unknown as { spec: unknown }).spec, { group: 'example.com', version: 'v1', groupPriorityMinimum: 1000, versionPriority: 100 });
});
