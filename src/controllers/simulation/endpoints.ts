// The endpoints and endpointslice controllers for simulated pods, as kube-controller-manager runs them: each Service
// with a selector gets an Endpoints of the same name and EndpointSlices (generateName "<service>-", controlled by the
// Service, so the garbage collector removes them with it) of the pods it selects; a Service's Endpoints go when the
// Service goes, and at start the Endpoints left without a Service go too (checkLeftoverEndpoints). What they hold is
// computed in endpoint-sets.ts. Both write as their kube-system service accounts.

import type { KubeObject } from '../../registry/types.ts';
import { createKeyedQueue } from '../work-queue.ts';
import type { Informers, ResourceRef } from '../informers.ts';
import { jsonEqual } from '../../registry/store-codec.ts';
import { desiredSlices, endpointsLabels, endpointsSubsets, MANAGED_BY_LABEL, SERVICE_NAME_LABEL, SLICE_CONTROLLER_NAME, sliceAddressType, sliceLabels, slicePrefix, type SliceContent } from './endpoint-sets.ts';
import { asObj, controllerAccount, controllerRef, isNotFound, key, NODES, PODS, selects, SERVICES, splitKey } from './shared.ts';

const ENDPOINTS: ResourceRef = { group: '', version: 'v1', resource: 'endpoints' };
const ENDPOINT_SLICES: ResourceRef = { group: 'discovery.k8s.io', version: 'v1', resource: 'endpointslices' };
/** Endpoints kept by leader election (resource lock "endpoints"): never someone's leftovers. */
const LEADER_ANNOTATION = 'control-plane.alpha.kubernetes.io/leader';
const ZONE_LABEL = 'topology.kubernetes.io/zone';

const ignoreNotFound = (e: unknown): void => {
  if (!isNotFound(e)) throw e;
};

