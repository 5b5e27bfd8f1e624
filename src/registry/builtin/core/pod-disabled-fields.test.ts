import assert from 'node:assert/strict';
import { test } from 'node:test';
import { dropDisabledPodFields, dropDisabledTemplateFields } from './pod-disabled-fields.ts';
import type { Obj } from '../object.ts';

const gatedSpec = (): Obj => ({
  hostUsers: false,
  securityContext: { supplementalGroupsPolicy: 'Strict', runAsUser: 1000 },
  resourceClaims: [{ name: 'gpu', resourceClaimName: 'gpu-claim' }],
  containers: [{ name: 'app', image: 'nginx', resizePolicy: [{ resourceName: 'cpu', restartPolicy: 'NotRequired' }], resources: { claims: [{ name: 'gpu' }], limits: { cpu: '1' } } }],
  initContainers: [{ name: 'init', image: 'busybox', resources: { claims: [{ name: 'gpu' }] } }],
  volumes: [
    { name: 'img', image: { reference: 'quay.io/data:v1' } },
    { name: 'bundle', projected: { sources: [{ clusterTrustBundle: { signerName: 'example.com/signer', path: 'ca.pem' } }, { configMap: { name: 'cm' } }] } },
  ],
});

test('the fields of features kube 1.31 ships turned off are dropped from a new pod, and what they write into its status', () => {
  const pod: Obj = { spec: gatedSpec(), status: { resize: 'InProgress', resourceClaimStatuses: [{ name: 'gpu' }], containerStatuses: [{ name: 'app', allocatedResources: { cpu: '1' }, resources: {}, user: { linux: { uid: 0 } }, ready: true }] } };
  dropDisabledPodFields(pod, undefined, {});
  assert.deepEqual(pod, {
    spec: {
      securityContext: { runAsUser: 1000 },
      containers: [{ name: 'app', image: 'nginx', resources: { limits: { cpu: '1' } } }],
      initContainers: [{ name: 'init', image: 'busybox', resources: {} }],
      volumes: [{ name: 'bundle', projected: { sources: [{}, { configMap: { name: 'cm' } }] } }],
    },
    status: { containerStatuses: [{ name: 'app', ready: true }] },
  });
});

test('a feature gate turned on keeps its fields; an update keeps what the stored object already used', () => {
  const on: Obj = { spec: gatedSpec() };
  dropDisabledPodFields(on, undefined, { UserNamespacesSupport: true, SupplementalGroupsPolicy: true, DynamicResourceAllocation: true, InPlacePodVerticalScaling: true, ClusterTrustBundleProjection: true, ImageVolume: true });
  assert.deepEqual(on, { spec: gatedSpec() });

  const updated: Obj = { spec: gatedSpec() };
  dropDisabledPodFields(updated, { spec: { hostUsers: true, volumes: [{ name: 'old', image: { reference: 'x' } }] } }, {});
  const spec = updated.spec as Obj;
  assert.equal(spec.hostUsers, false);
  assert.deepEqual(spec.securityContext, { runAsUser: 1000 });
  assert.deepEqual((spec.volumes as Obj[]).map((v) => v.name), ['img', 'bundle']);
  assert.equal(spec.resourceClaims, undefined);
});

test('pod templates lose the same fields: the template spec, judged against the stored template', () => {
  const template: Obj = { metadata: { labels: { app: 'x' } }, spec: gatedSpec() };
  dropDisabledTemplateFields(template, { spec: { containers: [{ name: 'app', resizePolicy: [{ resourceName: 'memory', restartPolicy: 'RestartContainer' }] }] } }, {});
  const spec = template.spec as Obj;
  assert.deepEqual(spec.securityContext, { runAsUser: 1000 });
  assert.deepEqual((spec.containers as Obj[])[0]!.resizePolicy, [{ resourceName: 'cpu', restartPolicy: 'NotRequired' }]);
  assert.deepEqual(template.metadata, { labels: { app: 'x' } });
  dropDisabledTemplateFields(undefined, undefined, {});
});
