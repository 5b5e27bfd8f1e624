// Everyday kubectl workflows checked against what kube-apiserver 1.31 (with kube-controller-manager) answers:
// the system PriorityClasses cannot be deleted and only one class may be the global default; a ResourceQuota scope
// must apply to the resources it limits; a Deployment's revision annotation does not move its generation; a paused
// Deployment is scaled but gets no new ReplicaSet until resumed, with kube's DeploymentPaused condition;
// StatefulSets and DaemonSets keep ControllerRevisions, so `kubectl rollout history` and `rollout undo` work on
// them, and write their status when a pod cannot be made; `apply --prune`, `auth reconcile`, `create job --from`
// and `cluster-info` do what they do on a cluster.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, until, type TestServer } from './helpers.ts';

let s: TestServer;
before(async () => {
  s = await startTestServer({ simulateWorkloads: { nodes: 1, podStartupMs: 20, podTerminationMs: 20 } });
});
after(async () => s?.close());

const conditions = async (resource: string): Promise<string> =>
  s.kubectlOk(['get', resource, '-o', 'jsonpath={range .status.conditions[*]}{.type} {.status} {.reason} {.message}{"\\n"}{end}']);

test('PriorityClasses: the system classes stay, and only one class may be the global default', async () => {
  const del = await s.kubectl(['delete', 'priorityclass', 'system-node-critical']);
  assert.equal(del.code, 1);
  assert.equal(del.stderr, 'Error from server (Forbidden): priorityclasses.scheduling.k8s.io "system-node-critical" is forbidden: this is a system priority class and cannot be deleted\n');
  assert.match(await s.kubectlOk(['get', 'priorityclass', 'system-node-critical', '-o', 'name']), /^priorityclass.scheduling.k8s.io\/system-node-critical\n$/);

  await s.kubectlOk(['create', 'priorityclass', 'first', '--value=10', '--global-default']);
  const second = await s.kubectl(['create', 'priorityclass', 'second', '--value=20', '--global-default']);
  assert.equal(second.code, 1);
  assert.equal(second.stderr, 'error: failed to create priorityclass: priorityclasses.scheduling.k8s.io "second" is forbidden: PriorityClass first is marked as default. Only one default can exist\n');
  await s.kubectlOk(['create', 'priorityclass', 'third', '--value=30']);
  const marked = await s.kubectl(['patch', 'priorityclass', 'third', '--type=merge', '-p', '{"globalDefault":true}']);
  assert.equal(marked.stderr, 'Error from server (Forbidden): priorityclasses.scheduling.k8s.io "third" is forbidden: PriorityClass first is marked as default. Only one default can exist\n');
  // The default itself may still be updated.
  assert.equal(await s.kubectlOk(['patch', 'priorityclass', 'first', '--type=merge', '-p', '{"description":"the default"}']), 'priorityclass.scheduling.k8s.io/first patched\n');
  await s.kubectlOk(['delete', 'priorityclass', 'first', 'third']);
});

test('ResourceQuotas: a scope must apply to every standard resource the quota limits', async () => {
  const r = await s.kubectl(['create', 'quota', 'best-effort', '--hard=cpu=1,memory=1G,pods=2', '--scopes=BestEffort', '--dry-run=server']);
  assert.equal(r.code, 1);
  assert.equal(r.stderr, 'error: failed to create quota: ResourceQuota "best-effort" is invalid: spec.scopes: Invalid value: []core.ResourceQuotaScope{"BestEffort"}: unsupported scope applied to resource\n');
  assert.equal(await s.kubectlOk(['create', 'quota', 'best-effort', '--hard=pods=2', '--scopes=BestEffort', '--dry-run=server', '-o', 'name']), 'resourcequota/best-effort\n');
});

test('a paused Deployment stuck mid-rollout is scaled in proportion across its ReplicaSets, as kube\'s scale() does', async () => {
  await s.kubectlOk(['create', 'deployment', 'halfway', '--image=nginx:1.25', '--replicas=4']);
  await s.kubectlOk(['rollout', 'status', 'deployment/halfway', '--timeout=20s'], { timeoutMs: 30_000 });
  // The new pods can be scheduled nowhere: the rollout stops at 3 old + 2 new (surge 1, unavailable 1).
  await s.kubectlOk(['patch', 'deployment', 'halfway', '--type=merge', '-p', '{"spec":{"template":{"spec":{"nodeSelector":{"nowhere":"x"}}}}}']);
  const sizes = async () => (await s.kubectlOk(['get', 'rs', '-l', 'app=halfway', '--sort-by=.metadata.annotations.deployment\\.kubernetes\\.io/revision', '-o', 'jsonpath={range .items[*]}{.spec.replicas}/{.metadata.annotations.deployment\\.kubernetes\\.io/max-replicas} {end}'])).trim();
  await until('the rollout to stop halfway', async () => ((await sizes()) === '3/5 2/5' ? true : undefined));
  await s.kubectlOk(['rollout', 'pause', 'deployment/halfway']);
  // 8 replicas, surge 2: 10 allowed, 5 more shared by each set's last max-replicas (5): old 3 -> 6, new 2 -> 4.
  await s.kubectlOk(['scale', 'deployment/halfway', '--replicas=8']);
  await until('the proportional scale', async () => ((await sizes()) === '6/10 4/10' ? true : undefined));
  await s.kubectlOk(['delete', 'deployment', 'halfway']);
});

