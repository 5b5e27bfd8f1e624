// PodDisruptionBudgets through kubectl as kube 1.31 validates them (pkg/apis/policy/validation and
// pkg/registry/policy/poddisruptionbudget/strategy.go): the spec struct in the both-bounds message, no ObjectMeta
// checks of their own, conditional updates only, and the status conditions a status write is checked for.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestServer } from './helpers.ts';
import type { TestServer } from './helpers.ts';

describe('pod disruption budget rules through kubectl', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer();
  });
  after(async () => {
    await s?.close();
  });

  const refused = (args: string[], input?: string) => s.kubectlRefused(args, { input });
  const budget = (name: string, spec: Record<string, unknown>) =>
    JSON.stringify({ apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: { name, namespace: 'default' }, spec: { selector: { matchLabels: { app: 'web' } }, ...spec } });

  test('both bounds print the whole spec as Go prints it', async () => {
    assert.equal(
      await refused(['create', '-f', '-'], budget('both', { minAvailable: 1, maxUnavailable: '50%', unhealthyPodEvictionPolicy: 'AlwaysAllow' })),
      'The PodDisruptionBudget "both" is invalid: spec: Invalid value: policy.PodDisruptionBudgetSpec{MinAvailable:(*intstr.IntOrString)(intstr.IntOrString{Type:0, IntVal:1, StrVal:""}), ' +
        'Selector:(*v1.LabelSelector)(v1.LabelSelector{MatchLabels:map[string]string{"app":"web"}, MatchExpressions:[]v1.LabelSelectorRequirement(nil)}), ' +
        'MaxUnavailable:(*intstr.IntOrString)(intstr.IntOrString{Type:1, IntVal:0, StrVal:"50%"}), UnhealthyPodEvictionPolicy:(*policy.UnhealthyPodEvictionPolicyType)("AlwaysAllow")}: ' +
        'minAvailable and maxUnavailable cannot be both set',
    );
  });

  test('names are only path segments and finalizers need no domain; a PUT needs a resourceVersion', async () => {
    const odd = JSON.stringify({ apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: { name: 'Web_Budget', namespace: 'default', finalizers: ['custom'] }, spec: { minAvailable: 1 } });
    await s.kubectlOk(['create', '-f', '-'], { input: odd });
    await s.kubectlOk(['patch', 'pdb', 'Web_Budget', '--type=json', '-p', '[{"op":"remove","path":"/metadata/finalizers"}]']);
    await s.kubectlOk(['create', '-f', '-'], { input: budget('web', { minAvailable: 1 }) });
    // kubectl replace fills the resourceVersion in itself; a client that does not gets kube's refusal.
    const put = await s.adminRequest('/apis/policy/v1/namespaces/default/poddisruptionbudgets/web', { method: 'PUT', headers: { 'content-type': 'application/json' }, body: budget('web', { minAvailable: 2 }) });
    assert.equal(put.status, 422);
    assert.equal(JSON.parse(put.body).message, 'poddisruptionbudgets.policy "web" is invalid: metadata.resourceVersion: Invalid value: 0x0: must be specified for an update');
    await s.kubectlOk(['patch', 'pdb', 'web', '--type=merge', '-p', '{"spec":{"minAvailable":2}}']);
    assert.equal(await s.kubectlOk(['get', 'pdb', 'web', '-o', 'jsonpath={.spec.minAvailable} {.metadata.generation}']), '2 2');
  });

  test('a status write is checked for its conditions', async () => {
    assert.equal(
      await refused(['patch', 'pdb', 'web', '--subresource=status', '--type=merge', '-p', '{"status":{"conditions":[{"type":"DisruptionAllowed","status":"Maybe"}]}}']),
      [
        'The PodDisruptionBudget "web" is invalid: ',
        '* status.conditions[0].status: Unsupported value: "Maybe": supported values: "False", "True", "Unknown"',
        '* status.conditions[0].lastTransitionTime: Required value: must be set',
        '* status.conditions[0].reason: Required value: must be set',
      ].join('\n'),
    );
  });
});
