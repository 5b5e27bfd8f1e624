// What kube-controller-manager's endpoints and endpointslice controllers compute for a Service from its pods, as plain
// functions: the Endpoints subsets (pkg/controller/endpoint, RepackSubsets included) and the EndpointSlices' ports,
// endpoints and labels (pkg/controller/endpointslice and its reconciler). The controller loop that writes them is
// endpoints.ts.

import type { KubeObject } from '../../registry/types.ts';
import { asObj, podReady, type Obj } from './shared.ts';

export const SERVICE_NAME_LABEL = 'kubernetes.io/service-name';
export const MANAGED_BY_LABEL = 'endpointslice.kubernetes.io/managed-by';
export const SLICE_CONTROLLER_NAME = 'endpointslice-controller.k8s.io';
const HEADLESS_LABEL = 'service.kubernetes.io/headless';
/** The endpointslice controller's default --max-endpoints-per-slice. */
export const MAX_ENDPOINTS_PER_SLICE = 100;

const listOf = (v: unknown): Obj[] => (Array.isArray(v) ? v.map(asObj) : []);
const spec = (o: KubeObject): Obj => asObj(o.spec);
const isHeadless = (svc: KubeObject): boolean => spec(svc).clusterIP === 'None';
/** helper.IsServiceIPSet: a cluster IP that is neither empty nor None. */
const hasClusterIP = (svc: KubeObject): boolean => typeof spec(svc).clusterIP === 'string' && spec(svc).clusterIP !== '' && !isHeadless(svc);
const publishesNotReady = (svc: KubeObject): boolean => spec(svc).publishNotReadyAddresses === true;

/** podutil.FindPort: a number as it is; a name, from the containers' ports of that name and the service port's protocol. */
export function findPort(pod: KubeObject, servicePort: Obj): number | undefined {
  const target = servicePort.targetPort ?? servicePort.port;
  if (typeof target === 'number') return target;
  const protocol = servicePort.protocol ?? 'TCP';
  for (const c of listOf(spec(pod).containers)) {
    for (const p of listOf(c.ports)) if (p.name === target && (p.protocol ?? 'TCP') === protocol && typeof p.containerPort === 'number') return p.containerPort;
  }
  return undefined;
}

/** endpointsliceutil.ShouldPodBeInEndpoints: not terminal, has an IP, and (unless terminating ones count) not terminating. */
function belongs(pod: KubeObject, includeTerminating: boolean): boolean {
  const status = asObj(pod.status);
  if (status.phase === 'Succeeded' || status.phase === 'Failed') return false;
  if (!status.podIP && listOf(status.podIPs).length === 0) return false;
  return includeTerminating || !pod.metadata.deletionTimestamp;
}

/** ShouldSetHostname: the pod's hostname when its subdomain is the Service (a StatefulSet's pods). */
function hostnameFor(pod: KubeObject, svc: KubeObject): string | undefined {
  const s = spec(pod);
  return typeof s.hostname === 'string' && s.hostname !== '' && s.subdomain === svc.metadata.name && pod.metadata.namespace === svc.metadata.namespace ? s.hostname : undefined;
}

const targetRef = (pod: KubeObject): Obj => ({ kind: 'Pod', namespace: pod.metadata.namespace, name: pod.metadata.name, uid: pod.metadata.uid });

/** The pod's IP of the family (a ':' marks IPv6). */
function podIPOf(pod: KubeObject, ipv6: boolean): string | undefined {
  const status = asObj(pod.status);
  const ips = [status.podIP, ...listOf(status.podIPs).map((p) => p.ip)].filter((ip): ip is string => typeof ip === 'string' && ip !== '');
  return ips.find((ip) => ip.includes(':') === ipv6);
}

const serviceIsIPv6 = (svc: KubeObject): boolean => (spec(svc).ipFamilies as unknown[] | undefined)?.[0] === 'IPv6';

