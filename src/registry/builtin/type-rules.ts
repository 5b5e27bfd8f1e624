// Per built-in resource facts that shape its strategy: scope, how names must look, whether spec changes bump
// metadata.generation, whether a status subresource owns .status, and PUT-creates. Keyed "group/resource".

import { nameIsDNS1035Label, nameIsDNSLabel, nameIsDNSSubdomain, nameIsPathSegment, type NameValidator } from '../validation/names.ts';

export interface TypeRules {
  readonly namespaced: boolean;
  readonly nameFn: NameValidator;
  /** pkg/apis/core/validation.ValidateObjectMeta (unqualified finalizers must be standard ones). */
  readonly kubeFinalizers: boolean;
  /** generation 1 on create, +1 on each change of the non-metadata, non-status content. */
  readonly generation: boolean;
  /** A status subresource exists: main-resource writes keep the stored status, status writes keep the rest. */
  readonly status: boolean;
  readonly allowCreateOnUpdate: boolean;
}

// Cluster-scoped built-in resources (kube-apiserver 1.31 paths without /namespaces/{namespace}/).
const CLUSTER_SCOPED = new Set([
  '/componentstatuses',
  '/namespaces',
  '/nodes',
  '/persistentvolumes',
  'admissionregistration.k8s.io/mutatingwebhookconfigurations',
  'admissionregistration.k8s.io/validatingadmissionpolicies',
  'admissionregistration.k8s.io/validatingadmissionpolicybindings',
  'admissionregistration.k8s.io/validatingwebhookconfigurations',
  'apiextensions.k8s.io/customresourcedefinitions',
  'apiregistration.k8s.io/apiservices',
  'authentication.k8s.io/selfsubjectreviews',
  'authentication.k8s.io/tokenreviews',
  'authorization.k8s.io/selfsubjectaccessreviews',
  'authorization.k8s.io/selfsubjectrulesreviews',
  'authorization.k8s.io/subjectaccessreviews',
  'certificates.k8s.io/certificatesigningrequests',
  'certificates.k8s.io/clustertrustbundles',
  'flowcontrol.apiserver.k8s.io/flowschemas',
  'flowcontrol.apiserver.k8s.io/prioritylevelconfigurations',
  'internal.apiserver.k8s.io/storageversions',
  'networking.k8s.io/ingressclasses',
  'networking.k8s.io/ipaddresses',
  'networking.k8s.io/servicecidrs',
  'node.k8s.io/runtimeclasses',
  'rbac.authorization.k8s.io/clusterrolebindings',
  'rbac.authorization.k8s.io/clusterroles',
  'resource.k8s.io/deviceclasses',
  'resource.k8s.io/resourceslices',
  'scheduling.k8s.io/priorityclasses',
  'storage.k8s.io/csidrivers',
  'storage.k8s.io/csinodes',
  'storage.k8s.io/storageclasses',
  'storage.k8s.io/volumeattachments',
  'storage.k8s.io/volumeattributesclasses',
  'storagemigration.k8s.io/storageversionmigrations',
]);

// Resources with a status subresource in 1.31.
const WITH_STATUS = new Set([
  '/namespaces',
  '/nodes',
  '/persistentvolumeclaims',
  '/persistentvolumes',
  '/pods',
  '/replicationcontrollers',
  '/resourcequotas',
  '/services',
  'admissionregistration.k8s.io/validatingadmissionpolicies',
  'apiextensions.k8s.io/customresourcedefinitions',
  'apiregistration.k8s.io/apiservices',
  'apps/daemonsets',
  'apps/deployments',
  'apps/replicasets',
  'apps/statefulsets',
  'autoscaling/horizontalpodautoscalers',
  'batch/cronjobs',
  'batch/jobs',
  'certificates.k8s.io/certificatesigningrequests',
  'flowcontrol.apiserver.k8s.io/flowschemas',
  'flowcontrol.apiserver.k8s.io/prioritylevelconfigurations',
  'internal.apiserver.k8s.io/storageversions',
  'networking.k8s.io/ingresses',
  'networking.k8s.io/servicecidrs',
  'policy/poddisruptionbudgets',
  'resource.k8s.io/podschedulingcontexts',
  'resource.k8s.io/resourceclaims',
  'storage.k8s.io/volumeattachments',
  'storagemigration.k8s.io/storageversionmigrations',
]);

// Types whose strategies set generation 1 on create and bump it on spec changes.
const WITH_GENERATION = new Set([
  '/replicationcontrollers',
  'admissionregistration.k8s.io/mutatingwebhookconfigurations',
  'admissionregistration.k8s.io/validatingadmissionpolicies',
  'admissionregistration.k8s.io/validatingadmissionpolicybindings',
  'admissionregistration.k8s.io/validatingwebhookconfigurations',
  'apiextensions.k8s.io/customresourcedefinitions',
  'apps/daemonsets',
  'apps/deployments',
  'apps/replicasets',
  'apps/statefulsets',
  'batch/cronjobs',
  'batch/jobs',
  'discovery.k8s.io/endpointslices',
  'flowcontrol.apiserver.k8s.io/flowschemas',
  'flowcontrol.apiserver.k8s.io/prioritylevelconfigurations',
  'networking.k8s.io/ingressclasses',
  'networking.k8s.io/ingresses',
  'networking.k8s.io/networkpolicies',
  'policy/poddisruptionbudgets',
]);

const CREATE_ON_UPDATE = new Set([
  '/endpoints',
  '/events',
  '/limitranges',
  'coordination.k8s.io/leases',
  'events.k8s.io/events',
  'rbac.authorization.k8s.io/clusterrolebindings',
  'rbac.authorization.k8s.io/clusterroles',
  'rbac.authorization.k8s.io/rolebindings',
  'rbac.authorization.k8s.io/roles',
]);

const NAME_RULES: Record<string, NameValidator> = {
  '/namespaces': nameIsDNSLabel,
  '/services': nameIsDNS1035Label,
  // Core events are checked only by the generic path-segment rule (their names embed dots and hashes).
  '/events': nameIsPathSegment,
  'events.k8s.io/events': nameIsPathSegment,
  'rbac.authorization.k8s.io/clusterrolebindings': nameIsPathSegment,
  'rbac.authorization.k8s.io/clusterroles': nameIsPathSegment,
  'rbac.authorization.k8s.io/rolebindings': nameIsPathSegment,
  'rbac.authorization.k8s.io/roles': nameIsPathSegment,
  'certificates.k8s.io/certificatesigningrequests': nameIsPathSegment,
};

// Groups whose validation uses apimachinery's ObjectMeta checks (no core-group finalizer rule).
const GENERIC_META_GROUPS = new Set(['apiextensions.k8s.io', 'apiregistration.k8s.io', 'admissionregistration.k8s.io']);

export function typeKey(group: string, resource: string): string {
  return `${group}/${resource}`;
}

export function typeRules(group: string, resource: string): TypeRules {
  const key = typeKey(group, resource);
  return {
    namespaced: !CLUSTER_SCOPED.has(key),
    nameFn: NAME_RULES[key] ?? nameIsDNSSubdomain,
    kubeFinalizers: !GENERIC_META_GROUPS.has(group) && key !== '/events' && key !== 'events.k8s.io/events',
    generation: WITH_GENERATION.has(key),
    status: WITH_STATUS.has(key),
    allowCreateOnUpdate: CREATE_ON_UPDATE.has(key),
  };
}
