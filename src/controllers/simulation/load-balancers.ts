// kube-controller-manager's service controller with a simulated cloud: a Service of type LoadBalancer (and no
// loadBalancerClass, which names another implementation) gets the load-balancer-cleanup finalizer and an ingress
// address in status.loadBalancer (its spec.loadBalancerIP if it asks for one, else the next free address of
// 198.51.100.0/24, or 2001:db8::/64 for an IPv6-only Service), with kube's EnsuringLoadBalancer and
// EnsuredLoadBalancer events; `kubectl get svc` shows the EXTERNAL-IP and `helm install --wait` sees the Service
// ready. A Service that stops being one, or is deleted, gives its address back (DeletingLoadBalancer,
// DeletedLoadBalancer) and loses the finalizer.

import type { KubeObject } from '../../registry/types.ts';
import { createKeyedQueue } from '../work-queue.ts';
import type { EventSink } from '../events.ts';
import type { Informers } from '../informers.ts';
import { asObj, controllerAccount, controllerEvents, key, SERVICES, splitKey, type Obj } from './shared.ts';

export const LB_CLEANUP_FINALIZER = 'service.kubernetes.io/load-balancer-cleanup';

const wantsLoadBalancer = (svc: KubeObject): boolean => {
  const spec = asObj(svc.spec);
  return !svc.metadata.deletionTimestamp && spec.type === 'LoadBalancer' && !spec.loadBalancerClass;
};
const ingressOf = (svc: KubeObject): Obj[] => ((asObj(asObj(svc.status).loadBalancer).ingress as unknown[] | undefined) ?? []).map(asObj);
const ipv6Only = (svc: KubeObject): boolean => {
  const families = (asObj(svc.spec).ipFamilies as unknown[] | undefined) ?? [];
  return families.length > 0 && families.every((f) => f === 'IPv6');
};

export function startLoadBalancerController(informers: Informers, eventSink: EventSink): { stop(): Promise<void> } {
  const user = controllerAccount('service-controller');
  const services = informers.of(SERVICES).as(user);
  const events = controllerEvents(eventSink, 'service-controller', user);
  /** The first address no Service holds. */
  function nextAddress(svc: KubeObject): string {
    const taken = new Set(services.list().flatMap((s) => ingressOf(s).map((i) => String(i.ip ?? ''))));
    for (let i = 1; ipv6Only(svc) || i < 255; i++) {
      const ip = ipv6Only(svc) ? `2001:db8::${i.toString(16)}` : `198.51.100.${i}`;
      if (!taken.has(ip)) return ip;
    }
    throw new Error('no load balancer address left in 198.51.100.0/24');
  }

  const setFinalizer = (svc: KubeObject, present: boolean) =>
    services.update(svc.metadata.namespace ?? '', svc.metadata.name ?? '', (cur) => {
      const finalizers = (cur!.metadata.finalizers ?? []).filter((f) => f !== LB_CLEANUP_FINALIZER);
      if (present) finalizers.push(LB_CLEANUP_FINALIZER);
      return { ...cur!, metadata: { ...cur!.metadata, finalizers } };
    });
  const setIngress = (svc: KubeObject, ingress: Obj[]) =>
    services.update(svc.metadata.namespace ?? '', svc.metadata.name ?? '', (cur) => ({ ...cur!, status: { ...asObj(cur!.status), loadBalancer: ingress.length ? { ingress } : {} } }), { subresource: 'status' });

  const queue = createKeyedQueue(async (k) => {
    await services.synced;
    const { namespace, name } = splitKey(k);
    let svc = services.get(namespace, name);
    if (!svc) return;
    const hasFinalizer = (svc.metadata.finalizers ?? []).includes(LB_CLEANUP_FINALIZER);
    if (wantsLoadBalancer(svc)) {
      const current = String(ingressOf(svc)[0]?.ip ?? '');
      const requested = String(asObj(svc.spec).loadBalancerIP ?? '');
      if (hasFinalizer && current && (!requested || requested === current)) return;
      events.event(svc, 'Normal', 'EnsuringLoadBalancer', 'Ensuring load balancer');
      if (!hasFinalizer) svc = await setFinalizer(svc, true);
      await setIngress(svc, [{ ip: requested || current || nextAddress(svc), ipMode: 'VIP' }]);
      events.event(svc, 'Normal', 'EnsuredLoadBalancer', 'Ensured load balancer');
      return;
    }
    if (!hasFinalizer) return;
    events.event(svc, 'Normal', 'DeletingLoadBalancer', 'Deleting load balancer');
    if (ingressOf(svc).length > 0) svc = await setIngress(svc, []);
    await setFinalizer(svc, false);
    events.event(svc, 'Normal', 'DeletedLoadBalancer', 'Deleted load balancer');
  }, 500, informers.activity);

  services.onEvent((ev) => ev.type !== 'DELETED' && ev.written === undefined && queue.enqueue(key(ev.object)));
  return {
    async stop() {
      await queue.stop();
    },
  };
}