/** The labels the endpoints controller gives a Service's Endpoints: the Service's, with the headless mark when it is. */
export function endpointsLabels(svc: KubeObject): Record<string, string> {
  const labels = { ...(svc.metadata.labels ?? {}) };
  if (isHeadless(svc)) labels[HEADLESS_LABEL] = '';
  else delete labels[HEADLESS_LABEL];
  return labels;
}

const byteOrder = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/**
 * The endpoints controller's subsets: every pod that belongs with an address (ready ones, or all with
 * publishNotReadyAddresses, as addresses; the others as notReadyAddresses) under each service port it resolves, then
 * repacked as RepackSubsets does: the ports that share the same addresses (and readiness) form one subset, addresses
 * sorted by IP and uid. A headless Service without ports lists its pods under no ports.
 */
export function endpointsSubsets(svc: KubeObject, pods: readonly KubeObject[]): Obj[] {
  const publish = publishesNotReady(svc);
  const ports = listOf(spec(svc).ports);
  const ipv6 = serviceIsIPv6(svc);
  /** The address set (ip + uid, with readiness) of each port, by the port's JSON (the sentinel '' for none). */
  const byPort = new Map<string, { port?: Obj; addresses: Map<string, { address: Obj; ready: boolean }> }>();
  const add = (portKey: string, port: Obj | undefined, address: Obj, ready: boolean) => {
    let entry = byPort.get(portKey);
    if (!entry) byPort.set(portKey, (entry = { ...(port ? { port } : {}), addresses: new Map() }));
    entry.addresses.set(`${String(address.ip)}\0${String(asObj(address.targetRef).uid ?? '')}`, { address, ready });
  };
  for (const pod of pods) {
    if (!belongs(pod, publish)) continue;
    const ip = podIPOf(pod, ipv6);
    if (!ip) continue;
    const hostname = hostnameFor(pod, svc);
    const nodeName = spec(pod).nodeName;
    const address: Obj = { ip, ...(hostname ? { hostname } : {}), ...(typeof nodeName === 'string' && nodeName ? { nodeName } : {}), targetRef: targetRef(pod) };
    const ready = publish || podReady(pod);
    if (ports.length === 0) {
      if (isHeadless(svc)) add('', undefined, address, ready);
      continue;
    }
    for (const servicePort of ports) {
      const number = findPort(pod, servicePort);
      if (number === undefined) continue;
      const port: Obj = { ...(servicePort.name ? { name: servicePort.name } : {}), port: number, protocol: servicePort.protocol ?? 'TCP', ...(servicePort.appProtocol !== undefined ? { appProtocol: servicePort.appProtocol } : {}) };
      add(JSON.stringify(port), port, address, ready);
    }
  }
  // Ports grouped by the exact address set they share.
  const subsets = new Map<string, { ports: Obj[]; addresses: Map<string, { address: Obj; ready: boolean }> }>();
  for (const { port, addresses } of byPort.values()) {
    const setKey = [...addresses].map(([k, a]) => `${k}\0${a.ready}`).sort().join('\n');
    let subset = subsets.get(setKey);
    if (!subset) subsets.set(setKey, (subset = { ports: [], addresses }));
    if (port) subset.ports.push(port);
  }
  const sortAddresses = (list: Obj[]) => list.sort((a, b) => byteOrder(String(a.ip), String(b.ip)) || byteOrder(String(asObj(a.targetRef).uid ?? ''), String(asObj(b.targetRef).uid ?? '')));
  return [...subsets.values()].map(({ ports: subsetPorts, addresses }) => {
    const all = [...addresses.values()];
    const ready = sortAddresses(all.filter((a) => a.ready).map((a) => a.address));
    const notReady = sortAddresses(all.filter((a) => !a.ready).map((a) => a.address));
    return { ...(ready.length ? { addresses: ready } : {}), ...(notReady.length ? { notReadyAddresses: notReady } : {}), ...(subsetPorts.length ? { ports: subsetPorts } : {}) };
  });
}