test('a paused Deployment is scaled but not rolled out until resumed', async () => {
  await s.kubectlOk(['create', 'deployment', 'paused', '--image=nginx:1.25', '--replicas=2']);
  await s.kubectlOk(['rollout', 'status', 'deployment/paused', '--timeout=20s'], { timeoutMs: 30_000 });
  // The controller names the revision through the status subresource: the generation stays 1.
  assert.equal(await s.kubectlOk(['get', 'deployment', 'paused', '-o', 'jsonpath={.metadata.generation} {.metadata.annotations}']), '1 {"deployment.kubernetes.io/revision":"1"}');
  await s.kubectlOk(['rollout', 'pause', 'deployment/paused']);
  await s.kubectlOk(['set', 'image', 'deployment/paused', 'nginx=nginx:1.26']);
  await s.kubectlOk(['set', 'env', 'deployment/paused', 'MODE=paused']);
  await s.kubectlOk(['scale', 'deployment/paused', '--replicas=3']);
  await until('the paused deployment to be scaled', async () =>
    (await s.kubectlOk(['get', 'deployment', 'paused', '-o', 'jsonpath={.status.observedGeneration} {.status.replicas} {.status.updatedReplicas}'])) === '5 3 ' ? true : undefined,
  );
  // No new ReplicaSet while paused: the one there is carries the scale, and the history has one revision.
  const sets = (await s.kubectlOk(['get', 'rs', '-l', 'app=paused', '-o', 'jsonpath={range .items[*]}{.spec.replicas} {.spec.template.spec.containers[0].image}{"\\n"}{end}'])).trim();
  assert.equal(sets, '3 nginx:1.25');
  assert.equal(await conditions('deployment/paused'), 'Available True MinimumReplicasAvailable Deployment has minimum availability.\nProgressing Unknown DeploymentPaused Deployment is paused\n');
  assert.equal(await s.kubectlOk(['rollout', 'history', 'deployment/paused']), 'deployment.apps/paused \nREVISION  CHANGE-CAUSE\n1         <none>\n\n');
  const waiting = await s.kubectl(['rollout', 'status', 'deployment/paused', '--timeout=1s']);
  assert.equal(waiting.code, 1);
  assert.match(waiting.stdout, /^Waiting for deployment "paused" rollout to finish: 0 out of 3 new replicas have been updated\.\.\.\n/);

  // Resumed: one new ReplicaSet with both changes.
  await s.kubectlOk(['rollout', 'resume', 'deployment/paused']);
  await s.kubectlOk(['rollout', 'status', 'deployment/paused', '--timeout=20s'], { timeoutMs: 30_000 });
  assert.equal(await s.kubectlOk(['rollout', 'history', 'deployment/paused']), 'deployment.apps/paused \nREVISION  CHANGE-CAUSE\n1         <none>\n2         <none>\n\n');
  const resumed = (await s.kubectlOk(['get', 'rs', '-l', 'app=paused', '--sort-by=.metadata.annotations.deployment\\.kubernetes\\.io/revision', '-o', 'jsonpath={range .items[*]}{.spec.replicas} {.spec.template.spec.containers[0].image} {.spec.template.spec.containers[0].env[0].value}{"\\n"}{end}'])).trim();
  assert.equal(resumed, '0 nginx:1.25 \n3 nginx:1.26 paused');
  assert.match(await conditions('deployment/paused'), /\nProgressing True NewReplicaSetAvailable ReplicaSet "paused-\w+" has successfully progressed\.\n$/);
});

const SETS = `apiVersion: apps/v1
kind: DaemonSet
metadata: {name: agent}
spec:
  selector: {matchLabels: {app: agent}}
  template:
    metadata: {labels: {app: agent}}
    spec: {containers: [{name: c, image: "busybox:1"}]}
---
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db}
spec:
  serviceName: db
  replicas: 2
  selector: {matchLabels: {app: db}}
  template:
    metadata: {labels: {app: db}}
    spec: {containers: [{name: c, image: "busybox:1"}]}
`;

