// Built-in objects come back as kube's Go types write them: a value the typed object cannot hold apart from its
// zero (null, "", 0 or false in an omitempty field, an empty omitempty list or map) is left out, as kube-apiserver
// leaves it out, whichever way it was written (create, update, JSON and strategic merge patches, server-side
// apply), and defaulting sees it as unset. Pointers keep their zero (`runtimeClassName: ""`, `affinity: {}`,
// `immutable: false`), lists and maps without omitempty come back null when empty, as kube reads them back from
// its Protobuf storage (a Role's `rules: []` is `rules: null`), struct values are always there (`resources: {}`),
// fields left out are written as Go writes the typed object (`status: {loadBalancer: {}}`, `rules: null`), and
// custom resources keep what they were sent.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import * as k8s from '@kubernetes/client-node';
import { startTestServer } from './helpers.ts';
import type { TestServer } from './helpers.ts';

let s: TestServer;
before(async () => {
  s = await startTestServer();
});
after(async () => {
  await s?.close();
});

const getJson = async (args: string[]) => JSON.parse(await s.kubectlOk(['get', ...args, '-o', 'json'])) as Record<string, any>;

async function send(method: string, path: string, body: unknown, contentType = 'application/json'): Promise<Record<string, any>> {
  const r = await s.adminRequest(path, { method, body: JSON.stringify(body), headers: { 'content-type': contentType } });
  assert.ok(r.status < 300, `${method} ${path}: ${r.status} ${r.body}`);
  return JSON.parse(r.body) as Record<string, any>;
}

const deployment = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: default
  creationTimestamp: null
  labels: {}
spec:
  replicas: 1
  selector:
    matchLabels: {app: web}
  strategy: {}
  template:
    metadata:
      creationTimestamp: null
      labels: {app: web}
    spec:
      nodeSelector: {}
      tolerations: []
      hostNetwork: false
      hostname: ""
      runtimeClassName: null
      affinity: {}
      securityContext: {}
      containers:
      - name: web
        image: nginx:1.27
        imagePullPolicy: ""
        args: []
        env:
        - name: EMPTY
          value: ""
        resources: {}
        ports:
        - containerPort: 80
          hostPort: 0
          protocol: ""
