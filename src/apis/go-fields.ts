// How kube's Go types hold each field of the built-in kinds, as their json tags and field types say
// (k8s.io/api, apimachinery's meta/v1, apiextensions-apiserver, kube-aggregator; transcribed by hand into
// go-fields.json, "jsonName:code" by definition, checked against the 1.31 model by go-fields.test.ts; read on
// first use, which no start-up needs). Go's JSON decoding and encoding make the same JSON come back
// differently by these facts: a null or zero value of an omitempty field is left out, a value struct is always
// written.
//
// A field's code: its kind, then "?" when its json tag has omitempty.
//   p  pointer (*T)          s  slice ([]T, []byte)      m  map
//   v  scalar value (string, bool, number, or a named type of one)
//   o  struct value (written even when zero)             t  metav1.Time or MicroTime value (zero is null)

import fs from 'node:fs';
import path from 'node:path';

const TABLE_FILE = path.join(import.meta.dirname, 'go-fields.json');

export type GoFieldCode = 'p' | 'p?' | 's' | 's?' | 'm' | 'm?' | 'v' | 'v?' | 'o' | 't';

const parsed = new Map<string, ReadonlyMap<string, GoFieldCode> | undefined>();
let table: Readonly<Record<string, string>> | undefined;

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
  table ??= readTable();
  const text = Object.hasOwn(table, name) ? table[name] : undefined;
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
function readTable(): Readonly<Record<string, string>> {
  return JSON.parse(fs.readFileSync(TABLE_FILE, 'utf8')) as Record<string, string>;
}

export function goFieldDefinitions(): string[] {
  table ??= readTable();
  return Object.keys(table);
}
