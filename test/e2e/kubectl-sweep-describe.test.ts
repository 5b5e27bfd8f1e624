// `kubectl describe`, `kubectl events` and `kubectl get` output options against what kube-apiserver 1.31 (with
// kube-controller-manager) answers: every built-in group-version and each served custom resource version has a
// local APIService (kube's autoregister and crdregistration controllers), so `kubectl describe apiservice v1.apps`
// finds one; LimitRanger checks pods only when they are created, so a pod made before a LimitRange can still be
// labelled (and a Job's pod can still lose its tracking finalizer); describe's sections that other API calls fill
// (a Deployment's ReplicaSets, a Service's endpoints, a PVC's users, a namespace's quotas and limits, a node's pods)
// are filled; and field selectors, custom columns, jsonpath, sorting and label columns print what kube prints.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, until, type TestServer } from './helpers.ts';

let s: TestServer;
before(async () => {
  s = await startTestServer({ simulateWorkloads: { nodes: 1, podStartupMs: 20, podTerminationMs: 20 }, namespaceDefaults: true, localApiServices: true });
  await s.kubectlOk(['create', 'namespace', 'sweep']);
});
after(async () => s?.close());

const WORKLOADS = `apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: sweep, labels: {app: web, tier: fe}}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - name: nginx
        image: nginx:1.25
        ports: [{containerPort: 80}]
        resources: {requests: {cpu: 100m, memory: 64Mi}, limits: {cpu: 200m}}
---
apiVersion: v1
kind: Service
metadata: {name: web, namespace: sweep}
spec:
  selector: {app: web}
  ports: [{port: 80, targetPort: 80}]
---
apiVersion: v1
kind: Secret
metadata: {name: creds, namespace: sweep}
type: kubernetes.io/basic-auth
stringData: {username: admin, password: s3cret}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: cfg, namespace: sweep}
data: {a: "1"}
`;

/** The lines of a describe from the one starting with `from` up to (not including) the one starting with `to`. */
function section(text: string, from: string, to: string): string {
  const lines = text.split('\n');
  const start = lines.findIndex((l) => l.startsWith(from));
  const end = lines.findIndex((l, i) => i > start && l.startsWith(to));
  assert.ok(start >= 0 && end > start, `no ${from}..${to} in:\n${text}`);
  return lines.slice(start, end).join('\n');
}