status: {}
`;

test('kubectl create: zero omitempty fields are left out and defaulted as unset; pointers and struct values stay', async () => {
  await s.kubectlOk(['create', '-f', '-'], { input: deployment });
  const d = await getJson(['deployment', 'web']);
  assert.equal(d.metadata.labels, undefined);
  assert.deepEqual(d.spec.strategy, { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '25%', maxSurge: '25%' } });
  const pod = d.spec.template.spec;
  for (const gone of ['nodeSelector', 'tolerations', 'hostNetwork', 'hostname', 'runtimeClassName']) assert.equal(pod[gone], undefined, gone);
  assert.deepEqual(pod.affinity, {});
  assert.deepEqual(pod.securityContext, {});
  const c = pod.containers[0];
  // "" is unset for defaulting: an image with a tag other than latest is pulled IfNotPresent.
  assert.equal(c.imagePullPolicy, 'IfNotPresent');
  assert.equal(c.args, undefined);
  assert.deepEqual(c.env, [{ name: 'EMPTY' }]);
  assert.deepEqual(c.resources, {});
  assert.deepEqual(c.ports, [{ containerPort: 80, protocol: 'TCP' }]);
});

test('raw writes: nulls and empty maps of a ConfigMap are left out; a pointer keeps its false', async () => {
  const created = await send('POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 'empty' }, data: {}, binaryData: null, immutable: null });
  assert.deepEqual(Object.keys(created).sort(), ['apiVersion', 'kind', 'metadata']);
  const kept = await send('POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 'mutable' }, data: { a: '1' }, immutable: false });
  assert.equal(kept.immutable, false);
  // A JSON patch that empties data, and a strategic merge patch that sends an empty list, leave both out.
  const patched = await send('PATCH', '/api/v1/namespaces/default/configmaps/mutable', [{ op: 'replace', path: '/data', value: {} }], 'application/json-patch+json');
  assert.equal(patched.data, undefined);
  const pod = await send('PATCH', '/apis/apps/v1/namespaces/default/deployments/web', { spec: { template: { spec: { tolerations: [], schedulerName: '' } } } }, 'application/strategic-merge-patch+json');
  assert.equal(pod.spec.template.spec.tolerations, undefined);
  // schedulerName "" is unset: defaulting gives it back.
  assert.equal(pod.spec.template.spec.schedulerName, 'default-scheduler');
  // A PUT carrying the object with zero fields writes it as a create would.
  const current = await getJson(['configmap', 'empty']);
  const updated = await send('PUT', '/api/v1/namespaces/default/configmaps/empty', { ...current, data: {}, binaryData: {} });
  assert.equal(updated.data, undefined);
  assert.equal(updated.binaryData, undefined);
});

test('empty lists and maps without omitempty come back null, as from Protobuf storage; custom resources keep what they were sent', async () => {
  const role = await send('POST', '/apis/rbac.authorization.k8s.io/v1/namespaces/default/roles', { metadata: { name: 'none' }, rules: [] });
  assert.equal(role.rules, null);
  assert.equal((await getJson(['role', 'none'])).rules, null);
  // An update that sends [] again stores nothing new.
  const put = await send('PUT', '/apis/rbac.authorization.k8s.io/v1/namespaces/default/roles/none', { ...role, rules: [] });
  assert.equal(put.metadata.resourceVersion, role.metadata.resourceVersion);
  // Deeper down too: a Service's selector map and an EndpointSlice's lists.
  const slice = await send('POST', '/apis/discovery.k8s.io/v1/namespaces/default/endpointslices', { metadata: { name: 'empty' }, addressType: 'IPv4', endpoints: [], ports: [] });
  assert.deepEqual([slice.endpoints, slice.ports], [null, null]);
  const nullRole = await send('POST', '/apis/rbac.authorization.k8s.io/v1/namespaces/default/roles', { metadata: { name: 'nil' }, rules: null });
  assert.equal(nullRole.rules, null);
  await s.kubectlOk(['apply', '-f', '-'], {
    input: JSON.stringify({
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'things.go.example.com' },
      spec: {
        group: 'go.example.com',
        scope: 'Namespaced',
        names: { plural: 'things', singular: 'thing', kind: 'Thing' },
        versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { list: { type: 'array', items: { type: 'string' } }, text: { type: 'string' }, flag: { type: 'boolean' } } } } } } }],
      },
    }),
  });
  await s.kubectlOk(['wait', '--for=condition=Established', 'crd/things.go.example.com']);
  const thing = await send('POST', '/apis/go.example.com/v1/namespaces/default/things', { apiVersion: 'go.example.com/v1', kind: 'Thing', metadata: { name: 't', labels: {} }, spec: { list: [], text: '', flag: false } });
  assert.deepEqual(thing.spec, { list: [], text: '', flag: false });
  assert.equal(thing.metadata.labels, undefined);
});

test('server-side apply: the applied object is written as the typed object encodes it', async () => {
  await s.kubectlOk(['apply', '--server-side', '--field-manager=tool', '-f', '-'], {
    input: 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: applied\n  namespace: default\ndata: {}\nimmutable: false\n',
  });
  const cm = await getJson(['configmap', 'applied']);
  assert.equal(cm.data, undefined);
  assert.equal(cm.immutable, false);
  await s.kubectlOk(['apply', '--server-side', '--field-manager=tool', '-f', '-'], {
    input: 'apiVersion: v1\nkind: Service\nmetadata:\n  name: svc\n  namespace: default\nspec:\n  selector: {}\n  externalIPs: []\n  ports:\n  - port: 80\n    nodePort: 0\n',
  });
  const svc = await getJson(['service', 'svc']);
  assert.equal(svc.spec.selector, undefined);
  assert.equal(svc.spec.externalIPs, undefined);
  assert.deepEqual(svc.spec.ports, [{ port: 80, protocol: 'TCP', targetPort: 80 }]);
  // A MicroTime is written back as Go writes it: UTC, six digits.
  await s.kubectlOk(['apply', '--server-side', '--field-manager=tool', '-f', '-'], {
    input: 'apiVersion: coordination.k8s.io/v1\nkind: Lease\nmetadata:\n  name: lock\n  namespace: default\nspec:\n  holderIdentity: a\n  acquireTime: "2024-01-02T03:04:05.500000+01:00"\n  leaseTransitions: 0\n',
  });
  const lease = await getJson(['lease', 'lock']);
  assert.deepEqual(lease.spec, { holderIdentity: 'a', acquireTime: '2024-01-02T02:04:05.500000Z', leaseTransitions: 0 });
});


test('server-side apply: a value the Go type cannot hold is refused, as kube refuses it, and nothing is stored', async () => {
  const apply = (name: string, body: unknown) =>
    s.adminRequest(`/apis/coordination.k8s.io/v1/namespaces/default/leases/${name}?fieldManager=tool`, { method: 'PATCH', body: JSON.stringify(body), headers: { 'content-type': 'application/apply-patch+yaml' } });
  const lease = (name: string, spec: Record<string, unknown>) => ({ apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name, namespace: 'default' }, spec });
  const bad = await apply('bad-time', lease('bad-time', { holderIdentity: 'a', acquireTime: '2024-01-02 03:04:05' }));
  assert.equal(bad.status, 500);
  const status = JSON.parse(bad.body) as Record<string, any>;
  assert.equal(status.reason, undefined);
  assert.equal(status.message, 'failed to convert new object (default/bad-time; coordination.k8s.io/v1, Kind=Lease) to proper version: unable to convert unstructured object to coordination.k8s.io/v1, Kind=Lease: parsing time "2024-01-02 03:04:05" as "2006-01-02T15:04:05.000000Z07:00": cannot parse " 03:04:05" as "T"');
  assert.equal((await s.adminRequest('/apis/coordination.k8s.io/v1/namespaces/default/leases/bad-time')).status, 404);
  // On an existing object the live value stays.
  assert.equal((await apply('kept', lease('kept', { holderIdentity: 'a', leaseDurationSeconds: 15 }))).status, 201);
  const float = await apply('kept', lease('kept', { holderIdentity: 'a', leaseDurationSeconds: 1.5 }));
  assert.equal(float.status, 500);
  assert.match((JSON.parse(float.body) as { message: string }).message, /: unable to convert unstructured object to coordination\.k8s\.io\/v1, Kind=Lease: cannot convert float64 to int32$/);
  assert.equal((await getJson(['lease', 'kept'])).spec.leaseDurationSeconds, 15);
  // []byte's base64, through the converter's own wording.
  const secret = await s.adminRequest('/api/v1/namespaces/default/secrets/b64?fieldManager=tool', {
    method: 'PATCH',
    body: JSON.stringify({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'b64', namespace: 'default' }, data: { key: 'not*base64' } }),
    headers: { 'content-type': 'application/apply-patch+yaml' },
  });
  assert.equal(secret.status, 500);
  assert.equal((JSON.parse(secret.body) as { message: string }).message, 'failed to convert new object (default/b64; /v1, Kind=Secret) to proper version: unable to convert unstructured object to /v1, Kind=Secret: error decoding from json: illegal base64 data at input byte 3');
});
test('client-node: an object read back has no empty omitempty fields', async () => {
  const kc = new k8s.KubeConfig();
  kc.loadFromString(s.kubeconfig);
  const core = kc.makeApiClient(k8s.CoreV1Api);
  await core.createNamespacedSecret({ namespace: 'default', body: { metadata: { name: 'sec', annotations: {} }, type: '', data: {}, stringData: { k: 'v' } } });
  const secret = await core.readNamespacedSecret({ namespace: 'default', name: 'sec' });
  assert.equal(secret.metadata?.annotations, undefined);
  // type "" is unset: defaulted to Opaque.
  assert.equal(secret.type, 'Opaque');
  assert.deepEqual(secret.data, { k: Buffer.from('v').toString('base64') });
});

test('fields a client left out are written as Go writes the typed object: struct values {}, nil lists and times null, scalars zero', async () => {
  await s.kubectlOk(['create', 'ingress', 'site', '--rule=/=web:80']);
  assert.deepEqual((await getJson(['ingress', 'site'])).status, { loadBalancer: {} });
  await s.kubectlOk(['apply', '-f', '-'], {
    input: [
      'apiVersion: rbac.authorization.k8s.io/v1\nkind: Role\nmetadata: {name: empty, namespace: default}',
      'apiVersion: v1\nkind: LimitRange\nmetadata: {name: open, namespace: default}',
      'apiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata: {name: web, namespace: default}\nspec:\n  maxReplicas: 3\n  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}',
      'apiVersion: v1\nkind: Pod\nmetadata: {name: env, namespace: default}\nspec:\n  containers:\n  - name: app\n    image: busybox\n    env:\n    - name: CPU\n      valueFrom: {resourceFieldRef: {resource: limits.cpu}}',
    ].join('\n---\n'),
  });
  assert.equal((await getJson(['role', 'empty'])).rules, null);
  assert.deepEqual((await getJson(['limitrange', 'open'])).spec, { limits: null });
  assert.deepEqual((await getJson(['hpa', 'web'])).status, { desiredReplicas: 0, currentMetrics: null });
  // The same HPA read as autoscaling/v1: the converted object is written as kube's v1 type writes it.
  const v1 = JSON.parse(await s.kubectlOk(['get', '--raw', '/apis/autoscaling/v1/namespaces/default/horizontalpodautoscalers/web'])) as Record<string, any>;
  assert.deepEqual(v1.status, { currentReplicas: 0, desiredReplicas: 0 });
  const pod = await getJson(['pod', 'env']);
  assert.deepEqual(pod.spec.containers[0].env[0].valueFrom.resourceFieldRef, { resource: 'limits.cpu', divisor: '0' });
  assert.deepEqual(pod.spec.containers[0].resources, {});
});

test('quantities come back as kube writes them: canonical text kept, any other text or JSON number rewritten, whatever the write', async () => {
  await s.kubectlOk(['create', 'namespace', 'quantities']);
  const manifest = (cpu: string) => `apiVersion: v1
