// Simulated workloads with kubectl: nodes that are Ready, a Deployment rolled out, updated and undone
// (`kubectl rollout status`, `kubectl wait --for=condition=Available`), kubectl debug, the controllers' writes
// through admission, the components' Events, a StatefulSet scaled in order, a DaemonSet on every node, a Job completed, a bare pod run to
// completion, and a Service's endpoints following ready pods. The Jobs' own tests are in simulation-jobs.test.ts, on a
// server of their own, so the two halves run side by side.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer, until } from './helpers.ts';

describe('simulated workloads', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer({ simulateWorkloads: { nodes: 2, podStartupMs: 20, jobPodRunMs: 50 } });
  });
  after(async () => s.close());

  test('simulated nodes are Ready', async () => {
    const out = await s.kubectlOk(['get', 'nodes']);
    assert.match(out, /^capstan-node-1\s+Ready\s+<none>\s+\d+s\s+v1\.31\.0$/m);
    assert.match(out, /^capstan-node-2\s+Ready\s+<none>\s+\d+s\s+v1\.31\.0$/m);
    const annotations = JSON.parse(await s.kubectlOk(['get', 'node', 'capstan-node-1', '-o', 'jsonpath={.metadata.annotations}']));
    assert.equal(annotations['node.alpha.kubernetes.io/ttl'], '0');
    assert.equal(annotations['volumes.kubernetes.io/controller-managed-attach-detach'], 'true');
    // The kubelet's start on its node (under the node's name as uid, as kubelets record) and the node controller's registration.
    const nodeEvents = await until("the kubelet's node events", async () => {
      const described = await s.kubectlOk(['describe', 'node', 'capstan-node-1']);
      const lines = described.slice(described.indexOf('\nEvents:')).split('\n').slice(3).map((l) => l.trim().split(/\s{2,}/).filter((_, i) => i !== 2).join(' | ')).filter(Boolean);
      return lines.length >= 7 ? lines : undefined;
    });
    assert.deepEqual(nodeEvents.filter((l) => l.includes('kubelet')), [
      'Normal | Starting | kubelet | Starting kubelet.',
      'Normal | NodeHasSufficientMemory | kubelet | Node capstan-node-1 status is now: NodeHasSufficientMemory',
      'Normal | NodeHasNoDiskPressure | kubelet | Node capstan-node-1 status is now: NodeHasNoDiskPressure',
      'Normal | NodeHasSufficientPID | kubelet | Node capstan-node-1 status is now: NodeHasSufficientPID',
      'Normal | NodeAllocatableEnforced | kubelet | Updated Node Allocatable limit across pods',
      'Normal | NodeReady | kubelet | Node capstan-node-1 status is now: NodeReady',
    ]);
    assert.ok(nodeEvents.includes('Normal | RegisteredNode | node-controller | Node capstan-node-1 event: Registered Node capstan-node-1 in Controller'), nodeEvents.join('\n'));
    assert.equal(await s.kubectlOk(['get', 'events', '--field-selector', 'reason=Starting', '-o', 'jsonpath={.items[*].involvedObject.uid}']), 'capstan-node-1 capstan-node-2');
    // RecursiveReadOnlyMounts (beta in 1.31) keeps the kubelet's runtime handlers in the node's status.
    assert.equal(await s.kubectlOk(['get', 'node', 'capstan-node-1', '-o', 'jsonpath={.status.runtimeHandlers}']), '[{"features":{"recursiveReadOnlyMounts":true,"userNamespaces":false},"name":""},{"features":{"recursiveReadOnlyMounts":true,"userNamespaces":false},"name":"runc"}]');
  });

  test("kubectl debug node/... runs a pod in the node's network: its addresses are the node's", async () => {
    const out = await s.kubectlOk(['debug', 'node/capstan-node-2', '--image=busybox', '--', 'true']);
    const name = /^Creating debugging pod (node-debugger-capstan-node-2-\w+) with container debugger on node capstan-node-2\.$/m.exec(out)?.[1];
    assert.ok(name, out);
    const pod = await until('the debugging pod running', async () => {
      const p = JSON.parse(await s.kubectlOk(['get', 'pod', name, '-o', 'json']));
      return p.status.podIP ? p : undefined;
    });
    const internal = JSON.parse(await s.kubectlOk(['get', 'node', 'capstan-node-2', '-o', 'json'])).status.addresses.find((a: { type: string }) => a.type === 'InternalIP').address;
    assert.deepEqual([pod.spec.hostNetwork, pod.status.hostIP, pod.status.podIP, pod.status.podIPs], [true, internal, internal, [{ ip: internal }]]);
    await s.kubectlOk(['delete', 'pod', name, '--wait=false']);
  });

  test('a Deployment rolls out, updates and is undone', async () => {
    await s.kubectlOk(['create', 'deployment', 'web', '--image=nginx:1.25', '--replicas=3']);
    assert.match(await s.kubectlOk(['rollout', 'status', 'deployment/web', '--timeout=30s']), /deployment "web" successfully rolled out/);
    await s.kubectlOk(['wait', '--for=condition=Available', 'deployment/web', '--timeout=10s']);
    const pods = JSON.parse(await s.kubectlOk(['get', 'pods', '-l', 'app=web', '-o', 'json'])).items;
    assert.equal(pods.length, 3);
    for (const p of pods) {
      assert.equal(p.status.phase, 'Running');
      assert.match(p.spec.nodeName, /^capstan-node-[12]$/);
      assert.match(p.status.podIP, /^10\.244\.\d+\.\d+$/);
    }
    await s.kubectlOk(['set', 'image', 'deployment/web', 'nginx=nginx:1.27']);
    // The Deployment's annotations reach its new ReplicaSet (not the old one): rollout history shows the cause.
    await s.kubectlOk(['annotate', 'deployment/web', 'kubernetes.io/change-cause=image 1.27']);
    assert.match(await s.kubectlOk(['rollout', 'status', 'deployment/web', '--timeout=30s']), /successfully rolled out/);
    const images = JSON.parse(await s.kubectlOk(['get', 'pods', '-l', 'app=web', '-o', 'json'])).items.filter((p: { metadata: { deletionTimestamp?: string } }) => !p.metadata.deletionTimestamp).map((p: { spec: { containers: { image: string }[] } }) => p.spec.containers[0].image);
    assert.deepEqual(images, ['nginx:1.27', 'nginx:1.27', 'nginx:1.27']);
    assert.match(await s.kubectlOk(['rollout', 'history', 'deployment/web']), /^1\s+<none>\n2\s+image 1\.27$/m);
    assert.equal(await s.kubectlOk(['get', 'deployment', 'web', '-o', 'jsonpath={.metadata.annotations.deployment\\.kubernetes\\.io/revision}']), '2');
    await s.kubectlOk(['rollout', 'undo', 'deployment/web']);
    assert.match(await s.kubectlOk(['rollout', 'status', 'deployment/web', '--timeout=30s']), /successfully rolled out/);
    const deployment = JSON.parse(await s.kubectlOk(['get', 'deployment', 'web', '-o', 'json']));
    assert.equal(deployment.spec.template.spec.containers[0].image, 'nginx:1.25');
    assert.equal(deployment.metadata.annotations['deployment.kubernetes.io/revision'], '3');
    // The first template's ReplicaSet is revision 3 now, remembers it was 1, and records the size it was scaled for
    // (3 replicas, at most 4 with the default surge of 25%).
    const rs = JSON.parse(await s.kubectlOk(['get', 'rs', '-l', 'app=web', '-o', 'json'])).items;
    assert.equal(rs.length, 2);
    const current = rs.find((r: { spec: { replicas: number } }) => r.spec.replicas === 3);
    const annotations = Object.fromEntries(Object.entries(current.metadata.annotations).filter(([k]) => k.startsWith('deployment.kubernetes.io/')));
    assert.deepEqual(annotations, {
      'deployment.kubernetes.io/desired-replicas': '3',
      'deployment.kubernetes.io/max-replicas': '4',
      'deployment.kubernetes.io/revision': '3',
      'deployment.kubernetes.io/revision-history': '1',
    });
    assert.match(await s.kubectlOk(['rollout', 'history', 'deployment/web']), /^2\s+image 1\.27\n3\s+<none>$/m);
  });

  test('kubectl debug adds an ephemeral container, which the simulated kubelet starts', async () => {
    const pod = await s.kubectlOk(['get', 'pods', '-l', 'app=web', '-o', 'jsonpath={.items[0].metadata.name}']);
    assert.equal(await s.kubectlOk(['debug', pod, '--image=busybox:1.36', '-c', 'dbg', '--', 'sleep', '3600']), '');
    let status: { name: string; ready: boolean; state: { running?: unknown } }[] | undefined;
    for (let i = 0; i < 100 && !status; i++) {
      const p = JSON.parse(await s.kubectlOk(['get', 'pod', pod, '-o', 'json']));
      assert.deepEqual(p.spec.ephemeralContainers, [
        { name: 'dbg', image: 'busybox:1.36', command: ['sleep', '3600'], imagePullPolicy: 'IfNotPresent', terminationMessagePath: '/dev/termination-log', terminationMessagePolicy: 'File', resources: {} },
      ]);
      status = p.status.ephemeralContainerStatuses;
      if (!status) await new Promise((r) => setTimeout(r, 50));
    }
    assert.equal(status?.length, 1);
    assert.equal(status![0]!.name, 'dbg');
    assert.equal(status![0]!.ready, false);
    assert.ok(status![0]!.state.running);
    // Ephemeral containers are only ever added.
    const refused = await s.kubectl(['debug', pod, '--image=busybox:1.36', '-c', 'web2', '--target=nope']);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, new RegExp(`The Pod "${pod}" is invalid: spec\\.ephemeralContainers\\[1\\]\\.targetContainerName: Not found: "nope"`));
  });

  test("the controllers' writes go through admission: kube's defaults on their pods, and PodSecurity refusing them (ReplicaFailure)", async () => {
    await s.kubectlOk(['create', 'namespace', 'locked']);
    await s.kubectlOk(['create', 'deployment', 'plain', '-n', 'locked', '--image=nginx', '--replicas=1']);
    assert.match(await s.kubectlOk(['rollout', 'status', 'deployment/plain', '-n', 'locked', '--timeout=30s']), /successfully rolled out/);
    const pod = JSON.parse(await s.kubectlOk(['get', 'pods', '-n', 'locked', '-l', 'app=plain', '-o', 'json'])).items[0];
    // The Priority and DefaultTolerationSeconds plugins ran on the ReplicaSet controller's create.
    assert.equal(pod.spec.priority, 0);
    assert.equal(pod.spec.preemptionPolicy, 'PreemptLowerPriority');
    assert.deepEqual(pod.spec.tolerations, [
      { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
      { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
    ]);
    // A namespace that enforces the restricted profile refuses the next pod; the ReplicaSet says why.
    await s.kubectlOk(['label', 'namespace', 'locked', 'pod-security.kubernetes.io/enforce=restricted']);
    await s.kubectlOk(['scale', 'deployment/plain', '-n', 'locked', '--replicas=2']);
    let condition: { type: string; status: string; reason: string; message: string } | undefined;
    for (let i = 0; i < 100 && !condition; i++) {
      const rs = JSON.parse(await s.kubectlOk(['get', 'rs', '-n', 'locked', '-l', 'app=plain', '-o', 'json'])).items[0];
      condition = rs.status.conditions?.find((c: { type: string }) => c.type === 'ReplicaFailure');
      if (!condition) await new Promise((r) => setTimeout(r, 50));
    }
    assert.equal(condition?.status, 'True');
    assert.equal(condition?.reason, 'FailedCreate');
    assert.match(condition!.message, /^pods "plain-[a-z0-9]+-[a-z0-9]{5}" is forbidden: violates PodSecurity "restricted:latest": /);
    assert.equal(JSON.parse(await s.kubectlOk(['get', 'pods', '-n', 'locked', '-o', 'json'])).items.length, 1);
    // The Deployment carries the ReplicaSet's failure (kubectl describe shows it).
    let onDeployment: { type: string; status: string; reason: string; message: string } | undefined = undefined;
    for (let i = 0; i < 100 && !onDeployment; i++) {
      const d = JSON.parse(await s.kubectlOk(['get', 'deployment', 'plain', '-n', 'locked', '-o', 'json']));
      onDeployment = d.status.conditions?.find((c: { type: string }) => c.type === 'ReplicaFailure');
      if (!onDeployment) await new Promise((r) => setTimeout(r, 50));
    }
    assert.deepEqual({ ...onDeployment, lastUpdateTime: undefined, lastTransitionTime: undefined }, { ...condition, lastUpdateTime: undefined, lastTransitionTime: undefined });
    // Lifting the policy lets the next pass through, and the condition goes.
    await s.kubectlOk(['label', 'namespace', 'locked', 'pod-security.kubernetes.io/enforce-']);
    assert.match(await s.kubectlOk(['rollout', 'status', 'deployment/plain', '-n', 'locked', '--timeout=30s']), /successfully rolled out/);
    for (let i = 0; i < 100 && condition; i++) {
      const rs = JSON.parse(await s.kubectlOk(['get', 'rs', '-n', 'locked', '-l', 'app=plain', '-o', 'json'])).items[0];
      condition = rs.status.conditions?.find((c: { type: string }) => c.type === 'ReplicaFailure');
      if (condition) await new Promise((r) => setTimeout(r, 50));
    }
    assert.equal(condition, undefined);
    let types: string[] = [];
    for (let i = 0; i < 100; i++) {
      types = JSON.parse(await s.kubectlOk(['get', 'deployment', 'plain', '-n', 'locked', '-o', 'json'])).status.conditions.map((c: { type: string }) => c.type);
      if (!types.includes('ReplicaFailure')) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    assert.deepEqual(types, ['Available', 'Progressing']);
  });

  test("the simulated components record kube's Events: kubectl describe and kubectl get events show them", async () => {
    await s.kubectlOk(['create', 'deployment', 'evt', '--image=nginx:1.27', '--replicas=2']);
    await s.kubectlOk(['rollout', 'status', 'deployment/evt', '--timeout=30s']);
    const rs = await s.kubectlOk(['get', 'rs', '-l', 'app=evt', '-o', 'jsonpath={.items[0].metadata.name}']);
    const pods = (await s.kubectlOk(['get', 'pods', '-l', 'app=evt', '-o', 'jsonpath={.items[*].metadata.name}'])).split(' ').sort();
    assert.equal(pods.length, 2);
    type Ev = { type: string; reason: string; message: string; count: number; source: { component?: string; host?: string }; reportingComponent: string; involvedObject: { kind: string; name: string; fieldPath?: string }; action?: string };
    const eventsOf = async (kind: string, name: string): Promise<Ev[]> =>
      JSON.parse(await s.kubectlOk(['get', 'events', '--field-selector', `involvedObject.kind=${kind},involvedObject.name=${name}`, '--sort-by=.metadata.name', '-o', 'json'])).items;
    // Events are written in the background, once the simulated components are quiet: wait for the last of them.
    const settled = async (kind: string, name: string, count: number): Promise<Ev[]> => {
      for (let i = 0; i < 100; i++) {
        const evs = await eventsOf(kind, name);
        if (evs.length >= count) return evs;
        await new Promise((r) => setTimeout(r, 50));
      }
      return eventsOf(kind, name);
    };
    const brief = (e: Ev) => `${e.type} ${e.reason} ${e.source.component ?? e.reportingComponent}${e.source.host ? `/${e.source.host}` : ''} ${e.involvedObject.fieldPath ?? '-'} ${e.message} x${e.count ?? 1}`;
    assert.deepEqual((await settled('Deployment', 'evt', 1)).map(brief), [`Normal ScalingReplicaSet deployment-controller - Scaled up replica set ${rs} to 2 x1`]);
    assert.deepEqual((await settled('ReplicaSet', rs, 2)).map(brief).sort(), pods.map((p) => `Normal SuccessfulCreate replicaset-controller - Created pod: ${p} x1`));
    const podEvents = await settled('Pod', pods[0]!, 4);
    const node = podEvents.find((e) => e.reason === 'Pulled')!.source.host!;
    assert.match(node, /^capstan-node-[12]$/);
    assert.deepEqual(podEvents.map(brief).sort(), [
      `Normal Created kubelet/${node} spec.containers{nginx} Created container nginx x1`,
      `Normal Pulled kubelet/${node} spec.containers{nginx} Container image "nginx:1.27" already present on machine x1`,
      `Normal Scheduled default-scheduler - Successfully assigned default/${pods[0]} to ${node} x1`,
      `Normal Started kubelet/${node} spec.containers{nginx} Started container nginx x1`,
    ]);
    // The scheduler writes events.k8s.io/v1 Events: read through that API they have kube's fields.
    const scheduled = JSON.parse(await s.kubectlOk(['get', 'events.v1.events.k8s.io', '--field-selector', `regarding.name=${pods[0]},reason=Scheduled`, '-o', 'json'])).items;
    assert.equal(scheduled.length, 1);
    assert.equal(scheduled[0].reportingController, 'default-scheduler');
    assert.match(scheduled[0].reportingInstance, /^default-scheduler-/);
    assert.equal(scheduled[0].action, 'Binding');
    assert.match(scheduled[0].eventTime, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
    // kubectl describe lists them with their sources.
    const describe = await s.kubectlOk(['describe', 'pod', pods[0]!]);
    assert.match(describe, /Normal\s+Scheduled\s+\S+\s+default-scheduler\s+Successfully assigned/);
    assert.match(describe, /Normal\s+Started\s+\S+\s+kubelet\s+Started container nginx/);
    // Scaling down: the Deployment's, the ReplicaSet's and the stopped pod's events.
    await s.kubectlOk(['scale', 'deployment/evt', '--replicas=1']);
    await s.kubectlOk(['rollout', 'status', 'deployment/evt', '--timeout=30s']);
    assert.deepEqual((await settled('Deployment', 'evt', 2)).map(brief).sort(), [`Normal ScalingReplicaSet deployment-controller - Scaled down replica set ${rs} to 1 from 2 x1`, `Normal ScalingReplicaSet deployment-controller - Scaled up replica set ${rs} to 2 x1`]);
    const deleted = (await settled('ReplicaSet', rs, 3)).filter((e) => e.reason === 'SuccessfulDelete');
    assert.equal(deleted.length, 1);
    const gone = deleted[0]!.message.replace('Deleted pod: ', '');
    assert.ok(pods.includes(gone), deleted[0]!.message);
    const killing = (await settled('Pod', gone, 5)).filter((e) => e.reason === 'Killing').map(brief);
    assert.deepEqual(killing, [`Normal Killing kubelet/${(await eventsOf('Pod', gone)).find((e) => e.reason === 'Pulled')!.source.host} spec.containers{nginx} Stopping container nginx x1`]);
  });

  test("a Service gets endpoints of its ready pods: Endpoints and an EndpointSlice it controls, both gone with it", async () => {
    await s.kubectlOk(['expose', 'deployment', 'web', '--port=80', '--labels=team=blue']);
    const svc = JSON.parse(await s.kubectlOk(['get', 'service', 'web', '-o', 'json']));
    const pods = JSON.parse(await s.kubectlOk(['get', 'pods', '-l', 'app=web', '-o', 'json'])).items.filter((p: { metadata: { deletionTimestamp?: string } }) => !p.metadata.deletionTimestamp);
    const ips = pods.map((p: { status: { podIP: string } }) => p.status.podIP).sort();
    await until('the endpoints to list the three ready pods', async () => {
      const r = await s.kubectl(['get', 'endpoints', 'web', '-o', 'json']);
      return r.code === 0 && (JSON.parse(r.stdout).subsets?.[0]?.addresses?.length ?? 0) === 3;
    });
    const endpoints = JSON.parse(await s.kubectlOk(['get', 'endpoints', 'web', '-o', 'json']));
    // The Service's labels, addresses sorted by IP, the port without a name (the Service's has none).
    assert.deepEqual(endpoints.metadata.labels, { team: 'blue' });
    assert.deepEqual(endpoints.subsets[0].addresses.map((a: { ip: string }) => a.ip), ips);
    assert.deepEqual(endpoints.subsets[0].ports, [{ port: 80, protocol: 'TCP' }]);
    await until('the EndpointSlice to list the three pods', async () => JSON.parse(await s.kubectlOk(['get', 'endpointslices', '-l', 'kubernetes.io/service-name=web', '-o', 'json'])).items[0]?.endpoints?.length === 3);
    const slices = JSON.parse(await s.kubectlOk(['get', 'endpointslices', '-l', 'kubernetes.io/service-name=web', '-o', 'json'])).items;
    assert.equal(slices.length, 1);
    const [slice] = slices;
    assert.match(slice.metadata.name, /^web-[a-z0-9]{5}$/);
    assert.equal(slice.metadata.generateName, 'web-');
    assert.deepEqual(slice.metadata.ownerReferences, [{ apiVersion: 'v1', kind: 'Service', name: 'web', uid: svc.metadata.uid, controller: true, blockOwnerDeletion: true }]);
    assert.deepEqual(slice.metadata.labels, { team: 'blue', 'kubernetes.io/service-name': 'web', 'endpointslice.kubernetes.io/managed-by': 'endpointslice-controller.k8s.io' });
    assert.equal(slice.addressType, 'IPv4');
    assert.deepEqual(slice.ports, [{ name: '', port: 80, protocol: 'TCP' }]);
    assert.deepEqual(slice.endpoints.map((e: { addresses: string[] }) => e.addresses[0]).sort(), ips);
    for (const e of slice.endpoints) {
      assert.deepEqual(e.conditions, { ready: true, serving: true, terminating: false });
      assert.equal(e.targetRef.kind, 'Pod');
      assert.match(e.nodeName, /^capstan-node-[12]$/);
    }
    // A headless Service: both carry kube's headless label.
    await s.kubectlOk(['expose', 'deployment', 'web', '--name=web-headless', '--cluster-ip=None', '--port=80']);
    await until('a slice for the headless Service', async () => (await s.kubectl(['get', 'endpointslices', '-l', 'kubernetes.io/service-name=web-headless', '-o', 'name'])).stdout.trim() !== '');
    assert.equal(await s.kubectlOk(['get', 'endpoints', 'web-headless', '-o', 'jsonpath={.metadata.labels}']), '{"app":"web","service.kubernetes.io/headless":""}');
    assert.equal(await s.kubectlOk(['get', 'endpointslices', '-l', 'kubernetes.io/service-name=web-headless', '-o', 'jsonpath={.items[0].metadata.labels.service\\.kubernetes\\.io/headless}']), '');
    assert.match(await s.kubectlOk(['get', 'endpointslices', '-l', 'service.kubernetes.io/headless', '-o', 'name']), /^endpointslice\.discovery\.k8s\.io\/web-headless-[a-z0-9]{5}\n$/);
    // Deleting the Service deletes its Endpoints; the garbage collector takes its slices.
    await s.kubectlOk(['delete', 'service', 'web-headless']);
    await until('the Endpoints to go with their Service', async () => (await s.kubectl(['get', 'endpoints', 'web-headless'])).code !== 0);
    await until('the EndpointSlice to go with its Service', async () => (await s.kubectlOk(['get', 'endpointslices', '-l', 'kubernetes.io/service-name=web-headless', '-o', 'name'])).trim() === '');
  });

  test('Endpoints written for a Service without a selector are mirrored into an EndpointSlice they control, unless marked skip-mirror', async () => {
    const manifest = [
      'apiVersion: v1\nkind: Service\nmetadata: {name: external}\nspec:\n  ports: [{name: https, port: 443, targetPort: 8443}]',
      'apiVersion: v1\nkind: Endpoints\nmetadata: {name: external, labels: {owner: me}}\nsubsets:\n- addresses: [{ip: 192.0.2.10}]\n  notReadyAddresses: [{ip: 192.0.2.11}]\n  ports: [{name: https, port: 8443}]',
    ].join('\n---\n');
    await s.kubectlOk(['apply', '-f', '-'], { input: manifest });
    const endpointsUid = await s.kubectlOk(['get', 'endpoints', 'external', '-o', 'jsonpath={.metadata.uid}']);
    const mirrored = async () => JSON.parse(await s.kubectlOk(['get', 'endpointslices', '-l', 'kubernetes.io/service-name=external', '-o', 'json'])).items;
    const [slice] = await until('the mirrored slice', async () => ((await mirrored()).length === 1 ? mirrored() : undefined));
    assert.match(slice.metadata.name, /^external-[a-z0-9]{5}$/);
    assert.deepEqual(slice.metadata.labels, { owner: 'me', 'kubernetes.io/service-name': 'external', 'endpointslice.kubernetes.io/managed-by': 'endpointslicemirroring-controller.k8s.io' });
    // kubectl apply's last-applied annotation is not mirrored.
    assert.equal(slice.metadata.annotations, undefined);
    assert.deepEqual(slice.metadata.ownerReferences, [{ apiVersion: 'v1', kind: 'Endpoints', name: 'external', uid: endpointsUid, controller: true, blockOwnerDeletion: true }]);
    assert.deepEqual(slice.ports, [{ name: 'https', port: 8443, protocol: 'TCP' }]);
    assert.deepEqual(slice.endpoints, [
      { addresses: ['192.0.2.10'], conditions: { ready: true } },
      { addresses: ['192.0.2.11'], conditions: { ready: false } },
    ]);
    // A change is mirrored; skip-mirror takes the slice away.
    await s.kubectlOk(['patch', 'endpoints', 'external', '--type=json', '-p', '[{"op":"remove","path":"/subsets/0/notReadyAddresses"}]']);
    await until('the change mirrored', async () => ((await mirrored())[0]?.endpoints?.length === 1 ? true : undefined));
    await s.kubectlOk(['label', 'endpoints', 'external', 'endpointslice.kubernetes.io/skip-mirror=true']);
    await until('the slice to go', async () => (await mirrored()).length === 0);
    await s.kubectlOk(['delete', 'service', 'external']);
  });

  test('a LoadBalancer Service gets an external address from the simulated cloud, and gives it back', async () => {
    await s.kubectlOk(['expose', 'deployment', 'web', '--name=web-lb', '--type=LoadBalancer', '--port=80']);
    await s.kubectlOk(['create', 'service', 'loadbalancer', 'pinned', '--tcp=443']);
    await s.kubectlOk(['patch', 'service', 'pinned', '--type=merge', '-p', '{"spec":{"loadBalancerIP":"198.51.100.77"}}']);
    const ingress = async (name: string) => JSON.parse((await s.kubectlOk(['get', 'service', name, '-o', 'jsonpath={.status.loadBalancer.ingress}'])) || '[]');
    for (let i = 0; i < 100 && ((await ingress('web-lb')).length === 0 || (await ingress('pinned'))[0]?.ip !== '198.51.100.77'); i++) await new Promise((r) => setTimeout(r, 50));
    assert.deepEqual(await ingress('web-lb'), [{ ip: '198.51.100.1', ipMode: 'VIP' }]);
    assert.deepEqual(await ingress('pinned'), [{ ip: '198.51.100.77', ipMode: 'VIP' }]);
    assert.match(await s.kubectlOk(['get', 'service', 'web-lb']), /web-lb\s+LoadBalancer\s+\S+\s+198\.51\.100\.1\s+80:\d+\/TCP/);
    assert.equal(await s.kubectlOk(['get', 'service', 'web-lb', '-o', 'jsonpath={.metadata.finalizers}']), '["service.kubernetes.io/load-balancer-cleanup"]');
    // A Service that stops being a load balancer gives its address back and loses the finalizer; a deleted one goes.
    await s.kubectlOk(['patch', 'service', 'web-lb', '--type=merge', '-p', '{"spec":{"type":"ClusterIP"}}']);
    for (let i = 0; i < 100 && (await ingress('web-lb')).length > 0; i++) await new Promise((r) => setTimeout(r, 50));
    assert.equal(await s.kubectlOk(['get', 'service', 'web-lb', '-o', 'jsonpath={.metadata.finalizers}']), '');
    await s.kubectlOk(['delete', 'service', 'pinned', 'web-lb', '--timeout=10s']);
    const events = JSON.parse(await s.kubectlOk(['get', 'events', '--field-selector', 'involvedObject.name=web-lb', '-o', 'json'])).items.map((e: { reason: string }) => e.reason);
    for (const reason of ['EnsuringLoadBalancer', 'EnsuredLoadBalancer', 'DeletingLoadBalancer', 'DeletedLoadBalancer']) assert.ok(events.includes(reason), `${reason} in ${events}`);
  });

  test('a rollout that stops making progress fails its progressDeadlineSeconds: Progressing=False, and kubectl rollout status says so', async () => {
    const deployment = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'stuck' },
      spec: {
        progressDeadlineSeconds: 2,
        selector: { matchLabels: { app: 'stuck' } },
        template: { metadata: { labels: { app: 'stuck' } }, spec: { containers: [{ name: 'c', image: 'nginx', resources: { requests: { cpu: '1000' } } }] } },
      },
    };
    await s.kubectlOk(['create', '-f', '-'], { input: JSON.stringify(deployment) });
    const r = await s.kubectl(['rollout', 'status', 'deployment/stuck', '--timeout=20s'], { timeoutMs: 30_000 });
    assert.equal(r.code, 1);
    assert.match(r.stderr, /error: deployment "stuck" exceeded its progress deadline/);
    const conditions = JSON.parse(await s.kubectlOk(['get', 'deployment', 'stuck', '-o', 'jsonpath={.status.conditions}'])) as Record<string, string>[];
    const progressing = conditions.find((c) => c.type === 'Progressing')!;
    assert.deepEqual([progressing.status, progressing.reason], ['False', 'ProgressDeadlineExceeded']);
    assert.match(progressing.message, /^ReplicaSet "stuck-\w+" has timed out progressing\.$/);
    await s.kubectlOk(['delete', 'deployment', 'stuck']);
  });

  test('a StatefulSet scales in order; a DaemonSet runs on every node; a Job completes', async () => {
    await s.kubectlOk(['create', '-f', '-'], {
      input: JSON.stringify({
        apiVersion: 'apps/v1',
        kind: 'StatefulSet',
        metadata: { name: 'db' },
        spec: { serviceName: 'db', replicas: 3, selector: { matchLabels: { app: 'db' } }, template: { metadata: { labels: { app: 'db' } }, spec: { containers: [{ name: 'db', image: 'postgres' }] } } },
      }),
    });
    assert.match(await s.kubectlOk(['rollout', 'status', 'statefulset/db', '--timeout=30s']), /partitioned roll out complete|roll out complete/);
    assert.equal(await s.kubectlOk(['get', 'pods', '-l', 'app=db', '-o', 'jsonpath={.items[*].metadata.name}']), 'db-0 db-1 db-2');
    // Its headless Service lists each pod under its hostname (the pods' subdomain is the Service).
    await s.kubectlOk(['create', '-f', '-'], { input: JSON.stringify({ apiVersion: 'v1', kind: 'Service', metadata: { name: 'db' }, spec: { clusterIP: 'None', publishNotReadyAddresses: true, selector: { app: 'db' }, ports: [{ port: 5432 }] } }) });
    let hostnames = '';
    for (let i = 0; i < 100 && hostnames !== 'db-0 db-1 db-2'; i++) {
      hostnames = (await s.kubectlOk(['get', 'endpoints', 'db', '-o', 'jsonpath={.subsets[0].addresses[*].hostname}'])).split(' ').sort().join(' ');
      if (hostnames !== 'db-0 db-1 db-2') await new Promise((r) => setTimeout(r, 50));
    }
    assert.equal(hostnames, 'db-0 db-1 db-2');
    assert.equal((await s.kubectlOk(['get', 'endpointslices', '-l', 'kubernetes.io/service-name=db', '-o', 'jsonpath={.items[0].endpoints[*].hostname}'])).split(' ').sort().join(' '), 'db-0 db-1 db-2');
    await s.kubectlOk(['create', '-f', '-'], {
      input: JSON.stringify({
        apiVersion: 'apps/v1',
        kind: 'DaemonSet',
        metadata: { name: 'agent' },
        spec: { selector: { matchLabels: { app: 'agent' } }, template: { metadata: { labels: { app: 'agent' } }, spec: { containers: [{ name: 'a', image: 'agent' }] } } },
      }),
    });
    assert.match(await s.kubectlOk(['rollout', 'status', 'daemonset/agent', '--timeout=30s']), /daemon set "agent" successfully rolled out/);
    await s.kubectlOk(['create', 'job', 'once', '--image=busybox']);
    await s.kubectlOk(['wait', '--for=condition=complete', 'job/once', '--timeout=30s']);
    const job = JSON.parse(await s.kubectlOk(['get', 'job', 'once', '-o', 'json']));
    assert.equal(job.status.succeeded, 1);
    assert.ok(job.status.completionTime);
  });

  test("a DaemonSet's pods are pinned by node affinity with kube's daemon tolerations, run on a cordoned node, and roll one node at a time", async () => {
    await s.kubectlOk(['cordon', 'capstan-node-2']);
    try {
      await s.kubectlOk(['create', '-f', '-'], {
        input: JSON.stringify({
          apiVersion: 'apps/v1',
          kind: 'DaemonSet',
          metadata: { name: 'logs' },
          spec: { selector: { matchLabels: { app: 'logs' } }, template: { metadata: { labels: { app: 'logs' } }, spec: { containers: [{ name: 'a', image: 'fluentbit:1' }] } } },
        }),
      });
      assert.match(await s.kubectlOk(['rollout', 'status', 'daemonset/logs', '--timeout=30s'], { timeoutMs: 40_000 }), /daemon set "logs" successfully rolled out/);
      type Pod = { metadata: { name: string; labels: Record<string, string> }; spec: { nodeName: string; tolerations: unknown[]; affinity: unknown } };
      const pods = async () => (JSON.parse(await s.kubectlOk(['get', 'pods', '-l', 'app=logs', '-o', 'json'])).items as Pod[]).sort((a, b) => a.spec.nodeName.localeCompare(b.spec.nodeName));
      const first = await pods();
      assert.deepEqual(first.map((p) => p.spec.nodeName), ['capstan-node-1', 'capstan-node-2']);
      assert.deepEqual(first[1]!.spec.affinity, { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchFields: [{ key: 'metadata.name', operator: 'In', values: ['capstan-node-2'] }] }] } } });
      assert.deepEqual(
        first[0]!.spec.tolerations,
        [
          ['node.kubernetes.io/not-ready', 'NoExecute'],
          ['node.kubernetes.io/unreachable', 'NoExecute'],
          ['node.kubernetes.io/disk-pressure', 'NoSchedule'],
          ['node.kubernetes.io/memory-pressure', 'NoSchedule'],
          ['node.kubernetes.io/pid-pressure', 'NoSchedule'],
          ['node.kubernetes.io/unschedulable', 'NoSchedule'],
        ].map(([key, effect]) => ({ key, operator: 'Exists', effect })),
      );
      assert.equal(first[0]!.metadata.labels['pod-template-generation'], '1');
      await s.kubectlOk(['set', 'image', 'daemonset/logs', 'a=fluentbit:2']);
      assert.match(await s.kubectlOk(['rollout', 'status', 'daemonset/logs', '--timeout=30s'], { timeoutMs: 40_000 }), /daemon set "logs" successfully rolled out/);
      const second = await pods();
      assert.deepEqual(second.map((p) => [p.spec.nodeName, p.metadata.labels['pod-template-generation']]), [['capstan-node-1', '2'], ['capstan-node-2', '2']]);
      assert.equal(second.filter((p) => first.some((f) => f.metadata.name === p.metadata.name)).length, 0);
      await s.kubectlOk(['delete', 'daemonset', 'logs']);
    } finally {
      await s.kubectlOk(['uncordon', 'capstan-node-2']);
    }
  });

  test('init containers show as completed and a sidecar (restartPolicy Always) as running once the pod runs', async () => {
    const pod = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'with-init' },
      spec: {
        initContainers: [
          { name: 'migrate', image: 'busybox' },
          { name: 'proxy', image: 'envoy', restartPolicy: 'Always' },
        ],
        containers: [{ name: 'app', image: 'nginx' }],
      },
    };
    await s.kubectlOk(['create', '-f', '-'], { input: JSON.stringify(pod) });
    await s.kubectlOk(['wait', '--for=condition=Ready', 'pod/with-init', '--timeout=20s'], { timeoutMs: 30_000 });
    const status = JSON.parse(await s.kubectlOk(['get', 'pod', 'with-init', '-o', 'jsonpath={.status}']));
    assert.deepEqual(
      status.initContainerStatuses.map((c: { name: string; state: Record<string, { reason?: string; exitCode?: number }>; ready: boolean; started: boolean }) => [c.name, Object.keys(c.state)[0], c.state.terminated?.reason, c.ready, c.started]),
      [
        ['migrate', 'terminated', 'Completed', false, false],
        ['proxy', 'running', undefined, true, true],
      ],
    );
    assert.match(await s.kubectlOk(['get', 'pod', 'with-init']), /with-init\s+2\/2\s+Running/);
    await s.kubectlOk(['delete', 'pod', 'with-init']);
  });

  test("a ReplicationController keeps its replicas as kube's replication-controller does: pods it controls, scaled, its status and events, its pods gone with it", async () => {
    const rc = { apiVersion: 'v1', kind: 'ReplicationController', metadata: { name: 'legacy' }, spec: { replicas: 2, selector: { app: 'legacy' }, template: { metadata: { labels: { app: 'legacy' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } } };
    await s.kubectlOk(['create', '-f', '-'], { input: JSON.stringify(rc) });
    const uid = await s.kubectlOk(['get', 'rc', 'legacy', '-o', 'jsonpath={.metadata.uid}']);
    const running = async (n: number) => {
      const pods = JSON.parse(await s.kubectlOk(['get', 'pods', '-l', 'app=legacy', '-o', 'json'])).items.filter((p: { metadata: { deletionTimestamp?: string } }) => !p.metadata.deletionTimestamp);
      return pods.length === n && pods.every((p: { status: { phase?: string } }) => p.status.phase === 'Running') ? pods : undefined;
    };
    const pods = await until('two running pods', () => running(2));
    for (const p of pods) {
      assert.match(p.metadata.name, /^legacy-[a-z0-9]{5}$/);
      assert.deepEqual(p.metadata.ownerReferences, [{ apiVersion: 'v1', kind: 'ReplicationController', name: 'legacy', uid, controller: true, blockOwnerDeletion: true }]);
    }
    await s.kubectlOk(['scale', 'rc', 'legacy', '--replicas=3']);
    await until('three running pods', () => running(3));
    const status = await until('the status to count three', async () => {
      const st = JSON.parse(await s.kubectlOk(['get', 'rc', 'legacy', '-o', 'json'])).status;
      return st.availableReplicas === 3 ? st : undefined;
    });
    assert.deepEqual(status, { replicas: 3, fullyLabeledReplicas: 3, readyReplicas: 3, availableReplicas: 3, observedGeneration: 2 });
    assert.match(await s.kubectlOk(['get', 'rc', 'legacy']), /^legacy\s+3\s+3\s+3\s+\d+s$/m);
    // The events are written in the background: three SuccessfulCreate from replication-controller.
    await until('three SuccessfulCreate events', async () => {
      const events = JSON.parse(await s.kubectlOk(['get', 'events', '--field-selector', 'involvedObject.kind=ReplicationController,involvedObject.name=legacy', '-o', 'json'])).items;
      return events.filter((e: { reason: string; source: { component: string } }) => e.reason === 'SuccessfulCreate' && e.source.component === 'replication-controller').length === 3;
    });
    await s.kubectlOk(['delete', 'rc', 'legacy']);
    await until('the pods to go with their controller', () => running(0));
  });

  test("a running container's status lists its mounts as 1.31's kubelet does (RecursiveReadOnlyMounts): read-only ones with their recursive mode", async () => {
    const pod = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'mounts' },
      spec: {
        containers: [
          {
            name: 'app',
            image: 'busybox',
            volumeMounts: [
              { name: 'scratch', mountPath: '/scratch' },
              { name: 'config', mountPath: '/config', readOnly: true },
              { name: 'data', mountPath: '/data', readOnly: true, recursiveReadOnly: 'IfPossible' },
            ],
          },
        ],
        volumes: [{ name: 'scratch', emptyDir: {} }, { name: 'config', emptyDir: {} }, { name: 'data', emptyDir: {} }],
      },
    };
    await s.kubectlOk(['create', '-f', '-'], { input: JSON.stringify(pod) });
    const status = await until('the pod to run', async () => {
      const p = JSON.parse(await s.kubectlOk(['get', 'pod', 'mounts', '-o', 'json']));
      return p.status.phase === 'Running' ? p.status : undefined;
    });
    assert.deepEqual(status.containerStatuses[0].volumeMounts, [
      { name: 'scratch', mountPath: '/scratch' },
      { name: 'config', mountPath: '/config', readOnly: true, recursiveReadOnly: 'Disabled' },
      { name: 'data', mountPath: '/data', readOnly: true, recursiveReadOnly: 'Enabled' },
    ]);
    await s.kubectlOk(['delete', 'pod', 'mounts', '--wait=false']);
  });

  test("a pod's readiness gates hold its Ready condition as the kubelet does until their conditions are True", async () => {
    const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'gated' }, spec: { readinessGates: [{ conditionType: 'example.com/lb' }, { conditionType: 'example.com/dns' }], containers: [{ name: 'c', image: 'nginx' }] } };
    await s.kubectlOk(['create', '-f', '-'], { input: JSON.stringify(pod) });
    const conditions = async () => JSON.parse(await s.kubectlOk(['get', 'pod', 'gated', '-o', 'json'])).status.conditions?.map((c: Record<string, string>) => [c.type, c.status, c.reason, c.message].filter((x) => x !== undefined).join(' ')) as string[] | undefined;
    const running = await until('the pod to run', async () => {
      const c = await conditions();
      return c?.includes('ContainersReady True') ? c : undefined;
    });
    assert.deepEqual(running, [
      'PodReadyToStartContainers True',
      'Initialized True',
      'Ready False ReadinessGatesNotReady corresponding condition of pod readiness gate "example.com/lb" does not exist., corresponding condition of pod readiness gate "example.com/dns" does not exist.',
      'ContainersReady True',
      'PodScheduled True',
    ]);
    assert.match(await s.kubectlOk(['get', 'pod', 'gated', '-o', 'wide']), /^gated\s+1\/1\s+Running\s+0\s+\S+\s+\S+\s+\S+\s+<none>\s+0\/2$/m);
    const setGates = (lb: string, dns: string) => s.kubectlOk(['patch', 'pod', 'gated', '--subresource=status', '-p', JSON.stringify({ status: { conditions: [{ type: 'example.com/lb', status: lb }, { type: 'example.com/dns', status: dns }] } })]);
    await setGates('True', 'False');
    await until('Ready to name the gate still False', async () => (await conditions())?.includes('Ready False ReadinessGatesNotReady the status of pod readiness gate "example.com/dns" is not "True", but False'));
    await setGates('True', 'True');
    await until('the pod to be Ready', async () => (await conditions())?.includes('Ready True'));
    // The gates' conditions stay, ahead of the kubelet's.
    assert.deepEqual((await conditions())!.slice(0, 2), ['example.com/lb True', 'example.com/dns True']);
    await s.kubectlOk(['delete', 'pod', 'gated', '--wait=false']);
  });

  test("a pod active longer than its activeDeadlineSeconds is failed by its kubelet: DeadlineExceeded, its containers killed", async () => {
    const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'deadline' }, spec: { activeDeadlineSeconds: 1, containers: [{ name: 'c', image: 'nginx' }] } };
    await s.kubectlOk(['create', '-f', '-'], { input: JSON.stringify(pod) });
    const status = await until('the pod to fail', async () => {
      const st = JSON.parse(await s.kubectlOk(['get', 'pod', 'deadline', '-o', 'json'])).status;
      return st.phase === 'Failed' ? st : undefined;
    }, { timeoutMs: 10_000 });
    assert.equal(status.reason, 'DeadlineExceeded');
    assert.equal(status.message, 'Pod was active on the node longer than the specified deadline');
    assert.ok(Date.parse(status.containerStatuses[0].state.terminated.finishedAt) - Date.parse(status.startTime) >= 1000);
    assert.deepEqual({ ...status.containerStatuses[0].state.terminated, startedAt: undefined, finishedAt: undefined, containerID: undefined }, { exitCode: 137, reason: 'Error', startedAt: undefined, finishedAt: undefined, containerID: undefined });
    assert.deepEqual(status.conditions.map((c: Record<string, string>) => `${c.type} ${c.status}${c.reason ? ` ${c.reason}` : ''}`), ['PodReadyToStartContainers False', 'Initialized True', 'Ready False PodFailed', 'ContainersReady False PodFailed', 'PodScheduled True']);
    await until('the kubelet events', async () => {
      const events = JSON.parse(await s.kubectlOk(['get', 'events', '--field-selector', 'involvedObject.name=deadline', '-o', 'json'])).items.map((e: Record<string, string>) => `${e.type} ${e.reason} ${e.message}`);
      return events.includes('Warning DeadlineExceeded Pod was active on the node longer than the specified deadline') && events.includes('Normal Killing Stopping container c');
    });
    await s.kubectlOk(['delete', 'pod', 'deadline', '--wait=false']);
  });

  test('a pod that runs to completion succeeds; one that restarts always keeps running', async () => {
    await s.kubectlOk(['run', 'one-shot', '--image=busybox', '--restart=Never', '--', 'true']);
    await s.kubectlOk(['run', 'server', '--image=nginx']);
    await s.kubectlOk(['wait', '--for=jsonpath={.status.phase}=Succeeded', 'pod/one-shot', '--timeout=30s']);
    const pod = JSON.parse(await s.kubectlOk(['get', 'pod', 'one-shot', '-o', 'json']));
    assert.deepEqual(pod.status.containerStatuses.map((c: { state: { terminated?: { exitCode: number; reason: string } } }) => c.state.terminated && [c.state.terminated.exitCode, c.state.terminated.reason]), [[0, 'Completed']]);
    // Simulated containers print nothing unless the containers test control says otherwise: their logs are empty, as
    // kube streams them (not a node that is not found), and a command run in them exits 0 with no output.
    assert.equal(await s.kubectlOk(['logs', 'one-shot']), '');
    assert.equal(await s.kubectlOk(['logs', 'server']), '');
    assert.deepEqual(await s.kubectl(['exec', 'server', '--', 'ls']), { code: 0, stdout: '', stderr: '' });
    // Twice the run time later, the restartPolicy Always pod is still Running.
    await new Promise((r) => setTimeout(r, 100));
    assert.equal(await s.kubectlOk(['get', 'pod', 'server', '-o', 'jsonpath={.status.phase}']), 'Running');
  });

  test('a CronJob fires when the server clock passes its schedule, and its Job completes', async () => {
    s.clock!.freeze('2026-03-01T10:03:30Z');
    try {
      await s.kubectlOk(['create', 'cronjob', 'tick', '--image=busybox', '--schedule=*/5 * * * *']);
      const before = JSON.parse(await s.kubectlOk(['get', 'jobs', '-o', 'json'])).items.filter((j: { metadata: { name: string } }) => j.metadata.name.startsWith('tick-'));
      assert.equal(before.length, 0);
      s.clock!.advance('2m');
      let name = '';
      for (let i = 0; i < 100 && !name; i++) {
        const jobs = JSON.parse(await s.kubectlOk(['get', 'jobs', '-o', 'json'])).items.filter((j: { metadata: { name: string } }) => j.metadata.name.startsWith('tick-'));
        name = jobs[0]?.metadata.name ?? '';
        if (!name) await new Promise((r) => setTimeout(r, 50));
      }
      // The name carries the scheduled minute (10:05 UTC) as minutes since the epoch.
      assert.equal(name, `tick-${Date.parse('2026-03-01T10:05:00Z') / 60_000}`);
      await s.kubectlOk(['wait', '--for=condition=complete', `job/${name}`, '--timeout=30s']);
      const completionTime = JSON.parse(await s.kubectlOk(['get', 'job', name, '-o', 'json'])).status.completionTime;
      // Seen finished: out of the active list, its completion time the last successful one.
      const cj = await until('the finished run in the status', async () => {
        const o = JSON.parse(await s.kubectlOk(['get', 'cronjob', 'tick', '-o', 'json']));
        return o.status.lastSuccessfulTime ? o : undefined;
      });
      assert.deepEqual([cj.status.lastScheduleTime, cj.status.lastSuccessfulTime, cj.status.active], ['2026-03-01T10:05:00Z', completionTime, undefined]);
      const seen = JSON.parse(await s.kubectlOk(['get', 'events', '--field-selector', 'involvedObject.name=tick,reason=SawCompletedJob', '-o', 'json'])).items;
      assert.deepEqual(seen.map((e: { message: string }) => e.message), [`Saw completed job: ${name}, status: Complete`]);
    } finally {
      s.clock!.reset();
    }
  });
  test("a CronJob's active list holds only the Jobs it started, with kube's events", async () => {
    s.clock!.freeze('2026-03-02T10:03:30Z');
    try {
      type Ev = { type: string; reason: string; message: string };
      const events = async (): Promise<string[]> =>
        (JSON.parse(await s.kubectlOk(['get', 'events', '--field-selector', 'involvedObject.kind=CronJob,involvedObject.name=held', '-o', 'json'])).items as Ev[]).map((e) => `${e.type} ${e.reason} ${e.message}`).sort();
      const eventually = (what: string, line: string) => until(what, async () => ((await events()).includes(line) ? true : undefined));
      const status = async () => JSON.parse(await s.kubectlOk(['get', 'cronjob', 'held', '-o', 'json'])).status;
      // The CronJob's Jobs stay suspended, so they never finish.
      const cronJob = { apiVersion: 'batch/v1', kind: 'CronJob', metadata: { name: 'held' }, spec: { schedule: '*/5 * * * *', concurrencyPolicy: 'Forbid', jobTemplate: { spec: { suspend: true, template: { spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox' }] } } } } } };
      await s.kubectlOk(['apply', '-f', '-'], { input: JSON.stringify(cronJob) });
      const uid = JSON.parse(await s.kubectlOk(['get', 'cronjob', 'held', '-o', 'json'])).metadata.uid;
      // A Job made by hand under it is reported and left out of status.active.
      const manual = { apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'by-hand', ownerReferences: [{ apiVersion: 'batch/v1', kind: 'CronJob', name: 'held', uid, controller: true }] }, spec: cronJob.spec.jobTemplate.spec };
      await s.kubectlOk(['apply', '-f', '-'], { input: JSON.stringify(manual) });
      await eventually('UnexpectedJob', 'Warning UnexpectedJob Saw a job that the controller did not create or forgot: by-hand');
      assert.equal((await status()).active, undefined);
      // Forbid does not count it: the 10:05 run starts and is the one active Job.
      const first = `held-${Date.parse('2026-03-02T10:05:00Z') / 60_000}`;
      s.clock!.advance('2m');
      await eventually('SuccessfulCreate', `Normal SuccessfulCreate Created job ${first}`);
      assert.deepEqual((await until('the active list', async () => ((await status()).active?.length ? status() : undefined))).active.map((r: { name: string }) => r.name), [first]);
      // At 10:10 the first run is still active: Forbid skips the run.
      s.clock!.advance('5m');
      await eventually('JobAlreadyActive', 'Normal JobAlreadyActive Not starting job because prior execution is running and concurrency policy is Forbid');
      assert.equal((await s.kubectl(['get', 'job', `held-${Date.parse('2026-03-02T10:10:00Z') / 60_000}`])).code, 1);
      // kube requeues the CronJob for its next scheduled time: a minute on (the clock's move runs the controller's
      // tick) the skip is not reported again.
      const count = async (reason: string) => JSON.parse(await s.kubectlOk(['get', 'events', '--field-selector', `involvedObject.name=held,reason=${reason}`, '-o', 'json'])).items.map((e: { count?: number }) => e.count ?? 1);
      s.clock!.advance('1m');
      await new Promise((r) => setTimeout(r, 2500));
      assert.deepEqual(await count('JobAlreadyActive'), [1]);
      // Deleted behind the controller's back, the active Job goes missing; with nothing active the skipped 10:10 run
      // starts (lastScheduleTime still says 10:05).
      await s.kubectlOk(['delete', 'job', first]);
      await eventually('MissingJob', `Normal MissingJob Active job went missing: ${first}`);
      const second = `held-${Date.parse('2026-03-02T10:10:00Z') / 60_000}`;
      await eventually('the skipped run', `Normal SuccessfulCreate Created job ${second}`);
      assert.deepEqual((await until('the active list', async () => ((await status()).active?.[0]?.name === second ? status() : undefined))).active.map((r: { name: string }) => r.name), [second]);
      // Past its deadline, a run is missed.
      await s.kubectlOk(['patch', 'cronjob', 'held', '--type=merge', '-p', '{"spec":{"startingDeadlineSeconds":10}}']);
      s.clock!.advance('5m');
      await eventually('MissSchedule', 'Warning MissSchedule Missed scheduled time to start a job: Mon, 02 Mar 2026 10:15:00 +0000');
      await s.kubectlOk(['delete', 'cronjob', 'held']);
    } finally {
      s.clock!.reset();
    }
  });

  test('kubectl drain evicts a node’s pods, which stop at once and come back on the other node; a cordoned node takes no pods', async () => {
    await s.kubectlOk(['create', 'deployment', 'mover', '--image=nginx', '--replicas=2']);
    assert.match(await s.kubectlOk(['rollout', 'status', 'deployment/mover', '--timeout=30s']), /successfully rolled out/);
    // The pods' grace period is kube's default 30 s: without simulated kubelets stopping them, drain would time out.
    const drained = await s.kubectlOk(['drain', 'capstan-node-1', '--ignore-daemonsets', '--delete-emptydir-data', '--force', '--timeout=15s'], { timeoutMs: 30_000 });
    assert.match(drained, /^node\/capstan-node-1 drained$/m);
    const node = JSON.parse(await s.kubectlOk(['get', 'node', 'capstan-node-1', '-o', 'json']));
    assert.equal(node.spec.unschedulable, true);
    assert.match(await s.kubectlOk(['rollout', 'status', 'deployment/mover', '--timeout=30s']), /successfully rolled out/);
    const pods = JSON.parse(await s.kubectlOk(['get', 'pods', '-l', 'app=mover', '-o', 'json'])).items;
    assert.deepEqual(pods.map((p: { spec: { nodeName: string } }) => p.spec.nodeName), ['capstan-node-2', 'capstan-node-2']);
    await s.kubectlOk(['uncordon', 'capstan-node-1']);
  });

  test("a pod no node fits stays Pending with kube's FailedScheduling events and PodScheduled condition, until a node fits", async () => {
    type Ev = { type: string; reason: string; reportingComponent: string; message: string; series?: { count: number } };
    const failures = async (name: string): Promise<Ev[]> =>
      JSON.parse(await s.kubectlOk(['get', 'events', '--field-selector', `involvedObject.name=${name},reason=FailedScheduling`, '--sort-by=.metadata.name', '-o', 'json'])).items;
    const failedWith = (name: string, count: number) => until(`${count} FailedScheduling events of ${name}`, async () => ((await failures(name)).length >= count ? failures(name) : undefined));
    const scheduledCondition = async (name: string) => {
      const pod = JSON.parse(await s.kubectlOk(['get', 'pod', name, '-o', 'json']));
      const c = pod.status.conditions.find((x: { type: string }) => x.type === 'PodScheduled');
      return `${c.status} ${c.reason ?? '-'} ${c.message ?? '-'}`;
    };
    const pod = (name: string, spec: Record<string, unknown> = {}, resources: Record<string, unknown> = {}) =>
      JSON.stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec: { containers: [{ name: 'app', image: 'nginx', resources }], ...spec } });

    // A nodeSelector no node matches: the event, the condition, kubectl's view.
    await s.kubectlOk(['apply', '-f', '-'], { input: pod('picky', { nodeSelector: { disk: 'ssd' } }) });
    const selectorMessage = "0/2 nodes are available: 2 node(s) didn't match Pod's node affinity/selector. preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling..";
    const [first] = await failedWith('picky', 1);
    assert.deepEqual([first!.type, first!.reason, first!.reportingComponent, first!.message], ['Warning', 'FailedScheduling', 'default-scheduler', selectorMessage]);
    assert.equal(await until('the PodScheduled condition', async () => ((await scheduledCondition('picky')).startsWith('False') ? scheduledCondition('picky') : undefined)), `False Unschedulable ${selectorMessage}`);
    assert.match(await s.kubectlOk(['get', 'pod', 'picky']), /^picky\s+0\/1\s+Pending\s+0\s+/m);
    // Tried again when a node changes (after its backoff): the second failure is a new Event (the pod changed with
    // its condition), the third counts on the second as a series.
    await s.kubectlOk(['label', 'node', 'capstan-node-1', 'rack=a']);
    await failedWith('picky', 2);
    await s.kubectlOk(['label', 'node', 'capstan-node-1', 'rack=b', '--overwrite']);
    const counted = await until('a series', async () => {
      const evs = await failures('picky');
      return evs.some((e) => e.series?.count === 2) ? evs : undefined;
    });
    assert.deepEqual(counted.map((e) => `${e.message} ${e.series?.count ?? 1}`), [`${selectorMessage} 1`, `${selectorMessage} 2`]);
    assert.match(await s.kubectlOk(['describe', 'pod', 'picky']), /Warning\s+FailedScheduling\s+\S+ \(x2 over \S+\)\s+default-scheduler\s+0\/2 nodes are available: 2 node\(s\) didn't match/);
    // A node that gets the label takes the pod.
    await s.kubectlOk(['label', 'node', 'capstan-node-2', 'disk=ssd']);
    await s.kubectlOk(['wait', '--for=condition=Ready', 'pod/picky', '--timeout=20s']);
    assert.equal(await s.kubectlOk(['get', 'pod', 'picky', '-o', 'jsonpath={.spec.nodeName}']), 'capstan-node-2');
    assert.equal(await scheduledCondition('picky'), 'True - -');

    // A cordoned node and an untolerated taint; then resources, with and without preemption.
    await s.kubectlOk(['cordon', 'capstan-node-1']);
    await s.kubectlOk(['taint', 'node', 'capstan-node-2', 'dedicated=gpu:NoSchedule']);
    await s.kubectlOk(['apply', '-f', '-'], { input: pod('blocked') });
    assert.equal(
      (await failedWith('blocked', 1))[0]!.message,
      '0/2 nodes are available: 1 node(s) had untolerated taint {dedicated: gpu}, 1 node(s) were unschedulable. preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling..',
    );
    await s.kubectlOk(['uncordon', 'capstan-node-1']);
    await s.kubectlOk(['wait', '--for=condition=Ready', 'pod/blocked', '--timeout=20s']);
    assert.equal(await s.kubectlOk(['get', 'pod', 'blocked', '-o', 'jsonpath={.spec.nodeName}']), 'capstan-node-1');
    await s.kubectlOk(['taint', 'node', 'capstan-node-2', 'dedicated-']);
    await s.kubectlOk(['apply', '-f', '-'], { input: pod('huge', {}, { requests: { cpu: '100' } }) });
    assert.equal((await failedWith('huge', 1))[0]!.message, '0/2 nodes are available: 2 Insufficient cpu. preemption: 0/2 nodes are available: 2 No preemption victims found for incoming pod..');
    await s.kubectlOk(['create', 'priorityclass', 'no-preempt', '--value=10', '--preemption-policy=Never']);
    await s.kubectlOk(['apply', '-f', '-'], { input: pod('huge-never', { priorityClassName: 'no-preempt' }, { requests: { memory: '1Ti' } }) });
    assert.equal((await failedWith('huge-never', 1))[0]!.message, '0/2 nodes are available: 2 Insufficient memory. preemption: not eligible due to preemptionPolicy=Never..');
    await s.kubectlOk(['delete', 'pod', 'picky', 'blocked', 'huge', 'huge-never', '--now']);
    await s.kubectlOk(['delete', 'priorityclass', 'no-preempt']);
    await s.kubectlOk(['label', 'node', 'capstan-node-1', 'rack-']);
    await s.kubectlOk(['label', 'node', 'capstan-node-2', 'disk-']);
  });

  test('a pod of higher priority preempts a lower one: the victim is deleted with a Preempted event, the pod nominated to its node and placed there', async () => {
    type Ev = { reason: string; message: string; reportingComponent: string; involvedObject: { name: string }; related?: { name: string } };
    const eventsWith = async (selector: string): Promise<Ev[]> => JSON.parse(await s.kubectlOk(['get', 'events', '--field-selector', selector, '-o', 'json'])).items;
    await s.kubectlOk(['create', 'priorityclass', 'vip', '--value=1000']);
    // Two pods of 6 cpu, one on each node (8 cpu each), leave no node room for 4 more.
    const filler = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'filler' },
      spec: { replicas: 2, selector: { matchLabels: { app: 'filler' } }, template: { metadata: { labels: { app: 'filler' } }, spec: { containers: [{ name: 'app', image: 'nginx', resources: { requests: { cpu: '6' } } }] } } },
    };
    await s.kubectlOk(['apply', '-f', '-'], { input: JSON.stringify(filler) });
    await s.kubectlOk(['rollout', 'status', 'deployment/filler', '--timeout=30s']);
    const fillers = JSON.parse(await s.kubectlOk(['get', 'pods', '-l', 'app=filler', '-o', 'json'])).items as { metadata: { name: string }; spec: { nodeName: string } }[];
    assert.deepEqual(fillers.map((p) => p.spec.nodeName).sort(), ['capstan-node-1', 'capstan-node-2']);
    const vipPod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'vip' }, spec: { priorityClassName: 'vip', containers: [{ name: 'app', image: 'nginx', resources: { requests: { cpu: '4' } } }] } };
    await s.kubectlOk(['apply', '-f', '-'], { input: JSON.stringify(vipPod) });
    await s.kubectlOk(['wait', '--for=condition=Ready', 'pod/vip', '--timeout=30s']);
    const vip = JSON.parse(await s.kubectlOk(['get', 'pod', 'vip', '-o', 'json']));
    const node = vip.spec.nodeName as string;
    assert.equal(vip.status.nominatedNodeName, node);
    const victim = fillers.find((p) => p.spec.nodeName === node)!.metadata.name;
    const [preempted] = await until('the Preempted event', async () => ((await eventsWith('reason=Preempted')).length > 0 ? eventsWith('reason=Preempted') : undefined));
    assert.deepEqual([preempted!.involvedObject.name, preempted!.message, preempted!.reportingComponent, preempted!.related?.name], [victim, `Preempted by pod ${vip.metadata.uid} on node ${node}`, 'default-scheduler', 'vip']);
    const [vipFailure] = await until('the FailedScheduling event of vip', async () => {
      const evs = await eventsWith('involvedObject.name=vip,reason=FailedScheduling');
      return evs.length > 0 ? evs : undefined;
    });
    assert.equal(vipFailure!.message, '0/2 nodes are available: 2 Insufficient cpu.');
    // The victim's replacement finds no room and no pod it may preempt.
    const replacement = await until('the replacement filler', async () => {
      const pods = JSON.parse(await s.kubectlOk(['get', 'pods', '-l', 'app=filler', '-o', 'json'])).items as { metadata: { name: string }; spec: { nodeName?: string } }[];
      return pods.find((p) => !p.spec.nodeName)?.metadata.name;
    });
    const [pending] = await until('the replacement\'s FailedScheduling event', async () => {
      const evs = await eventsWith(`involvedObject.name=${replacement},reason=FailedScheduling`);
      return evs.length > 0 ? evs : undefined;
    });
    assert.equal(pending!.message, '0/2 nodes are available: 2 Insufficient cpu. preemption: 0/2 nodes are available: 2 No preemption victims found for incoming pod..');
    await s.kubectlOk(['delete', 'deployment', 'filler']);
    await s.kubectlOk(['delete', 'pod', 'vip', '--now']);
    await s.kubectlOk(['delete', 'priorityclass', 'vip']);
  });

  test('required pod anti-affinity spreads a Deployment one pod per node; the replica with no node left stays Pending', async () => {
    const spread = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'spread' },
      spec: {
        replicas: 3,
        selector: { matchLabels: { app: 'spread' } },
        template: {
          metadata: { labels: { app: 'spread' } },
          spec: {
            affinity: { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ labelSelector: { matchLabels: { app: 'spread' } }, topologyKey: 'kubernetes.io/hostname' }] } },
            containers: [{ name: 'app', image: 'nginx' }],
          },
        },
      },
    };
    await s.kubectlOk(['apply', '-f', '-'], { input: JSON.stringify(spread) });
    type P = { metadata: { name: string }; spec: { nodeName?: string }; status: { phase: string } };
    const pods = async (): Promise<P[]> => JSON.parse(await s.kubectlOk(['get', 'pods', '-l', 'app=spread', '-o', 'json'])).items;
    const pending = await until('a pending replica', async () => {
      const all = await pods();
      return all.filter((p) => p.status.phase === 'Running').length === 2 ? all.find((p) => !p.spec.nodeName) : undefined;
    });
    assert.deepEqual((await pods()).filter((p) => p.spec.nodeName).map((p) => p.spec.nodeName).sort(), ['capstan-node-1', 'capstan-node-2']);
    const failure = await until('its FailedScheduling event', async () => {
      const evs = JSON.parse(await s.kubectlOk(['get', 'events', '--field-selector', `involvedObject.name=${pending.metadata.name},reason=FailedScheduling`, '-o', 'json'])).items;
      return evs[0]?.message as string | undefined;
    });
    assert.equal(failure, "0/2 nodes are available: 2 node(s) didn't match pod anti-affinity rules. preemption: 0/2 nodes are available: 2 No preemption victims found for incoming pod..");
    await s.kubectlOk(['scale', 'deployment/spread', '--replicas=2']);
    assert.match(await s.kubectlOk(['rollout', 'status', 'deployment/spread', '--timeout=30s']), /successfully rolled out/);
    await s.kubectlOk(['delete', 'deployment', 'spread']);
  });

  test('a pod with required pod affinity waits for the pod it names, then joins it on its node', async () => {
    const follower = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'follower' },
      spec: {
        affinity: { podAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ labelSelector: { matchLabels: { app: 'leader' } }, topologyKey: 'kubernetes.io/hostname' }] } },
        containers: [{ name: 'app', image: 'nginx' }],
      },
    };
    await s.kubectlOk(['apply', '-f', '-'], { input: JSON.stringify(follower) });
    const failure = await until('the FailedScheduling event', async () => {
      const evs = JSON.parse(await s.kubectlOk(['get', 'events', '--field-selector', 'involvedObject.name=follower,reason=FailedScheduling', '-o', 'json'])).items;
      return evs[0]?.message as string | undefined;
    });
    assert.equal(failure, "0/2 nodes are available: 2 node(s) didn't match pod affinity rules. preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling..");
    await s.kubectlOk(['run', 'leader', '--image=nginx', '--labels=app=leader']);
    await s.kubectlOk(['wait', '--for=condition=Ready', 'pod/follower', '--timeout=20s']);
    const nodeOf = (name: string) => s.kubectlOk(['get', 'pod', name, '-o', 'jsonpath={.spec.nodeName}']);
    assert.equal(await nodeOf('follower'), await nodeOf('leader'));
    await s.kubectlOk(['delete', 'pod', 'follower', 'leader', '--now']);
  });
});
