// Built-in type behaviour for the registry: builtinTypeFacts(group, resource) gives the strategy (defaulting,
// preparation, validation, subresources), kube's printer columns and the field selectors of one built-in
// resource. Every built-in resource gets at least the generic strategy (ObjectMeta rules, generation and
// status handling per its type rules).
//
// What the store is expected to do around a strategy (kube's rest.BeforeCreate/BeforeUpdate):
// - create: fill uid, creationTimestamp, the name from generateName and the namespace from the request, then
//   defaults(obj), prepareForCreate(obj, ctx), validate(obj, ctx); 422 Invalid on errors. Jobs need the uid
//   before prepareForCreate (their selector is built from it).
// - update: for unconditional updates set metadata.resourceVersion to the stored one first, then
//   defaults(new), prepareForUpdate(new, old, ctx), validateUpdate(new, old, ctx).
// - subresource writes: subresources[name].prepareForUpdate(new, old) gives the object to store, then its
//   validateUpdate.
// - BuiltinStrategy extras (see generic.ts): prepareForDelete (namespaces: phase Terminating) and
//   gracefulDeletePeriod (pods).

import type { FactsMaker, TypeFacts } from './facts.ts';
import { buildStrategy } from './generic.ts';
import { typeKey, typeRules } from './type-rules.ts';
import { crdFacts } from '../apiextensions/crd-strategy.ts';
import { mutatingWebhookConfigurationFacts, validatingAdmissionPolicyBindingFacts, validatingAdmissionPolicyFacts, validatingWebhookConfigurationFacts } from './admissionregistration/printer-columns.ts';
import { apiServiceFacts } from './apiregistration/api-services.ts';
import { controllerRevisionFacts } from './apps/controller-revisions.ts';
import { daemonSetFacts, deploymentFacts, replicaSetFacts, statefulSetFacts } from './apps/workloads.ts';
import { horizontalPodAutoscalerFacts } from './autoscaling/horizontal-pod-autoscalers.ts';
import { cronJobFacts, jobFacts } from './batch/jobs.ts';
import { certificateSigningRequestFacts } from './certificates/signing-requests.ts';
import { clusterTrustBundleFacts } from './certificates/trust-bundles.ts';
import { leaseFacts } from './coordination/leases.ts';
import { componentStatusFacts } from './core/component-statuses.ts';
import { configMapFacts, secretFacts } from './core/configmaps.ts';
import { endpointsFacts } from './core/endpoints.ts';
import { coreEventFacts, eventsGroupFacts } from './core/events.ts';
import { namespaceFacts } from './core/namespaces.ts';
import { nodeFacts } from './core/nodes.ts';
import { persistentVolumeClaimFacts } from './core/persistent-volume-claims.ts';
import { persistentVolumeFacts } from './core/persistent-volumes.ts';
import { limitRangeFacts } from './core/limit-ranges.ts';
import { podTemplateFacts } from './core/pod-templates.ts';
import { podFacts } from './core/pods.ts';
import { replicationControllerFacts } from './core/replication-controllers.ts';
import { resourceQuotaFacts } from './core/resource-quotas.ts';
import { serviceAccountFacts } from './core/service-accounts.ts';
import { serviceFacts } from './core/services.ts';
import { endpointSliceFacts } from './discovery/endpoint-slices.ts';
import { flowSchemaFacts } from './flowcontrol/flow-schemas.ts';
import { priorityLevelConfigurationFacts } from './flowcontrol/priority-levels.ts';
import { storageVersionFacts } from './internal/storage-versions.ts';
import { ingressClassFacts } from './networking/ingress-classes.ts';
import { ingressFacts } from './networking/ingresses.ts';
import { networkPolicyFacts } from './networking/network-policies.ts';
import { ipAddressFacts, serviceCIDRFacts } from './networking/service-cidrs.ts';
import { runtimeClassFacts } from './node/runtime-classes.ts';
import { resourceSliceFacts } from './resource/resource-slices.ts';
import { podDisruptionBudgetFacts } from './policy/pod-disruption-budgets.ts';
import { clusterRoleBindingFacts, roleBindingFacts } from './rbac/bindings.ts';
import { clusterRoleFacts, roleFacts } from './rbac/roles.ts';
import { priorityClassFacts } from './scheduling/priority-classes.ts';
import { csiDriverFacts } from './storage/csi-drivers.ts';
import { csiNodeFacts } from './storage/csi-nodes.ts';
import { csiStorageCapacityFacts } from './storage/csi-storage-capacities.ts';
import { storageClassFacts } from './storage/storage-classes.ts';
import { volumeAttachmentFacts } from './storage/volume-attachments.ts';
import { volumeAttributesClassFacts } from './storage/volume-attributes-classes.ts';
import { webhookConfigurationFacts } from './admissionregistration/webhook-configurations.ts';
import { validatingAdmissionPolicyBindingStrategyFacts, validatingAdmissionPolicyStrategyFacts } from './admissionregistration/policies.ts';

