// The objects kube-apiserver makes for itself at start, written through the stores like any client's:
// the `kubernetes` Service in `default` with its Endpoints and EndpointSlice (kube's kubernetesservice
// controller and lease endpoint reconciler), kept in shape every resync as kube does every 10 s, and the system
// PriorityClasses (the scheduling post-start hook, created once when missing). With master leases (storage shared
// by several instances) the endpoints list every instance whose lease is alive; without, this instance alone.

import { utcDay } from '../apis/clock.ts';
import { isStatusError, notFound } from '../apis/errors.ts';
import { LOOPBACK_USER } from '../auth/user.ts';
import { semanticEqual } from '../registry/builtin/object.ts';
import { KUBERNETES_SERVICE_IP } from '../registry/builtin/core/services.ts';
import type { KubeObject, Registry, RequestContext, ResourceStore } from '../registry/types.ts';
import type { MasterLeases } from './master-leases.ts';
import { cloneJson } from '../apis/json-clone.ts';

/** kube's --endpoint-reconciler-type values Capstan has (master-count, deprecated in kube, is not one). */
export type EndpointReconcilerType = 'lease' | 'none';

export interface BootstrapOptions {
  /** The port the API is served on (kube's --secure-port): the Service's targetPort and the endpoints' port. Default 6443. */
  readonly securePort?: number;
  /** The IPv4 address the Endpoints and EndpointSlice list (kube's --advertise-address). Default 127.0.0.1. */
  readonly advertiseAddress?: string;
  /** Interval of the Service and endpoints reconciliation (default 10000 ms); 0: at start only. */
  readonly resyncMs?: number;
  /** Told about a failed reconciliation (retried at the next resync). Absent: a failure at start is thrown. */
  readonly onError?: (err: unknown) => void;
  /** --endpoint-reconciler-type: lease (default) keeps the endpoints; none leaves them alone. */
  readonly endpointReconciler?: EndpointReconcilerType;
  /** The instances' master leases (etcd); absent: the endpoints name this instance only (one process owns storage). */
  readonly leases?: MasterLeases;
  /** The data of kube-system/extension-apiserver-authentication (how extension API servers trust callers); absent: none. */
  readonly authenticationInfo?: Readonly<Record<string, string>>;
}

export interface BootstrapController {
  /** Run one reconciliation of the Service and its endpoints now. */
  sync(): Promise<void>;
  stop(): Promise<void>;
}

export const DEFAULT_SECURE_PORT = 6443;
export const KUBERNETES_SERVICE_NAME = 'kubernetes';
const NAMESPACE = 'default';
const SERVICE_PORT = 443;
const PORT_NAME = 'https';
const SKIP_MIRROR_LABEL = 'endpointslice.kubernetes.io/skip-mirror';
const SERVICE_NAME_LABEL = 'kubernetes.io/service-name';

/** scheduling.SystemCriticalPriority: the value of system-cluster-critical; node-critical is 1000 above. */
const SYSTEM_CRITICAL_PRIORITY = 2_000_000_000;

export const SYSTEM_PRIORITY_CLASSES: readonly KubeObject[] = [
  {
    apiVersion: 'scheduling.k8s.io/v1',
    kind: 'PriorityClass',
    metadata: { name: 'system-node-critical' },
    value: SYSTEM_CRITICAL_PRIORITY + 1000,
    description: 'For system pods that have to stay on the node they were placed on.',
    preemptionPolicy: 'PreemptLowerPriority',
  },
  {
    apiVersion: 'scheduling.k8s.io/v1',
    kind: 'PriorityClass',
    metadata: { name: 'system-cluster-critical' },
    value: SYSTEM_CRITICAL_PRIORITY,
    description: 'For system pods the cluster depends on; they may be moved to another node when needed.',
    preemptionPolicy: 'PreemptLowerPriority',
  },
];

function context(namespace: string): RequestContext {
  return { user: LOOPBACK_USER, namespace, dryRun: false, warnings: [] };
}

function storeOf(registry: Registry, group: string, version: string, resource: string): ResourceStore | undefined {
  const def = registry.lookup(group, version, resource);
  return def ? registry.store(def) : undefined;
}

function isNotFound(e: unknown): boolean {
  return isStatusError(e) && e.code === 404;
}

function isAlreadyExists(e: unknown): boolean {
  return isStatusError(e) && e.reason === 'AlreadyExists';
}

async function getOrUndefined(store: ResourceStore, ctx: RequestContext, name: string): Promise<KubeObject | undefined> {
  try {
    return await store.get(ctx, name);
  } catch (e) {
    if (isNotFound(e)) return undefined;
    throw e;
  }
}