test('StatefulSets and DaemonSets keep ControllerRevisions: rollout history and undo', async () => {
  await s.kubectlOk(['apply', '-f', '-'], { input: SETS });
  await s.kubectlOk(['rollout', 'status', 'statefulset/db', '--timeout=20s'], { timeoutMs: 30_000 });
  await s.kubectlOk(['rollout', 'status', 'daemonset/agent', '--timeout=20s'], { timeoutMs: 30_000 });
  await s.kubectlOk(['set', 'image', 'statefulset/db', 'c=busybox:2']);
  await s.kubectlOk(['set', 'image', 'daemonset/agent', 'c=busybox:2']);
  await s.kubectlOk(['rollout', 'status', 'statefulset/db', '--timeout=20s'], { timeoutMs: 30_000 });
  await s.kubectlOk(['rollout', 'status', 'daemonset/agent', '--timeout=20s'], { timeoutMs: 30_000 });
  const history = (kind: string, name: string, revisions: number[]) => `${kind}.apps/${name} \nREVISION  CHANGE-CAUSE\n${revisions.map((r) => `${String(r).padEnd(10)}<none>\n`).join('')}\n`;
  assert.equal(await s.kubectlOk(['rollout', 'history', 'statefulset/db']), history('statefulset', 'db', [1, 2]));
  assert.equal(await s.kubectlOk(['rollout', 'history', 'daemonset/agent']), history('daemonset', 'agent', [1, 2]));

  // The revisions: owned by their set, labelled with the template's labels and the hash.
  const revisions = await s.kubectlOk(['get', 'controllerrevisions', '-l', 'app=db', '--sort-by=.revision', '-o', 'jsonpath={range .items[*]}{.revision} {.metadata.ownerReferences[0].kind}/{.metadata.ownerReferences[0].name} {.metadata.name}={.metadata.labels.controller\\.kubernetes\\.io/hash}{"\\n"}{end}']);
  assert.match(revisions, /^1 StatefulSet\/db db-(\w+)=\1\n2 StatefulSet\/db db-(\w+)=\2\n$/);
  const current = await s.kubectlOk(['get', 'statefulset', 'db', '-o', 'jsonpath={.status.updateRevision}']);
  assert.equal(current, /\n2 StatefulSet\/db (\S+)=/.exec(revisions)![1]);
  assert.match(await s.kubectlOk(['rollout', 'history', 'statefulset/db', '--revision=1']), /^statefulset\.apps\/db with revision #1\nPod Template:\n  Labels:\tapp=db\n  Containers:\n   c:\n    Image:\tbusybox:1\n/);

  // Undo: the template of revision 1 is back, and that revision is renumbered as the newest.
  assert.equal(await s.kubectlOk(['rollout', 'undo', 'statefulset/db']), 'statefulset.apps/db rolled back\n');
  assert.equal(await s.kubectlOk(['rollout', 'undo', 'daemonset/agent', '--to-revision=1']), 'daemonset.apps/agent rolled back\n');
  await s.kubectlOk(['rollout', 'status', 'statefulset/db', '--timeout=20s'], { timeoutMs: 30_000 });
  await s.kubectlOk(['rollout', 'status', 'daemonset/agent', '--timeout=20s'], { timeoutMs: 30_000 });
  assert.equal(await s.kubectlOk(['get', 'pods', '-l', 'app=db', '-o', 'jsonpath={.items[*].spec.containers[0].image}']), 'busybox:1 busybox:1');
  await until('the renumbered revisions', async () => ((await s.kubectlOk(['rollout', 'history', 'daemonset/agent'])) === history('daemonset', 'agent', [2, 3]) ? true : undefined));
  assert.equal(await s.kubectlOk(['rollout', 'history', 'statefulset/db']), history('statefulset', 'db', [2, 3]));
  assert.equal(await s.kubectlOk(['rollout', 'undo', 'statefulset/db', '--to-revision=3']), 'statefulset.apps/db skipped rollback (current template already matches revision 3)\n');
  const missing = await s.kubectl(['rollout', 'undo', 'statefulset/db', '--to-revision=1']);
  assert.equal(missing.stderr, 'error: unable to find specified revision 1 in history\n');
});

test('a StatefulSet and a DaemonSet whose pods are refused still report their status', async () => {
  await s.kubectlOk(['create', 'namespace', 'quota']);
  await s.kubectlOk(['create', 'quota', 'cpu', '--hard=cpu=10', '-n', 'quota']);
  // As in kube, a quota constrains nothing until its controller has written status.hard.
  await until('the quota status', async () => ((await s.kubectlOk(['get', 'quota', 'cpu', '-n', 'quota', '-o', 'jsonpath={.status.hard.cpu}'])) === '10' ? true : undefined));
  await s.kubectlOk(['apply', '-n', 'quota', '-f', '-'], { input: SETS });
  await until('both statuses', async () => {
    const sts = await s.kubectlOk(['get', 'statefulset', 'db', '-n', 'quota', '-o', 'jsonpath={.status.observedGeneration} {.status.replicas}']);
    const ds = await s.kubectlOk(['get', 'daemonset', 'agent', '-n', 'quota', '-o', 'jsonpath={.status.observedGeneration} {.status.desiredNumberScheduled} {.status.currentNumberScheduled}']);
    return sts === '1 0' && ds === '1 1 0' ? true : undefined;
  });
  const r = await s.kubectl(['rollout', 'status', 'statefulset/db', '-n', 'quota', '--timeout=1s']);
  assert.match(r.stdout, /^Waiting for 2 pods to be ready\.\.\.\n/);
  assert.match(await s.kubectlOk(['get', 'events', '-n', 'quota', '--field-selector', 'involvedObject.name=db,reason=FailedCreate', '-o', 'jsonpath={.items[0].message}']), /^create Pod db-0 in StatefulSet db failed error: pods "db-0" is forbidden: failed quota: cpu: must specify cpu for: c$/);
});

test('kubectl apply --prune, auth reconcile, create job --from=cronjob and cluster-info', async () => {
  const cm = (name: string) => `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: ${name}, labels: {app: pruned}}\ndata: {k: v}\n`;
  assert.equal(await s.kubectlOk(['apply', '--prune', '-l', 'app=pruned', '-f', '-'], { input: `${cm('keep')}---\n${cm('drop')}` }), 'configmap/keep created\nconfigmap/drop created\n');
  const pruned = await s.kubectlOk(['apply', '--prune', '-l', 'app=pruned', '-f', '-'], { input: cm('keep') });
  assert.equal(pruned, 'configmap/keep unchanged\nconfigmap/drop pruned\n');
  assert.equal((await s.kubectl(['get', 'configmap', 'drop'])).code, 1);

  const rbac = `apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: reader, namespace: default}
rules: [{apiGroups: [""], resources: [pods], verbs: [get, list]}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: reader, namespace: default}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: reader}
subjects: [{kind: User, name: alice, apiGroup: rbac.authorization.k8s.io}]
`;
  // What it changed goes to stderr; a second run has nothing to change.
  const first = await s.kubectl(['auth', 'reconcile', '-f', '-'], { input: rbac });
  assert.equal(first.stdout, 'role.rbac.authorization.k8s.io/reader reconciled\nrolebinding.rbac.authorization.k8s.io/reader reconciled\n');
  assert.equal(
    first.stderr,
    '\treconciliation required create\n\tmissing rules added:\n\t\t{Verbs:[get list] APIGroups:[] Resources:[pods] ResourceNames:[] NonResourceURLs:[]}\n' +
      '\treconciliation required create\n\tmissing subjects added:\n\t\t{Kind:User APIGroup:rbac.authorization.k8s.io Name:alice Namespace:}\n',
  );
  const again = await s.kubectl(['auth', 'reconcile', '-f', '-'], { input: rbac });
  assert.deepEqual([again.stdout, again.stderr], ['role.rbac.authorization.k8s.io/reader reconciled\nrolebinding.rbac.authorization.k8s.io/reader reconciled\n', '']);
  assert.equal(await s.kubectlOk(['get', 'role', 'reader', '-o', 'jsonpath={.rules[0].verbs}']), '["get","list"]');
  await s.kubectlOk(['delete', 'rolebinding,role', 'reader']);

  await s.kubectlOk(['create', 'cronjob', 'nightly', '--image=busybox', '--schedule=0 0 * * *']);
  assert.equal(await s.kubectlOk(['create', 'job', 'manual', '--from=cronjob/nightly']), 'job.batch/manual created\n');
  const job = JSON.parse(await s.kubectlOk(['get', 'job', 'manual', '-o', 'json']));
  const cronjob = JSON.parse(await s.kubectlOk(['get', 'cronjob', 'nightly', '-o', 'json']));
  assert.equal(job.metadata.annotations['cronjob.kubernetes.io/instantiate'], 'manual');
  assert.deepEqual(job.metadata.ownerReferences, [{ apiVersion: 'batch/v1', kind: 'CronJob', name: 'nightly', uid: cronjob.metadata.uid, controller: true }]);
  await s.kubectlOk(['delete', 'cronjob', 'nightly']);
  await s.kubectlOk(['wait', '--for=delete', 'job/manual', '--timeout=20s']);

  const info = await s.kubectlOk(['cluster-info']);
  assert.match(info, /Kubernetes control plane.* is running at .*https:\/\/127\.0\.0\.1:\d+/);
});
