import { test } from 'node:test';
import assert from 'node:assert/strict';
import { zoneKey, zoneState } from './node-lifecycle.ts';

const ready = (status: string) => ({ type: 'Ready', status });

test("zoneState: full disruption when no node is Ready; partial past 2 and 55% not Ready; normal otherwise", () => {
  assert.equal(zoneState([ready('Unknown')]), 'FullDisruption');
  assert.equal(zoneState([undefined, ready('False')]), 'FullDisruption');
  assert.equal(zoneState([ready('True'), ready('Unknown')]), 'Normal');
  assert.equal(zoneState([ready('True'), ready('Unknown'), ready('False')]), 'Normal');
  assert.equal(zoneState([ready('True'), ready('Unknown'), ready('False'), undefined]), 'PartialDisruption');
  assert.equal(zoneState([ready('True'), ready('True'), ready('Unknown'), ready('False'), ready('False')]), 'PartialDisruption');
  assert.equal(zoneState([ready('True'), ready('True'), ready('True'), ready('Unknown'), ready('False'), ready('False')]), 'Normal');
  assert.equal(zoneState([]), 'Normal');
});

test('zoneKey: region and zone from the GA labels, else the deprecated ones; empty without either', () => {
  const node = (labels: Record<string, string>) => ({ metadata: { name: 'n', labels } });
  assert.equal(zoneKey(node({})), '');
  assert.equal(zoneKey(node({ 'topology.kubernetes.io/region': 'r1', 'topology.kubernetes.io/zone': 'a' })), 'r1:\u0000:a');
  assert.equal(zoneKey(node({ 'failure-domain.beta.kubernetes.io/zone': 'b' })), ':\u0000:b');
});
