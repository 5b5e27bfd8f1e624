import { test } from 'node:test';
import assert from 'node:assert/strict';
import { builtinDefinitions } from '../../registry.ts';
import { storageKind, storageVersionHash } from '../../../endpoints/discovery-documents.ts';

const defs = builtinDefinitions('');
const find = (group: string, version: string, resource: string) => defs.find((d) => d.group === group && d.version === version && d.resource === resource)!;

test('events of both APIs share core events\' storage, stored as core v1', () => {
  const core = find('', 'v1', 'events');
  const group = find('events.k8s.io', 'v1', 'events');
  assert.equal(core.storagePrefix, '/registry/events');
  assert.equal(group.storagePrefix, '/registry/events');
  assert.equal(group.storageVersion, 'v1');
  assert.deepEqual(storageKind(group, defs), { group: '', version: 'v1', kind: 'Event' });
  assert.equal(storageVersionHash('', 'v1', 'Event'), 'r2yiGXH7wu8=');
});

test('HPAs of both versions are stored as autoscaling/v2', () => {
  for (const version of ['v1', 'v2']) {
    const def = find('autoscaling', version, 'horizontalpodautoscalers');
    assert.equal(def.storagePrefix, '/registry/horizontalpodautoscalers');
    assert.equal(def.storageVersion, 'autoscaling/v2');
    assert.deepEqual(storageKind(def, defs), { group: 'autoscaling', version: 'v2', kind: 'HorizontalPodAutoscaler' });
  }
  assert.equal(storageVersionHash('autoscaling', 'v2', 'HorizontalPodAutoscaler'), 'qwQve8ut294=');
});

test('other resources keep their own prefix and no conversion', () => {
  const cm = find('', 'v1', 'configmaps');
  assert.equal(cm.storagePrefix, '/registry/configmaps');
  assert.equal(cm.storageVersion, undefined);
  assert.equal(cm.convert, undefined);
});
