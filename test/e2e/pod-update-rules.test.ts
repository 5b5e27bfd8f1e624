// Pod updates and pod status writes through kubectl against a real Capstan, as kube 1.31's ValidatePodUpdate and
// ValidatePodStatusUpdate answer them, and a workload template update keeping what its stored template held.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestServer } from './helpers.ts';
import type { TestServer } from './helpers.ts';

const FORBIDDEN_TEXT =
  'spec: Forbidden: pod updates may not change fields other than `spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)';

describe('pod update and pod status rules through kubectl', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer();
  });
  after(async () => {
    await s?.close();
  });

  const ok = (args: string[], input?: string) => s.kubectlOk(args, { input });
  const refused = (args: string[], input?: string) => s.kubectlRefused(args, { input });
  const pod = (name: string, spec: Record<string, unknown>) => JSON.stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'default' }, spec });
  const statusPatch = (name: string, status: unknown) => ['patch', 'pod', name, '--subresource=status', '--type=merge', '-p', JSON.stringify({ status })];

  test('a resources change is refused for the QoS class it changes and for the field it touches', async () => {
    await ok(['create', '-f', '-'], pod('qos', { containers: [{ name: 'app', image: 'nginx' }] }));
    const message = await refused(['patch', 'pod', 'qos', '--type=json', '-p', '[{"op":"add","path":"/spec/containers/0/resources","value":{"requests":{"cpu":"100m"}}}]']);
    const lines = message.split('\n');
    assert.deepEqual(lines.slice(0, 3), ['The Pod "qos" is invalid: ', '* metadata: Invalid value: "BestEffort": Pod QoS is immutable', `* ${FORBIDDEN_TEXT}`]);
    await ok(['set', 'image', 'pod/qos', 'app=nginx:1.27']);
  });

  test('an added toleration is validated and an existing one may not change', async () => {
    await ok(['create', '-f', '-'], pod('tolerant', { containers: [{ name: 'app', image: 'nginx' }], tolerations: [{ key: 'a', operator: 'Exists' }] }));
    // The default not-ready and unreachable tolerations come first; the message names the repeated error once.
    const bad = 'spec.tolerations[3].operator: Invalid value: core.Toleration{Key:"b", Operator:"Exists", Value:"x", Effect:"", TolerationSeconds:(*int64)(nil)}: value must be empty when `operator` is \'Exists\'';
    assert.equal(
      await refused(['patch', 'pod', 'tolerant', '--type=json', '-p', '[{"op":"add","path":"/spec/tolerations/-","value":{"key":"b","operator":"Exists","value":"x"}}]']),
      `The Pod "tolerant" is invalid: ${bad}`,
    );
    assert.equal(
      await refused(['patch', 'pod', 'tolerant', '--type=json', '-p', '[{"op":"replace","path":"/spec/tolerations/0/key","value":"c"}]']),
      'The Pod "tolerant" is invalid: spec.tolerations: Forbidden: existing toleration can not be modified except its tolerationSeconds',
    );
    await ok(['patch', 'pod', 'tolerant', '--type=json', '-p', '[{"op":"add","path":"/spec/tolerations/-","value":{"key":"b","operator":"Exists"}}]']);
  });

  test('a gated pod may add node selector entries but not change them', async () => {
    await ok(['create', '-f', '-'], pod('gated', { containers: [{ name: 'app', image: 'nginx' }], schedulingGates: [{ name: 'wait' }], nodeSelector: { disk: 'ssd' } }));
    await ok(['patch', 'pod', 'gated', '--type=merge', '-p', '{"spec":{"nodeSelector":{"gpu":"yes"}}}']);
    assert.equal(
      await refused(['patch', 'pod', 'gated', '--type=merge', '-p', '{"spec":{"nodeSelector":{"disk":"hdd"}}}']),
      'The Pod "gated" is invalid: spec.nodeSelector: Invalid value: map[string]string{"disk":"hdd", "gpu":"yes"}: only additions to spec.nodeSelector are allowed (no mutations or deletions)',
    );
    assert.equal(
      await refused(['patch', 'pod', 'gated', '--type=json', '-p', '[{"op":"add","path":"/spec/schedulingGates/-","value":{"name":"more"}}]']),
      "The Pod \"gated\" is invalid: spec.schedulingGates[1].name: Forbidden: only deletion is allowed, but found new scheduling gate 'more'",
    );
  });

  test('status writes: IPs checked, terminated containers of a Never pod stay terminated, the QoS class may change', async () => {
    await ok(['create', '-f', '-'], pod('once', { containers: [{ name: 'app', image: 'nginx' }], restartPolicy: 'Never', nodeName: 'nowhere' }));
    assert.equal(
      await refused(statusPatch('once', { podIPs: [{ ip: '10.0.0.1' }, { ip: '10.0.0.1' }] })),
      [
        'The Pod "once" is invalid: ',
        '* status.podIPs: Invalid value: []core.PodIP{core.PodIP{IP:"10.0.0.1"}, core.PodIP{IP:"10.0.0.1"}}: may specify no more than one IP for each IP family',
        '* status.podIPs[1]: Duplicate value: core.PodIP{IP:"10.0.0.1"}',
      ].join('\n'),
    );
    assert.equal(
      await refused(statusPatch('once', { hostIP: '10.1.0.2', hostIPs: [{ ip: '10.1.0.1' }] })),
      'The Pod "once" is invalid: status.hostIPs[0].ip: Invalid value: "10.1.0.1": must be equal to `hostIP`',
    );
    const terminated = { containerStatuses: [{ name: 'app', image: 'nginx', imageID: '', ready: false, restartCount: 0, state: { terminated: { exitCode: 0, reason: 'Completed' } } }] };
    await ok(statusPatch('once', terminated));
    const running = { containerStatuses: [{ name: 'app', image: 'nginx', imageID: '', ready: true, restartCount: 0, state: { running: { startedAt: '2024-01-01T00:00:00Z' } } }] };
    assert.equal(
      await refused(statusPatch('once', running)),
      'The Pod "once" is invalid: status.containerStatuses[0].state: Forbidden: may not be transitioned to non-terminated state',
    );
    await ok(statusPatch('once', { qosClass: 'Guaranteed' }));
    assert.equal(await ok(['get', 'pod', 'once', '-o', 'jsonpath={.status.qosClass}']), 'Guaranteed');
  });

  test('a deployment template update may not add a host network sysctl', async () => {
    const template = (sysctls: unknown[]) => ({
      metadata: { labels: { app: 'web' } },
      spec: { hostNetwork: true, securityContext: { sysctls }, containers: [{ name: 'app', image: 'nginx' }] },
    });
    await ok(['create', '-f', '-'], JSON.stringify({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', namespace: 'default' }, spec: { selector: { matchLabels: { app: 'web' } }, template: template([]) } }));
    assert.equal(
      await refused(['patch', 'deployment', 'web', '--type=merge', '-p', JSON.stringify({ spec: { template: { spec: { securityContext: { sysctls: [{ name: 'net.core.somaxconn', value: '1024' }] } } } } })]),
      'The Deployment "web" is invalid: spec.template.spec.securityContext.sysctls[0].name: Invalid value: "net.core.somaxconn": may not be specified when \'hostNetwork\' is true',
    );
  });
});