/** setEndpointSliceLabels: the Service's labels (but the two reserved ones), the headless mark, then the reserved ones. */
export function sliceLabels(svc: KubeObject): Record<string, string> {
  const labels: Record<string, string> = {};
  for (const [k, v] of Object.entries(svc.metadata.labels ?? {})) if (k !== SERVICE_NAME_LABEL && k !== MANAGED_BY_LABEL) labels[k] = v;
  if (hasClusterIP(svc)) delete labels[HEADLESS_LABEL];
  else labels[HEADLESS_LABEL] = '';
  labels[SERVICE_NAME_LABEL] = svc.metadata.name ?? '';
  labels[MANAGED_BY_LABEL] = SLICE_CONTROLLER_NAME;
  return labels;
}

/** getEndpointSlicePrefix: the slices' generateName. */
export const slicePrefix = (serviceName: string): string => `${serviceName}-`;

export const sliceAddressType = (svc: KubeObject): string => (serviceIsIPv6(svc) ? 'IPv6' : 'IPv4');

/** The ports and endpoints of one EndpointSlice to be. */
export interface SliceContent {
  readonly ports: Obj[];
  readonly endpoints: Obj[];
}

/**
 * The endpointslice controller's desired state: every pod that belongs (terminating ones included) as an endpoint,
 * grouped by the ports it resolves (getEndpointPorts), each group cut into slices of at most `maxPerSlice`. No pod at
 * all: one placeholder slice without ports or endpoints.
 */
export function desiredSlices(svc: KubeObject, pods: readonly KubeObject[], zoneOf: (node: string) => string | undefined, maxPerSlice = MAX_ENDPOINTS_PER_SLICE): SliceContent[] {
  const publish = publishesNotReady(svc);
  const ports = listOf(spec(svc).ports);
  const ipv6 = serviceIsIPv6(svc);
  const groups = new Map<string, SliceContent>();
  const sorted = [...pods].sort((a, b) => byteOrder(a.metadata.name ?? '', b.metadata.name ?? ''));
  for (const pod of sorted) {
    if (!belongs(pod, true)) continue;
    const ip = podIPOf(pod, ipv6);
    if (!ip) continue;
    const endpointPorts: Obj[] = [];
    for (const servicePort of ports) {
      const number = findPort(pod, servicePort);
      if (number === undefined) continue;
      endpointPorts.push({ name: servicePort.name ?? '', port: number, protocol: servicePort.protocol ?? 'TCP', ...(servicePort.appProtocol !== undefined ? { appProtocol: servicePort.appProtocol } : {}) });
    }
    const serving = publish || podReady(pod);
    const terminating = pod.metadata.deletionTimestamp !== undefined && pod.metadata.deletionTimestamp !== null;
    const nodeName = spec(pod).nodeName;
    const zone = typeof nodeName === 'string' && nodeName ? zoneOf(nodeName) : undefined;
    const hostname = hostnameFor(pod, svc);
    const endpoint: Obj = {
      addresses: [ip],
      conditions: { ready: publish || (serving && !terminating), serving, terminating },
      ...(hostname ? { hostname } : {}),
      targetRef: targetRef(pod),
      ...(typeof nodeName === 'string' && nodeName ? { nodeName } : {}),
      ...(zone ? { zone } : {}),
    };
    const key = JSON.stringify(endpointPorts);
    let group = groups.get(key);
    if (!group) groups.set(key, (group = { ports: endpointPorts, endpoints: [] }));
    group.endpoints.push(endpoint);
  }
  if (groups.size === 0) return [{ ports: [], endpoints: [] }];
  const slices: SliceContent[] = [];
  for (const { ports: groupPorts, endpoints } of groups.values()) {
    for (let i = 0; i < endpoints.length; i += maxPerSlice) slices.push({ ports: groupPorts, endpoints: endpoints.slice(i, i + maxPerSlice) });
  }
  return slices;
}

