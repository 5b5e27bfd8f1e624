import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fieldErrorString } from '../../../apis/errors.ts';
import type { KubeObject } from '../../types.ts';
import { builtinTypeFacts } from '../index.ts';
import { createErrors, testContext as ctx, updateErrors } from '../test-context.ts';

const events = builtinTypeFacts('', 'events');

test('events: legacy validation, Go-serialized fields, printer and selectors', () => {
  const ev: KubeObject = {
    metadata: { name: 'web.17a1', namespace: 'default' },
    involvedObject: { kind: 'Pod', name: 'web', namespace: 'default', fieldPath: 'spec.containers{c}' },
    reason: 'Pulled',
    message: 'Pulled image\n',
    type: 'Normal',
    source: { component: 'kubelet', host: 'n1' },
    count: 3,
    lastTimestamp: new Date(Date.now() - 120_000).toISOString(),
    firstTimestamp: new Date(Date.now() - 600_000).toISOString(),
  };
  events.strategy.defaults?.(ev);
  assert.equal(ev.eventTime, null);
  assert.equal(ev.reportingComponent, '');
  assert.deepEqual(events.strategy.validate?.(ev, ctx), []);
  const wrongNs = { ...structuredClone(ev), involvedObject: { kind: 'Pod', name: 'web', namespace: 'other' } };
  assert.deepEqual((events.strategy.validate?.(wrongNs, ctx) ?? []).map(fieldErrorString), ['involvedObject.namespace: Invalid value: "other": does not match event.namespace']);
  const cells = events.printerColumns.map((c) => [c.name, c.cell(ev)]);
  assert.deepEqual(cells, [
    ['Last Seen', '2m'],
    ['Type', 'Normal'],
    ['Reason', 'Pulled'],
    ['Object', 'pod/web'],
    ['Subobject', 'spec.containers{c}'],
    ['Source', 'kubelet, n1'],
    ['Message', 'Pulled image'],
    ['First Seen', '10m'],
    ['Count', 3],
    ['Name', 'web.17a1'],
  ]);
  assert.equal(events.selectableFields['involvedObject.name'](ev), 'web');
  assert.equal(events.selectableFields.source(ev), 'kubelet');
  assert.equal(events.selectableFields.reportingComponent(ev), '');
});

// Source: pkg/apis/core/validation/events.go (ValidateEventCreate / ValidateEventUpdate, events.k8s.io/v1 rules).
const groupEvents = builtinTypeFacts('events.k8s.io', 'events');
const v1Event = (extra: Record<string, unknown> = {}): KubeObject => ({
  apiVersion: 'events.k8s.io/v1',
  kind: 'Event',
  metadata: { name: 'web.1', namespace: 'default' },
  eventTime: '2026-01-02T03:04:05.123456Z',
  regarding: { kind: 'Pod', name: 'web', namespace: 'default' },
  reason: 'Started',
  note: 'started',
  type: 'Normal',
  action: 'Start',
  reportingController: 'example.com/ctl',
  reportingInstance: 'ctl-1',
  ...extra,
});

test('events.k8s.io create: valid, then each strict v1 rule', () => {
  assert.deepEqual(createErrors(groupEvents, v1Event()), []);
  assert.deepEqual(createErrors(groupEvents, v1Event({ eventTime: null })), [
    'eventTime: Required value',
  ]);
  assert.deepEqual(createErrors(groupEvents, v1Event({ type: 'Bad' })), ['type: Invalid value: "": has invalid value: Bad']);
  assert.deepEqual(createErrors(groupEvents, v1Event({ deprecatedCount: 3, deprecatedSource: { component: 'x' }, deprecatedFirstTimestamp: '2026-01-01T00:00:00Z' })), [
    'firstTimestamp: Invalid value: "": needs to be unset',
    'count: Invalid value: "": needs to be unset',
    'source: Invalid value: "": needs to be unset',
  ]);
  assert.deepEqual(createErrors(groupEvents, v1Event({ series: { count: 1 } })), ['series.count: Invalid value: "": should be at least 2', 'series.lastObservedTime: Required value']);
  const missing = createErrors(groupEvents, v1Event({ reportingController: '', action: '' }));
  assert.deepEqual([missing[0], missing[1], missing.at(-1)], ['reportingController: Required value', 'reportingController: Invalid value: "": name part must be non-empty', 'action: Required value']);
  const badName = v1Event();
  badName.metadata = { name: 'Web_1', namespace: 'default' };
  assert.equal(createErrors(groupEvents, badName).length, 1);
});

