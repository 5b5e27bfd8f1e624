// kubectl's workload-management commands against the simulated controllers, where they differed from kube 1.31:
// controllers claim what they select as kube's ControllerRefManager does, so `kubectl delete --cascade=orphan`
// followed by re-creating the Deployment, StatefulSet or DaemonSet hands the same ReplicaSets, pods and
// ControllerRevisions to the new owner (no restarted pods, no second revision), and a pod relabelled out of a
// ReplicaSet's selector is let go and replaced; `kubectl create token --bound-object-kind=Pod` needs the pod to run as
// that service account, and the TokenRequest API names the kind it cannot bind with kube's message; a ReplicaSet's
// pods count as available only once ready for minReadySeconds (what `kubectl rollout status` waits for).

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, until, type TestServer } from './helpers.ts';

let s: TestServer;
before(async () => {
  s = await startTestServer({ simulateWorkloads: { nodes: 2, podStartupMs: 20, podTerminationMs: 20 } });
});
after(async () => s?.close());

const ROLLOUT = { timeoutMs: 30_000 };
/** name=owner uid of each object, sorted by name. */
const owners = async (what: string, selector: string): Promise<string> =>
  s.kubectlOk(['get', what, '-l', selector, '--sort-by=.metadata.name', '-o', 'jsonpath={range .items[*]}{.metadata.name}={.metadata.ownerReferences[0].uid}{"\\n"}{end}']);
const uidOf = async (what: string): Promise<string> => s.kubectlOk(['get', what, '-o', 'jsonpath={.metadata.uid}']);
const podUids = async (selector: string): Promise<string> => s.kubectlOk(['get', 'pods', '-l', selector, '--sort-by=.metadata.name', '-o', 'jsonpath={.items[*].metadata.uid}']);

test('a Deployment re-created after `delete --cascade=orphan` adopts its ReplicaSet and keeps the pods', async () => {
  await s.kubectlOk(['create', 'deployment', 'orphaned', '--image=nginx:1.25', '--replicas=2']);
  await s.kubectlOk(['rollout', 'status', 'deployment/orphaned', '--timeout=20s'], ROLLOUT);
  const pods = await podUids('app=orphaned');
  assert.equal(await s.kubectlOk(['delete', 'deployment', 'orphaned', '--cascade=orphan']), 'deployment.apps "orphaned" deleted\n');
  await until('the orphaned ReplicaSet', async () => ((await owners('rs', 'app=orphaned')).match(/^orphaned-\w+=\n$/) ? true : undefined));

  await s.kubectlOk(['create', 'deployment', 'orphaned', '--image=nginx:1.25', '--replicas=2']);
  assert.equal(await s.kubectlOk(['rollout', 'status', 'deployment/orphaned', '--timeout=20s'], ROLLOUT), 'deployment "orphaned" successfully rolled out\n');
  const uid = await uidOf('deployment/orphaned');
  assert.match(await owners('rs', 'app=orphaned'), new RegExp(`^orphaned-\\w+=${uid}\\n$`));
  assert.equal(await podUids('app=orphaned'), pods);
  assert.equal(await s.kubectlOk(['rollout', 'history', 'deployment/orphaned']), 'deployment.apps/orphaned \nREVISION  CHANGE-CAUSE\n1         <none>\n\n');
  assert.equal(await s.kubectlOk(['get', 'deployment', 'orphaned', '-o', 'jsonpath={.status.replicas} {.status.updatedReplicas} {.status.availableReplicas}']), '2 2 2');
});

