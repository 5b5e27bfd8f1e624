// Simulated nodes (kwok-style): Node objects with capacity, addresses and a Ready condition, kept alive by their
// Leases in kube-node-lease as kubelets do.

import { clockDate } from '../../apis/clock.ts';
import { isStatusError } from '../../apis/errors.ts';
import { rfc3339 } from '../../registry/store-codec.ts';
import type { KubeObject, Registry } from '../../registry/types.ts';
import { ctxFor, storeFor } from './shared.ts';
import { SIMULATED_NODE_ANNOTATION } from '../../apis/capstan-annotations.ts';

export const NODE_CAPACITY = { cpu: '8', memory: '32Gi', pods: '110', 'ephemeral-storage': '100Gi' };
const LEASE_SECONDS = 40;

export function nodeName(i: number): string {
  return `capstan-node-${i + 1}`;
}

function nodeObject(i: number, now: string): KubeObject {
  const name = nodeName(i);
  const condition = (type: string, status: string, reason: string, message: string) => ({ type, status, lastHeartbeatTime: now, lastTransitionTime: now, reason, message });
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name, labels: { 'kubernetes.io/hostname': name, 'kubernetes.io/os': 'linux', 'kubernetes.io/arch': 'amd64', 'node.kubernetes.io/instance-type': 'capstan' }, annotations: { [SIMULATED_NODE_ANNOTATION]: 'true' } },
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
        machineID: '',
        systemUUID: '',
        bootID: '',
        kernelVersion: '6.1.0',
        osImage: 'Capstan simulated node',
        containerRuntimeVersion: 'capstan://1.0.0',
        kubeletVersion: 'v1.31.0',
        kubeProxyVersion: 'v1.31.0',
        operatingSystem: 'linux',
        architecture: 'amd64',
      },
    },
  };
}

export interface SimulatedNodes {
  stop(): Promise<void>;
}

export async function startSimulatedNodes(registry: Registry, count: number, renewMs = 10_000): Promise<SimulatedNodes> {
  const nodes = storeFor(registry, '', 'v1', 'nodes');
  const leases = storeFor(registry, 'coordination.k8s.io', 'v1', 'leases');
  if (!nodes) return { stop: async () => {} };
  const now = rfc3339(clockDate());
  for (let i = 0; i < count; i++) {
    const node = nodeObject(i, now);
    try {
      await nodes.create(ctxFor(), node);
    } catch (e) {
      if (!(isStatusError(e) && e.reason === 'AlreadyExists')) throw e;
    }
    // Node creation drops status (the status subresource owns it): the kubelet reports it.
    await nodes.update(ctxFor(), node.metadata.name ?? '', (cur) => ({ ...cur!, status: node.status }), { subresource: 'status' });
  }
  const renew = async () => {
    if (!leases) return;
    const at = clockDate().toISOString().replace('Z', '000Z');
    for (let i = 0; i < count; i++) {
      const name = nodeName(i);
      const lease = { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name, namespace: 'kube-node-lease' }, spec: { holderIdentity: name, leaseDurationSeconds: LEASE_SECONDS, renewTime: at } };
      await leases.update(ctxFor('kube-node-lease'), name, (cur) => (cur ? { ...cur, spec: { ...(cur.spec as object), renewTime: at } } : lease), { forceAllowCreate: true }).catch(() => undefined);
    }
  };
  await renew();
  const timer = setInterval(() => void renew(), renewMs);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
    },
  };
}