test('APIServices: every served group-version is registered locally, and a CRD version while it is served', async () => {
  const describe = await s.kubectlOk(['describe', 'apiservice', 'v1.apps']);
  assert.match(describe, /^Name:         v1\.apps\nNamespace:    \nLabels:       kube-aggregator\.kubernetes\.io\/automanaged=onstart\nAnnotations:  <none>\nAPI Version:  apiregistration\.k8s\.io\/v1\nKind:         APIService\n/);
  assert.match(describe, /\nSpec:\n  Group:                   apps\n  Group Priority Minimum:  17800\n  Version:                 v1\n  Version Priority:        15\nStatus:\n  Conditions:\n    Last Transition Time:  \S+\n    Message:               Local APIServices are always available\n    Reason:                Local\n    Status:                True\n    Type:                  Available\nEvents:                    <none>\n$/);
  // The core group's has no group.
  assert.equal(await s.kubectlOk(['get', 'apiservice', 'v1.', '-o', 'jsonpath={.spec} {.metadata.labels}']), '{"groupPriorityMinimum":18000,"version":"v1","versionPriority":1} {"kube-aggregator.kubernetes.io/automanaged":"onstart"}');
  const names = (await s.kubectlOk(['get', 'apiservices', '-o', 'name'])).trim().split('\n');
  for (const n of ['v1.', 'v1.apps', 'v1.batch', 'v2.autoscaling', 'v1.autoscaling', 'v1.apiextensions.k8s.io', 'v1beta3.flowcontrol.apiserver.k8s.io']) {
    assert.ok(names.includes(`apiservice.apiregistration.k8s.io/${n}`), `${n} in ${names.join(' ')}`);
  }
  // The aggregator does not register its own group.
  assert.ok(!names.includes('apiservice.apiregistration.k8s.io/v1.apiregistration.k8s.io'));
  assert.match(await s.kubectlOk(['get', 'apiservice', 'v1.batch']), /^NAME       SERVICE   AVAILABLE   AGE\nv1\.batch   Local     True        \S+\n$/);

  await s.kubectlOk(['apply', '-f', '-'], {
    input: JSON.stringify({
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'gadgets.sweep.example.com' },
      spec: {
        group: 'sweep.example.com',
        scope: 'Namespaced',
        names: { plural: 'gadgets', singular: 'gadget', kind: 'Gadget' },
        versions: [
          { name: 'v1', served: true, storage: true },
          { name: 'v1beta1', served: false, storage: false },
        ].map((v) => ({ ...v, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } })),
      },
    }),
  });
  const crdService = () => s.kubectl(['get', 'apiservice', 'v1.sweep.example.com', '-o', 'jsonpath={.spec} {.metadata.labels} {.status.conditions[0].reason}']);
  await until('the CRD version\'s APIService', async () => ((await crdService()).code === 0 ? true : undefined));
  assert.equal((await crdService()).stdout, '{"group":"sweep.example.com","groupPriorityMinimum":1000,"version":"v1","versionPriority":100} {"kube-aggregator.kubernetes.io/automanaged":"true"} Local');
  assert.equal((await s.kubectl(['get', 'apiservice', 'v1beta1.sweep.example.com'])).code, 1, 'a version not served has none');
  await s.kubectlOk(['delete', 'crd', 'gadgets.sweep.example.com']);
  await until('the APIService to go with the CRD', async () => ((await crdService()).code === 1 ? true : undefined));
});

test('LimitRanger checks pods when they are made, not when they are updated', async () => {
  await s.kubectlOk(['create', 'namespace', 'limits']);
  await s.kubectlOk(['run', 'early', '-n', 'limits', '--image=busybox']);
  await s.kubectlOk(['create', '-n', 'limits', '-f', '-'], {
    input: JSON.stringify({ apiVersion: 'v1', kind: 'LimitRange', metadata: { name: 'cpu-max' }, spec: { limits: [{ type: 'Container', max: { cpu: '2' } }] } }),
  });
  // A new pod over the max is refused (dry run: nothing is made while the plugin's cache catches up).
  const big = JSON.stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'big' }, spec: { containers: [{ name: 'c', image: 'busybox', resources: { limits: { cpu: '3' } } }] } });
  const refused = await until('the LimitRange to be enforced', async () => {
    const r = await s.kubectl(['create', '-n', 'limits', '--dry-run=server', '-f', '-'], { input: big });
    return r.code === 1 ? r : undefined;
  });
  assert.equal(refused.stderr, 'Error from server (Forbidden): error when creating "STDIN": pods "big" is forbidden: maximum cpu usage per Container is 2, but limit is 3\n');
  // A pod without limits gets the max as its limit.
  assert.equal(await s.kubectlOk(['run', 'late', '-n', 'limits', '--image=busybox', '--dry-run=server', '-o', 'jsonpath={.spec.containers[0].resources}']), '{"limits":{"cpu":"2"},"requests":{"cpu":"2"}}');
  // The pod made before the LimitRange can still be labelled, as in kube.
  assert.equal(await s.kubectlOk(['label', 'pod', 'early', '-n', 'limits', 'checked=yes']), 'pod/early labeled\n');
});

