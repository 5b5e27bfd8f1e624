// kubectl against a real Capstan for three kube 1.31 rules: the mandatory flowcontrol objects keep their fixed spec,
// a ValidatingAdmissionPolicy's paramKind (and a binding's paramRef) needs "get" on what it names, and
// ClusterTrustBundles (certificates.k8s.io/v1alpha1) are validated as kube validates them.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestServer } from './helpers.ts';
import type { TestServer } from './helpers.ts';

describe('mandatory flowcontrol objects through kubectl', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer();
  });
  after(async () => {
    await s?.close();
  });

  test('the catch-all flow schema refuses a spec change; its fixed spec stays', async () => {
    const refused = await s.kubectlRefused(['patch', 'flowschema', 'catch-all', '--type=merge', '-p', '{"spec":{"matchingPrecedence":9000}}']);
    assert.match(refused, /^The FlowSchema "catch-all" is invalid: spec: Invalid value: flowcontrol\.FlowSchemaSpec\{PriorityLevelConfiguration:flowcontrol\.PriorityLevelConfigurationReference\{Name:"catch-all"\}, MatchingPrecedence:9000, .*\}: spec of 'catch-all' must equal the fixed value$/);
    assert.equal(await s.kubectlOk(['get', 'flowschema', 'catch-all', '-o', 'jsonpath={.spec.matchingPrecedence}']), '10000');
    // A write of the same spec (a label added) is accepted.
    await s.kubectlOk(['label', 'flowschema', 'catch-all', 'team=ops']);
  });

  test('the catch-all priority level refuses a spec change', async () => {
    assert.equal(
      await s.kubectlRefused(['patch', 'prioritylevelconfiguration', 'catch-all', '--type=merge', '-p', '{"spec":{"limited":{"nominalConcurrencyShares":50}}}']),
      'The PriorityLevelConfiguration "catch-all" is invalid: spec: Invalid value: flowcontrol.PriorityLevelConfigurationSpec{Type:"Limited", Limited:(*flowcontrol.LimitedPriorityLevelConfiguration)(0xc000a1b2c0), Exempt:(*flowcontrol.ExemptPriorityLevelConfiguration)(nil)}: spec of \'catch-all\' must equal the fixed value',
    );
  });

  test('the exempt priority level takes a change of spec.exempt and refuses any other', async () => {
    await s.kubectlOk(['patch', 'prioritylevelconfiguration', 'exempt', '--type=merge', '-p', '{"spec":{"exempt":{"nominalConcurrencyShares":7}}}']);
    assert.equal(await s.kubectlOk(['get', 'prioritylevelconfiguration', 'exempt', '-o', 'jsonpath={.spec.exempt.nominalConcurrencyShares}']), '7');
    assert.equal(
      await s.kubectlRefused(['patch', 'prioritylevelconfiguration', 'exempt', '--type=merge', '-p', '{"spec":{"limited":{"nominalConcurrencyShares":5,"limitResponse":{"type":"Reject"}}}}']),
      'The PriorityLevelConfiguration "exempt" is invalid: \n* spec.limited: Forbidden: must be nil if the type is not Limited\n' +
        '* spec: Invalid value: flowcontrol.PriorityLevelConfigurationSpec{Type:"Exempt", Limited:(*flowcontrol.LimitedPriorityLevelConfiguration)(0xc000a1b2c0), Exempt:(*flowcontrol.ExemptPriorityLevelConfiguration)(0xc000a1b2c0)}: ' +
        "spec of 'exempt' except the 'spec.exempt' field must equal the fixed value",
    );
  });
});
