// The objects kube-apiserver makes for itself at start, written through the stores like any client's:
// the `kubernetes` Service in `default` with its Endpoints and EndpointSlice (kube's kubernetesservice
// controller and lease endpoint reconciler, for one apiserver), kept in shape every resync as kube does every
// 10 s, and the system PriorityClasses (the scheduling post-start hook, created once when missing).

import { isStatusError, notFound } from '../apis/errors.ts';
import { LOOPBACK_USER } from '../auth/user.ts';
import { semanticEqual } from '../registry/builtin/object.ts';
import { KUBERNETES_SERVICE_IP } from '../registry/builtin/core/services.ts';
import type { KubeObject, Registry, RequestContext, ResourceStore } from '../registry/types.ts';

export interface BootstrapOptions {
  /** The port the API is served on (kube's --secure-port): the Service's targetPort and the endpoints' port. Default 6443. */
  readonly securePort?: number;
  /** The IPv4 address the Endpoints and EndpointSlice list (kube's --advertise-address). Default 127.0.0.1. */
  readonly advertiseAddress?: string;
  /** Interval of the Service and endpoints reconciliation (default 10000 ms); 0: at start only. */
  readonly resyncMs?: number;
  /** Told about a failed reconciliation (retried at the next resync). Absent: a failure at start is thrown. */
  readonly onError?: (err: unknown) => void;
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
async function reconcile(store: ResourceStore, ctx: RequestContext, desired: KubeObject, fix: (current: KubeObject) => KubeObject | undefined): Promise<void> {
  const name = desired.metadata.name ?? '';
  const current = await getOrUndefined(store, ctx, name);
  if (!current) {
    try {
      await store.create(ctx, structuredClone(desired));
    } catch (e) {
      if (!isAlreadyExists(e)) throw e;
    }
    return;
  }
  if (!fix(current)) return;
  await store.update(ctx, name, (live) => {
    if (!live) throw notFound({ group: store.definition.group, resource: store.definition.resource }, name);
    return fix(live) ?? live;
  });
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

export function kubernetesEndpoints(address: string, securePort: number): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Endpoints',
    metadata: { name: KUBERNETES_SERVICE_NAME, namespace: NAMESPACE, labels: { [SKIP_MIRROR_LABEL]: 'true' } },
    subsets: [{ addresses: [{ ip: address }], ports: endpointPorts(securePort) }],
  };
}

export function kubernetesEndpointSlice(address: string, securePort: number): KubeObject {
  return {
    apiVersion: 'discovery.k8s.io/v1',
    kind: 'EndpointSlice',
    metadata: { name: KUBERNETES_SERVICE_NAME, namespace: NAMESPACE, labels: { [SERVICE_NAME_LABEL]: KUBERNETES_SERVICE_NAME } },
    addressType: 'IPv4',
    endpoints: [{ addresses: [address], conditions: { ready: true } }],
    ports: endpointPorts(securePort),
  };
}

type Obj = Record<string, unknown>;
const objAt = (o: KubeObject, key: string): Obj => (typeof o[key] === 'object' && o[key] !== null ? (o[key] as Obj) : {});

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

function fixEndpoints(desired: KubeObject) {
  return (current: KubeObject): KubeObject | undefined => {
    const labelled = current.metadata.labels?.[SKIP_MIRROR_LABEL] === 'true';
    if (labelled && semanticEqual(current.subsets, desired.subsets)) return undefined;
    return { ...current, metadata: withLabel(current, SKIP_MIRROR_LABEL, 'true'), subsets: structuredClone(desired.subsets) };
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
      endpoints: structuredClone(desired.endpoints),
      ports: structuredClone(desired.ports),
    };
  };
}

function isLoopback(address: string): boolean {
  return /^127\./.test(address) || address === '::1';
}

/** The kubernetes Service, then its Endpoints and EndpointSlice, as the endpoint reconciler leaves them. */
export async function reconcileKubernetesService(registry: Registry, securePort: number, address: string): Promise<void> {
  const ctx = context(NAMESPACE);
  const services = storeOf(registry, '', 'v1', 'services');
  if (services) await reconcile(services, ctx, kubernetesService(securePort), fixService(securePort));
  // kube's Endpoints validation refuses loopback addresses, so with a loopback advertise address kube-apiserver's
  // reconciler writes neither the Endpoints nor (it comes after them) the EndpointSlice.
  if (isLoopback(address)) return;
  const endpoints = storeOf(registry, '', 'v1', 'endpoints');
  const eps = kubernetesEndpoints(address, securePort);
  if (endpoints) await reconcile(endpoints, ctx, eps, fixEndpoints(eps));
  const slices = storeOf(registry, 'discovery.k8s.io', 'v1', 'endpointslices');
  const slice = kubernetesEndpointSlice(address, securePort);
  if (slices) await reconcile(slices, ctx, slice, fixEndpointSlice(slice));
}

/** AddSystemPriorityClasses: each missing one is created; existing ones are left as they are. */
export async function ensureSystemPriorityClasses(registry: Registry): Promise<void> {
  const store = storeOf(registry, 'scheduling.k8s.io', 'v1', 'priorityclasses');
  if (!store) return;
  for (const pc of SYSTEM_PRIORITY_CLASSES) await reconcile(store, context(''), pc, () => undefined);
}

export async function startBootstrapController(registry: Registry, options: BootstrapOptions = {}): Promise<BootstrapController> {
  const port = options.securePort && options.securePort > 0 ? options.securePort : DEFAULT_SECURE_PORT;
  const address = options.advertiseAddress ?? '127.0.0.1';
  let stopped = false;
  // One reconciliation at a time; a failed one does not stop the next.
  let running: Promise<void> = Promise.resolve();
  const sync = (): Promise<void> => {
    const next = running.catch(() => {}).then(() => (stopped ? undefined : reconcileKubernetesService(registry, port, address)));
    running = next;
    return next;
  };

  try {
    await ensureSystemPriorityClasses(registry);
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
      stopped = true;
      if (timer) clearInterval(timer);
      await running.catch(() => {});
    },
  };
}
