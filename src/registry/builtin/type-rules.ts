// Per built-in resource facts that shape its strategy: scope, how names must look, whether spec changes bump
// metadata.generation, whether a status subresource owns .status, and PUT-creates. Keyed "group/resource".
// Scope and the status subresource come from the generated API model; the rest are strategy facts the model
// does not hold (kube's pkg/registry/<group>/<type>/strategy.go).

import { modelGroups } from '../../apis/model.ts';
import type { ResourceFacts } from '../../apis/model-types.ts';
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
  /** The server's --feature-gates (gate -> enabled; a gate left out is off): fields of disabled features are dropped. */
  readonly featureGates: Readonly<Record<string, boolean>>;
}

// Types whose strategies set generation 1 on create and bump it on spec changes.
const WITH_GENERATION = new Set([
  '/podtemplates',
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
  'resource.k8s.io/resourceslices',
  'networking.k8s.io/ingresses',
  'networking.k8s.io/networkpolicies',
  'policy/poddisruptionbudgets',
]);

const CREATE_ON_UPDATE = new Set([
  '/endpoints',
  '/events',
  '/limitranges',
  '/services',
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
  // Core events are checked only by the generic path-segment rule (their names embed dots and hashes);
  // events.k8s.io/v1 writes get ValidateObjectMeta with DNS subdomain names.
  '/events': nameIsPathSegment,
  'rbac.authorization.k8s.io/clusterrolebindings': nameIsPathSegment,
  'rbac.authorization.k8s.io/clusterroles': nameIsPathSegment,
  'rbac.authorization.k8s.io/rolebindings': nameIsPathSegment,
  'rbac.authorization.k8s.io/roles': nameIsPathSegment,
  'certificates.k8s.io/certificatesigningrequests': nameIsPathSegment,
  // Path segments; the aggregator also requires version.group (checked by the type's validation).
  'apiregistration.k8s.io/apiservices': nameIsPathSegment,
};

// Groups whose validation uses apimachinery's ObjectMeta checks (no core-group finalizer rule).
const GENERIC_META_GROUPS = new Set(['apiextensions.k8s.io', 'apiregistration.k8s.io', 'admissionregistration.k8s.io', 'coordination.k8s.io']);

export function typeKey(group: string, resource: string): string {
  return `${group}/${resource}`;
}

let modelResources: Map<string, ResourceFacts> | undefined;

/** The model's facts of a group/resource (any version: scope and subresources agree across versions). */
function modelResource(key: string): ResourceFacts | undefined {
  if (!modelResources) {
    modelResources = new Map();
    for (const g of modelGroups()) for (const v of g.versions) for (const r of v.resources) if (!modelResources.has(typeKey(r.group, r.resource))) modelResources.set(typeKey(r.group, r.resource), r);
  }
  return modelResources.get(key);
}

export function typeRules(group: string, resource: string, featureGates: Readonly<Record<string, boolean>> = {}): TypeRules {
  const key = typeKey(group, resource);
  const facts = modelResource(key);
  return {
    namespaced: facts?.namespaced ?? true,
    nameFn: NAME_RULES[key] ?? nameIsDNSSubdomain,
    kubeFinalizers: !GENERIC_META_GROUPS.has(group) && key !== '/events',
    generation: WITH_GENERATION.has(key),
    status: (facts?.subresources ?? []).some((sub) => sub.name === 'status'),
    allowCreateOnUpdate: CREATE_ON_UPDATE.has(key),
    featureGates,
  };
}
