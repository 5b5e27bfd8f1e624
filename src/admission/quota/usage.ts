// What an object counts against a ResourceQuota (k8s.io/kubernetes/pkg/quota/v1/evaluator/core): object counts
// (count/<resource>.<group> and the legacy names), pod requests and limits, PVC storage, service types. Shared by
// the ResourceQuota admission plugin and the quota status controller.

import type { KubeObject } from '../../registry/types.ts';
import { formatNanos, isBinary, nanosOf, podResource } from '../plugins/resources.ts';

/** A usage value in nano-units, and whether it prints with binary suffixes. */
export interface Amount {
  nanos: bigint;
  binary: boolean;
}

export type Usage = Map<string, Amount>;

const LEGACY_COUNTS: Record<string, string> = {
  pods: 'pods',
  services: 'services',
  configmaps: 'configmaps',
  secrets: 'secrets',
  persistentvolumeclaims: 'persistentvolumeclaims',
  replicationcontrollers: 'replicationcontrollers',
  resourcequotas: 'resourcequotas',
};

const ONE = 1_000_000_000n;

function isTerminalPod(pod: KubeObject): boolean {
  const phase = (pod.status as { phase?: string } | undefined)?.phase;
  return phase === 'Succeeded' || phase === 'Failed';
}

/** The usage of one object of group/resource. */
export function usageOf(group: string, resource: string, obj: KubeObject): Usage {
  const u: Usage = new Map();
  const count = (name: string) => u.set(name, { nanos: ONE, binary: false });
  if (group === '' && resource === 'pods' && isTerminalPod(obj)) return u;
  count(`count/${group ? `${resource}.${group}` : resource}`);
  if (group === '' && LEGACY_COUNTS[resource]) count(LEGACY_COUNTS[resource]);
  if (group === '' && resource === 'pods') {
    for (const [kind, names] of [['requests', ['requests.cpu', 'requests.memory', 'requests.ephemeral-storage']], ['limits', ['limits.cpu', 'limits.memory', 'limits.ephemeral-storage']]] as const) {
      for (const name of names) {
        const r = podResource(obj, kind, name.slice(kind.length + 1));
        if (r.nanos > 0n) u.set(name, { nanos: r.nanos, binary: r.binary });
      }
    }
    const cpu = u.get('requests.cpu');
    const mem = u.get('requests.memory');
    if (cpu) u.set('cpu', cpu);
    if (mem) u.set('memory', mem);
  }
  if (group === '' && resource === 'services') {
    const type = (obj.spec as { type?: string } | undefined)?.type;
    if (type === 'LoadBalancer') count('services.loadbalancers');
    if (type === 'LoadBalancer' || type === 'NodePort') {
      const ports = ((obj.spec as { ports?: unknown[] } | undefined)?.ports ?? []).length;
      u.set('services.nodeports', { nanos: BigInt(ports) * ONE, binary: false });
    }
  }
  if (group === '' && resource === 'persistentvolumeclaims') {
    const storage = (obj.spec as { resources?: { requests?: Record<string, string> } } | undefined)?.resources?.requests?.storage;
    if (storage !== undefined) u.set('requests.storage', { nanos: nanosOf(storage), binary: isBinary(storage) });
  }
  return u;
}

/** The resources (quota names) a pod did not specify that a quota tracking them requires, by container. */
export function missingPodResources(pod: KubeObject, tracked: readonly string[]): string[] {
  const out: string[] = [];
  for (const name of tracked) {
    const m = /^(requests|limits)\.(cpu|memory|ephemeral-storage)$/.exec(name) ?? (name === 'cpu' || name === 'memory' ? ['', 'requests', name] : null);
    if (!m) continue;
    const r = podResource(pod, m[1] as 'requests' | 'limits', m[2]);
    if (r.missing.length > 0) out.push(`${name} for: ${r.missing.join(',')}`);
  }
  return out;
}

export function amountText(a: Amount | undefined): string {
  return a ? formatNanos(a.nanos, a.binary) : '0';
}

/** The group/resource a quota name counts (count/x.y or a legacy name), for the controller's recount. */
export function countedResources(names: readonly string[]): { group: string; resource: string }[] {
  const out = new Map<string, { group: string; resource: string }>();
  const add = (group: string, resource: string) => out.set(`${group}/${resource}`, { group, resource });
  for (const n of names) {
    if (n.startsWith('count/')) {
      const rest = n.slice('count/'.length);
      const dot = rest.indexOf('.');
      add(dot < 0 ? '' : rest.slice(dot + 1), dot < 0 ? rest : rest.slice(0, dot));
    } else if (LEGACY_COUNTS[n]) add('', LEGACY_COUNTS[n]);
    else if (/^(requests|limits)\.(cpu|memory|ephemeral-storage)$/.test(n) || n === 'cpu' || n === 'memory') add('', 'pods');
    else if (n.startsWith('services.')) add('', 'services');
    else if (n === 'requests.storage') add('', 'persistentvolumeclaims');
  }
  return [...out.values()];
}
