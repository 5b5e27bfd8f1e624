// The endpoints controllers for simulated pods: each Service with a selector gets Endpoints (ready pods'
// addresses, the others as notReadyAddresses, all of them as ready with publishNotReadyAddresses; a pod whose
// subdomain is the Service with its hostname) and one EndpointSlice labelled kubernetes.io/service-name, with
// target ports resolved against the pods' named container ports.

import type { KubeObject, ResourceStore } from '../../registry/types.ts';
import { createKeyedQueue } from '../work-queue.ts';
import type { Informers } from '../informers.ts';
import { asObj, ctxFor, ignoreConflictOrGone, key, PODS, podReady, selects, SERVICES, splitKey, storeFor, type Obj } from './shared.ts';

function targetPort(port: Obj, pod: KubeObject): number | undefined {
  const target = port.targetPort ?? port.port;
  if (typeof target === 'number') return target;
  for (const c of ((asObj(pod.spec).containers as unknown[]) ?? []).map(asObj)) {
    for (const p of ((c.ports as unknown[]) ?? []).map(asObj)) if (p.name === target && typeof p.containerPort === 'number') return p.containerPort;
  }
  return undefined;
}

/** A pod's DNS hostname in a Service's endpoints: its spec.hostname when its subdomain is the Service (a StatefulSet's pods). */
function hostnameFor(pod: KubeObject, svc: KubeObject): string | undefined {
  const spec = asObj(pod.spec);
  return typeof spec.hostname === 'string' && spec.hostname && spec.subdomain === svc.metadata.name ? spec.hostname : undefined;
}

async function upsert(store: ResourceStore, namespace: string, name: string, build: (cur: KubeObject | undefined) => KubeObject): Promise<void> {
  await store.update(ctxFor(namespace), name, (cur) => build(cur), { forceAllowCreate: true }).catch(ignoreConflictOrGone);
}

export function startEndpointsController(informers: Informers): { stop(): Promise<void> } {
  const services = informers.of(SERVICES);
  const podCache = informers.of(PODS);
  const queue = createKeyedQueue(async (k) => {
    await Promise.all([services.synced, podCache.synced]);
    const { namespace, name } = splitKey(k);
    const epStore = storeFor(informers.registry, '', 'v1', 'endpoints');
    const sliceStore = storeFor(informers.registry, 'discovery.k8s.io', 'v1', 'endpointslices');
    if (!epStore || !sliceStore) return;
    const svc = services.get(namespace, name);
    const selector = asObj(asObj(svc?.spec).selector);
    if (!svc || Object.keys(selector).length === 0) return;
    const pods = podCache.list(namespace).filter(
      (p) => selects({ matchLabels: selector }, p.metadata.labels) && asObj(p.status).podIP && !p.metadata.deletionTimestamp,
    );
    const ports = ((asObj(svc.spec).ports as unknown[]) ?? []).map(asObj);
    const address = (p: KubeObject) => {
      const hostname = hostnameFor(p, svc);
      return { ip: String(asObj(p.status).podIP), ...(hostname ? { hostname } : {}), nodeName: asObj(p.spec).nodeName, targetRef: { kind: 'Pod', namespace, name: p.metadata.name, uid: p.metadata.uid } };
    };
    // publishNotReadyAddresses: every pod counts as ready.
    const publishAll = asObj(svc.spec).publishNotReadyAddresses === true;
    const isReady = (p: KubeObject) => publishAll || podReady(p);
    const ready = pods.filter(isReady);
    const notReady = pods.filter((p) => !isReady(p));
    const epPorts = ports.map((p) => ({ ...(p.name ? { name: p.name } : {}), port: (pods[0] && targetPort(p, pods[0])) ?? p.port, protocol: p.protocol ?? 'TCP' }));
    const subsets = pods.length === 0 ? undefined : [{ ...(ready.length ? { addresses: ready.map(address) } : {}), ...(notReady.length ? { notReadyAddresses: notReady.map(address) } : {}), ports: epPorts }];
    await upsert(epStore, namespace, name, (cur) => ({
      ...(cur ?? { apiVersion: 'v1', kind: 'Endpoints', metadata: { name, namespace } }),
      metadata: { ...(cur?.metadata ?? { name, namespace }), labels: { ...(cur?.metadata.labels ?? {}), ...(svc.metadata.labels ?? {}) } },
      ...(subsets ? { subsets } : { subsets: undefined }),
    }));
    const sliceName = `${name}-capstan`;
    await upsert(sliceStore, namespace, sliceName, (cur) => ({
      ...(cur ?? {}),
      apiVersion: 'discovery.k8s.io/v1',
      kind: 'EndpointSlice',
      metadata: { ...(cur?.metadata ?? { name: sliceName, namespace }), labels: { 'kubernetes.io/service-name': name, 'endpointslice.kubernetes.io/managed-by': 'endpointslice-controller.k8s.io' } },
      addressType: 'IPv4',
      endpoints: pods.map((p) => ({
        addresses: [String(asObj(p.status).podIP)],
        conditions: { ready: isReady(p), serving: isReady(p), terminating: false },
        ...(hostnameFor(p, svc) ? { hostname: hostnameFor(p, svc) } : {}),
        nodeName: asObj(p.spec).nodeName,
        targetRef: { kind: 'Pod', namespace, name: p.metadata.name, uid: p.metadata.uid },
      })),
      ports: epPorts,
    }));
  }, 500, informers.activity);
  services.onEvent((ev) => queue.enqueue(key(ev.object)));
  podCache.onEvent((ev) => {
    const pod = ev.object;
    // Every selecting Service of the pod's namespace looks again (cheap at simulation scale).
    for (const svc of services.list(pod.metadata.namespace ?? '')) if (selects({ matchLabels: asObj(asObj(svc.spec).selector) }, pod.metadata.labels)) queue.enqueue(key(svc));
  });
  return { stop: queue.stop };
}
