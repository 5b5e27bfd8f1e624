// The PodValidationOptions an update earns from the object it replaces (pkg/api/pod/util.go
// GetValidationOptionsFromPodSpecAndMeta and GetValidationOptionsFromPodTemplate of kube 1.31): a rule tightened
// after an object was stored does not refuse that object's later updates when the stored one already broke it.
// Pods get them on every write; workloads, replication controllers and pod templates for their template.

import { isObj } from '../object.ts';
import { podDeletionCost } from './pod-annotations.ts';
import { hugePagesValueDivisible } from './pod-validation.ts';
import { isHugePagesResourceName } from './resource-names.ts';
import { schedulingUpdateOptions, type SchedulingValidationOptions } from './pod-scheduling-validation.ts';
import { usesHostNamespacedSysctl } from './pod-security-validation.ts';
import { projectsNonLocalToken } from './volume-source-validation.ts';

export interface PodUpdateOptions extends SchedulingValidationOptions {
  /** The old object's pod-deletion-cost annotation was already invalid. */
  readonly allowInvalidPodDeletionCost?: boolean;
  /** The old spec projected a service account token outside its volume. */
  readonly allowNonLocalProjectedTokenPath?: boolean;
  /** The old spec set a network (IPC) sysctl while sharing the host's network (IPC) namespace. */
  readonly allowNamespacedSysctlsForHostNetAndHostIPC?: boolean;
  /** The old spec held a hugepages limit, request or overhead that is not a whole number of pages. */
  readonly allowIndivisibleHugePagesValues?: boolean;
}

/** usesIndivisibleHugePagesValues: any container's limits or requests (every kind of container), or the overhead. */
function usesIndivisibleHugePagesValues(spec: unknown): boolean {
  if (!isObj(spec)) return false;
  const indivisible = (list: unknown) =>
    isObj(list) && Object.entries(list).some(([name, v]) => isHugePagesResourceName(name) && !hugePagesValueDivisible(name, v));
  const containers = ['containers', 'initContainers', 'ephemeralContainers'].flatMap((k) => (Array.isArray(spec[k]) ? spec[k] : []));
  return containers.some((c) => isObj(c) && isObj(c.resources) && (indivisible(c.resources.limits) || indivisible(c.resources.requests))) || indivisible(spec.overhead);
}

/** GetValidationOptionsFromPodSpecAndMeta on an update: what the old spec and annotations already held. */
export function podUpdateOptions(oldSpec: unknown, oldAnnotations: unknown): PodUpdateOptions {
  return {
    ...schedulingUpdateOptions(oldSpec),
    allowInvalidPodDeletionCost: podDeletionCost(oldAnnotations) === undefined,
    allowNonLocalProjectedTokenPath: projectsNonLocalToken(oldSpec),
    allowNamespacedSysctlsForHostNetAndHostIPC: usesHostNamespacedSysctl(oldSpec),
    allowIndivisibleHugePagesValues: usesIndivisibleHugePagesValues(oldSpec),
  };
}

/** GetValidationOptionsFromPodTemplate: the same for the template (`template` of a workload) an update replaces. */
export function templateUpdateOptions(oldTemplate: unknown): PodUpdateOptions {
  const t = isObj(oldTemplate) ? oldTemplate : {};
  return podUpdateOptions(t.spec, isObj(t.metadata) ? t.metadata.annotations : undefined);
}
