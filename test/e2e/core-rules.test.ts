// kubectl against a real Capstan: Nodes and Events refused (or accepted) with kube 1.31's messages
// (pkg/apis/core/validation ValidateNode, ValidateNodeUpdate and events.go).

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestServer } from './helpers.ts';
import type { TestServer } from './helpers.ts';

describe('core type rules through kubectl', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer();
  });
  after(async () => {
    await s?.close();
  });

  const ok = (args: string[], input?: string) => s.kubectlOk(args, { input });
  const refused = (args: string[], input?: string) => s.kubectlRefused(args, { input });
  const node = (name: string, spec: Record<string, unknown>) => JSON.stringify({ apiVersion: 'v1', kind: 'Node', metadata: { name }, spec });

  test('node pod CIDRs are checked one by one with the IsValidCIDR message, podCIDR converted into podCIDRs', async () => {
    assert.equal(
      await refused(['create', '-f', '-'], node('cr-cidr', { podCIDRs: ['10.0.0.0/33'] })),
      'The Node "cr-cidr" is invalid: spec.podCIDRs[0]: Invalid value: "10.0.0.0/33": must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)',
    );
    await ok(['create', '-f', '-'], node('cr-cidr', { podCIDRs: ['10.0.0.0/24', 'fd00::/64'] }));
    assert.equal(
      await refused(['create', '-f', '-'], node('cr-single', { podCIDR: 'bogus' })),
      'The Node "cr-single" is invalid: spec.podCIDRs[0]: Invalid value: "bogus": must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)',
    );
    await ok(['create', '-f', '-'], node('cr-single', { podCIDR: '10.1.0.0/24' }));
    assert.equal(await ok(['get', 'node', 'cr-single', '-o', 'jsonpath={.spec.podCIDRs}']), '["10.1.0.0/24"]');
  });

  test('a repeated node taint prints its timeAdded as Go prints a time.Time', async () => {
    const taint = { key: 'k', effect: 'NoExecute', timeAdded: '2024-05-06T07:08:09Z' };
    assert.equal(
      await refused(['create', '-f', '-'], node('cr-taints', { taints: [taint, taint] })),
      'The Node "cr-taints" is invalid: metadata.taints[1]: Duplicate value: core.Taint{Key:"k", Value:"", Effect:"NoExecute", TimeAdded:time.Date(2024, time.May, 6, 7, 8, 9, 0, time.Local)}: taints must be unique by key and effect pair',
    );
  });

  test('a node keeps its externalID', async () => {
    await ok(['create', '-f', '-'], node('cr-external', { externalID: 'i-1' }));
    assert.equal(
      await refused(['patch', 'node', 'cr-external', '--type=merge', '-p', '{"spec":{"externalID":"i-2"}}']),
      'The Node "cr-external" is invalid: spec.externalID: Forbidden: may not be updated',
    );
  });

  test('core/v1 events leave ObjectMeta to the generic checks; events.k8s.io prints an immutable reference as Go does', async () => {
    const involved = { kind: 'Pod', name: 'web', namespace: 'default' };
    await ok(['create', '-f', '-'], JSON.stringify({ apiVersion: 'v1', kind: 'Event', metadata: { name: 'Cr_Event', namespace: 'default' }, involvedObject: involved, reason: 'Pulled' }));
    const v1 = {
      apiVersion: 'events.k8s.io/v1',
      kind: 'Event',
      metadata: { name: 'cr-event.1', namespace: 'default' },
      eventTime: '2026-01-02T03:04:05.000000Z',
      regarding: involved,
      reason: 'Started',
      type: 'Normal',
      action: 'Start',
      reportingController: 'example.com/ctl',
      reportingInstance: 'ctl-1',
    };
    await ok(['create', '-f', '-'], JSON.stringify(v1));
    assert.equal(
      await refused(['patch', 'events.v1.events.k8s.io', 'cr-event.1', '--type=merge', '-p', '{"regarding":{"name":"db"}}']),
      'The Event "cr-event.1" is invalid: involvedObject: Invalid value: core.ObjectReference{Kind:"Pod", Namespace:"default", Name:"db", UID:"", APIVersion:"", ResourceVersion:"", FieldPath:""}: field is immutable',
    );
  });
});
