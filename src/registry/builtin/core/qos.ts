// A pod's QoS class (pkg/apis/core/helper/qos.ComputePodQOS): BestEffort without cpu/memory requests or limits,
// Guaranteed when every container limits both and requests equal limits, Burstable otherwise.

import { quantityNanos } from '../../validation/quantity.ts';
import { isObj, objsAt } from '../object.ts';

const QOS_RESOURCES = new Set(['cpu', 'memory']);

export function podQOSClass(spec: unknown): 'BestEffort' | 'Burstable' | 'Guaranteed' {
  const requests = new Map<string, bigint>();
  const limits = new Map<string, bigint>();
  let guaranteed = true;
  const add = (into: Map<string, bigint>, name: string, q: bigint) => into.set(name, (into.get(name) ?? 0n) + q);
  for (const c of [...objsAt(spec, 'containers'), ...objsAt(spec, 'initContainers')]) {
    const resources = isObj(c.resources) ? c.resources : {};
    for (const [name, v] of Object.entries(isObj(resources.requests) ? resources.requests : {})) {
      const q = quantityNanos(v);
      if (QOS_RESOURCES.has(name) && q !== undefined && q > 0n) add(requests, name, q);
    }
    const found = new Set<string>();
    for (const [name, v] of Object.entries(isObj(resources.limits) ? resources.limits : {})) {
      const q = quantityNanos(v);
      if (QOS_RESOURCES.has(name) && q !== undefined && q > 0n) {
        found.add(name);
        add(limits, name, q);
      }
    }
    if (!found.has('cpu') || !found.has('memory')) guaranteed = false;
  }
  if (requests.size === 0 && limits.size === 0) return 'BestEffort';
  if (guaranteed) {
    for (const [name, req] of requests) {
      if (limits.get(name) !== req) {
        guaranteed = false;
        break;
      }
    }
  }
  return guaranteed && requests.size === limits.size ? 'Guaranteed' : 'Burstable';
}
