// PodDisruptionBudgets as on a cluster: the disruption controller keeps their status (kubectl get pdb's ALLOWED
// DISRUPTIONS), evictions take from it one at a time (disruptedPods), and kubectl drain waits for the budget, with
// simulated nodes and kubelets making pods Ready and replacing evicted ones on the other node.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer, until as waitFor } from './helpers.ts';

let s: TestServer;
before(async () => {
  s = await startTestServer({ simulateWorkloads: { nodes: 2, podStartupMs: 20, podTerminationMs: 20 } });
});
after(async () => s?.close());

interface PdbStatus {
  observedGeneration?: number;
  disruptionsAllowed?: number;
  currentHealthy?: number;
  desiredHealthy?: number;
  expectedPods?: number;
  disruptedPods?: Record<string, string>;
  conditions?: { type: string; status: string; reason: string; message: string; observedGeneration: number }[];
}

async function status(name: string, namespace = 'default'): Promise<PdbStatus> {
  return (JSON.parse(await s.kubectlOk(['get', 'pdb', name, '-n', namespace, '-o', 'json'])) as { status: PdbStatus }).status;
}

/** Polls for at most 20 s (the controllers' work here spans several passes). */
const until = <T>(what: string, check: () => Promise<T | undefined | false>): Promise<T> => waitFor(what, check, { timeoutMs: 20_000 });

const counts = (st: PdbStatus) => [st.expectedPods, st.desiredHealthy, st.currentHealthy, st.disruptionsAllowed];
const condition = (st: PdbStatus) => st.conditions?.map((c) => [c.type, c.status, c.reason, c.message]);

test('budgets count their pods, or their controllers scale for maxUnavailable and percentages', async () => {
  await s.kubectlOk(['create', 'deployment', 'web', '--image=nginx', '--replicas=3']);
  await s.kubectlOk(['create', 'pdb', 'web-min', '--selector=app=web', '--min-available=2']);
  await s.kubectlOk(['create', 'pdb', 'web-max', '--selector=app=web', '--max-unavailable=34%']);
  await s.kubectlOk(['create', 'pdb', 'web-pct', '--selector=app=web', '--min-available=50%']);
  await s.kubectlOk(['rollout', 'status', 'deployment/web', '--timeout=20s'], { timeoutMs: 30_000 });
  await until('all three budgets see 3 healthy pods', async () => (await status('web-min')).currentHealthy === 3 && (await status('web-max')).currentHealthy === 3 && (await status('web-pct')).currentHealthy === 3);
  // minAvailable 2 of 3 pods; maxUnavailable 34% of a scale of 3 rounds up to 2; minAvailable 50% of 3 rounds up to 2.
  assert.deepEqual(counts(await status('web-min')), [3, 2, 3, 1]);
  assert.deepEqual(counts(await status('web-max')), [3, 1, 3, 2]);
  assert.deepEqual(counts(await status('web-pct')), [3, 2, 3, 1]);
  const min = await status('web-min');
  assert.equal(min.observedGeneration, 1);
  assert.deepEqual(condition(min), [['DisruptionAllowed', 'True', 'SufficientPods', '']]);
  assert.match(await s.kubectlOk(['get', 'pdb', 'web-min']), /web-min\s+2\s+N\/A\s+1\s+/);

  // Scaling the Deployment moves what maxUnavailable expects; a budget needing more than there is allows nothing.
  await s.kubectlOk(['scale', 'deployment/web', '--replicas=4']);
  await until('web-max expects 4', async () => (await status('web-max')).currentHealthy === 4);
  assert.deepEqual(counts(await status('web-max')), [4, 2, 4, 2]);
  await s.kubectlOk(['patch', 'pdb', 'web-min', '--type=merge', '-p', '{"spec":{"minAvailable":5}}']);
  await until('web-min sees its new spec', async () => (await status('web-min')).observedGeneration === 2);
  const strict = await status('web-min');
  assert.deepEqual(counts(strict), [4, 5, 4, 0]);
  assert.deepEqual(condition(strict), [['DisruptionAllowed', 'False', 'InsufficientPods', '']]);
  for (const name of ['web-min', 'web-max', 'web-pct']) await s.kubectlOk(['delete', 'pdb', name]);
  await s.kubectlOk(['scale', 'deployment/web', '--replicas=3']);
});

