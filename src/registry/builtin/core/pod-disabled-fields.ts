// dropDisabledFields (pkg/api/pod/util.go): the pod spec fields of features kube-apiserver 1.31 ships turned off are
// dropped from a written pod or pod template, unless --feature-gates turns the feature on or the stored object
// already used it. kube drops them silently; a client reads the object back without them.

import { isObj, objsAt, type Obj } from '../object.ts';

type Gates = Readonly<Record<string, boolean>>;

const CONTAINER_LISTS = ['initContainers', 'containers', 'ephemeralContainers'] as const;

function containers(spec: Obj | undefined): Obj[] {
  return spec ? CONTAINER_LISTS.flatMap((list) => objsAt(spec, list)) : [];
}

function securityContext(spec: Obj | undefined): Obj | undefined {
  return spec && isObj(spec.securityContext) ? spec.securityContext : undefined;
}

function projectedSources(spec: Obj | undefined): Obj[] {
  return spec ? objsAt(spec, 'volumes').flatMap((v) => (isObj(v.projected) ? objsAt(v.projected, 'sources') : [])) : [];
}

const nonEmpty = (v: unknown): boolean => Array.isArray(v) && v.length > 0;

interface GatedField {
  readonly gate: string;
  /** Whether a spec uses the feature (the old one keeps it on an update). */
  readonly inUse: (spec: Obj | undefined) => boolean;
  readonly drop: (spec: Obj) => void;
  /** What the feature writes into a pod's status, dropped with it. */
  readonly dropStatus?: (status: Obj) => void;
}

function containerStatuses(status: Obj): Obj[] {
  return ['initContainerStatuses', 'containerStatuses', 'ephemeralContainerStatuses'].flatMap((list) => objsAt(status, list));
}

const GATED_FIELDS: readonly GatedField[] = [
  {
    gate: 'UserNamespacesSupport',
    inUse: (spec) => spec?.hostUsers != null,
    drop: (spec) => void delete spec.hostUsers,
  },
  {
    gate: 'SupplementalGroupsPolicy',
    inUse: (spec) => securityContext(spec)?.supplementalGroupsPolicy != null,
    drop: (spec) => void delete securityContext(spec)?.supplementalGroupsPolicy,
    dropStatus: (status) => {
      for (const c of containerStatuses(status)) delete c.user;
    },
  },
  {
    gate: 'DynamicResourceAllocation',
    // A container may only claim what the pod lists: the pod's list tells whether the feature is in use.
    inUse: (spec) => nonEmpty(spec?.resourceClaims),
    drop: (spec) => {
      delete spec.resourceClaims;
      for (const c of containers(spec)) if (isObj(c.resources)) delete c.resources.claims;
    },
    dropStatus: (status) => void delete status.resourceClaimStatuses,
  },
  {
    gate: 'InPlacePodVerticalScaling',
    inUse: (spec) => objsAt(spec, 'containers').some((c) => nonEmpty(c.resizePolicy)),
    drop: (spec) => {
      for (const c of containers(spec)) delete c.resizePolicy;
    },
    dropStatus: (status) => {
      delete status.resize;
      for (const c of containerStatuses(status)) {
        delete c.allocatedResources;
        delete c.resources;
      }
    },
  },
  {
    gate: 'ClusterTrustBundleProjection',
    inUse: (spec) => projectedSources(spec).some((s) => s.clusterTrustBundle != null),
    drop: (spec) => {
      for (const s of projectedSources(spec)) delete s.clusterTrustBundle;
    },
  },
  {
    gate: 'ImageVolume',
    inUse: (spec) => objsAt(spec, 'volumes').some((v) => v.image != null),
    drop: (spec) => {
      if (Array.isArray(spec.volumes)) spec.volumes = spec.volumes.filter((v) => !(isObj(v) && v.image != null));
    },
  },
];

/** DropDisabledPodFields on a pod: its spec, and what the disabled features write into its status. */
export function dropDisabledPodFields(pod: Obj, oldPod: Obj | undefined, gates: Gates): void {
  const spec = isObj(pod.spec) ? pod.spec : undefined;
  const old = oldPod && isObj(oldPod.spec) ? oldPod.spec : undefined;
  for (const field of GATED_FIELDS) {
    if (gates[field.gate] === true || field.inUse(old)) continue;
    if (spec) field.drop(spec);
    if (isObj(pod.status)) field.dropStatus?.(pod.status);
  }
}

/** The same on a pod template (`template` of a workload, RC or PodTemplate). */
export function dropDisabledTemplateFields(template: unknown, oldTemplate: unknown, gates: Gates): void {
  if (isObj(template)) dropDisabledPodFields({ spec: template.spec }, isObj(oldTemplate) ? { spec: oldTemplate.spec } : undefined, gates);
}
