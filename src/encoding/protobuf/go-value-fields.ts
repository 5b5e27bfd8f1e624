// Which fields Go writes even when they hold their zero value: kube's generated marshallers write every
// non-pointer field, and the generated.proto files do not say which Go fields are pointers. Absent from a
// JSON object, a pointer field is nil (not written) while a value field is zero (written), so the codec needs
// these facts to give Go's bytes. Known here: the meta.k8s.io types every message carries, the metadata, spec and
// status structs of every kind and list, and the structs of CustomResourceDefinition and APIService. Elsewhere a
// field is written when the JSON value has it.

import { schemaByName } from '../../apis/model.ts';
import type { ProtoMessageFacts } from '../../apis/model-types.ts';

const META = 'io.k8s.apimachinery.pkg.apis.meta.v1.';
const APIEXT = 'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.';
const APIREG = 'io.k8s.kube-aggregator.pkg.apis.apiregistration.v1.';

/** Non-pointer fields of apimachinery's structs (k8s.io/apimachinery/pkg/apis/meta/v1/types.go) and of the apiextensions and aggregator groups' (their generated.proto is not in the reference data). */
const VALUE_FIELDS: Record<string, readonly string[]> = {
  [`${META}ObjectMeta`]: ['name', 'generateName', 'namespace', 'selfLink', 'uid', 'resourceVersion', 'generation', 'creationTimestamp'],
  [`${META}ListMeta`]: ['selfLink', 'resourceVersion', 'continue'],
  [`${META}Status`]: ['metadata', 'status', 'message', 'reason', 'code'],
  [`${META}StatusDetails`]: ['name', 'group', 'kind', 'uid', 'retryAfterSeconds'],
  [`${META}StatusCause`]: ['reason', 'message', 'field'],
  [`${META}OwnerReference`]: ['apiVersion', 'kind', 'name', 'uid'],
  [`${META}ManagedFieldsEntry`]: ['manager', 'operation', 'apiVersion', 'fieldsType', 'subresource'],
  [`${META}LabelSelectorRequirement`]: ['key', 'operator'],
  [`${META}Condition`]: ['type', 'status', 'observedGeneration', 'lastTransitionTime', 'reason', 'message'],
  [`${META}WatchEvent`]: ['type', 'object'],
  [`${META}PartialObjectMetadata`]: ['metadata'],
  [`${META}APIResource`]: ['name', 'singularName', 'namespaced', 'kind'],
  [`${META}GroupVersionForDiscovery`]: ['groupVersion', 'version'],
  [`${META}ServerAddressByClientCIDR`]: ['clientCIDR', 'serverAddress'],
  [`${META}GroupVersionKind`]: ['group', 'version', 'kind'],
  'io.k8s.apimachinery.pkg.runtime.TypeMeta': ['apiVersion', 'kind'],
  'io.k8s.apimachinery.pkg.runtime.Unknown': ['typeMeta', 'contentEncoding', 'contentType'],
  // k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1/types.go, types_jsonschema.go.
  [`${APIEXT}CustomResourceDefinitionSpec`]: ['group', 'names', 'scope', 'preserveUnknownFields'],
  [`${APIEXT}CustomResourceDefinitionNames`]: ['plural', 'singular', 'kind', 'listKind'],
  [`${APIEXT}CustomResourceDefinitionVersion`]: ['name', 'served', 'storage', 'deprecated'],
  [`${APIEXT}CustomResourceDefinitionStatus`]: ['acceptedNames'],
  [`${APIEXT}CustomResourceDefinitionCondition`]: ['type', 'status', 'lastTransitionTime', 'reason', 'message'],
  [`${APIEXT}CustomResourceColumnDefinition`]: ['name', 'type', 'format', 'description', 'priority', 'jsonPath'],
  [`${APIEXT}CustomResourceConversion`]: ['strategy'],
  [`${APIEXT}CustomResourceSubresourceScale`]: ['specReplicasPath', 'statusReplicasPath'],
  [`${APIEXT}ServiceReference`]: ['namespace', 'name'],
  [`${APIEXT}ExternalDocumentation`]: ['description', 'url'],
  [`${APIEXT}SelectableField`]: ['jsonPath'],
  [`${APIEXT}ValidationRule`]: ['rule', 'message', 'messageExpression', 'fieldPath'],
  [`${APIEXT}JSONSchemaProps`]: ['id', '$schema', 'description', 'type', 'format', 'title', 'exclusiveMaximum', 'exclusiveMinimum', 'pattern', 'uniqueItems', 'nullable', 'x-kubernetes-embedded-resource', 'x-kubernetes-int-or-string'],
  // k8s.io/kube-aggregator/pkg/apis/apiregistration/v1/types.go.
  [`${APIREG}APIServiceSpec`]: ['group', 'version', 'insecureSkipTLSVerify', 'groupPriorityMinimum', 'versionPriority'],
  [`${APIREG}ServiceReference`]: ['namespace', 'name'],
  [`${APIREG}APIServiceCondition`]: ['type', 'status', 'lastTransitionTime', 'reason', 'message'],
};