test('describe fills the sections other API calls answer for', async () => {
  await s.kubectlOk(['apply', '-f', '-'], { input: WORKLOADS });
  await s.kubectlOk(['rollout', 'status', 'deployment/web', '-n', 'sweep', '--timeout=20s'], { timeoutMs: 30_000 });
  await s.kubectlOk(['create', 'quota', 'pods', '-n', 'sweep', '--hard=pods=10']);
  await until('the quota status', async () => ((await s.kubectlOk(['get', 'quota', 'pods', '-n', 'sweep', '-o', 'jsonpath={.status.used.pods}'])) === '2' ? true : undefined));

  const deploy = await s.kubectlOk(['describe', 'deployment', 'web', '-n', 'sweep']);
  assert.match(deploy, /\nReplicas:               2 desired \| 2 updated \| 2 total \| 2 available \| 0 unavailable\n/);
  assert.match(deploy, /\nConditions:\n  Type           Status  Reason\n  ----           ------  ------\n  Available      True    MinimumReplicasAvailable\n  Progressing    True    NewReplicaSetAvailable\nOldReplicaSets:  <none>\nNewReplicaSet:   web-\w+ \(2\/2 replicas created\)\nEvents:\n/);

  const svc = await s.kubectlOk(['describe', 'service', 'web', '-n', 'sweep']);
  assert.match(svc, /\nEndpoints:                10\.244\.0\.\d+:80,10\.244\.0\.\d+:80\n/);

  const ns = await s.kubectlOk(['describe', 'namespace', 'sweep']);
  assert.equal(section(ns, 'Resource Quotas', 'No LimitRange'), 'Resource Quotas\n  Name:     pods\n  Resource  Used  Hard\n  --------  ---   ---\n  pods      2     10\n');

  const secret = await s.kubectlOk(['describe', 'secret', 'creds', '-n', 'sweep']);
  // kubectl prints the data keys in Go's map order, which varies from run to run.
  const [head, data] = secret.split('Data\n====\n') as [string, string];
  assert.equal(head, 'Name:         creds\nNamespace:    sweep\nLabels:       <none>\nAnnotations:  <none>\n\nType:  kubernetes.io/basic-auth\n\n');
  assert.deepEqual(data.split('\n').sort(), ['', 'password:  6 bytes', 'username:  5 bytes']);

  // The namespace's default service account (kube-controller-manager's) and its token volume in every pod.
  assert.equal(await s.kubectlOk(['describe', 'serviceaccount', 'default', '-n', 'sweep']), 'Name:                default\nNamespace:           sweep\nLabels:              <none>\nAnnotations:         <none>\nImage pull secrets:  <none>\nMountable secrets:   <none>\nTokens:              <none>\nEvents:              <none>\n');
  const pod = await s.kubectlOk(['describe', 'pod', '-n', 'sweep', '-l', 'app=web']);
  assert.match(pod, /\n    Mounts:\n      \/var\/run\/secrets\/kubernetes\.io\/serviceaccount from kube-api-access-\w{5} \(ro\)\n/);
  assert.match(pod, /\n  Normal  Scheduled  \S+ +default-scheduler  Successfully assigned sweep\/web-\w+-\w+ to capstan-node-1\n/);

  const node = await s.kubectlOk(['describe', 'node', 'capstan-node-1']);
  assert.match(node, /\n  sweep +web-\w+-\w+ +100m \(1%\) +200m \(2%\) +64Mi \(0%\) +0 \(0%\) +\S+\n/);
});

test('kubectl events: --for, --types and -A', async () => {
  const forDeploy = await s.kubectlOk(['events', '-n', 'sweep', '--for', 'deployment/web']);
  assert.match(forDeploy, /^LAST SEEN   TYPE     REASON              OBJECT           MESSAGE\n\S+ +Normal   ScalingReplicaSet   Deployment\/web   Scaled up replica set web-\w+ to 2\n$/);
  assert.equal(await s.kubectlOk(['events', '-n', 'sweep', '--types=Warning']), '');
  const all = await s.kubectlOk(['events', '-A', '--types=Normal']);
  assert.match(all, /^NAMESPACE +LAST SEEN +TYPE +REASON +OBJECT +MESSAGE\n/);
  assert.match(all, /\nsweep +\S+ +Normal +ScalingReplicaSet +Deployment\/web +Scaled up replica set web-\w+ to 2\n/);
});

