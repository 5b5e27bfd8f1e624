import { test } from 'node:test';
import assert from 'node:assert/strict';
import { convertEvent, EVENTS_GROUP_FIELD_LABELS } from './events.ts';
import type { KubeObject } from '../../types.ts';

const meta = { name: 'web.17', namespace: 'default', uid: 'u1', creationTimestamp: '2024-01-01T00:00:00Z' };
const ref = { kind: 'Pod', namespace: 'default', name: 'web', uid: 'p1', apiVersion: 'v1', resourceVersion: '7', fieldPath: 'spec.containers{app}' };
const related = { kind: 'Node', name: 'n1', apiVersion: 'v1' };

const newApi: KubeObject = {
  kind: 'Event',
  apiVersion: 'events.k8s.io/v1',
  metadata: meta,
  eventTime: '2024-01-01T00:00:00.123456Z',
  series: { count: 3, lastObservedTime: '2024-01-01T00:01:00.000000Z' },
  reportingController: 'example.com/ctl',
  reportingInstance: 'ctl-1',
  action: 'Scheduling',
  reason: 'Scheduled',
  regarding: ref,
  related,
  note: 'assigned default/web to n1',
  type: 'Normal',
  deprecatedSource: { component: 'scheduler', host: 'h1' },
  deprecatedFirstTimestamp: '2024-01-01T00:00:00Z',
  deprecatedLastTimestamp: '2024-01-01T00:01:00Z',
  deprecatedCount: 3,
};

const core: KubeObject = {
  kind: 'Event',
  apiVersion: 'v1',
  metadata: meta,
  involvedObject: ref,
  reason: 'Scheduled',
  message: 'assigned default/web to n1',
  source: { component: 'scheduler', host: 'h1' },
  firstTimestamp: '2024-01-01T00:00:00Z',
  lastTimestamp: '2024-01-01T00:01:00Z',
  count: 3,
  type: 'Normal',
  eventTime: '2024-01-01T00:00:00.123456Z',
  series: { count: 3, lastObservedTime: '2024-01-01T00:01:00.000000Z' },
  action: 'Scheduling',
  related,
  reportingComponent: 'example.com/ctl',
  reportingInstance: 'ctl-1',
};

test('events.k8s.io/v1 -> core v1 maps every field, in core serialization order', () => {
  const out = convertEvent(newApi, 'v1');
  assert.deepEqual(out, core);
  assert.deepEqual(Object.keys(out), Object.keys(core));
});

test('core v1 -> events.k8s.io/v1 maps every field, in events.k8s.io serialization order', () => {
  const out = convertEvent(core, 'events.k8s.io/v1');
  assert.deepEqual(out, newApi);
  assert.deepEqual(Object.keys(out), Object.keys(newApi));
});

test('round trips keep every field', () => {
  assert.deepEqual(convertEvent(convertEvent(newApi, 'v1'), 'events.k8s.io/v1'), newApi);
  assert.deepEqual(convertEvent(convertEvent(core, 'events.k8s.io/v1'), 'v1'), core);
});

test('unset fields come out as Go serializes them in each version', () => {
  const minimalCore: KubeObject = { kind: 'Event', apiVersion: 'v1', metadata: { name: 'e', namespace: 'default' }, involvedObject: { kind: 'Pod', name: 'web' }, reason: 'Started', message: 'hi' };
  assert.deepEqual(convertEvent(minimalCore, 'events.k8s.io/v1'), {
    kind: 'Event',
    apiVersion: 'events.k8s.io/v1',
    metadata: { name: 'e', namespace: 'default' },
    eventTime: null,
    reason: 'Started',
    regarding: { kind: 'Pod', name: 'web' },
    note: 'hi',
    deprecatedSource: {},
    deprecatedFirstTimestamp: null,
    deprecatedLastTimestamp: null,
  });
  const minimalNew: KubeObject = { kind: 'Event', apiVersion: 'events.k8s.io/v1', metadata: { name: 'e' }, eventTime: '2024-01-01T00:00:00.000000Z', reason: 'R' };
  assert.deepEqual(convertEvent(minimalNew, 'v1'), {
    kind: 'Event',
    apiVersion: 'v1',
    metadata: { name: 'e' },
    involvedObject: {},
    reason: 'R',
    source: {},
    firstTimestamp: null,
    lastTimestamp: null,
    eventTime: '2024-01-01T00:00:00.000000Z',
    reportingComponent: '',
    reportingInstance: '',
  });
});

test('conversion leaves its input alone', () => {
  const input = structuredClone(newApi);
  const out = convertEvent(input, 'v1');
  (out.involvedObject as Record<string, unknown>).name = 'changed';
  out.metadata.name = 'changed';
  assert.deepEqual(input, newApi);
});

test('events.k8s.io field selectors name their core counterparts', () => {
  assert.equal(EVENTS_GROUP_FIELD_LABELS['regarding.name'], 'involvedObject.name');
  assert.equal(EVENTS_GROUP_FIELD_LABELS.reportingController, 'reportingComponent');
  assert.equal(EVENTS_GROUP_FIELD_LABELS.source, undefined);
  assert.deepEqual(Object.keys(EVENTS_GROUP_FIELD_LABELS).length, 10);
});