/**
 * Creates `desired` when missing; otherwise lets `fix` return the corrected object, or undefined when the
 * stored one is already right (nothing is written then).
 */
async function reconcile(store: ResourceStore, ctx: RequestContext, desired: KubeObject, fix: (current: KubeObject) => KubeObject | undefined): Promise<KubeObject | undefined> {
  const name = desired.metadata.name ?? '';
  const current = await getOrUndefined(store, ctx, name);
  if (!current) {
    try {
      return await store.create(ctx, cloneJson(desired));
    } catch (e) {
      if (!isAlreadyExists(e)) throw e;
      return undefined;
    }
  }
  if (!fix(current)) return current;
  const updated = await store.update(ctx, name, (live) => {
    if (!live) throw notFound({ group: store.definition.group, resource: store.definition.resource }, name);
    return fix(live) ?? live;
  });
  return updated.object;
}

function servicePorts(securePort: number): Record<string, unknown>[] {
  return [{ name: PORT_NAME, protocol: 'TCP', port: SERVICE_PORT, targetPort: securePort }];
}

export function kubernetesService(securePort: number): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: KUBERNETES_SERVICE_NAME, namespace: NAMESPACE, labels: { component: 'apiserver', provider: 'kubernetes' } },
    spec: { ports: servicePorts(securePort), clusterIP: KUBERNETES_SERVICE_IP, sessionAffinity: 'None', type: 'ClusterIP' },
  };
}

function endpointPorts(securePort: number): Record<string, unknown>[] {
  return [{ name: PORT_NAME, port: securePort, protocol: 'TCP' }];
}

/** RepackSubsets' order: addresses sorted by IP, byte-wise. */
function sortedAddresses(ips: readonly string[]): Record<string, unknown>[] {
  return [...new Set(ips)].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)).map((ip) => ({ ip }));
}

export function kubernetesEndpoints(addresses: string | readonly string[], securePort: number): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Endpoints',
    metadata: { name: KUBERNETES_SERVICE_NAME, namespace: NAMESPACE, labels: { [SKIP_MIRROR_LABEL]: 'true' } },
    subsets: [{ addresses: sortedAddresses(typeof addresses === 'string' ? [addresses] : addresses), ports: endpointPorts(securePort) }],
  };
}

type Obj = Record<string, unknown>;
const objAt = (o: KubeObject, key: string): Obj => (typeof o[key] === 'object' && o[key] !== null ? (o[key] as Obj) : {});
const listAt = (o: Obj, key: string): Obj[] => (Array.isArray(o[key]) ? (o[key] as Obj[]) : []);

/** endpointSliceFromEndpoints (kube's EndpointsAdapter): the slice mirrors the first subset of the Endpoints. */
export function kubernetesEndpointSlice(endpoints: KubeObject): KubeObject {
  const subset = listAt(endpoints, 'subsets')[0] ?? {};
  const ready = listAt(subset, 'addresses').map((a) => String(a.ip ?? ''));
  const notReady = listAt(subset, 'notReadyAddresses').map((a) => String(a.ip ?? ''));
  const all = [...ready, ...notReady];
  return {
    apiVersion: 'discovery.k8s.io/v1',
    kind: 'EndpointSlice',
    metadata: { name: KUBERNETES_SERVICE_NAME, namespace: NAMESPACE, labels: { [SERVICE_NAME_LABEL]: KUBERNETES_SERVICE_NAME } },
    addressType: all.length > 0 && all.every((ip) => ip.includes(':')) ? 'IPv6' : 'IPv4',
    endpoints: [...ready.map((ip) => ({ addresses: [ip], conditions: { ready: true } })), ...notReady.map((ip) => ({ addresses: [ip], conditions: { ready: false } }))],
    ports: cloneJson(listAt(subset, 'ports')),
  };
}

/** getMasterServiceUpdateIfNeeded: ports and type are put back; the rest (cluster IP included) is left alone. */
function fixService(securePort: number) {
  return (current: KubeObject): KubeObject | undefined => {
    const spec = objAt(current, 'spec');
    const ports = servicePorts(securePort);
    if (spec.type === 'ClusterIP' && semanticEqual(spec.ports, ports)) return undefined;
    return { ...current, spec: { ...spec, ports, type: 'ClusterIP' } };
  };
}

function withLabel(current: KubeObject, key: string, value: string): KubeObject['metadata'] {
  return { ...current.metadata, labels: { ...current.metadata.labels, [key]: value } };
}