test('a pod relabelled out of its ReplicaSet is let go and replaced; relabelled back, it is adopted again', async () => {
  await s.kubectlOk(['create', 'deployment', 'relabel', '--image=nginx:1.25', '--replicas=2']);
  await s.kubectlOk(['rollout', 'status', 'deployment/relabel', '--timeout=20s'], ROLLOUT);
  const [pod, other] = (await s.kubectlOk(['get', 'pods', '-l', 'app=relabel', '--sort-by=.metadata.name', '-o', 'jsonpath={.items[*].metadata.name}'])).split(' ');
  const rsUid = (await s.kubectlOk(['get', 'pod', pod!, '-o', 'jsonpath={.metadata.ownerReferences[0].uid}'])).trim();
  await s.kubectlOk(['label', 'pod', pod!, 'app=debug', '--overwrite']);
  await until('the replacement', async () => ((await s.kubectlOk(['get', 'pods', '-l', 'app=relabel', '-o', 'name'])).split('\n').filter(Boolean).length === 2 ? true : undefined));
  assert.equal(await s.kubectlOk(['get', 'pod', pod!, '-o', 'jsonpath={.metadata.ownerReferences}']), '');
  const replacement = (await s.kubectlOk(['get', 'pods', '-l', 'app=relabel', '-o', 'jsonpath={.items[*].metadata.name}'])).split(' ').find((n) => n !== other)!;
  assert.notEqual(replacement, pod);

  // Back in the selector: adopted, and the ReplicaSet, one pod over, deletes one. Which one kube deletes among equals
  // depends on how long each has been ready (in powers of two) and then on uids, so the two old pods are made dearer
  // to delete (kube's pod-deletion-cost, ranked before readiness) and the replacement is the one to go.
  await s.kubectlOk(['annotate', 'pod', pod!, other!, 'controller.kubernetes.io/pod-deletion-cost=100']);
  await s.kubectlOk(['label', 'pod', pod!, 'app=relabel', '--overwrite']);
  await until('the surplus pod gone', async () => ((await s.kubectlOk(['get', 'pods', '-l', 'app=relabel', '--sort-by=.metadata.name', '-o', 'jsonpath={.items[*].metadata.name}'])) === [pod, other].sort().join(' ') ? true : undefined));
  assert.equal(await s.kubectlOk(['get', 'pod', pod!, '-o', 'jsonpath={.metadata.ownerReferences[0].kind}/{.metadata.ownerReferences[0].uid} {.metadata.ownerReferences[0].controller}']), `ReplicaSet/${rsUid} true`);
});

const SETS = `apiVersion: apps/v1
kind: DaemonSet
metadata: {name: keeper}
spec:
  selector: {matchLabels: {app: keeper}}
  template:
    metadata: {labels: {app: keeper}}
    spec: {containers: [{name: c, image: "busybox:1"}]}
---
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: store}
spec:
  serviceName: store
  replicas: 2
  selector: {matchLabels: {app: store}}
  template:
    metadata: {labels: {app: store}}
    spec: {containers: [{name: c, image: "busybox:1"}]}
`;

test('a StatefulSet and a DaemonSet re-created after `delete --cascade=orphan` adopt their pods and revisions', async () => {
  await s.kubectlOk(['apply', '-f', '-'], { input: SETS });
  await s.kubectlOk(['rollout', 'status', 'statefulset/store', '--timeout=20s'], ROLLOUT);
  await s.kubectlOk(['rollout', 'status', 'daemonset/keeper', '--timeout=20s'], ROLLOUT);
  const storePods = await podUids('app=store');
  const keeperPods = await podUids('app=keeper');
  assert.equal(keeperPods.split(' ').length, 2);
  await s.kubectlOk(['delete', 'statefulset/store', 'daemonset/keeper', '--cascade=orphan']);
  await until('the orphans', async () => {
    const all = (await owners('pods', 'app in (store,keeper)')) + (await owners('controllerrevisions', 'app in (store,keeper)'));
    return /=./.test(all) ? undefined : all;
  });

  await s.kubectlOk(['apply', '-f', '-'], { input: SETS });
  await s.kubectlOk(['rollout', 'status', 'statefulset/store', '--timeout=20s'], ROLLOUT);
  await s.kubectlOk(['rollout', 'status', 'daemonset/keeper', '--timeout=20s'], ROLLOUT);
  const sts = await uidOf('statefulset/store');
  const ds = await uidOf('daemonset/keeper');
  await until('the adoptions', async () => {
    const all = (await owners('pods', 'app in (store,keeper)')) + (await owners('controllerrevisions', 'app in (store,keeper)'));
    return all.split('\n').filter(Boolean).every((l) => l.endsWith(`=${l.startsWith('store') ? sts : ds}`)) ? true : undefined;
  });
  // The same pods (none restarted), and the revision they were made from: still revision 1.
  assert.equal(await podUids('app=store'), storePods);
  assert.equal(await podUids('app=keeper'), keeperPods);
  assert.equal(await s.kubectlOk(['rollout', 'history', 'statefulset/store']), 'statefulset.apps/store \nREVISION  CHANGE-CAUSE\n1         <none>\n\n');
  assert.equal(await s.kubectlOk(['rollout', 'history', 'daemonset/keeper']), 'daemonset.apps/keeper \nREVISION  CHANGE-CAUSE\n1         <none>\n\n');
  assert.match(await s.kubectlOk(['get', 'statefulset', 'store', '-o', 'jsonpath={.status.currentRevision}={.status.updateRevision} {.status.replicas} {.status.updatedReplicas}']), /^(store-\w+)=\1 2 2$/);
});