export const MIRRORING_CONTROLLER_NAME = 'endpointslicemirroring-controller.k8s.io';
const SKIP_MIRROR_LABEL = 'endpointslice.kubernetes.io/skip-mirror';
/** Endpoints kept by leader election (resource lock "endpoints"): neither mirrored nor anyone's leftovers. */
export const LEADER_ANNOTATION = 'control-plane.alpha.kubernetes.io/leader';
const LAST_CHANGE_ANNOTATION = 'endpoints.kubernetes.io/last-change-trigger-time';
const LAST_APPLIED_ANNOTATION = 'kubectl.kubernetes.io/last-applied-configuration';
/** The mirroring controller's default --mirroring-max-endpoints-per-subset. */
const MAX_MIRRORED_PER_SUBSET = 1000;

/** Whether the Endpoints are someone's own, and so mirrored: not marked skip-mirror, not a leader-election lock. */
export function shouldMirror(endpoints: KubeObject): boolean {
  return endpoints.metadata.labels?.[SKIP_MIRROR_LABEL] !== 'true' && endpoints.metadata.annotations?.[LEADER_ANNOTATION] === undefined;
}

/** The mirrored slices' labels and annotations: the Endpoints', with the two reserved labels set. */
export function mirroredMetadata(endpoints: KubeObject): { labels: Record<string, string>; annotations: Record<string, string> } {
  const labels = { ...(endpoints.metadata.labels ?? {}), [SERVICE_NAME_LABEL]: endpoints.metadata.name ?? '', [MANAGED_BY_LABEL]: MIRRORING_CONTROLLER_NAME };
  const annotations: Record<string, string> = {};
  for (const [k, v] of Object.entries(endpoints.metadata.annotations ?? {})) if (k !== LAST_CHANGE_ANNOTATION && k !== LAST_APPLIED_ANNOTATION) annotations[k] = v;
  return { labels, annotations };
}

/**
 * The EndpointSliceMirroring controller's slices for Endpoints someone wrote for a Service without a selector: each
 * subset's addresses (ready) and notReadyAddresses (not ready), at most 1000 per subset, under the subset's ports,
 * by address type; subsets with the same ports share slices, of at most `maxPerSlice` endpoints.
 */
export function mirroredSlices(endpoints: KubeObject, maxPerSlice = MAX_MIRRORED_PER_SUBSET): (SliceContent & { addressType: string })[] {
  const groups = new Map<string, SliceContent & { addressType: string }>();
  for (const subset of listOf((endpoints as Obj).subsets)) {
    const ports = listOf(subset.ports).map((p) => ({ name: p.name ?? '', port: p.port, protocol: p.protocol ?? 'TCP', ...(p.appProtocol !== undefined ? { appProtocol: p.appProtocol } : {}) }));
    const addresses = [...listOf(subset.addresses).map((a) => [a, true] as const), ...listOf(subset.notReadyAddresses).map((a) => [a, false] as const)].slice(0, MAX_MIRRORED_PER_SUBSET);
    for (const [address, ready] of addresses) {
      const ip = typeof address.ip === 'string' ? address.ip : '';
      if (!/^[0-9.]+$/.test(ip) && !ip.includes(':')) continue;
      const addressType = ip.includes(':') ? 'IPv6' : 'IPv4';
      const key = `${addressType}\0${JSON.stringify(ports)}`;
      let group = groups.get(key);
      if (!group) groups.set(key, (group = { addressType, ports, endpoints: [] }));
      group.endpoints.push({
        addresses: [ip],
        conditions: { ready },
        ...(typeof address.hostname === 'string' && address.hostname ? { hostname: address.hostname } : {}),
        ...(address.targetRef ? { targetRef: address.targetRef } : {}),
        ...(typeof address.nodeName === 'string' && address.nodeName ? { nodeName: address.nodeName } : {}),
      });
    }
  }
  const slices: (SliceContent & { addressType: string })[] = [];
  for (const group of groups.values()) {
    for (let i = 0; i < group.endpoints.length; i += maxPerSlice) slices.push({ ...group, endpoints: group.endpoints.slice(i, i + maxPerSlice) });
  }
  return slices;
}
