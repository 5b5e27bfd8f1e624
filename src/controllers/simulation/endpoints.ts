// The endpoints controllers for simulated pods: each Service with a selector gets Endpoints (ready pods'
// addresses, the others as notReadyAddresses) and one EndpointSlice labelled kubernetes.io/service-name, with
// target ports resolved against the pods' named container ports.

import type { KubeObject, Registry, ResourceStore } from '../../registry/types.ts';
import { createKeyedQueue, followWatch } from '../work-queue.ts';
import { asObj, ctxFor, isConflictOrGone, key, podReady, selects, splitKey, storeFor, type Obj } from './shared.ts';

function targetPort(port: Obj, pod: KubeObject): number | undefined {
  const target = port.targetPort ?? port.port;
  if (typeof target === 'number') return target;
  for (const c of ((asObj(pod.spec).containers as unknown[]) ?? []).map(asObj)) {
    for (const p of ((c.ports as unknown[]) ?? []).map(asObj)) if (p.name === target && typeof p.containerPort === 'number') return p.containerPort;
  }
  return undefined;
}

async function upsert(store: ResourceStore, namespace: string, name: string, build: (cur: KubeObject | undefined) => KubeObject): Promise<void> {
  await store.update(ctxFor(namespace), name, (cur) => build(cur), { forceAllowCreate: true }).catch((e) => {
    if (!isConflictOrGone(e)) throw e;
  });
}

export function startEndpointsController(registry: Registry): { stop(): Promise<void> } {
  const services = () => storeFor(registry, '', 'v1', 'services');
  const queue = createKeyedQueue(async (k) => {
    const { namespace, name } = splitKey(k);
    const svcStore = services();
    const podStore = storeFor(registry, '', 'v1', 'pods');
    const epStore = storeFor(registry, '', 'v1', 'endpoints');
    const sliceStore = storeFor(registry, 'discovery.k8s.io', 'v1', 'endpointslices');
    if (!svcStore || !podStore || !epStore || !sliceStore) return;
    const svc = await svcStore.get(ctxFor(namespace), name).catch(() => undefined);
    const selector = asObj(asObj(svc?.spec).selector);
    if (!svc || Object.keys(selector).length === 0) return;
    const pods = (await podStore.list(ctxFor(namespace), {})).items.filter(
      (p) => selects({ matchLabels: selector }, p.metadata.labels) && asObj(p.status).podIP && !p.metadata.deletionTimestamp,
    );
    const ports = ((asObj(svc.spec).ports as unknown[]) ?? []).map(asObj);
    const address = (p: KubeObject) => ({ ip: String(asObj(p.status).podIP), nodeName: asObj(p.spec).nodeName, targetRef: { kind: 'Pod', namespace, name: p.metadata.name, uid: p.metadata.uid } });
    const ready = pods.filter(podReady);
    const notReady = pods.filter((p) => !podReady(p));
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
        conditions: { ready: podReady(p), serving: podReady(p), terminating: false },
        nodeName: asObj(p.spec).nodeName,
        targetRef: { kind: 'Pod', namespace, name: p.metadata.name, uid: p.metadata.uid },
      })),
      ports: epPorts,
    }));
  }, 500);
  const stops = [
    followWatch(services, ctxFor(), (ev) => queue.enqueue(key(ev.object as KubeObject)), queue, 500),
    followWatch(
      () => storeFor(registry, '', 'v1', 'pods'),
      ctxFor(),
      (ev) => {
        const pod = ev.object as KubeObject;
        const ns = pod.metadata.namespace ?? '';
        // Every selecting Service of the pod's namespace looks again (cheap at simulation scale).
        void services()
          ?.list(ctxFor(ns), {})
          .then((list) => {
            for (const svc of list.items) if (selects({ matchLabels: asObj(asObj(svc.spec).selector) }, pod.metadata.labels)) queue.enqueue(key(svc));
          });
      },
      queue,
      500,
    ),
  ];
  return {
    async stop() {
      for (const s of stops) s();
      await queue.stop();
    },
  };
}
