// The endpoints and endpointslice controllers for simulated pods, as kube-controller-manager runs them: each Service
// with a selector gets an Endpoints of the same name and EndpointSlices (generateName "<service>-", controlled by the
// Service, so the garbage collector removes them with it) of the pods it selects; a Service's Endpoints go when the
// Service goes, and at start the Endpoints left without a Service go too (checkLeftoverEndpoints). The
// EndpointSliceMirroring controller gives the Endpoints someone wrote for a Service without a selector slices of their
// own. What they hold is computed in endpoint-sets.ts. They write as their kube-system service accounts.

import type { KubeObject } from '../../registry/types.ts';
import { createKeyedQueue } from '../work-queue.ts';
import type { Informer, Informers, ResourceRef } from '../informers.ts';
import { jsonEqual } from '../../registry/store-codec.ts';
import { desiredSlices, endpointsLabels, endpointsSubsets, LEADER_ANNOTATION, MANAGED_BY_LABEL, MIRRORING_CONTROLLER_NAME, mirroredMetadata, mirroredSlices, SERVICE_NAME_LABEL, shouldMirror, SLICE_CONTROLLER_NAME, sliceAddressType, sliceLabels, slicePrefix, type SliceContent } from './endpoint-sets.ts';
import { asObj, controllerAccount, controllerRef, isNotFound, key, NODES, PODS, selects, SERVICES, splitKey } from './shared.ts';

const ENDPOINTS: ResourceRef = { group: '', version: 'v1', resource: 'endpoints' };
const ENDPOINT_SLICES: ResourceRef = { group: 'discovery.k8s.io', version: 'v1', resource: 'endpointslices' };
const ZONE_LABEL = 'topology.kubernetes.io/zone';

const hasSelector = (svc: KubeObject): boolean => Object.keys(asObj(asObj(svc.spec).selector)).length > 0;

const ignoreNotFound = (e: unknown): void => {
  if (!isNotFound(e)) throw e;
};