const POD = (name: string, serviceAccount?: string) =>
  JSON.stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec: { ...(serviceAccount ? { serviceAccountName: serviceAccount } : {}), containers: [{ name: 'c', image: 'busybox' }] } });

test('kubectl create token: a pod-bound token needs the pod to run as that service account', async () => {
  await s.kubectlOk(['create', 'serviceaccount', 'robot']);
  await s.kubectlOk(['create', '-f', '-'], { input: POD('as-robot', 'robot') });
  await s.kubectlOk(['create', '-f', '-'], { input: POD('as-nobody') });
  const refused = await s.kubectl(['create', 'token', 'robot', '--bound-object-kind=Pod', '--bound-object-name=as-nobody']);
  assert.equal(refused.code, 1);
  assert.equal(refused.stderr, 'error: failed to create token: cannot bind token for serviceaccount "robot" to pod running with different serviceaccount name.\n');

  const token = (await s.kubectlOk(['create', 'token', 'robot', '--bound-object-kind=Pod', '--bound-object-name=as-robot', '--duration=15m', '--audience=vault'])).trim();
  const claims = JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()) as { aud: string[]; exp: number; iat: number; 'kubernetes.io': { pod: { name: string } } };
  assert.deepEqual([claims.aud, claims.exp - claims.iat, claims['kubernetes.io'].pod.name], [['vault'], 900, 'as-robot']);

  const r = await s.adminRequest('/api/v1/namespaces/default/serviceaccounts/robot/token', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: { audiences: ['x'], boundObjectRef: { apiVersion: 'v1', kind: 'ConfigMap', name: 'kube-root-ca.crt' } } }),
  });
  assert.equal(r.status, 400);
  const status = JSON.parse(r.body) as { reason: string; message: string };
  assert.deepEqual([status.reason, status.message], ['BadRequest', 'cannot bind token to object of type /v1, Kind=ConfigMap']);
});

test('minReadySeconds: pods are available once ready that long, and the rollout waits for it', async () => {
  s.clock.freeze();
  try {
    await s.kubectlOk(['apply', '-f', '-'], {
      input: JSON.stringify({
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: 'patient' },
        spec: { replicas: 2, minReadySeconds: 20, selector: { matchLabels: { app: 'patient' } }, template: { metadata: { labels: { app: 'patient' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } },
      }),
    });
    const counts = "jsonpath={.status.replicas} {.status.readyReplicas} {.status.availableReplicas}|{.status.conditions[?(@.type=='Available')].reason}";
    // Ready, but the server's clock stands still: not available yet.
    await until('the ready pods', async () => ((await s.kubectlOk(['get', 'deployment', 'patient', '-o', counts])) === '2 2 |MinimumReplicasUnavailable' ? true : undefined));
    assert.equal(await s.kubectlOk(['get', 'rs', '-l', 'app=patient', '-o', 'jsonpath={.items[0].spec.minReadySeconds} {.items[0].status.readyReplicas} {.items[0].status.availableReplicas}']), '20 2 ');
    const waiting = await s.kubectl(['rollout', 'status', 'deployment/patient', '--timeout=1s']);
    assert.equal(waiting.code, 1);
    assert.match(waiting.stdout, /^Waiting for deployment "patient" rollout to finish: 0 of 2 updated replicas are available\.\.\.\n/);
    s.clock.advance('21s');
    assert.equal(await s.kubectlOk(['rollout', 'status', 'deployment/patient', '--timeout=20s'], ROLLOUT), 'deployment "patient" successfully rolled out\n');
    assert.equal(await s.kubectlOk(['get', 'deployment', 'patient', '-o', counts]), '2 2 2|MinimumReplicasAvailable');
  } finally {
    s.clock.reset();
  }
});