/** The same IPs, each once (checkEndpointSubsetFormatWithLease's ipsCorrect: order does not matter). */
function sameAddresses(current: Obj[], ips: readonly string[]): boolean {
  const want = new Set(ips);
  if (current.length !== want.size) return false;
  const seen = new Set<string>();
  for (const a of current) {
    const ip = String(a.ip ?? '');
    if (!want.has(ip) || seen.has(ip)) return false;
    seen.add(ip);
  }
  return true;
}

/** The lease reconciler's doReconcile: one subset, the live IPs (repacked, so sorted), this apiserver's ports. */
function fixEndpoints(ips: readonly string[], securePort: number) {
  return (current: KubeObject): KubeObject | undefined => {
    const labelled = current.metadata.labels?.[SKIP_MIRROR_LABEL] === 'true';
    const subsets = listAt(current, 'subsets');
    const formatCorrect = subsets.length === 1;
    const ipsCorrect = formatCorrect && sameAddresses(listAt(subsets[0], 'addresses'), ips);
    const portsCorrect = formatCorrect && semanticEqual(subsets[0].ports, endpointPorts(securePort));
    if (labelled && formatCorrect && ipsCorrect && portsCorrect) return undefined;
    const subset: Obj = formatCorrect ? { ...subsets[0] } : { addresses: [], ports: endpointPorts(securePort) };
    if (!ipsCorrect) subset.addresses = sortedAddresses(ips);
    if (!portsCorrect) subset.ports = endpointPorts(securePort);
    return { ...current, metadata: withLabel(current, SKIP_MIRROR_LABEL, 'true'), subsets: [subset] };
  };
}

function fixEndpointSlice(desired: KubeObject) {
  return (current: KubeObject): KubeObject | undefined => {
    const labelled = current.metadata.labels?.[SERVICE_NAME_LABEL] === KUBERNETES_SERVICE_NAME;
    const same = current.addressType === desired.addressType && semanticEqual(current.endpoints, desired.endpoints) && semanticEqual(current.ports, desired.ports);
    if (labelled && same) return undefined;
    return {
      ...current,
      metadata: withLabel(current, SERVICE_NAME_LABEL, KUBERNETES_SERVICE_NAME),
      addressType: desired.addressType,
      endpoints: cloneJson(desired.endpoints),
      ports: cloneJson(desired.ports),
    };
  };
}

function isLoopback(address: string): boolean {
  return /^127\./.test(address) || address === '::1';
}

/** The kubernetes Service, as the kubernetesservice controller keeps it. */
async function reconcileService(registry: Registry, securePort: number): Promise<void> {
  const services = storeOf(registry, '', 'v1', 'services');
  if (services) await reconcile(services, context(NAMESPACE), kubernetesService(securePort), fixService(securePort));
}

/** The Endpoints listing `ips`, then the EndpointSlice made from them (EnsureEndpointSliceFromEndpoints). */
async function reconcileEndpoints(registry: Registry, securePort: number, ips: readonly string[]): Promise<void> {
  const ctx = context(NAMESPACE);
  const endpoints = storeOf(registry, '', 'v1', 'endpoints');
  if (!endpoints) return;
  const eps = await reconcile(endpoints, ctx, kubernetesEndpoints(ips, securePort), fixEndpoints(ips, securePort));
  const slices = storeOf(registry, 'discovery.k8s.io', 'v1', 'endpointslices');
  if (!slices) return;
  const slice = kubernetesEndpointSlice(eps ?? kubernetesEndpoints(ips, securePort));
  await reconcile(slices, ctx, slice, fixEndpointSlice(slice));
}

/** kube refuses the lease reconciler's empty listing rather than erase every endpoint. */
function noLeasesError(): Error {
  return new Error('no master IPs were listed in storage, refusing to erase all endpoints for the kubernetes service');
}

/** The kubernetes Service, then its Endpoints and EndpointSlice, as the endpoint reconciler leaves them. */
export async function reconcileKubernetesService(registry: Registry, securePort: number, address: string, options: Pick<BootstrapOptions, 'endpointReconciler' | 'leases'> = {}): Promise<void> {
  const { leases } = options;
  const reconcileEps = options.endpointReconciler !== 'none';
  // The lease first, whatever happens below, so that the other instances list this one.
  if (reconcileEps && leases) await leases.update(address);
  await reconcileService(registry, securePort);
  // kube's Endpoints validation refuses loopback addresses, so with a loopback advertise address kube-apiserver's
  // reconciler writes neither the Endpoints nor (it comes after them) the EndpointSlice.
  if (!reconcileEps || isLoopback(address)) return;
  const ips = leases ? await leases.list() : [address];
  if (ips.length === 0) throw noLeasesError();
  await reconcileEndpoints(registry, securePort, ips);
}