test('a pod without a controller is not counted by a maxUnavailable budget; one whose controller has no scale fails it safe', async () => {
  await s.kubectlOk(['run', 'lone', '--image=nginx', '--labels=solo=yes']);
  await s.kubectlOk(['create', 'pdb', 'solo', '--selector=solo=yes', '--max-unavailable=1']);
  await until('solo is synced', async () => (await status('solo')).observedGeneration === 1);
  assert.deepEqual(counts(await status('solo')), [0, 0, 1, 0]);

  // A pod whose controller has no scale: nothing says how many pods it wants.
  const owner = JSON.parse(await s.kubectlOk(['create', 'configmap', 'owner', '-o', 'json'])) as { metadata: { uid: string } };
  const orphan = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'orphan', labels: { orphan: 'yes' }, ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid: owner.metadata.uid, controller: true }] },
    spec: { containers: [{ name: 'c', image: 'nginx' }] },
  };
  await s.kubectlOk(['create', '-f', '-'], { input: JSON.stringify(orphan) });
  await s.kubectlOk(['create', 'pdb', 'orphan', '--selector=orphan=yes', '--max-unavailable=1']);
  await until('orphan fails safe', async () => (await status('orphan')).conditions?.[0]?.reason === 'SyncFailed');
  const failed = await status('orphan');
  assert.equal(failed.disruptionsAllowed, 0);
  assert.deepEqual(condition(failed), [['DisruptionAllowed', 'False', 'SyncFailed', 'found no controllers for pod "orphan"']]);
  await s.kubectlOk(['delete', 'pod', 'orphan', 'lone', '--wait=false']);
  await s.kubectlOk(['delete', 'pdb', 'orphan', 'solo']);
  await s.kubectlOk(['delete', 'configmap', 'owner']);
});

