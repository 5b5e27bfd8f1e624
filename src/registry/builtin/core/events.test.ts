import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fieldErrorString } from '../../../apis/errors.ts';
import type { KubeObject } from '../../types.ts';
import { builtinTypeFacts } from '../index.ts';
import { testContext as ctx } from '../test-context.ts';

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
