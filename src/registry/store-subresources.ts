// Generic subresource strategies, used when a type's strategy brings none: "status" changes only status,
// "finalize" (namespaces) changes only spec.finalizers. Both keep the writer's managedFields, which the apply
// engine updated for this write.

import { deepClone } from './store-codec.ts';
import type { KubeObject, SubresourceStrategy } from './types.ts';

function keepOldExcept(obj: KubeObject, old: KubeObject, copy: (next: KubeObject) => void): KubeObject {
  const next = deepClone(old);
  next.metadata ??= {};
  copy(next);
  if (obj.metadata?.managedFields !== undefined) next.metadata.managedFields = obj.metadata.managedFields;
  else delete next.metadata.managedFields;
  return next;
}

export const genericStatusStrategy: SubresourceStrategy = {
  prepareForUpdate(obj, old) {
    return keepOldExcept(obj, old, (next) => {
      if (obj.status !== undefined) next.status = deepClone(obj.status);
      else delete next.status;
    });
  },
};

export const genericFinalizeStrategy: SubresourceStrategy = {
  prepareForUpdate(obj, old) {
    return keepOldExcept(obj, old, (next) => {
      const spec = (obj.spec && typeof obj.spec === 'object' ? obj.spec : {}) as Record<string, unknown>;
      const nextSpec = { ...((next.spec as Record<string, unknown> | undefined) ?? {}) };
      if (spec.finalizers !== undefined) nextSpec.finalizers = deepClone(spec.finalizers);
      else delete nextSpec.finalizers;
      next.spec = nextSpec;
    });
  },
};

/** pods/binding: the node assignment, the annotations and conditions a binding sets, nothing else. */
export const podBindingStrategy: SubresourceStrategy = {
  prepareForUpdate(obj, old) {
    return keepOldExcept(obj, old, (next) => {
      next.spec = { ...((next.spec as Record<string, unknown> | undefined) ?? {}), nodeName: (obj.spec as Record<string, unknown> | undefined)?.nodeName };
      if (obj.metadata?.annotations !== undefined) next.metadata.annotations = deepClone(obj.metadata.annotations);
      next.status = { ...((next.status as Record<string, unknown> | undefined) ?? {}), conditions: deepClone((obj.status as Record<string, unknown> | undefined)?.conditions) };
    });
  },
};

export function genericSubresourceStrategy(name: string): SubresourceStrategy | undefined {
  if (name === 'status') return genericStatusStrategy;
  if (name === 'binding') return podBindingStrategy;
  if (name === 'finalize') return genericFinalizeStrategy;
  return undefined;
}
