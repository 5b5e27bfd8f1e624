// LimitRanger (plugin/pkg/admission/limitranger): the LimitRanges of the namespace give containers their default
// requests and limits on create (with kube's annotation), and refuse pods whose containers go below a min or above
// a max (kube's messages, as a Forbidden on the pod).

import { createInformer, type Informer, type Snapshot } from '../informer.ts';
import { forbiddenError } from '../../registry/store-errors.ts';
import type { KubeObject, Registry } from '../../registry/types.ts';
import type { AdmissionAttributes, AdmissionPlugin } from '../types.ts';
import { nanosOf, podContainers, type ResourceList } from './resources.ts';

type Obj = Record<string, unknown>;
interface LimitItem {
  type?: string;
  max?: ResourceList;
  min?: ResourceList;
  default?: ResourceList;
  defaultRequest?: ResourceList;
  maxLimitRequestRatio?: ResourceList;
}

/** Runs `use` on the namespace's LimitRange items, read from a lister as kube's plugin reads them (waiting only
 * while the lister starts). */
function withLimitItems(informer: Informer, namespace: string, use: (items: LimitItem[]) => void): void | Promise<void> {
  if (!namespace) return use([]);
  const itemsOf = ({ items }: Snapshot): LimitItem[] => items.filter((lr) => lr.metadata.namespace === namespace).flatMap((lr) => (Array.isArray((lr.spec as Obj | undefined)?.limits) ? ((lr.spec as Obj).limits as LimitItem[]) : []));
  const known = informer.now();
  return known ? use(itemsOf(known)) : informer.snapshot().then((snap) => use(itemsOf(snap)));
}

const isPod = (a: AdmissionAttributes) => a.resource.group === '' && a.resource.resource === 'pods' && a.subResource === '';

/** SetDefaults_LimitRangeItem for containers: a missing default is the max, a missing defaultRequest the default. */
function effectiveDefaults(item: LimitItem): { limits: ResourceList; requests: ResourceList } {
  const limits: ResourceList = { ...(item.max ?? {}), ...(item.default ?? {}) };
  const requests: ResourceList = { ...limits, ...(item.defaultRequest ?? {}) };
  return { limits, requests };
}

function applyDefaults(pod: KubeObject, items: LimitItem[]): void {
  const notes: string[] = [];
  for (const item of items) {
    if (item.type !== 'Container') continue;
    const d = effectiveDefaults(item);
    for (const c of podContainers(pod, true)) {
      const setRequests: string[] = [];
      const setLimits: string[] = [];
      for (const [k, v] of Object.entries(d.limits)) {
        c.resources.limits ??= {};
        if (c.resources.limits[k] === undefined) {
          c.resources.limits[k] = v;
          setLimits.push(k);
        }
      }
      for (const [k, v] of Object.entries(d.requests)) {
        c.resources.requests ??= {};
        if (c.resources.requests[k] === undefined) {
          // A container with a limit but no request gets the limit as its request (as pod defaulting does).
          c.resources.requests[k] = c.resources.limits?.[k] !== undefined && !setLimits.includes(k) && item.defaultRequest?.[k] === undefined ? c.resources.limits[k] : v;
          setRequests.push(k);
        }
      }
      if (c.resources.limits && Object.keys(c.resources.limits).length === 0) delete c.resources.limits;
      if (c.resources.requests && Object.keys(c.resources.requests).length === 0) delete c.resources.requests;
      if (setRequests.length) notes.push(`${setRequests.join(', ')} request for ${c.init ? 'init container' : 'container'} ${c.name}`);
      if (setLimits.length) notes.push(`${setLimits.join(', ')} limit for ${c.init ? 'init container' : 'container'} ${c.name}`);
    }
  }
  if (notes.length) {
    pod.metadata.annotations = { ...(pod.metadata.annotations ?? {}), 'kubernetes.io/limit-ranger': `LimitRanger plugin set: ${notes.join('; ')}` };
  }
}

function checkLimits(pod: KubeObject, items: LimitItem[]): string[] {
  const errs: string[] = [];
  for (const item of items) {
    if (item.type !== 'Container') continue;
    for (const c of podContainers(pod)) {
      for (const [k, min] of Object.entries(item.min ?? {})) {
        const req = c.resources.requests?.[k];
        const lim = c.resources.limits?.[k];
        // minConstraint: the first problem only.
        if (req === undefined) errs.push(`minimum ${k} usage per Container is ${min}.  No request is specified`);
        else if (nanosOf(req) < nanosOf(min)) errs.push(`minimum ${k} usage per Container is ${min}, but request is ${req}`);
        else if (lim !== undefined && nanosOf(lim) < nanosOf(min)) errs.push(`minimum ${k} usage per Container is ${min}, but limit is ${lim}`);
      }
      for (const [k, max] of Object.entries(item.max ?? {})) {
        const lim = c.resources.limits?.[k];
        const req = c.resources.requests?.[k];
        if (lim === undefined) errs.push(`maximum ${k} usage per Container is ${max}.  No limit is specified`);
        else if (nanosOf(lim) > nanosOf(max)) errs.push(`maximum ${k} usage per Container is ${max}, but limit is ${lim}`);
        else if (req !== undefined && nanosOf(req) > nanosOf(max)) errs.push(`maximum ${k} usage per Container is ${max}, but request is ${req}`);
      }
    }
  }
  return errs;
}

export function limitRanger(registry: Registry): AdmissionPlugin {
  const informer = createInformer(registry, '', 'v1', 'limitranges');
  // Started with the server, as kube's informers are, not by the first pod.
  setImmediate(() => informer.snapshot().catch(() => undefined)).unref();
  return {
    name: 'LimitRanger',
    close: () => informer.stop(),
    handles: (op) => op === 'CREATE' || op === 'UPDATE',
    admit(a) {
      const pod = a.object;
      if (a.operation !== 'CREATE' || !isPod(a) || !pod) return;
      return withLimitItems(informer, a.namespace, (items) => {
        if (items.length) applyDefaults(pod, items);
      });
    },
    validate(a) {
      const pod = a.object;
      // kube's SupportsAttributes: a pod update is never checked, as its containers cannot change (a Job's pod made
      // before the LimitRange still loses its tracking finalizer).
      if (a.operation !== 'CREATE' || !isPod(a) || !pod) return;
      return withLimitItems(informer, a.namespace, (items) => {
        const errs = items.length ? checkLimits(pod, items) : [];
        if (errs.length === 0) return;
        const m = pod.metadata;
        throw forbiddenError({ group: '', resource: 'pods' }, m.name || m.generateName || a.name, errs.length === 1 ? errs[0] : `[${errs.join(', ')}]`);
      });
    },
  };
}
