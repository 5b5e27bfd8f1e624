// Simulated nodes (kwok-style): Node objects with capacity, addresses and a Ready condition, kept alive by their
// Leases in kube-node-lease as kubelets do, each with the CSINode a kubelet registers (no CSI drivers).

import { createHash, randomUUID } from 'node:crypto';
import { clockDate } from '../../apis/clock.ts';
import { isStatusError } from '../../apis/errors.ts';
import { rfc3339 } from '../../registry/store-codec.ts';
import type { KubeObject, OwnerReference } from '../../registry/types.ts';
import type { Informers } from '../informers.ts';
import type { EventSink } from '../events.ts';
import { ctxFor, kubeletEvents, LEASES, storeFor, WRITERS } from './shared.ts';
import { SIMULATED_NODE_ANNOTATION } from '../../apis/capstan-annotations.ts';

export const NODE_CAPACITY = { cpu: '8', memory: '32Gi', pods: '110', 'ephemeral-storage': '100Gi' };
const LEASE_SECONDS = 40;
const CSINODES = { group: 'storage.k8s.io', version: 'v1', resource: 'csinodes' };

/**
 * The in-tree volume plugins 1.31's kubelet reports as migrated to CSI on its CSINode (every one but Portworx is
 * always migrated; Portworx's CSIMigrationPortworx gate is on by default), sorted as the kubelet joins them.
 */
const MIGRATED_PLUGINS = ['aws-ebs', 'azure-disk', 'azure-file', 'cinder', 'gce-pd', 'portworx-volume', 'vsphere-volume'].map((p) => `kubernetes.io/${p}`).join(',');

/** The reference a kubelet puts on what it makes for its node (its Lease, its CSINode): no controller, no blocking. */
function nodeOwner(node: KubeObject): OwnerReference {
  return { apiVersion: 'v1', kind: 'Node', name: node.metadata.name ?? '', uid: node.metadata.uid ?? '' };
}

/** The CSINode a kubelet makes as it starts (nodeinfomanager's InitializeCSINodeWithAnnotation), if there is none. */
function csiNodeObject(node: KubeObject): KubeObject {
  return {
    apiVersion: 'storage.k8s.io/v1',
    kind: 'CSINode',
    metadata: { name: node.metadata.name, annotations: { 'storage.alpha.kubernetes.io/migrated-plugins': MIGRATED_PLUGINS }, ownerReferences: [nodeOwner(node)] },
    spec: { drivers: [] },
  };
}

export function nodeName(i: number): string {
  return `capstan-node-${i + 1}`;
}

/** What a kubelet reads off its machine: /etc/machine-id (32 hex digits) and the DMI product UUID, fixed per node name. */
function machineIds(name: string): { machineID: string; systemUUID: string } {
  const hex = createHash('sha256').update(`capstan-node:${name}`).digest('hex');
  const u = hex.slice(32, 64);
  return { machineID: hex.slice(0, 32), systemUUID: `${u.slice(0, 8)}-${u.slice(8, 12)}-${u.slice(12, 16)}-${u.slice(16, 20)}-${u.slice(20, 32)}` };
}

/** bootID: the kernel's boot_id, new each time the server (the nodes' "machines") starts. */
function nodeObject(i: number, now: string, bootID: string): KubeObject {
  const name = nodeName(i);
  const condition = (type: string, status: string, reason: string, message: string) => ({ type, status, lastHeartbeatTime: now, lastTransitionTime: now, reason, message });
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name,
      labels: { 'beta.kubernetes.io/arch': 'amd64', 'beta.kubernetes.io/os': 'linux', 'kubernetes.io/arch': 'amd64', 'kubernetes.io/hostname': name, 'kubernetes.io/os': 'linux', 'node.kubernetes.io/instance-type': 'capstan' },
      annotations: {
        [SIMULATED_NODE_ANNOTATION]: 'true',
        // kube-controller-manager's ttl controller (0 s on clusters of up to 100 nodes) and the kubelet's attach-detach mark.
        'node.alpha.kubernetes.io/ttl': '0',
        'volumes.kubernetes.io/controller-managed-attach-detach': 'true',
      },
    },
    spec: { podCIDR: `10.244.${i}.0/24`, podCIDRs: [`10.244.${i}.0/24`] },
    status: {
      capacity: NODE_CAPACITY,
      allocatable: NODE_CAPACITY,
      conditions: [
        condition('MemoryPressure', 'False', 'KubeletHasSufficientMemory', 'kubelet has sufficient memory available'),
        condition('DiskPressure', 'False', 'KubeletHasNoDiskPressure', 'kubelet has no disk pressure'),
        condition('PIDPressure', 'False', 'KubeletHasSufficientPID', 'kubelet has sufficient PID available'),
        condition('Ready', 'True', 'KubeletReady', 'kubelet is posting ready status'),
      ],
      addresses: [
        { type: 'InternalIP', address: `10.0.0.${i + 10}` },
        { type: 'Hostname', address: name },
      ],
      daemonEndpoints: { kubeletEndpoint: { Port: 10250 } },
      nodeInfo: {
        ...machineIds(name),
        bootID,
        kernelVersion: '6.1.0',
        osImage: 'Capstan simulated node',
        containerRuntimeVersion: 'capstan://1.0.0',
        kubeletVersion: 'v1.31.0',
        kubeProxyVersion: 'v1.31.0',
        operatingSystem: 'linux',
        architecture: 'amd64',
      },
      // The runtime's handlers as a CRI runtime that reports them (containerd 2) shows them: the simulated containers
      // honour recursive read-only mounts (see the kubelet's volumeMounts statuses); no user namespaces.
      runtimeHandlers: ['', 'runc'].map((handler) => ({ name: handler, features: { recursiveReadOnlyMounts: true, userNamespaces: false } })),
    },
  };
}