export function startEndpointsController(informers: Informers): { stop(): Promise<void> } {
  const services = informers.of(SERVICES);
  const pods = informers.of(PODS);
  const nodes = informers.of(NODES);
  const endpoints = informers.of(ENDPOINTS).as(controllerAccount('endpoint-controller'));
  const slices = informers.of(ENDPOINT_SLICES).as(controllerAccount('endpointslice-controller'));
  const mirroredSliceWriter = informers.of(ENDPOINT_SLICES).as(controllerAccount('endpointslicemirroring-controller'));
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

  /**
   * Brings the slices a controller (`managedBy`) keeps for a Service name, under one owner, to the desired ones:
   * each takes an existing slice of the same address type and ports if there is one, else one of the same address
   * type left over (addressType cannot change), else a new one; the slices left are deleted.
   */
  async function reconcileSlices(writer: Informer, owner: KubeObject, ownerKind: string, managedBy: string, desired: readonly (SliceContent & { addressType: string })[], meta: { labels: Record<string, string>; annotations?: Record<string, string> }): Promise<void> {
    const namespace = owner.metadata.namespace ?? '';
    const name = owner.metadata.name ?? '';
    const uid = owner.metadata.uid ?? '';
    const unused = slices
      .list(namespace)
      .filter((s) => s.metadata.labels?.[SERVICE_NAME_LABEL] === name && s.metadata.labels?.[MANAGED_BY_LABEL] === managedBy && s.metadata.ownerReferences?.some((o) => o.uid === uid))
      .sort((a, b) => ((a.metadata.name ?? '') < (b.metadata.name ?? '') ? -1 : 1));
    const takeFrom = (content: SliceContent & { addressType: string }, samePorts: boolean): KubeObject | undefined => {
      const i = unused.findIndex((s) => s.addressType === content.addressType && (!samePorts || jsonEqual(s.ports ?? [], content.ports)));
      return i >= 0 ? unused.splice(i, 1)[0] : undefined;
    };
    const plan = desired.map((content) => ({ content, slice: takeFrom(content, true) }));
    for (const step of plan) step.slice ??= takeFrom(step.content, false);
    const annotations = meta.annotations ?? {};
    for (const { content, slice } of plan) {
      if (!slice) {
        await writer.create(namespace, {
          apiVersion: 'discovery.k8s.io/v1',
          kind: 'EndpointSlice',
          metadata: { generateName: slicePrefix(name), namespace, labels: meta.labels, ...(meta.annotations && Object.keys(annotations).length > 0 ? { annotations } : {}), ownerReferences: [controllerRef(owner, 'v1', ownerKind)] },
          addressType: content.addressType,
          endpoints: content.endpoints,
          ports: content.ports,
        });
        continue;
      }
      const sameMeta = jsonEqual(slice.metadata.labels ?? {}, meta.labels) && (!meta.annotations || jsonEqual(slice.metadata.annotations ?? {}, annotations));
      if (sameMeta && jsonEqual(slice.ports ?? [], content.ports) && jsonEqual(slice.endpoints ?? [], content.endpoints)) continue;
      await writer.update(namespace, slice.metadata.name ?? '', (live) => {
        const base = live ?? slice;
        const metadata = { ...base.metadata, labels: meta.labels };
        if (meta.annotations) {
          if (Object.keys(annotations).length > 0) metadata.annotations = annotations;
          else delete metadata.annotations;
        }
        return { ...base, metadata, endpoints: content.endpoints, ports: content.ports };
      });
    }
    for (const slice of unused) await writer.delete(namespace, slice.metadata.name ?? '').catch(ignoreNotFound);
  }

  async function syncSlices(svc: KubeObject, selected: KubeObject[]): Promise<void> {
    const addressType = sliceAddressType(svc);
    const zoneOf = (node: string) => nodes.get('', node)?.metadata.labels?.[ZONE_LABEL] || undefined;
    const desired = desiredSlices(svc, selected, zoneOf).map((content) => ({ ...content, addressType }));
    await reconcileSlices(slices, svc, 'Service', SLICE_CONTROLLER_NAME, desired, { labels: sliceLabels(svc) });
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
    // A Service without a selector: its Endpoints are someone else's to write (and mirrored, below).
    if (!hasSelector(svc)) {
      members.delete(k);
      return;
    }
    const selected = pods.list(namespace).filter((p) => selects({ matchLabels: selector }, p.metadata.labels));
    members.set(k, new Set(selected.map((p) => p.metadata.name ?? '')));
    await syncEndpoints(svc, selected);
    if (asObj(svc.spec).type !== 'ExternalName') await syncSlices(svc, selected);
  }, 500, informers.activity);

  // EndpointSliceMirroring: the Endpoints someone wrote for a Service without a selector get slices they control.
  const mirroring = createKeyedQueue(async (k) => {
    await synced;
    const { namespace, name } = splitKey(k);
    const svc = services.get(namespace, name);
    const ep = endpoints.get(namespace, name);
    // Gone Endpoints: their slices follow them through the garbage collector.
    if (!ep) return;
    if (svc && !hasSelector(svc) && shouldMirror(ep)) await reconcileSlices(mirroredSliceWriter, ep, 'Endpoints', MIRRORING_CONTROLLER_NAME, mirroredSlices(ep), mirroredMetadata(ep));
    else await reconcileSlices(mirroredSliceWriter, ep, 'Endpoints', MIRRORING_CONTROLLER_NAME, [], { labels: {} });
  }, 500, informers.activity);

  services.onEvent((ev) => {
    queue.enqueue(key(ev.object));
    mirroring.enqueue(key(ev.object));
  });
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
    const svc = services.get(ev.object.metadata.namespace ?? '', ev.object.metadata.name ?? '');
    if (!svc || !hasSelector(svc)) mirroring.enqueue(key(ev.object));
  });
  slices.onEvent((ev) => {
    const service = ev.object.metadata.labels?.[SERVICE_NAME_LABEL];
    const managedBy = ev.object.metadata.labels?.[MANAGED_BY_LABEL];
    if (ev.written || !service) return;
    const k = `${ev.object.metadata.namespace ?? ''}/${service}`;
    if (managedBy === SLICE_CONTROLLER_NAME) queue.enqueue(k);
    else if (managedBy === MIRRORING_CONTROLLER_NAME) mirroring.enqueue(k);
  });
  // checkLeftoverEndpoints: Endpoints without a Service, from before the controller started, are looked at once.
  void synced.then(() => {
    for (const ep of endpoints.list()) {
      if (ep.metadata.annotations?.[LEADER_ANNOTATION] === undefined && !services.get(ep.metadata.namespace ?? '', ep.metadata.name ?? '')) queue.enqueue(key(ep));
      mirroring.enqueue(key(ep));
    }
  });
  return {
    async stop() {
      await Promise.all([queue.stop(), mirroring.stop()]);
    },
  };
}
