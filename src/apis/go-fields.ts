// How kube's Go types hold each field of the built-in kinds, as their json tags and field types say
// (k8s.io/api, apimachinery's meta/v1, apiextensions-apiserver, kube-aggregator; transcribed by hand, checked
// against the 1.31 model by go-fields.test.ts). Go's JSON decoding and encoding make the same JSON come back
// differently by these facts: a null or zero value of an omitempty field is left out, a value struct is always
// written.
//
// A field's code: its kind, then "?" when its json tag has omitempty.
//   p  pointer (*T)          s  slice ([]T, []byte)      m  map
//   v  scalar value (string, bool, number, or a named type of one)
//   o  struct value (written even when zero)             t  metav1.Time or MicroTime value (zero is null)

import { GO_FIELD_TABLE } from './go-fields-table.ts';

export type GoFieldCode = 'p' | 'p?' | 's' | 's?' | 'm' | 'm?' | 'v' | 'v?' | 'o' | 't';

const parsed = new Map<string, ReadonlyMap<string, GoFieldCode> | undefined>();

/**
 * Structs embedded inline (`json:",inline"`), whose fields are transcribed under the struct embedding them: the
 * protobuf messages keep them apart.
 */
const INLINE_IN: Readonly<Record<string, string>> = {
  'io.k8s.api.core.v1.EphemeralContainerCommon': 'io.k8s.api.core.v1.EphemeralContainer',
  'io.k8s.api.core.v1.PersistentVolumeSource': 'io.k8s.api.core.v1.PersistentVolumeSpec',
  'io.k8s.api.core.v1.ProbeHandler': 'io.k8s.api.core.v1.Probe',
  'io.k8s.api.core.v1.VolumeSource': 'io.k8s.api.core.v1.Volume',
  'io.k8s.api.networking.v1.IngressRuleValue': 'io.k8s.api.networking.v1.IngressRule',
  'io.k8s.api.admissionregistration.v1.Rule': 'io.k8s.api.admissionregistration.v1.RuleWithOperations',
};

/** The fields of a definition ("io.k8s.api.core.v1.PodSpec") by JSON name; undefined for one not transcribed. */
export function goFieldsOf(definition: string): ReadonlyMap<string, GoFieldCode> | undefined {
  let fields = parsed.get(definition);
  if (fields !== undefined || parsed.has(definition)) return fields;
  const name = Object.hasOwn(INLINE_IN, definition) ? INLINE_IN[definition]! : definition;
  const text = Object.hasOwn(GO_FIELD_TABLE, name) ? GO_FIELD_TABLE[name] : undefined;
  if (text !== undefined) {
    const map = new Map<string, GoFieldCode>();
    for (const entry of text.split(' ')) {
      const colon = entry.lastIndexOf(':');
      map.set(entry.slice(0, colon), entry.slice(colon + 1) as GoFieldCode);
    }
    fields = map;
  }
  parsed.set(definition, fields);
  return fields;
}

/** The definitions transcribed (for the tests). */
export function goFieldDefinitions(): string[] {
  return Object.keys(GO_FIELD_TABLE);
}
