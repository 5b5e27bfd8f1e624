// Node failure in the simulated cluster, driven by the server clock and the kubelet test control: a stopped
// kubelet's node goes NotReady after kube's 40 s grace period (conditions Unknown, unreachable taints, its pods not
// ready, kube's events), its pods are evicted by the taint eviction controller once their 300 s tolerations have
// run out and replaced elsewhere, and the node comes back when its kubelet starts. A deleted node's pods are taken
// by the pod garbage collector after its 40 s quarantine.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer, until } from './helpers.ts';

interface Pod {
  metadata: { name: string; deletionTimestamp?: string };
  spec: { nodeName?: string };
  status: { phase?: string; conditions?: { type: string; status: string; reason?: string; message?: string }[] };
}

describe('node lifecycle in the simulated cluster', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer({ simulateWorkloads: { nodes: 3, podStartupMs: 20 } });
  });
  after(async () => {
    s.clock.reset();
    await s.close();
  });

  const json = async <T>(args: string[]): Promise<T> => JSON.parse(await s.kubectlOk([...args, '-o', 'json'])) as T;
  const pods = async () => (await json<{ items: Pod[] }>(['get', 'pods', '-l', 'app=web'])).items;
  const node = async (name: string) => json<{ spec: { taints?: { key: string; effect: string; timeAdded?: string }[] }; status: { conditions: { type: string; status: string; reason: string; message: string }[] } }>(['get', 'node', name]);
  const control = async (path: string, method = 'POST') => {
    const r = await s.adminRequest(`/capstan/v1${path}`, { method, body: method === 'POST' ? '{}' : undefined, headers: { 'content-type': 'application/json' } });
    return { status: r.status, body: JSON.parse(r.body) as unknown };
  };

  test("a stopped kubelet's node goes NotReady after 40 s, its pods are evicted after their 300 s tolerations and replaced; it comes back when the kubelet starts", async () => {
    await s.kubectlOk(['create', 'deployment', 'web', '--image=nginx', '--replicas=6']);
    await s.kubectlOk(['rollout', 'status', 'deployment/web', '--timeout=30s']);
    const onNode2 = (await pods()).filter((p) => p.spec.nodeName === 'capstan-node-2').map((p) => p.metadata.name).sort();
    assert.ok(onNode2.length > 0, "the scheduler spreads the Deployment over every node (kube's default topology spread and least allocated scores)");

    // A fresh node has no taints: TaintNodesByCondition's not-ready taint went once the kubelet reported Ready.
    assert.equal((await node('capstan-node-2')).spec.taints, undefined);
    // The kubelet's machine identities: /etc/machine-id's 32 hex digits, the DMI product UUID, the kernel's boot_id.
    const infos = await Promise.all(['capstan-node-1', 'capstan-node-2'].map(async (n) => (await json<{ status: { nodeInfo: Record<string, string> } }>(['get', 'node', n])).status.nodeInfo));
    for (const info of infos) {
      assert.match(info.machineID!, /^[0-9a-f]{32}$/);
      assert.match(info.systemUUID!, /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
      assert.match(info.bootID!, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    }
    assert.notEqual(infos[0]!.machineID, infos[1]!.machineID);
    assert.notEqual(infos[0]!.bootID, infos[1]!.bootID);
    assert.deepEqual(await control('/kubelets', 'GET'), { status: 200, body: { items: ['capstan-node-1', 'capstan-node-2', 'capstan-node-3'].map((n) => ({ node: n, running: true })) } });
    assert.deepEqual(await control('/kubelets/capstan-node-2/stop'), { status: 200, body: { node: 'capstan-node-2', running: false } });
    const unknown = await control('/kubelets/capstan-node-9/stop');
    assert.equal(unknown.status, 404);
    assert.match((unknown.body as { message: string }).message, /^no simulated kubelet serves node "capstan-node-9"/);

    s.clock.freeze();
    s.clock.advance('30s');
    await new Promise((r) => setTimeout(r, 300));
    assert.match(await s.kubectlOk(['get', 'node', 'capstan-node-2']), /^capstan-node-2\s+Ready\s/m);

    s.clock.advance('11s');
    await until('node-2 NotReady', async () => (/^capstan-node-2\s+NotReady\s/m.test(await s.kubectlOk(['get', 'nodes'])) ? true : undefined));
    const nodes = await s.kubectlOk(['get', 'nodes']);
    assert.match(nodes, /^capstan-node-1\s+Ready\s/m);
    assert.match(nodes, /^capstan-node-3\s+Ready\s/m);
    const down = await node('capstan-node-2');
    for (const type of ['MemoryPressure', 'DiskPressure', 'PIDPressure', 'Ready']) {
      const c = down.status.conditions.find((x) => x.type === type)!;
      assert.deepEqual([c.status, c.reason, c.message], ['Unknown', 'NodeStatusUnknown', 'Kubelet stopped posting node status.']);
    }
    const taints = await until('the unreachable taints', async () => {
      const t = (await node('capstan-node-2')).spec.taints ?? [];
      return t.length === 2 ? t : undefined;
    });
    assert.deepEqual(taints.map((t) => `${t.key}:${t.effect}`).sort(), ['node.kubernetes.io/unreachable:NoExecute', 'node.kubernetes.io/unreachable:NoSchedule']);
    assert.ok(taints.every((t) => typeof t.timeAdded === 'string'));
    // Its pods are not ready (still Running: nothing reports otherwise), each with a NodeNotReady event.
    await until('pods not ready', async () => ((await pods()).filter((p) => onNode2.includes(p.metadata.name)).every((p) => p.status.conditions?.find((c) => c.type === 'Ready')?.status === 'False') ? true : undefined));
    const events = await s.kubectlOk(['get', 'events', '-o', 'custom-columns=KIND:.involvedObject.kind,NAME:.involvedObject.name,REASON:.reason,MESSAGE:.message', '--no-headers']);
    assert.match(events, /^Node\s+capstan-node-2\s+NodeNotReady\s+Node capstan-node-2 status is now: NodeNotReady$/m);
    assert.match(events, new RegExp(`^Pod\\s+${onNode2[0]}\\s+NodeNotReady\\s+Node is not ready$`, 'm'));
    assert.equal((await s.kubectlOk(['get', 'deployment', 'web', '-o', 'jsonpath={.status.readyReplicas}'])), String(6 - onNode2.length));

    // kube's DefaultTolerationSeconds gave the pods 300 s on an unreachable node; 299 s later they are still there.
    s.clock.advance('299s');
    await new Promise((r) => setTimeout(r, 300));
    assert.ok((await pods()).filter((p) => onNode2.includes(p.metadata.name)).every((p) => !p.metadata.deletionTimestamp));
    s.clock.advance('2s');
    const evicted = await until('the evictions', async () => {
      const on2 = (await pods()).filter((p) => onNode2.includes(p.metadata.name));
      return on2.length === onNode2.length && on2.every((p) => p.metadata.deletionTimestamp) ? on2 : undefined;
    });
    for (const p of evicted) {
      const c = p.status.conditions!.find((x) => x.type === 'DisruptionTarget')!;
      assert.deepEqual([c.status, c.reason, c.message], ['True', 'DeletionByTaintManager', 'Taint manager: deleting due to NoExecute taint']);
    }
    assert.match(await s.kubectlOk(['get', 'events', '--field-selector', `reason=TaintManagerEviction,involvedObject.name=${onNode2[0]}`, '-o', 'jsonpath={.items[0].message}']), new RegExp(`^Marking for deletion Pod default/${onNode2[0]}$`));
    // Replaced on the other nodes; the evicted pods stay Terminating while their kubelet is away.
    await s.kubectlOk(['rollout', 'status', 'deployment/web', '--timeout=30s']);
    const live = (await pods()).filter((p) => !p.metadata.deletionTimestamp);
    assert.equal(live.length, 6);
    assert.ok(live.every((p) => p.spec.nodeName !== 'capstan-node-2'));
    await new Promise((r) => setTimeout(r, 300));
    assert.equal((await pods()).filter((p) => onNode2.includes(p.metadata.name)).length, onNode2.length);

    // The kubelet comes back: the node is Ready and untainted, and the evicted pods finish terminating.
    assert.deepEqual(await control('/kubelets/capstan-node-2/start'), { status: 200, body: { node: 'capstan-node-2', running: true } });
    await s.kubectlOk(['wait', '--for=condition=Ready', 'node/capstan-node-2', '--timeout=10s']);
    await until('the taints gone', async () => ((await node('capstan-node-2')).spec.taints === undefined ? true : undefined));
    await s.kubectlOk(['wait', '--for=delete', ...onNode2.map((n) => `pod/${n}`), '--timeout=10s']);
  });

  test("a deleted node's pods are force-deleted by the pod garbage collector after its 40 s quarantine and replaced", async () => {
    s.clock.freeze();
    const onNode3 = (await pods()).filter((p) => p.spec.nodeName === 'capstan-node-3' && !p.metadata.deletionTimestamp).map((p) => p.metadata.name);
    assert.ok(onNode3.length > 0);
    // The kubelet's CSINode (no drivers) and node Lease are the node's, as a kubelet makes them: they go with it.
    const uid = await s.kubectlOk(['get', 'node', 'capstan-node-3', '-o', 'jsonpath={.metadata.uid}']);
    const owner = [{ apiVersion: 'v1', kind: 'Node', name: 'capstan-node-3', uid }];
    const csiNode = JSON.parse(await s.kubectlOk(['get', 'csinode', 'capstan-node-3', '-o', 'json']));
    assert.deepEqual([csiNode.metadata.ownerReferences, csiNode.spec], [owner, { drivers: null }]);
    assert.equal(csiNode.metadata.annotations['storage.alpha.kubernetes.io/migrated-plugins'], 'kubernetes.io/aws-ebs,kubernetes.io/azure-disk,kubernetes.io/azure-file,kubernetes.io/cinder,kubernetes.io/gce-pd,kubernetes.io/portworx-volume,kubernetes.io/vsphere-volume');
    assert.deepEqual(JSON.parse(await s.kubectlOk(['get', 'lease', '-n', 'kube-node-lease', 'capstan-node-3', '-o', 'jsonpath={.metadata.ownerReferences}'])), owner);
    await s.kubectlOk(['delete', 'node', 'capstan-node-3']);
    await s.kubectlOk(['wait', '--for=delete', 'csinode/capstan-node-3', '-n', 'kube-node-lease', 'lease/capstan-node-3', '--timeout=10s']);
    s.clock.advance('1s');
    await new Promise((r) => setTimeout(r, 300));
    s.clock.advance('39s');
    await new Promise((r) => setTimeout(r, 300));
    assert.equal((await pods()).filter((p) => onNode3.includes(p.metadata.name)).length, onNode3.length, 'kept while quarantined');
    s.clock.advance('2s');
    await s.kubectlOk(['wait', '--for=delete', ...onNode3.map((n) => `pod/${n}`), '--timeout=10s']);
    await s.kubectlOk(['rollout', 'status', 'deployment/web', '--timeout=30s']);
    const live = (await pods()).filter((p) => !p.metadata.deletionTimestamp);
    assert.equal(live.length, 6);
    assert.ok(live.every((p) => p.spec.nodeName === 'capstan-node-1' || p.spec.nodeName === 'capstan-node-2'));
  });
});