kind: Pod
metadata:
  name: q
  namespace: quantities
spec:
  containers:
  - name: c
    image: nginx
    resources:
      requests: {cpu: ${cpu}, memory: 1.5Gi}
      limits: {memory: 2048Mi, ephemeral-storage: "1e3"}
    env:
    - name: CPU
      valueFrom: {resourceFieldRef: {resource: requests.cpu, divisor: 1000m}}
`;
  await s.kubectlOk(['apply', '-f', '-'], { input: manifest('"0.5"') });
  const pod = await getJson(['pod', 'q', '-n', 'quantities']);
  // (A request left out is its limit.)
  assert.deepEqual(pod.spec.containers[0].resources, { requests: { cpu: '500m', memory: '1536Mi', 'ephemeral-storage': '1e3' }, limits: { memory: '2Gi', 'ephemeral-storage': '1e3' } });
  assert.equal(pod.spec.containers[0].env[0].valueFrom.resourceFieldRef.divisor, '1');
  // The same manifest applied again: kubectl sees "0.5" against the live "500m" and sends a patch (so it says
  // "configured", as against kube-apiserver), which decodes to the live object: nothing is written.
  assert.equal(await s.kubectlOk(['apply', '-f', '-'], { input: manifest('"0.5"') }), 'pod/q configured\n');
  assert.equal((await getJson(['pod', 'q', '-n', 'quantities'])).metadata.resourceVersion, pod.metadata.resourceVersion);
  // A strategic merge patch and a server-side apply with JSON numbers.
  await send('POST', '/api/v1/namespaces/quantities/limitranges', { apiVersion: 'v1', kind: 'LimitRange', metadata: { name: 'lr' }, spec: { limits: [{ type: 'Container', max: { cpu: 2, memory: 4e9 }, default: { cpu: 1.5 } }] } });
  assert.deepEqual((await getJson(['limitrange', 'lr', '-n', 'quantities'])).spec.limits[0].max, { cpu: '2', memory: '4G' });
  await send('PATCH', '/api/v1/namespaces/quantities/limitranges/lr', { spec: { limits: [{ type: 'Container', max: { cpu: 0.25, memory: 4e9 }, default: { cpu: 0.125 } }] } }, 'application/strategic-merge-patch+json');
  assert.deepEqual((await getJson(['limitrange', 'lr', '-n', 'quantities'])).spec.limits[0], { type: 'Container', max: { cpu: '250m', memory: '4G' }, default: { cpu: '125m', memory: '4G' }, defaultRequest: { cpu: '125m', memory: '4G' } });
  await send('PATCH', '/api/v1/namespaces/quantities/resourcequotas/rq?fieldManager=tool', { apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name: 'rq' }, spec: { hard: { pods: 10, 'requests.cpu': 1.5 } } }, 'application/apply-patch+yaml');
  assert.deepEqual((await getJson(['resourcequota', 'rq', '-n', 'quantities'])).spec.hard, { pods: '10', 'requests.cpu': '1500m' });
  // LimitRanger and ResourceQuota read them as quantities: a pod under both is admitted or refused with kube's message.
  const refused = await s.adminRequest('/api/v1/namespaces/quantities/pods', {
    method: 'POST',
    body: JSON.stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'big' }, spec: { containers: [{ name: 'c', image: 'x', resources: { requests: { cpu: 0.2 }, limits: { cpu: 0.3 } } }] } }),
    headers: { 'content-type': 'application/json' },
  });
  assert.equal(refused.status, 403, refused.body);
  assert.equal((JSON.parse(refused.body) as { message: string }).message, 'pods "big" is forbidden: maximum cpu usage per Container is 250m, but limit is 300m');
  const small = await send('POST', '/api/v1/namespaces/quantities/pods', { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'small' }, spec: { containers: [{ name: 'c', image: 'x', resources: { requests: { cpu: 0.1, memory: 1e6 }, limits: { cpu: 0.2, memory: 2e6 } } }] } });
  assert.deepEqual(small.spec.containers[0].resources, { requests: { cpu: '100m', memory: '1M' }, limits: { cpu: '200m', memory: '2M' } });
});

test('a null map value or list item of a built-in object is stored as the zero of its type, as Go decodes it', async () => {
  const cm = await send('POST', '/api/v1/namespaces/default/configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'null-values', labels: { a: null } }, data: { k: null } });
  assert.deepEqual([cm.metadata.labels, cm.data], [{ a: '' }, { k: '' }]);
  const quota = await send('POST', '/api/v1/namespaces/default/resourcequotas', { apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name: 'null-hard' }, spec: { hard: { pods: null } } });
  assert.deepEqual(quota.spec.hard, { pods: '0' });
  const pv = await s.adminRequest('/api/v1/persistentvolumes', {
    method: 'POST',
    body: JSON.stringify({ apiVersion: 'v1', kind: 'PersistentVolume', metadata: { name: 'null-capacity' }, spec: { capacity: { storage: null }, accessModes: ['ReadWriteOnce'], hostPath: { path: '/tmp/x' } } }),
    headers: { 'content-type': 'application/json' },
  });
  assert.equal(pv.status, 422);
  assert.equal((JSON.parse(pv.body) as { message: string }).message, 'PersistentVolume "null-capacity" is invalid: spec.capacity[storage]: Invalid value: "0": must be greater than zero');
});