const CORE = 'io.k8s.api.core.v1.';
const APPS = 'io.k8s.api.apps.v1.';

/**
 * Non-pointer numbers and bools with omitempty: Go writes them in protobuf even when zero, and its JSON leaves
 * their zero out (k8s.io/api types.go; the often-sent ones of workloads, beside meta.k8s.io's).
 */
const OMITTED_WHEN_ZERO: Record<string, readonly string[]> = {
  [`${META}ObjectMeta`]: ['generation'],
  [`${META}Status`]: ['code'],
  [`${META}StatusDetails`]: ['retryAfterSeconds'],
  [`${META}Condition`]: ['observedGeneration'],
  [`${CORE}PodSpec`]: ['hostNetwork', 'hostPID', 'hostIPC'],
  [`${CORE}Container`]: ['stdin', 'stdinOnce', 'tty'],
  [`${CORE}EphemeralContainerCommon`]: ['stdin', 'stdinOnce', 'tty'],
  [`${CORE}ContainerPort`]: ['hostPort'],
  [`${CORE}VolumeMount`]: ['readOnly'],
  [`${CORE}Probe`]: ['initialDelaySeconds', 'timeoutSeconds', 'periodSeconds', 'successThreshold', 'failureThreshold'],
  [`${CORE}ServicePort`]: ['nodePort'],
  [`${APPS}DeploymentSpec`]: ['minReadySeconds', 'paused'],
  [`${APPS}DeploymentStatus`]: ['observedGeneration', 'replicas', 'updatedReplicas', 'readyReplicas', 'availableReplicas', 'unavailableReplicas'],
  [`${APPS}ReplicaSetSpec`]: ['minReadySeconds'],
  [`${APPS}ReplicaSetStatus`]: ['fullyLabeledReplicas', 'readyReplicas', 'availableReplicas', 'observedGeneration'],
  'io.k8s.api.batch.v1.JobStatus': ['active', 'succeeded', 'failed'],
  [`${APIEXT}CustomResourceDefinitionSpec`]: ['preserveUnknownFields'],
  [`${APIEXT}CustomResourceDefinitionVersion`]: ['deprecated'],
  [`${APIEXT}CustomResourceColumnDefinition`]: ['priority'],
  [`${APIEXT}JSONSchemaProps`]: ['exclusiveMaximum', 'exclusiveMinimum', 'uniqueItems', 'nullable', 'x-kubernetes-embedded-resource', 'x-kubernetes-int-or-string'],
  [`${APIREG}APIServiceSpec`]: ['insecureSkipTLSVerify'],
};

/** Strings without omitempty in messages the OpenAPI document does not define (no `required` list to tell). */
const KEPT_WHEN_EMPTY: Record<string, readonly string[]> = {
  [`${META}GroupVersionKind`]: ['group', 'version', 'kind'],
};

const TOP_LEVEL_STRUCTS = new Set(['metadata', 'spec', 'status']);
const SCALARS = new Set(['string', 'int32', 'int64', 'bool', 'double', 'bytes']);

/** The fields of message `name` that Go writes even when zero. */
export function alwaysWritten(name: string, facts: ProtoMessageFacts): Set<string> {
  const fields = new Set([...(VALUE_FIELDS[name] ?? []), ...(OMITTED_WHEN_ZERO[name] ?? [])]);
  // Kinds and lists hold ObjectMeta/ListMeta, spec and status as values.
  if (schemaByName(name)?.gvk) {
    for (const f of facts.fields) if (TOP_LEVEL_STRUCTS.has(f.name) && !SCALARS.has(f.type) && !f.repeated && !f.mapKey) fields.add(f.name);
  }
  return fields;
}

/** The fields of message `name` whose empty string Go's JSON keeps (no omitempty): the schema's required ones and these. */
export function keptWhenEmpty(name: string): Set<string> {
  return new Set([...(schemaByName(name)?.required ?? []), ...(KEPT_WHEN_EMPTY[name] ?? [])]);
}

/** The numeric and boolean fields of message `name` whose zero Go's JSON omits. */
export function droppedWhenZero(name: string): Set<string> {
  return new Set(OMITTED_WHEN_ZERO[name] ?? []);
}