export type { TypeFacts } from './facts.ts';
export type { BuiltinStrategy } from './generic.ts';
export { typeRules } from './type-rules.ts';

const FACTS: Readonly<Record<string, FactsMaker>> = {
  'apiregistration.k8s.io/apiservices': apiServiceFacts,
  'apiextensions.k8s.io/customresourcedefinitions': crdFacts,
  '/namespaces': namespaceFacts,
  '/configmaps': configMapFacts,
  '/secrets': secretFacts,
  '/pods': podFacts,
  '/services': serviceFacts,
  '/nodes': nodeFacts,
  '/events': coreEventFacts,
  'events.k8s.io/events': eventsGroupFacts,
  '/serviceaccounts': serviceAccountFacts,
  '/endpoints': endpointsFacts,
  '/replicationcontrollers': replicationControllerFacts,
  '/persistentvolumes': persistentVolumeFacts,
  '/persistentvolumeclaims': persistentVolumeClaimFacts,
  '/podtemplates': podTemplateFacts,
  '/resourcequotas': resourceQuotaFacts,
  '/limitranges': limitRangeFacts,
  '/componentstatuses': componentStatusFacts,
  'apps/deployments': deploymentFacts,
  'apps/replicasets': replicaSetFacts,
  'apps/statefulsets': statefulSetFacts,
  'apps/daemonsets': daemonSetFacts,
  'apps/controllerrevisions': controllerRevisionFacts,
  'batch/jobs': jobFacts,
  'batch/cronjobs': cronJobFacts,
  'networking.k8s.io/ingresses': ingressFacts,
  'networking.k8s.io/ingressclasses': ingressClassFacts,
  'networking.k8s.io/networkpolicies': networkPolicyFacts,
  'networking.k8s.io/servicecidrs': serviceCIDRFacts,
  'networking.k8s.io/ipaddresses': ipAddressFacts,
  'rbac.authorization.k8s.io/roles': roleFacts,
  'rbac.authorization.k8s.io/clusterroles': clusterRoleFacts,
  'rbac.authorization.k8s.io/rolebindings': roleBindingFacts,
  'rbac.authorization.k8s.io/clusterrolebindings': clusterRoleBindingFacts,
  'coordination.k8s.io/leases': leaseFacts,
  'storage.k8s.io/storageclasses': storageClassFacts,
  'storage.k8s.io/csidrivers': csiDriverFacts,
  'storage.k8s.io/csinodes': csiNodeFacts,
  'storage.k8s.io/csistoragecapacities': csiStorageCapacityFacts,
  'storage.k8s.io/volumeattachments': volumeAttachmentFacts,
  'storage.k8s.io/volumeattributesclasses': volumeAttributesClassFacts,
  'scheduling.k8s.io/priorityclasses': priorityClassFacts,
  'node.k8s.io/runtimeclasses': runtimeClassFacts,
  'policy/poddisruptionbudgets': podDisruptionBudgetFacts,
  'autoscaling/horizontalpodautoscalers': horizontalPodAutoscalerFacts,
  'discovery.k8s.io/endpointslices': endpointSliceFacts,
  'admissionregistration.k8s.io/mutatingwebhookconfigurations': webhookConfigurationFacts(true, mutatingWebhookConfigurationFacts),
  'admissionregistration.k8s.io/validatingwebhookconfigurations': webhookConfigurationFacts(false, validatingWebhookConfigurationFacts),
  'admissionregistration.k8s.io/validatingadmissionpolicies': validatingAdmissionPolicyStrategyFacts(validatingAdmissionPolicyFacts),
  'admissionregistration.k8s.io/validatingadmissionpolicybindings': validatingAdmissionPolicyBindingStrategyFacts(validatingAdmissionPolicyBindingFacts),
  'certificates.k8s.io/certificatesigningrequests': certificateSigningRequestFacts,
  'certificates.k8s.io/clustertrustbundles': clusterTrustBundleFacts,
  'flowcontrol.apiserver.k8s.io/flowschemas': flowSchemaFacts,
  'flowcontrol.apiserver.k8s.io/prioritylevelconfigurations': priorityLevelConfigurationFacts,
  'internal.apiserver.k8s.io/storageversions': storageVersionFacts,
  'resource.k8s.io/resourceslices': resourceSliceFacts,
};

/** The strategy, printer columns and selectable fields of a built-in group/resource. */
export function builtinTypeFacts(group: string, resource: string, featureGates: Readonly<Record<string, boolean>> = {}): TypeFacts {
  const rules = typeRules(group, resource, featureGates);
  const make = FACTS[typeKey(group, resource)];
  if (make) return make(rules);
  return { strategy: buildStrategy(rules), printerColumns: [], selectableFields: {} };
}
