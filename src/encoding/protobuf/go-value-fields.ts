// Which fields Go writes even when they hold their zero value: kube's generated marshallers write every
// non-pointer field, and the generated.proto files do not say which Go fields are pointers. Absent from a
// JSON object, a pointer field is nil (not written) while a value field is zero (written), so the codec needs
// these facts to give Go's bytes. The structs of the served kinds are read from the Go field facts
// (apis/go-fields.ts); the tables below cover the meta.k8s.io types that are not fields of a kind (Status,
// WatchEvent, discovery's), and lists. Elsewhere a field is written when the JSON value has it.

import { goFieldsOf, type GoFieldCode } from '../../apis/go-fields.ts';
import { schemaByName } from '../../apis/model.ts';
import type { ProtoMessageFacts } from '../../apis/model-types.ts';

const META = 'io.k8s.apimachinery.pkg.apis.meta.v1.';

/** Non-pointer fields of apimachinery's structs that no kind holds (k8s.io/apimachinery/pkg/apis/meta/v1/types.go, pkg/runtime). */
const VALUE_FIELDS: Record<string, readonly string[]> = {
  [`${META}ListMeta`]: ['selfLink', 'resourceVersion', 'continue'],
  [`${META}Status`]: ['metadata', 'status', 'message', 'reason', 'code'],
  [`${META}StatusDetails`]: ['name', 'group', 'kind', 'uid', 'retryAfterSeconds'],
  [`${META}StatusCause`]: ['reason', 'message', 'field'],
  [`${META}WatchEvent`]: ['type', 'object'],
  [`${META}PartialObjectMetadata`]: ['metadata'],
  [`${META}APIResource`]: ['name', 'singularName', 'namespaced', 'kind'],
  [`${META}GroupVersionForDiscovery`]: ['groupVersion', 'version'],
  [`${META}ServerAddressByClientCIDR`]: ['clientCIDR', 'serverAddress'],
  [`${META}GroupVersionKind`]: ['group', 'version', 'kind'],
  'io.k8s.apimachinery.pkg.runtime.TypeMeta': ['apiVersion', 'kind'],
  'io.k8s.apimachinery.pkg.runtime.Unknown': ['typeMeta', 'contentEncoding', 'contentType'],
};

/** Non-pointer numbers and bools with omitempty of those structs: Go writes them in protobuf even when zero, and its JSON leaves their zero out. */
const OMITTED_WHEN_ZERO: Record<string, readonly string[]> = {
  [`${META}Status`]: ['code'],
  [`${META}StatusDetails`]: ['retryAfterSeconds'],
};

/** Strings without omitempty in messages the OpenAPI document does not define (no `required` list to tell). */
const KEPT_WHEN_EMPTY: Record<string, readonly string[]> = {
  [`${META}GroupVersionKind`]: ['group', 'version', 'kind'],
};

const TOP_LEVEL_STRUCTS = new Set(['metadata', 'spec', 'status']);
const SCALARS = new Set(['string', 'int32', 'int64', 'bool', 'double', 'bytes']);

function fieldsCoded(name: string, codes: readonly GoFieldCode[]): Set<string> | undefined {
  const fields = goFieldsOf(name);
  if (!fields) return undefined;
  const out = new Set<string>();
  for (const [field, code] of fields) if (codes.includes(code)) out.add(field);
  return out;
}

/** The fields of message `name` that Go writes even when zero. */
export function alwaysWritten(name: string, facts: ProtoMessageFacts): Set<string> {
  const known = fieldsCoded(name, ['v', 'v?', 'o', 't']);
  if (known) return known;
  const fields = new Set([...(VALUE_FIELDS[name] ?? []), ...(OMITTED_WHEN_ZERO[name] ?? [])]);
  // Kinds and lists hold ObjectMeta/ListMeta, spec and status as values.
  if (schemaByName(name)?.gvk) {
    for (const f of facts.fields) if (TOP_LEVEL_STRUCTS.has(f.name) && !SCALARS.has(f.type) && !f.repeated && !f.mapKey) fields.add(f.name);
  }
  return fields;
}

/** The fields of message `name` whose empty string Go's JSON keeps: pointers and fields without omitempty. */
export function keptWhenEmpty(name: string): Set<string> {
  const known = fieldsCoded(name, ['p', 'p?', 'v', 's', 's?']);
  if (known) return known;
  return new Set([...(schemaByName(name)?.required ?? []), ...(KEPT_WHEN_EMPTY[name] ?? [])]);
}

/** The numeric and boolean fields of message `name` whose zero Go's JSON omits. */
export function droppedWhenZero(name: string): Set<string> {
  const known = fieldsCoded(name, ['v?']);
  if (known) return known;
  return new Set(OMITTED_WHEN_ZERO[name] ?? []);
}