describe('node lifecycle on a one-node simulated cluster', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer({ simulateWorkloads: { nodes: 1, podStartupMs: 20 } });
  });
  after(async () => {
    s.clock.reset();
    await s.close();
  });

  test('with every node down, kube suspects the control plane: the node is NotReady but gets no NoExecute taint, and its pods stay', async () => {
    await s.kubectlOk(['create', 'deployment', 'solo', '--image=nginx', '--replicas=2']);
    await s.kubectlOk(['rollout', 'status', 'deployment/solo', '--timeout=30s']);
    await s.kubelets.stop('capstan-node-1');
    s.clock.freeze();
    s.clock.advance('41s');
    await until('the node NotReady', async () => (/^capstan-node-1\s+NotReady\s/m.test(await s.kubectlOk(['get', 'nodes'])) ? true : undefined));
    await until('its NoSchedule taint', async () => (await s.kubectlOk(['get', 'node', 'capstan-node-1', '-o', 'jsonpath={.spec.taints[*].key}:{.spec.taints[*].effect}'])) === 'node.kubernetes.io/unreachable:NoSchedule' || undefined);
    s.clock.advance('10m');
    await new Promise((r) => setTimeout(r, 500));
    assert.equal(await s.kubectlOk(['get', 'node', 'capstan-node-1', '-o', 'jsonpath={.spec.taints[*].key}:{.spec.taints[*].effect}']), 'node.kubernetes.io/unreachable:NoSchedule');
    const pods = JSON.parse(await s.kubectlOk(['get', 'pods', '-l', 'app=solo', '-o', 'json'])).items as { metadata: { deletionTimestamp?: string } }[];
    assert.equal(pods.length, 2);
    assert.ok(pods.every((p) => !p.metadata.deletionTimestamp));
    await s.kubelets.start('capstan-node-1');
    await s.kubectlOk(['wait', '--for=condition=Ready', 'node/capstan-node-1', '--timeout=10s']);
    await until('the taint gone', async () => ((await s.kubectlOk(['get', 'node', 'capstan-node-1', '-o', 'jsonpath={.spec.taints}'])) === '' ? true : undefined));
    await s.kubectlOk(['rollout', 'status', 'deployment/solo', '--timeout=30s']);
  });
});