test('kubectl get: field selectors kube supports, and its error for others', async () => {
  assert.equal(await s.kubectlOk(['get', 'pods', '-n', 'sweep', '--field-selector', 'spec.nodeName=capstan-node-1,status.phase=Running', '-l', 'app=web', '-o', 'name']).then((o) => o.split('\n').filter(Boolean).length), 2);
  assert.equal(await s.kubectlOk(['get', 'secrets', '-n', 'sweep', '--field-selector', 'type=kubernetes.io/basic-auth', '-o', 'name']), 'secret/creds\n');
  assert.equal(await s.kubectlOk(['get', 'events', '-n', 'sweep', '--field-selector', 'involvedObject.kind=Deployment,involvedObject.name=web', '-o', 'jsonpath={.items[*].reason}']), 'ScalingReplicaSet');
  const pods = await s.kubectl(['get', 'pods', '-n', 'sweep', '--field-selector', 'spec.foo=bar']);
  assert.equal(pods.stderr, 'Error from server (BadRequest): Unable to find "/v1, Resource=pods" that match label selector "", field selector "spec.foo=bar": field label not supported: spec.foo\n');
  const cms = await s.kubectl(['get', 'configmaps', '-n', 'sweep', '--field-selector', 'data.a=1']);
  assert.equal(cms.stderr, 'Error from server (BadRequest): Unable to find "/v1, Resource=configmaps" that match label selector "", field selector "data.a=1": "data.a" is not a known field selector: only "metadata.name", "metadata.namespace"\n');
});

test('kubectl get: custom columns, jsonpath, go-template, --sort-by, -L, --show-labels, --show-kind', async () => {
  assert.equal(await s.kubectlOk(['get', 'deployment', 'web', '-n', 'sweep', '-o', 'custom-columns=NAME:.metadata.name,REPLICAS:.spec.replicas,IMAGE:.spec.template.spec.containers[0].image']), 'NAME   REPLICAS   IMAGE\nweb    2          nginx:1.25\n');
  assert.equal(await s.kubectlOk(['get', 'deployment', 'web', '-n', 'sweep', '-o', 'go-template={{.metadata.name}}/{{.status.readyReplicas}}']), 'web/2');
  assert.equal(await s.kubectlOk(['get', 'configmaps', '-n', 'sweep', '--sort-by=.metadata.name', '-o', 'jsonpath={range .items[*]}{.metadata.name} {end}']), 'cfg kube-root-ca.crt ');
  assert.match(await s.kubectlOk(['get', 'deployment', 'web', '-n', 'sweep', '-L', 'app,tier', '--show-labels']), /^NAME   READY   UP-TO-DATE   AVAILABLE   AGE   APP   TIER   LABELS\nweb    2\/2     2            2           \S+ +web   fe     app=web,tier=fe\n$/);
  assert.match(await s.kubectlOk(['get', 'deployment,service', '-n', 'sweep', '--show-kind']), /^NAME                  READY   UP-TO-DATE   AVAILABLE   AGE\ndeployment\.apps\/web   2\/2     2            2           \S+\n\nNAME          TYPE        CLUSTER-IP +EXTERNAL-IP   PORT\(S\)   AGE\nservice\/web   ClusterIP   10\.\S+ +<none>        80\/TCP    \S+\n$/);
  assert.match(await s.kubectlOk(['get', 'pvc,rs', '-n', 'sweep', '-o', 'wide']), /^NAME +DESIRED   CURRENT   READY   AGE   CONTAINERS   IMAGES       SELECTOR\nreplicaset\.apps\/web-\w+ +2 +2 +2 +\S+ +nginx +nginx:1\.25   app=web,pod-template-hash=\w+\n$/);
});