export interface SimulatedNodes {
  /** Renews the leases of the nodes whose kubelets run (the node lifecycle controller calls it before a pass). */
  renew(): Promise<void>;
  /**
   * Stops or starts a node's simulated kubelet: a stopped one renews nothing, so the node lifecycle controller
   * finds the node unreachable after its grace period; one started again reports the node Ready at once.
   */
  setRunning(name: string, running: boolean): Promise<void>;
  running(name: string): boolean;
  readonly names: readonly string[];
  stop(): Promise<void>;
}

/**
 * What a kubelet records on its node as it starts (or comes back): Starting, its conditions' NodeHas... events,
 * NodeAllocatableEnforced and NodeReady, in kube's order. The kubelet's node reference carries the node's name as its
 * uid (kubectl describe node looks for both uids).
 */
function recordKubeletStart(events: EventSink, name: string): void {
  const recorder = kubeletEvents(events, name);
  const node: KubeObject = { apiVersion: 'v1', kind: 'Node', metadata: { name, uid: name } };
  recorder.event(node, 'Normal', 'Starting', 'Starting kubelet.');
  for (const status of ['NodeHasSufficientMemory', 'NodeHasNoDiskPressure', 'NodeHasSufficientPID']) recorder.event(node, 'Normal', status, `Node ${name} status is now: ${status}`);
  recorder.event(node, 'Normal', 'NodeAllocatableEnforced', 'Updated Node Allocatable limit across pods');
  recorder.event(node, 'Normal', 'NodeReady', `Node ${name} status is now: NodeReady`);
}

export async function startSimulatedNodes(informers: Informers, count: number, events: EventSink, renewMs = 10_000): Promise<SimulatedNodes> {
  const nodes = storeFor(informers.registry, '', 'v1', 'nodes');
  // Through the informer, so that the node lifecycle controller sees a renewal as soon as it is written.
  const leases = informers.of(LEASES);
  const names = Array.from({ length: count }, (_, i) => nodeName(i));
  const stopped = new Set<string>();
  if (!nodes) return { renew: async () => {}, setRunning: async () => {}, running: () => false, names: [], stop: async () => {} };
  const bootIds = names.map(() => randomUUID());
  /** The kubelet's node status report: every condition fresh. */
  const postStatus = async (i: number) => {
    const node = nodeObject(i, rfc3339(clockDate()), bootIds[i]!);
    await nodes.update(ctxFor(), node.metadata.name ?? '', (cur) => ({ ...cur!, status: node.status }), { subresource: 'status' });
  };
  const csiNodes = informers.of(CSINODES);
  for (let i = 0; i < count; i++) {
    let node: KubeObject;
    try {
      node = await nodes.create(ctxFor(), nodeObject(i, '', bootIds[i]!));
    } catch (e) {
      if (!(isStatusError(e) && e.reason === 'AlreadyExists')) throw e;
      node = await nodes.get(ctxFor(), nodeName(i));
    }
    // Node creation drops status (the status subresource owns it): the kubelet reports it.
    await postStatus(i);
    recordKubeletStart(events, nodeName(i));
    if (!csiNodes.get('', nodeName(i))) await csiNodes.as(WRITERS.kubelet(nodeName(i))).create('', csiNodeObject(node)).catch(() => undefined);
  }
  const renewOne = async (name: string) => {
    // The kubelet's lease is its node's (SetNodeOwnerFunc): without the node it makes no lease, and it gives an
    // existing lease without owner its node as owner, so the garbage collector takes the lease with the node.
    const node = await nodes.get(ctxFor(), name).catch(() => undefined);
    if (!node) return;
    const at = clockDate().toISOString().replace('Z', '000Z');
    const owned = (meta: KubeObject['metadata']) => (meta.ownerReferences?.length ? meta : { ...meta, ownerReferences: [nodeOwner(node)] });
    const lease = { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: owned({ name, namespace: 'kube-node-lease' }), spec: { holderIdentity: name, leaseDurationSeconds: LEASE_SECONDS, renewTime: at } };
    await leases
      .as(WRITERS.kubelet(name))
      .update('kube-node-lease', name, (cur) => (cur ? { ...cur, metadata: owned(cur.metadata), spec: { ...(cur.spec as object), renewTime: at } } : lease), { forceAllowCreate: true })
      .catch(() => undefined);
  };
  const renew = async () => {
    for (const name of names) if (!stopped.has(name)) await renewOne(name);
  };
  await renew();
  const timer = setInterval(() => void renew(), renewMs);
  timer.unref();
  return {
    renew,
    names,
    running: (name) => names.includes(name) && !stopped.has(name),
    async setRunning(name, running) {
      const i = names.indexOf(name);
      if (i < 0) throw new Error(`no simulated kubelet serves node "${name}"`);
      if (running === !stopped.has(name)) return;
      if (!running) return void stopped.add(name);
      stopped.delete(name);
      await renewOne(name);
      await postStatus(i).catch(() => undefined);
      recordKubeletStart(events, name);
    },
    async stop() {
      clearInterval(timer);
    },
  };
}
