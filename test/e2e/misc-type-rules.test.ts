// kubectl against a real Capstan for HorizontalPodAutoscalers, CertificateSigningRequests, Leases, EndpointSlices
// and APIServices: kube 1.31's validation messages and what its strategies change on a write.

import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { signedRequestPem } from '../../src/registry/builtin/certificates/test-requests.ts';
import { startTestServer } from './helpers.ts';

const s = await startTestServer();
after(() => s.close());

const ok = (args: string[], input?: string) => s.kubectlOk(args, { input });
const refused = (args: string[], input?: string) => s.kubectlRefused(args, { input });
const hpa = (name: string, spec: Record<string, unknown>) =>
  JSON.stringify({
    apiVersion: 'autoscaling/v2',
    kind: 'HorizontalPodAutoscaler',
    metadata: { name, namespace: 'default' },
    spec: { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' }, maxReplicas: 3, ...spec },
  });

test('HPA: a negative target prints the Quantity struct; minReplicas 0 needs the HPAScaleToZero gate (pkg/apis/autoscaling/validation)', async () => {
  const pods = { type: 'Pods', pods: { metric: { name: 'qps' }, target: { type: 'AverageValue', averageValue: '-1' } } };
  assert.equal(
    await refused(['create', '-f', '-'], hpa('negative', { metrics: [pods] })),
    'The HorizontalPodAutoscaler "negative" is invalid: spec.metrics[0].pods.target.averageValue: Invalid value: resource.Quantity{i:resource.int64Amount{value:-1, scale:0}, d:resource.infDecAmount{Dec:(*inf.Dec)(nil)}, s:"-1", Format:"DecimalSI"}: must be positive',
  );
  const external = { type: 'External', external: { metric: { name: 'queue' }, target: { type: 'Value', value: '5' } } };
  assert.equal(
    await refused(['create', '-f', '-'], hpa('zero', { minReplicas: 0, metrics: [external] })),
    'The HorizontalPodAutoscaler "zero" is invalid: spec.minReplicas: Invalid value: 0: must be greater than or equal to 1',
  );
});

test('CSR: the request signature is checked; condition statuses are kube 1.31 rules (pkg/apis/certificates/validation)', async () => {
  const csr = (name: string, request: string) =>
    JSON.stringify({ apiVersion: 'certificates.k8s.io/v1', kind: 'CertificateSigningRequest', metadata: { name }, spec: { request: Buffer.from(request).toString('base64'), signerName: 'example.com/signer', usages: ['client auth'] } });
  assert.match(await refused(['create', '-f', '-'], csr('forged', signedRequestPem(true))), /^The CertificateSigningRequest "forged" is invalid: spec\.request: Invalid value: \[\]byte\{0x2d, [^}]*\}: x509: Ed25519 verification failure$/);
  await ok(['create', '-f', '-'], csr('fine', signedRequestPem()));
  assert.equal(
    await refused(['patch', 'csr', 'fine', '--subresource=status', '--type=merge', '-p', '{"status":{"conditions":[{"type":"Failed","status":"False"}]}}']),
    'The CertificateSigningRequest "fine" is invalid: status.conditions[0].status: Unsupported value: "False": supported values: "True"',
  );
  // A status write may not change the approval: the stored (absent) approval conditions are kept.
  await ok(['patch', 'csr', 'fine', '--subresource=status', '--type=merge', '-p', '{"status":{"conditions":[{"type":"Approved","status":"True"}]}}']);
  assert.equal(await ok(['get', 'csr', 'fine', '-o', 'jsonpath={.status}']), '{}');
});

test('leases drop strategy without CoordinatedLeaderElection; local APIServices start Available; v1 EndpointSlices drop deprecatedTopology', async () => {
  await ok(['create', '-f', '-'], JSON.stringify({ apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: 'elect', namespace: 'default' }, spec: { holderIdentity: 'me', strategy: 'Newest' } }));
  assert.equal(await ok(['get', 'lease', 'elect', '-o', 'jsonpath={.spec}']), '{"holderIdentity":"me"}');

  const apiService = { apiVersion: 'apiregistration.k8s.io/v1', kind: 'APIService', metadata: { name: 'v1.local.example.com' }, spec: { group: 'local.example.com', version: 'v1', groupPriorityMinimum: 100, versionPriority: 10 } };
  const created = JSON.parse(await ok(['create', '-f', '-', '-o', 'json'], JSON.stringify(apiService))) as { status: { conditions: Record<string, string>[] } };
  const c = created.status.conditions[0]!;
  assert.deepEqual([c.type, c.status, c.reason, c.message], ['Available', 'True', 'Local', 'Local APIServices are always available']);
  assert.equal(
    await refused(['create', '-f', '-'], JSON.stringify({ ...apiService, metadata: { name: 'v2.local.example.com' } })),
    'The APIService "v2.local.example.com" is invalid: metadata.name: Invalid value: "v2.local.example.com": must be `spec.version+"."+spec.group`: "v1.local.example.com"',
  );

  const slice = { apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice', metadata: { name: 'web-1', namespace: 'default' }, addressType: 'IPv4', endpoints: [{ addresses: ['10.0.0.1'], deprecatedTopology: { 'kubernetes.io/hostname': 'node-1' } }] };
  await ok(['create', '-f', '-'], JSON.stringify(slice));
  assert.equal(await ok(['get', 'endpointslice', 'web-1', '-o', 'jsonpath={.endpoints[0]}']), '{"addresses":["10.0.0.1"],"conditions":{}}');
  await ok(['label', 'endpointslice', 'web-1', 'app=web']);
  assert.equal(await ok(['get', 'endpointslice', 'web-1', '-o', 'jsonpath={.metadata.generation}']), '2');
});