export function startEndpointsController(informers: Informers): { stop(): Promise<void> } {
  const services = informers.of(SERVICES);
  const pods = informers.of(PODS);
  const nodes = informers.of(NODES);
  const endpoints = informers.of(ENDPOINTS).as(controllerAccount('endpoint-controller'));
  const slices = informers.of(ENDPOINT_SLICES).as(controllerAccount('endpointslice-controller'));
  const synced = Promise.all([services.synced, pods.synced, nodes.synced, endpoints.synced, slices.synced]);
  /** The pods each Service's last pass selected: a pod that stops matching must still bring its Service to look. */
  const members = new Map<string, Set<string>>();

  async function syncEndpoints(svc: KubeObject, selected: KubeObject[]): Promise<void> {
    const namespace = svc.metadata.namespace ?? '';
    const name = svc.metadata.name ?? '';
    const subsets = endpointsSubsets(svc, selected);
    const labels = endpointsLabels(svc);
    const current = endpoints.get(namespace, name);
    const apply = (cur: KubeObject): KubeObject => {
      const next: KubeObject = { ...cur, metadata: { ...cur.metadata, labels } };
      if (subsets.length > 0) next.subsets = subsets;
      else delete next.subsets;
      return next;
    };
    if (!current) {
      await endpoints.create(namespace, apply({ apiVersion: 'v1', kind: 'Endpoints', metadata: { name, namespace } }));
      return;
    }
    if (jsonEqual(current.subsets ?? [], subsets) && jsonEqual(current.metadata.labels ?? {}, labels)) return;
    await endpoints.update(namespace, name, (live) => apply(live ?? current));
  }

  async function syncSlices(svc: KubeObject, selected: KubeObject[]): Promise<void> {
    const namespace = svc.metadata.namespace ?? '';
    const uid = svc.metadata.uid ?? '';
    const addressType = sliceAddressType(svc);
    const zoneOf = (node: string) => nodes.get('', node)?.metadata.labels?.[ZONE_LABEL] || undefined;
    const desired = desiredSlices(svc, selected, zoneOf);
    const labels = sliceLabels(svc);
    const owned = slices
      .list(namespace)
      .filter((s) => s.metadata.labels?.[SERVICE_NAME_LABEL] === svc.metadata.name && s.metadata.labels?.[MANAGED_BY_LABEL] === SLICE_CONTROLLER_NAME)
      .filter((s) => s.metadata.ownerReferences?.some((o) => o.uid === uid) && s.addressType === addressType)
      .sort((a, b) => ((a.metadata.name ?? '') < (b.metadata.name ?? '') ? -1 : 1));
    // Each desired slice takes an existing one with the same ports if there is one, else any left, else a new one.
    const unused = [...owned];
    const take = (content: SliceContent): KubeObject | undefined => {
      const i = unused.findIndex((s) => jsonEqual(s.ports ?? [], content.ports));
      return i >= 0 ? unused.splice(i, 1)[0] : undefined;
    };
    const plan = desired.map((content) => ({ content, slice: take(content) }));
    for (const step of plan) step.slice ??= unused.shift();
    for (const { content, slice } of plan) {
      const same = slice && jsonEqual(slice.ports ?? [], content.ports) && jsonEqual(slice.endpoints ?? [], content.endpoints) && jsonEqual(slice.metadata.labels ?? {}, labels);
      if (same) continue;
      if (!slice) {
        await slices.create(namespace, {
          apiVersion: 'discovery.k8s.io/v1',
          kind: 'EndpointSlice',
          metadata: { generateName: slicePrefix(svc.metadata.name ?? ''), namespace, labels, ownerReferences: [controllerRef(svc, 'v1', 'Service')] },
          addressType,
          endpoints: content.endpoints,
          ports: content.ports,
        });
        continue;
      }
      await slices.update(namespace, slice.metadata.name ?? '', (live) => ({ ...(live ?? slice), metadata: { ...(live ?? slice).metadata, labels }, endpoints: content.endpoints, ports: content.ports }));
    }
    for (const slice of unused) await slices.delete(namespace, slice.metadata.name ?? '').catch(ignoreNotFound);
  }

  const queue = createKeyedQueue(async (k) => {
    await synced;
    const { namespace, name } = splitKey(k);
    const svc = services.get(namespace, name);
    if (!svc) {
      // The slices follow their owner through the garbage collector; the Endpoints go here.
      members.delete(k);
      if (endpoints.get(namespace, name)) await endpoints.delete(namespace, name).catch(ignoreNotFound);
      return;
    }
    const selector = asObj(asObj(svc.spec).selector);
    // A Service without a selector: its Endpoints and slices are someone else's to write.
    if (Object.keys(selector).length === 0) {
      members.delete(k);
      return;
    }
    const selected = pods.list(namespace).filter((p) => selects({ matchLabels: selector }, p.metadata.labels));
    members.set(k, new Set(selected.map((p) => p.metadata.name ?? '')));
    await syncEndpoints(svc, selected);
    if (asObj(svc.spec).type !== 'ExternalName') await syncSlices(svc, selected);
  }, 500, informers.activity);

  services.onEvent((ev) => queue.enqueue(key(ev.object)));
  pods.onEvent((ev) => {
    const pod = ev.object;
    const namespace = pod.metadata.namespace ?? '';
    for (const svc of services.list(namespace)) {
      const k = key(svc);
      if (members.get(k)?.has(pod.metadata.name ?? '') || selects({ matchLabels: asObj(asObj(svc.spec).selector) }, pod.metadata.labels)) queue.enqueue(k);
    }
  });
  // An Endpoints or slice of ours removed or changed by someone else is put back.
  endpoints.onEvent((ev) => {
    if (ev.type === 'DELETED' && !ev.written) queue.enqueue(key(ev.object));
  });
  slices.onEvent((ev) => {
    const service = ev.object.metadata.labels?.[SERVICE_NAME_LABEL];
    if (!ev.written && service && ev.object.metadata.labels?.[MANAGED_BY_LABEL] === SLICE_CONTROLLER_NAME) queue.enqueue(`${ev.object.metadata.namespace ?? ''}/${service}`);
  });
  // checkLeftoverEndpoints: Endpoints without a Service, from before the controller started, are looked at once.
  void synced.then(() => {
    for (const ep of endpoints.list()) {
      if (ep.metadata.annotations?.[LEADER_ANNOTATION] === undefined && !services.get(ep.metadata.namespace ?? '', ep.metadata.name ?? '')) queue.enqueue(key(ep));
    }
  });
  return { stop: queue.stop };
}