/** RemoveEndpoints: this instance's lease goes, and the endpoints list the instances left (never none). */
async function removeFromEndpoints(registry: Registry, securePort: number, address: string, leases: MasterLeases): Promise<void> {
  await leases.remove(address);
  if (isLoopback(address)) return;
  const ips = await leases.list();
  if (ips.length === 0) throw noLeasesError();
  await reconcileEndpoints(registry, securePort, ips);
}

/** AddSystemPriorityClasses: each missing one is created; existing ones are left as they are. */
export async function ensureSystemPriorityClasses(registry: Registry): Promise<void> {
  const store = storeOf(registry, 'scheduling.k8s.io', 'v1', 'priorityclasses');
  if (!store) return;
  for (const pc of SYSTEM_PRIORITY_CLASSES) await reconcile(store, context(''), pc, () => undefined);
}

export const AUTHENTICATION_INFO_CONFIGMAP = 'extension-apiserver-authentication';

/**
 * kube's cluster-authentication-trust controller: kube-system/extension-apiserver-authentication holds the client CA
 * and the request header settings, which extension API servers read to authenticate the aggregator and clients.
 */
export async function reconcileAuthenticationInfo(registry: Registry, data: Readonly<Record<string, string>>): Promise<void> {
  const store = storeOf(registry, '', 'v1', 'configmaps');
  if (!store) return;
  const desired: KubeObject = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: AUTHENTICATION_INFO_CONFIGMAP, namespace: 'kube-system' }, data: { ...data } };
  const same = (current: KubeObject): boolean => {
    const have = (current.data ?? {}) as Record<string, unknown>;
    return Object.keys(have).length === Object.keys(data).length && Object.entries(data).every(([k, v]) => have[k] === v);
  };
  await reconcile(store, context('kube-system'), desired, (current) => (same(current) ? undefined : { ...current, data: { ...data } }));
}

export const LEGACY_TOKEN_TRACKING_CONFIGMAP = 'kube-apiserver-legacy-service-account-token-tracking';

/**
 * kube's legacy-token-tracking controller: kube-system's ConfigMap records the day the server began tracking the use
 * of legacy (Secret-based) service account tokens, kept as it is once its date parses.
 */
export async function reconcileLegacyTokenTracking(registry: Registry): Promise<void> {
  const store = storeOf(registry, '', 'v1', 'configmaps');
  if (!store) return;
  const since = utcDay();
  const desired: KubeObject = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: LEGACY_TOKEN_TRACKING_CONFIGMAP, namespace: 'kube-system' }, data: { since } };
  const valid = (current: KubeObject): boolean => /^\d{4}-\d{2}-\d{2}$/.test(String((current.data as Record<string, unknown> | undefined)?.since ?? '')) && !Number.isNaN(Date.parse(String((current.data as Record<string, unknown>).since)));
  await reconcile(store, context('kube-system'), desired, (current) => (valid(current) ? undefined : { ...current, data: { ...((current.data as Record<string, string> | undefined) ?? {}), since } }));
}

export async function startBootstrapController(registry: Registry, options: BootstrapOptions = {}): Promise<BootstrapController> {
  const port = options.securePort && options.securePort > 0 ? options.securePort : DEFAULT_SECURE_PORT;
  const address = options.advertiseAddress ?? '127.0.0.1';
  let stopped = false;
  // One reconciliation at a time; a failed one does not stop the next.
  let running: Promise<void> = Promise.resolve();
  const sync = (): Promise<void> => {
    const next = running.catch(() => {}).then(() => (stopped ? undefined : reconcileKubernetesService(registry, port, address, options)));
    running = next;
    return next;
  };

  try {
    await ensureSystemPriorityClasses(registry);
    if (options.authenticationInfo) await reconcileAuthenticationInfo(registry, options.authenticationInfo);
    await reconcileLegacyTokenTracking(registry);
    await sync();
  } catch (e) {
    if (!options.onError) throw e;
    options.onError(e);
  }

  const resyncMs = options.resyncMs ?? 10_000;
  const timer = resyncMs > 0 ? setInterval(() => sync().catch((e: unknown) => options.onError?.(e)), resyncMs) : undefined;
  timer?.unref();
  return {
    sync,
    async stop() {
      if (stopped) return;
      stopped = true;
      if (timer) clearInterval(timer);
      await running.catch(() => {});
      // A graceful stop hands this instance's place in the endpoints back at once (a killed one's lease expires).
      const leases = options.leases;
      if (!leases || options.endpointReconciler === 'none') return;
      try {
        await removeFromEndpoints(registry, port, address, leases);
      } catch (e) {
        options.onError?.(e);
      }
    },
  };
}