test('events.k8s.io update: the reported facts are immutable, sub-microsecond eventTime changes are not changes', () => {
  const old = v1Event();
  old.metadata = { ...old.metadata, resourceVersion: '5', uid: 'u' };
  assert.deepEqual(updateErrors(groupEvents, v1Event({ eventTime: '2026-01-02T03:04:05.123456789Z' }), old), []);
  assert.deepEqual(updateErrors(groupEvents, v1Event({ reason: 'Stopped', note: 'other' }), old), [
    'reason: Invalid value: "Stopped": field is immutable',
    'message: Invalid value: "other": field is immutable',
    'reason: Invalid value: "Stopped": field is immutable',
  ]);
  assert.deepEqual(updateErrors(groupEvents, v1Event({ series: { count: 2, lastObservedTime: '2026-01-02T03:05:00.000000Z' } }), old), []);
});

test('core/v1 events keep the legacy rules only (no strict v1 checks)', () => {
  const ev: KubeObject = { metadata: { name: 'x', namespace: 'default' }, involvedObject: { kind: 'Pod', namespace: 'default' }, type: 'Odd', count: 4 };
  assert.deepEqual(createErrors(events, ev), []);
  const old = structuredClone(ev);
  old.metadata = { ...old.metadata, resourceVersion: '2' };
  assert.deepEqual(updateErrors(events, { ...structuredClone(ev), reason: 'changed' }, old), []);
});

test('core/v1 events: no ObjectMeta rules of their own (the generic path-segment name check comes later)', () => {
  const ev: KubeObject = { metadata: { name: 'Web_1', namespace: 'default' }, involvedObject: { kind: 'Pod', namespace: 'default' } };
  assert.deepEqual(createErrors(events, ev), []);
  const reported: KubeObject = { metadata: { name: 'web.2', namespace: 'default' }, involvedObject: { kind: 'Pod', namespace: 'default' }, eventTime: '2026-01-02T03:04:05.000001Z', action: 'Pull', reason: 'Pulled', reportingInstance: 'n1' };
  assert.deepEqual(createErrors(events, reported), [
    'reportingComponent: Required value',
    'reportingComponent: Invalid value: "": name part must be non-empty',
    "reportingComponent: Invalid value: \"\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
  ]);
});

test('events.k8s.io: ObjectMeta is checked after the legacy rules and before the strict ones', () => {
  const ev = v1Event({ action: '', series: { count: 1, lastObservedTime: '2026-01-02T03:05:00.000000Z' } });
  ev.metadata = { name: 'Web_1', namespace: 'default' };
  assert.deepEqual(createErrors(groupEvents, ev), [
    'action: Required value',
    "metadata.name: Invalid value: \"Web_1\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
    'series.count: Invalid value: "": should be at least 2',
  ]);
});

test('events.k8s.io update: immutable struct and time fields print as Go prints them', () => {
  const old = v1Event({ deprecatedFirstTimestamp: '2026-01-01T00:00:00Z' });
  old.metadata = { ...old.metadata, resourceVersion: '5' };
  const changed = v1Event({
    regarding: { kind: 'Pod', name: 'db', namespace: 'default' },
    deprecatedSource: { component: 'kubelet' },
    deprecatedFirstTimestamp: '2026-01-01T00:00:01Z',
    related: { kind: 'Node', name: 'n1' },
  });
  assert.deepEqual(updateErrors(groupEvents, changed, old), [
    'involvedObject: Invalid value: core.ObjectReference{Kind:"Pod", Namespace:"default", Name:"db", UID:"", APIVersion:"", ResourceVersion:"", FieldPath:""}: field is immutable',
    'source: Invalid value: core.EventSource{Component:"kubelet", Host:""}: field is immutable',
    'firstTimestamp: Invalid value: 2026-01-01 00:00:01 +0000 UTC: field is immutable',
    'related: Invalid value: core.ObjectReference{Kind:"Node", Namespace:"", Name:"n1", UID:"", APIVersion:"", ResourceVersion:"", FieldPath:""}: field is immutable',
  ]);
  const same = v1Event({ deprecatedFirstTimestamp: '2026-01-01T01:00:00+01:00', deprecatedCount: 0, regarding: { kind: 'Pod', name: 'web', namespace: 'default', uid: '' } });
  assert.deepEqual(updateErrors(groupEvents, same, old), []);
});