test('evictions take from the budget one at a time; kubectl drain waits for the replacements', async () => {
  await s.kubectlOk(['create', 'pdb', 'web', '--selector=app=web', '--min-available=2']);
  await until('web allows one disruption', async () => (await status('web')).disruptionsAllowed === 1);
  const pods = (await s.kubectlOk(['get', 'pods', '-l', 'app=web', '-o', 'jsonpath={.items[*].metadata.name}'])).split(' ');
  assert.equal(pods.length, 3);
  const evict = (pod: string, dryRun = false) =>
    s.adminRequest(`/api/v1/namespaces/default/pods/${pod}/eviction${dryRun ? '?dryRun=All' : ''}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: pod, namespace: 'default' } }),
    });

  // A dry run is allowed and takes nothing.
  assert.equal((await evict(pods[0]!, true)).status, 201);
  assert.equal((await status('web')).disruptionsAllowed, 1);

  // Two evictions at once: one takes the one disruption the budget has, the other is refused.
  const answers = await Promise.all([evict(pods[0]!), evict(pods[1]!)]);
  assert.deepEqual(answers.map((a) => a.status).sort(), [201, 429]);
  const second = answers.find((a) => a.status === 429)!;
  const refusal = JSON.parse(second.body) as { reason: string; message: string; details: { causes: { reason: string; message: string }[] } };
  assert.equal(refusal.reason, 'TooManyRequests');
  assert.equal(refusal.message, "Cannot evict pod as it would violate the pod's disruption budget.");
  assert.equal(refusal.details.causes[0]!.reason, 'DisruptionBudget');
  assert.match(refusal.details.causes[0]!.message, /^The disruption budget web needs 2 healthy pods and has [23] currently$/);

  // The replacement becomes Ready on a node: the budget allows one again.
  await until('the replacement counts', async () => {
    const st = await status('web');
    return st.currentHealthy === 3 && st.disruptionsAllowed === 1 && st.disruptedPods === undefined;
  });

  // Drain evicts as the budget lets it, retrying the refusals, until the node is empty.
  const drained = await s.kubectlOk(['drain', 'capstan-node-1', '--ignore-daemonsets', '--timeout=30s'], { timeoutMs: 45_000 });
  assert.match(drained, /^node\/capstan-node-1 drained$/m);
  await until('3 healthy pods on the other node', async () => {
    const st = await status('web');
    const nodes = (await s.kubectlOk(['get', 'pods', '-l', 'app=web', '--field-selector=status.phase=Running', '-o', 'jsonpath={.items[*].spec.nodeName}'])).split(' ');
    return st.currentHealthy === 3 && nodes.length === 3 && nodes.every((n) => n === 'capstan-node-2');
  });
  await s.kubectlOk(['uncordon', 'capstan-node-1']);
});

test('a pod with more than one budget is not evicted', async () => {
  await s.kubectlOk(['create', 'pdb', 'web-2', '--selector=app=web', '--max-unavailable=1']);
  const pod = (await s.kubectlOk(['get', 'pods', '-l', 'app=web', '-o', 'jsonpath={.items[0].metadata.name}'])).trim();
  const r = await s.adminRequest(`/api/v1/namespaces/default/pods/${pod}/eviction`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: pod, namespace: 'default' } }),
  });
  assert.equal(r.status, 500);
  assert.deepEqual(JSON.parse(r.body), { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.', code: 500 });
});

test('preemption spares the pods a budget protects when another node has victims it does not', async () => {
  await s.kubectlOk(['create', 'priorityclass', 'vip', '--value=1000']);
  const deployment = (name: string, node: string) => ({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name },
    spec: {
      replicas: 1,
      selector: { matchLabels: { app: name } },
      template: { metadata: { labels: { app: name } }, spec: { nodeSelector: { 'kubernetes.io/hostname': node }, containers: [{ name: 'app', image: 'nginx', resources: { requests: { cpu: '6' } } }] } },
    },
  });
  // 6 of each node's 8 cpu taken; the first node's pod is protected by a budget that allows no disruption.
  await s.kubectlOk(['apply', '-f', '-'], { input: JSON.stringify(deployment('guarded', 'capstan-node-1')) });
  await s.kubectlOk(['apply', '-f', '-'], { input: JSON.stringify(deployment('spare', 'capstan-node-2')) });
  await s.kubectlOk(['create', 'pdb', 'guarded', '--selector=app=guarded', '--min-available=1']);
  for (const name of ['guarded', 'spare']) await s.kubectlOk(['rollout', 'status', `deployment/${name}`, '--timeout=30s'], { timeoutMs: 40_000 });
  await until('the budget counts its pod', async () => (await status('guarded')).currentHealthy === 1);
  const protectedPod = (await s.kubectlOk(['get', 'pods', '-l', 'app=guarded', '-o', 'jsonpath={.items[0].metadata.name}'])).trim();
  const vip = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'vip' }, spec: { priorityClassName: 'vip', containers: [{ name: 'app', image: 'nginx', resources: { requests: { cpu: '4' } } }] } };
  await s.kubectlOk(['apply', '-f', '-'], { input: JSON.stringify(vip) });
  await s.kubectlOk(['wait', '--for=condition=Ready', 'pod/vip', '--timeout=30s'], { timeoutMs: 40_000 });
  assert.equal((await s.kubectlOk(['get', 'pod', 'vip', '-o', 'jsonpath={.spec.nodeName}'])).trim(), 'capstan-node-2');
  assert.equal((await s.kubectl(['get', 'pod', protectedPod])).code, 0, 'the protected pod is still there');
  const preempted = JSON.parse(await s.kubectlOk(['get', 'events', '--field-selector', 'reason=Preempted', '-o', 'json'])).items as { involvedObject: { name: string } }[];
  assert.ok(preempted.length > 0 && preempted.every((e) => e.involvedObject.name.startsWith('spare-')), JSON.stringify(preempted.map((e) => e.involvedObject.name)));
  for (const name of ['guarded', 'spare']) await s.kubectlOk(['delete', 'deployment', name]);
  await s.kubectlOk(['delete', 'pod', 'vip', '--now']);
  await s.kubectlOk(['delete', 'pdb', 'guarded']);
  await s.kubectlOk(['delete', 'priorityclass', 'vip']);
});
