// Which fields Go writes even when they hold their zero value: kube's generated marshallers write every
// non-pointer field, and the generated.proto files do not say which Go fields are pointers. Absent from a
// JSON object, a pointer field is nil (not written) while a value field is zero (written), so the codec needs
// these facts to give Go's bytes. Known here: the meta.k8s.io types every message carries, and the metadata,
// spec and status structs of every kind and list. Elsewhere a field is written when the JSON value has it.

import { schemaByName } from '../../apis/model.ts';
import type { ProtoMessageFacts } from '../../apis/model-types.ts';

const META = 'io.k8s.apimachinery.pkg.apis.meta.v1.';

/** Non-pointer fields of apimachinery's structs (k8s.io/apimachinery/pkg/apis/meta/v1/types.go). */
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
  'io.k8s.apimachinery.pkg.runtime.TypeMeta': ['apiVersion', 'kind'],
  'io.k8s.apimachinery.pkg.runtime.Unknown': ['typeMeta', 'contentEncoding', 'contentType'],
};

/** Non-pointer numbers and bools with omitempty there: Go's JSON leaves their zero out. */
const OMITTED_WHEN_ZERO: Record<string, readonly string[]> = {
  [`${META}ObjectMeta`]: ['generation'],
  [`${META}Status`]: ['code'],
  [`${META}StatusDetails`]: ['retryAfterSeconds'],
  [`${META}Condition`]: ['observedGeneration'],
};

const TOP_LEVEL_STRUCTS = new Set(['metadata', 'spec', 'status']);
const SCALARS = new Set(['string', 'int32', 'int64', 'bool', 'double', 'bytes']);

/** The fields of message `name` that Go writes even when zero. */
export function alwaysWritten(name: string, facts: ProtoMessageFacts): Set<string> {
  const fields = new Set(VALUE_FIELDS[name] ?? []);
  // Kinds and lists hold ObjectMeta/ListMeta, spec and status as values.
  if (schemaByName(name)?.gvk) {
    for (const f of facts.fields) if (TOP_LEVEL_STRUCTS.has(f.name) && !SCALARS.has(f.type) && !f.repeated && !f.mapKey) fields.add(f.name);
  }
  return fields;
}

/** The numeric and boolean fields of message `name` whose zero Go's JSON omits. */
export function droppedWhenZero(name: string): Set<string> {
  return new Set(OMITTED_WHEN_ZERO[name] ?? []);
}
