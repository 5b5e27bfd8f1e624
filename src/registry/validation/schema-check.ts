// The decode-time check of a request body against its definition's schema, standing in for what Go's typed
// JSON decoding does in kube-apiserver: a value of the wrong JSON type is the 400 kube answers when
// json.Unmarshal fails ("ConfigMap in version "v1" cannot be handled as a ConfigMap: json: cannot unmarshal
// number into Go struct field ConfigMap.data of type string"), and fields the schema does not know are
// collected as paths ("spec.foo", "spec.containers[0].bar") for strict decoding errors or warnings.
//
// Built-in definitions follow Go struct decoding: nulls are accepted anywhere, RawExtension/JSON/FieldsV1 take
// any value, Quantity, IntOrString and Time parse as their UnmarshalJSON does, and a Time or MicroTime not
// written as its MarshalJSON writes it (UTC; whole seconds, or six digits) is reported with the text kube
// stores and returns instead ("2024-01-02T03:04:05.5+01:00" is "2024-01-02T02:04:05Z"). Struct fields whose
// value the typed object cannot hold apart from its zero are reported as Go's encoding writes them: a null or
// zero omitempty field, and an empty omitempty list or map, are left out (`data: {}`, `args: []`,
// `hostname: ""`, `stdin: false`, `immutable: null`); a null scalar without omitempty is its zero, a null struct
// value `{}`, and so is a null list item or map value (`labels: {a: null}` is `{a: ""}`, a ResourceList's null
// `"0"`); a Quantity is written back as MarshalJSON writes it (`0.5` is `"500m"`). Custom resources follow
// apiextensions pruning: only unknown fields are collected (type errors are the CRD validator's 422s), except
// in metadata, which is always ObjectMeta.

import { badRequest, type StatusError } from '../../apis/errors.ts';
import type { SchemaNode } from '../../apis/model-types.ts';
import type { ResourceDefinition } from '../types.ts';
import { base64ErrorOffset, goTimeJson, goTimeParseError, RFC3339, RFC3339_MICRO } from '../../encoding/go-decode.ts';
import { META_DEFINITIONS, OBJECT_META_REF } from './object-meta-schema.ts';
import { goFieldsOf as goStructFields } from '../../apis/go-fields.ts';
import { schemaByName, schemaNameForKind } from '../../apis/model.ts';
import { canonicalQuantity, parseQuantity } from './quantity.ts';

export interface SchemaCheckResult {
  /** The 400 to answer instead of proceeding (a value Go's decoder would reject). */
  fatal?: StatusError;
  /** With fatal: what runtime's unstructured converter says of the same value (server-side apply's decode). */
  unconvertible?: string;
  /** With fatal: the decoder's own error, without the "cannot be handled as" preface (a patched object's 422 quotes it). */
  decodeMessage?: string;
  /** Paths of fields the schema does not know, in document order: "spec.foo", "spec.containers[0].bar". */
  unknownFields: string[];
  /** The same fields as steps from the root, to prune them by: a key may hold dots or be empty, which a path hides. */
  unknownFieldSteps: FieldSteps[];
  /** Values the typed decode and encode write differently (timestamps, nulls), to set before the object goes on. */
  reencoded: FieldValue[];
  /** Fields the typed decode and encode leave out (null or zero omitempty fields), to remove before it goes on. */
  omitted: FieldSteps[];
}

/** A value to set at steps from the root. */
export interface FieldValue {
  readonly steps: FieldSteps;
  readonly value: unknown;
}

/** Object keys and array indices from the root. */
export type FieldSteps = readonly (string | number)[];

const QUANTITY = 'io.k8s.apimachinery.pkg.api.resource.Quantity';
const INT_OR_STRING = 'io.k8s.apimachinery.pkg.util.intstr.IntOrString';
const TIME = 'io.k8s.apimachinery.pkg.apis.meta.v1.Time';
const MICRO_TIME = 'io.k8s.apimachinery.pkg.apis.meta.v1.MicroTime';
const SCHEMA_PROPS = 'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaProps';
const SCHEMA_OR_ARRAY = 'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaPropsOrArray';
const SCHEMA_OR_BOOL = 'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaPropsOrBool';
const SCHEMA_OR_STRING_ARRAY = 'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaPropsOrStringArray';
const OBJECT_META_NODE: SchemaNode = { ref: OBJECT_META_REF };
const SCHEMA_PROPS_NODE: SchemaNode = { ref: SCHEMA_PROPS };
const ANY_VALUE_REFS = new Set([
  'io.k8s.apimachinery.pkg.runtime.RawExtension',
  'io.k8s.apimachinery.pkg.apis.meta.v1.FieldsV1',
  'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSON',
  'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1beta1.JSON',
  SCHEMA_OR_ARRAY,
  SCHEMA_OR_BOOL,
  SCHEMA_OR_STRING_ARRAY,
]);

/**
 * Go named types the schema cannot tell apart from their underlying type, keyed by "Struct.jsonField"; they
 * appear in "of type ..." of a type error.
 */
const NAMED_FIELD_TYPES: Readonly<Record<string, string>> = {
  'Container.imagePullPolicy': 'v1.PullPolicy',
  'Container.terminationMessagePolicy': 'v1.TerminationMessagePolicy',
  'Container.restartPolicy': 'v1.ContainerRestartPolicy',
  'ContainerPort.protocol': 'v1.Protocol',
  'ServicePort.protocol': 'v1.Protocol',
  'EndpointPort.protocol': 'v1.Protocol',
  'PodSpec.restartPolicy': 'v1.RestartPolicy',
  'PodSpec.dnsPolicy': 'v1.DNSPolicy',
  'PodSpec.preemptionPolicy': 'v1.PreemptionPolicy',
  'PodStatus.phase': 'v1.PodPhase',
  'PodStatus.qosClass': 'v1.PodQOSClass',
  'ResourceRequirements.limits': 'v1.ResourceList',
  'ResourceRequirements.requests': 'v1.ResourceList',
  'NodeStatus.capacity': 'v1.ResourceList',
  'NodeStatus.allocatable': 'v1.ResourceList',
  'NamespaceSpec.finalizers': '[]v1.FinalizerName',
  'NamespaceStatus.phase': 'v1.NamespacePhase',
  'Secret.type': 'v1.SecretType',
  'ServiceSpec.type': 'v1.ServiceType',
  'ServiceSpec.sessionAffinity': 'v1.ServiceAffinity',
  'ServiceSpec.externalTrafficPolicy': 'v1.ServiceExternalTrafficPolicy',
  'ServiceSpec.internalTrafficPolicy': 'v1.ServiceInternalTrafficPolicy',
  'ServiceSpec.ipFamilies': '[]v1.IPFamily',
  'ServiceSpec.ipFamilyPolicy': 'v1.IPFamilyPolicy',
  'Toleration.operator': 'v1.TolerationOperator',
  'Toleration.effect': 'v1.TaintEffect',
  'Taint.effect': 'v1.TaintEffect',
  'Capabilities.add': '[]v1.Capability',
  'Capabilities.drop': '[]v1.Capability',
  'VolumeMount.mountPropagation': 'v1.MountPropagationMode',
  'HTTPGetAction.scheme': 'v1.URIScheme',
  'PersistentVolumeClaimSpec.accessModes': '[]v1.PersistentVolumeAccessMode',
  'DeploymentStrategy.type': 'v1.DeploymentStrategyType',
  'StatefulSetSpec.podManagementPolicy': 'v1.PodManagementPolicyType',
  'StatefulSetUpdateStrategy.type': 'v1.StatefulSetUpdateStrategyType',
  'DaemonSetUpdateStrategy.type': 'v1.DaemonSetUpdateStrategyType',
  'JobSpec.completionMode': 'v1.CompletionMode',
  'JobSpec.podReplacementPolicy': 'v1.PodReplacementPolicy',
  'CronJobSpec.concurrencyPolicy': 'v1.ConcurrencyPolicy',
};

/** A value Go's decoder rejects; `converted` is what runtime's unstructured converter says of it, when it differs. */
class DecodeFailure extends Error {
  readonly converted: string;
  constructor(message: string, converted: string = message) {
    super(message);
    this.converted = converted;
  }
}

interface Walk {
  readonly resolve: (ref: string) => SchemaNode | undefined;
  /** Where nodes' refs lead under this resolver: [untyped, typed] (see resolution). */
  readonly resolutions: readonly [WeakMap<SchemaNode, Resolution>, WeakMap<SchemaNode, Resolution>];
  readonly unknown: string[];
  readonly unknownSteps: FieldSteps[];
  /** Built-in kinds only: a custom resource is stored as it was decoded, untyped. */
  readonly reencode: boolean;
  readonly reencoded: FieldValue[];
  readonly omitted: FieldSteps[];
}

function stepsOf(at: Pos): FieldSteps {
  const steps: (string | number)[] = [];
  for (let p: Pos = at; p.parent !== undefined; p = p.parent) steps.push(p.key);
  return steps.reverse();
}

function noteUnknown(w: Walk, at: Pos): void {
  w.unknown.push(pathOf(at));
  w.unknownSteps.push(stepsOf(at));
}

/**
 * Where the decoder is: Go's errorContext (innermost struct, JSON field names) and the full path for unknowns. A
 * link to the parent and this level's step: the field list and the path are spelled out only for a message
 * (pathOf, goFieldsOf), as most bodies need neither.
 */
interface Pos {
  readonly parent: Pos | undefined;
  /** A struct field (in Go's field list and the path), a map key or an array index (in the path only). */
  readonly step: 'root' | 'field' | 'key' | 'index';
  readonly key: string | number;
  /** Go type name of the innermost struct being decoded ("" at the top). */
  readonly struct: string;
  /** Go type errors apply (false inside custom resources outside metadata). */
  readonly typed: boolean;
  /** Named Go type of this value when the schema cannot tell it. */
  readonly goType?: string;
  /** A value a custom UnmarshalJSON decodes with a json.Unmarshal of its own: Go's field stack starts afresh below it. */
  readonly decodeRoot?: boolean;
}

function shortName(ref: string): string {
  const i = ref.lastIndexOf('.');
  return i < 0 ? ref : ref.slice(i + 1);
}

/** Go's package-qualified name of a schema ref ("v1.Container"), memoized: the refs are a small, fixed set. */
const qualifiedNames = new Map<string, string>();

function pkgQualified(ref: string): string {
  let name = qualifiedNames.get(ref);
  if (name === undefined) {
    const parts = ref.split('.');
    name = parts.length >= 2 ? `${parts[parts.length - 2]}.${parts[parts.length - 1]}` : ref;
    qualifiedNames.set(ref, name);
  }
  return name;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function jsonKind(v: unknown): string {
  if (Array.isArray(v)) return 'array';
  if (v === null) return 'null';
  switch (typeof v) {
    case 'string':
      return 'string';
    case 'number':
    case 'bigint':
      return 'number';
    case 'boolean':
      return 'bool';
    default:
      return 'object';
  }
}

function isIntOrString(node: SchemaNode): boolean {
  return node.intOrString === true || node.format === 'int-or-string';
}

function goTypeOf(node: SchemaNode): string {
  if (node.ref) {
    if (node.ref === QUANTITY) return 'resource.Quantity';
    if (node.ref === INT_OR_STRING) return 'intstr.IntOrString';
    return pkgQualified(node.ref);
  }
  if (isIntOrString(node)) return 'intstr.IntOrString';
  switch (node.type) {
    case 'string':
      return node.format === 'byte' ? '[]uint8' : 'string';
    case 'integer':
      return node.format === 'int32' ? 'int32' : node.format === 'int64' ? 'int64' : 'int';
    case 'number':
      return node.format === 'float' ? 'float32' : 'float64';
    case 'boolean':
      return 'bool';
    case 'array':
      return `[]${node.items ? goTypeOf(node.items) : 'interface {}'}`;
    case 'object':
      if (node.additionalProperties !== undefined && node.additionalProperties !== false) {
        return `map[string]${node.additionalProperties === true ? 'interface {}' : goTypeOf(node.additionalProperties)}`;
      }
      return 'map[string]interface {}';
    default:
      return 'interface {}';
  }
}

function typeError(value: string, goType: string, pos: Pos, converted?: string): never {
  const fields = goFieldsOf(pos);
  const message = pos.struct !== '' || fields.length > 0
    ? `json: cannot unmarshal ${value} into Go struct field ${pos.struct}.${fields.join('.')} of type ${goType}`
    : `json: cannot unmarshal ${value} into Go value of type ${goType}`;
  throw new DecodeFailure(message, converted);
}

function join(path: string, key: string): string {
  return path === '' ? key : `${path}.${key}`;
}

/** Full path with indices and map keys, as strict decoding reports unknown fields. */
function pathOf(pos: Pos): string {
  if (pos.parent === undefined) return '';
  const parent = pathOf(pos.parent);
  return pos.step === 'index' ? `${parent}[${pos.key}]` : join(parent, String(pos.key));
}

/** JSON names from the root, without indices or map keys (Go's FieldStack). */
function goFieldsOf(pos: Pos): string[] {
  const fields: string[] = [];
  for (let p: Pos | undefined = pos; p !== undefined && !p.decodeRoot; p = p.parent) if (p.step === 'field') fields.push(String(p.key));
  return fields.reverse();
}

/** NAMED_FIELD_TYPES by struct, then field: looked up for every field without building its key. */
const NAMED_BY_STRUCT = new Map<string, Map<string, string>>();
for (const [structField, type] of Object.entries(NAMED_FIELD_TYPES)) {
  const dot = structField.indexOf('.');
  const struct = structField.slice(0, dot);
  let fields = NAMED_BY_STRUCT.get(struct);
  if (fields === undefined) NAMED_BY_STRUCT.set(struct, (fields = new Map()));
  fields.set(structField.slice(dot + 1), type);
}

function child(pos: Pos, struct: string, key: string, named: ReadonlyMap<string, string> | undefined = NAMED_BY_STRUCT.get(struct)): Pos {
  return { parent: pos, step: 'field', key, struct, typed: pos.typed, goType: named?.get(key) };
}

/** The Go type a type error names: the field's named type, else the schema's. */
function goTypeAt(pos: Pos, ref: string | undefined, node: SchemaNode): string {
  return pos.goType ?? (ref ? pkgQualified(ref) : goTypeOf(node));
}

const intRanges: Record<string, [number, number]> = {
  int32: [-2147483648, 2147483647],
  int64: [Number.MIN_SAFE_INTEGER * 1024, Number.MAX_SAFE_INTEGER * 1024],
};

/** json.Unmarshal into an int32, as IntOrString's UnmarshalJSON does for non-strings. */
function intOrStringValue(v: unknown): void {
  if (typeof v === 'string' || v === null) return;
  if (typeof v === 'number') {
    if (Number.isInteger(v) && v >= intRanges.int32[0] && v <= intRanges.int32[1]) return;
    throw new DecodeFailure(`json: cannot unmarshal number ${String(v)} into Go value of type int32`);
  }
  throw new DecodeFailure(`json: cannot unmarshal ${jsonKind(v)} into Go value of type int32`);
}

/** Quantity's UnmarshalJSON: any literal is trimmed of its quotes and parsed; MarshalJSON writes it canonically. */
function quantityValue(w: Walk, v: unknown, pos: Pos): void {
  if (v === null) return;
  const text = typeof v === 'string' ? v : typeof v === 'number' ? String(v) : JSON.stringify(v);
  const r = parseQuantity(text);
  if (!r.ok) throw new DecodeFailure(r.error);
  if (!w.reencode) return;
  const canonical = canonicalQuantity(v);
  if (canonical !== undefined && canonical !== v) w.reencoded.push({ steps: stepsOf(pos), value: canonical });
}

/**
 * What a null list item or map value of a built-in kind decodes to: Go decodes it into the element's zero (`""`
 * for a string, `"0"` for a Quantity, `{}` for a struct); undefined where that zero is written as null again.
 */
function nullElementZero(w: Walk, node: SchemaNode): unknown {
  let n = node;
  for (let i = 0; n.ref && i < 32; i++) {
    if (n.ref === QUANTITY) return '0';
    if (n.ref === INT_OR_STRING) return 0;
    if (n.ref === TIME || n.ref === MICRO_TIME || ANY_VALUE_REFS.has(n.ref)) return undefined;
    const next = w.resolve(n.ref);
    if (!next) return undefined;
    n = next;
  }
  if (isIntOrString(n)) return 0;
  if (n.properties) return {};
  if (n.type === 'string') return n.format === 'byte' || n.format === 'date-time' ? undefined : '';
  return scalarZero(n);
}

/** Notes the zero a null element at pos decodes to (built-in kinds). */
function reencodeNullElement(w: Walk, element: SchemaNode, pos: Pos): void {
  if (!w.reencode || !pos.typed) return;
  const zero = nullElementZero(w, element);
  if (zero !== undefined) w.reencoded.push({ steps: stepsOf(pos), value: zero });
}

/** Time's and MicroTime's UnmarshalJSON (time.Parse with their layout); what MarshalJSON writes back is noted. */
function timeValue(w: Walk, v: unknown, layout: string, pos: Pos): void {
  if (v === null) return;
  if (typeof v !== 'string') throw new DecodeFailure(`json: cannot unmarshal ${jsonKind(v)} into Go value of type string`);
  const err = goTimeParseError(v, layout);
  if (err) throw new DecodeFailure(err);
  if (!w.reencode) return;
  const encoded = goTimeJson(v, layout);
  if (encoded !== v) w.reencoded.push({ steps: stepsOf(pos), value: encoded });
}

/**
 * Where a node's chain of refs leads: a named type decoded by its own UnmarshalJSON (typed decoding only), a type
 * that takes any value or a ref that does not resolve ('skip'), or the schema reached ('node'), with the last ref
 * followed and what the walk reads of that schema, in one object shape (the model's nodes come in many, which
 * makes every property read of them slow).
 */
interface Resolution {
  readonly kind: 'quantity' | 'intOrString' | 'time' | 'microTime' | 'schemaOr' | 'skip' | 'node';
  readonly ref: string | undefined;
  /** The Go struct the ref names (its short name), and the struct's fields of named types. */
  readonly struct: string | undefined;
  readonly namedFields: ReadonlyMap<string, string> | undefined;
  readonly node: SchemaNode;
  /** The node's type, 'object' for one with properties and no type; 'intOrString' for an IntOrString. */
  readonly type: string | undefined;
  readonly format: string | undefined;
  readonly items: SchemaNode | undefined;
  readonly properties: ReadonlyMap<string, SchemaNode> | undefined;
  readonly additionalProperties: SchemaNode | boolean | undefined;
  readonly embeddedResource: boolean;
  readonly preserveUnknownFields: boolean;
}

const NO_NODE: SchemaNode = {};

function special(kind: Resolution['kind'], ref?: string): Resolution {
  return { kind, ref, struct: undefined, namedFields: undefined, node: NO_NODE, type: undefined, format: undefined, items: undefined, properties: undefined, additionalProperties: undefined, embeddedResource: false, preserveUnknownFields: false };
}

const SKIP = special('skip');
const TYPED_REFS: ReadonlyMap<string, Resolution> = new Map<string, Resolution>([
  [QUANTITY, special('quantity')],
  [INT_OR_STRING, special('intOrString')],
  [TIME, special('time')],
  [MICRO_TIME, special('microTime')],
  ...[SCHEMA_OR_ARRAY, SCHEMA_OR_BOOL, SCHEMA_OR_STRING_ARRAY].map((ref): [string, Resolution] => [ref, special('schemaOr', ref)]),
]);

function nodeResolution(node: SchemaNode, ref: string | undefined): Resolution {
  const struct = ref ? shortName(ref) : undefined;
  return {
    kind: 'node',
    ref,
    struct,
    namedFields: struct === undefined ? undefined : NAMED_BY_STRUCT.get(struct),
    node,
    type: isIntOrString(node) ? 'intOrString' : (node.type ?? (node.properties ? 'object' : undefined)),
    format: node.format,
    items: node.items,
    properties: node.properties ? new Map(Object.entries(node.properties)) : undefined,
    additionalProperties: node.additionalProperties,
    embeddedResource: node.embeddedResource === true,
    preserveUnknownFields: node.preserveUnknownFields === true,
  };
}

function resolveChain(w: Walk, node: SchemaNode, typed: boolean): Resolution {
  let ref: string | undefined;
  let current = node;
  for (let seen = 0; current.ref && seen < 32; seen++) {
    const r = current.ref;
    const named = typed ? TYPED_REFS.get(r) : undefined;
    if (named) return named;
    if (ANY_VALUE_REFS.has(r)) return SKIP;
    ref = r;
    const next = w.resolve(r);
    if (!next) return SKIP;
    current = next;
  }
  return nodeResolution(current, ref);
}

/** resolveChain memoized per node (the model's nodes are shared by every check with the same resolver). */
function resolution(w: Walk, node: SchemaNode, typed: boolean): Resolution {
  const known = w.resolutions[typed ? 1 : 0];
  let r = known.get(node);
  if (r === undefined) known.set(node, (r = resolveChain(w, node, typed)));
  return r;
}

function walk(w: Walk, node: SchemaNode, value: unknown, pos: Pos): void {
  if (value === null || value === undefined) return;
  const r = resolution(w, node, pos.typed);
  switch (r.kind) {
    case 'quantity':
      return quantityValue(w, value, pos);
    case 'intOrString':
      return intOrStringValue(value);
    case 'time':
      return timeValue(w, value, RFC3339, pos);
    case 'microTime':
      return timeValue(w, value, RFC3339_MICRO, pos);
    case 'schemaOr':
      return walkSchemaOr(w, r.ref!, value, pos);
    case 'skip':
      return;
  }
  const { node: current, ref, type } = r;
  switch (type) {
    case 'intOrString':
      if (pos.typed) intOrStringValue(value);
      return;
    case 'object':
      return walkObject(w, r, value, pos);
    case 'array': {
      if (!Array.isArray(value)) {
        if (pos.typed) typeError(jsonKind(value), goTypeAt(pos, ref, current), pos);
        return;
      }
      const items = r.items;
      if (!items) return;
      const goType = goTypeAt(pos, ref, current);
      const elemType = goType.startsWith('[]') ? goType.slice(2) : undefined;
      value.forEach((item, i) => {
        const at: Pos = { parent: pos, step: 'index', key: i, struct: pos.struct, typed: pos.typed, goType: elemType };
        if (item === null) reencodeNullElement(w, items, at);
        else walk(w, items, item, at);
      });
      return;
    }
    case 'string':
      if (!pos.typed) return;
      if (typeof value !== 'string') typeError(jsonKind(value), goTypeAt(pos, ref, current), pos);
      if (r.format === 'byte') {
        const at = base64ErrorOffset(value);
        if (at >= 0) throw new DecodeFailure(`illegal base64 data at input byte ${at}`, `error decoding from json: illegal base64 data at input byte ${at}`);
      } else if (r.format === 'date-time') {
        timeValue(w, value, RFC3339, pos);
      }
      return;
    case 'integer': {
      if (!pos.typed) return;
      if (typeof value !== 'number') typeError(jsonKind(value), goTypeAt(pos, ref, current), pos);
      const range = intRanges[r.format ?? 'int64'] ?? intRanges.int64;
      if (!Number.isInteger(value)) {
        typeError(`number ${String(value)}`, goTypeAt(pos, ref, current), pos, `cannot convert float64 to ${r.format === 'int32' ? 'int32' : 'int64'}`);
      }
      if (value < range[0] || value > range[1]) typeError(`number ${String(value)}`, goTypeAt(pos, ref, current), pos);
      return;
    }
    case 'number':
      if (pos.typed && typeof value !== 'number') typeError(jsonKind(value), goTypeAt(pos, ref, current), pos);
      return;
    case 'boolean':
      if (pos.typed && typeof value !== 'boolean') typeError(jsonKind(value), goTypeAt(pos, ref, current), pos);
      return;
    default:
      return;
  }
}

/**
 * The JSONSchemaPropsOr* types' UnmarshalJSON: an object is a JSONSchemaProps, an array a []JSONSchemaProps (items)
 * or a []string (dependencies), true or false a bool (additionalProperties). Each decodes with json.Unmarshal of its
 * own: type errors name JSONSchemaProps from there, and unknown fields are dropped without being reported.
 */
function walkSchemaOr(w: Walk, ref: string, value: unknown, pos: Pos): void {
  const inner: Walk = { ...w, unknown: [] };
  const root: Pos = { ...pos, struct: '', goType: undefined, decodeRoot: true };
  const schema = SCHEMA_PROPS_NODE;
  if (isObject(value)) return walk(inner, schema, value, root);
  if (Array.isArray(value)) {
    if (ref === SCHEMA_OR_ARRAY) return value.forEach((item, i) => walk(inner, schema, item, { parent: root, step: 'index', key: i, struct: '', typed: true }));
    if (ref === SCHEMA_OR_STRING_ARRAY) {
      for (const item of value) if (typeof item !== 'string' && item !== null) throw new DecodeFailure(`json: cannot unmarshal ${jsonKind(item)} into Go value of type string`);
      return;
    }
  }
  if (ref === SCHEMA_OR_BOOL && typeof value !== 'boolean') throw new DecodeFailure('boolean or JSON schema expected');
}

/** null, "", 0, false, [] or {}: a value Go's decoding may not tell from the field's zero. */
function isZeroish(v: unknown): boolean {
  if (v === null || v === '' || v === 0 || v === false) return true;
  if (typeof v !== 'object') return false;
  if (Array.isArray(v)) return v.length === 0;
  for (const _ in v) return false;
  return true;
}

function resolved(w: Walk, node: SchemaNode): SchemaNode {
  let n = node;
  for (let i = 0; n.ref && i < 32; i++) {
    const next = w.resolve(n.ref);
    if (!next) break;
    n = next;
  }
  return n;
}

function isGoMapSchema(n: SchemaNode): boolean {
  return n.properties === undefined && n.additionalProperties !== undefined && n.additionalProperties !== false;
}

/** The zero a null scalar without omitempty decodes to. */
function scalarZero(n: SchemaNode): unknown {
  if (isIntOrString(n)) return undefined;
  return n.type === 'string' ? '' : n.type === 'integer' || n.type === 'number' ? 0 : n.type === 'boolean' ? false : undefined;
}

/**
 * A zero-ish value of struct field `key` as the typed object writes it back: left out, replaced, or kept. Without
 * facts for the struct, only nulls and empty lists and maps of optional fields are left out. An empty
 * `metadata.managedFields` stays: a non-nil empty list asks the field manager to reset them.
 */
function encodeZeroField(w: Walk, structRef: string, struct: SchemaNode, key: string, v: unknown, prop: SchemaNode, at: Pos): void {
  if (structRef === OBJECT_META_REF && key === 'managedFields' && v !== null) return;
  const code = goStructFields(structRef)?.get(key);
  let omit: boolean;
  switch (code) {
    case undefined: {
      if (struct.required?.includes(key)) return;
      if (v === null) omit = true;
      else if (Array.isArray(v)) omit = resolved(w, prop).type === 'array';
      else if (typeof v === 'object') omit = isGoMapSchema(resolved(w, prop));
      else omit = false;
      break;
    }
    case 'p?':
      omit = v === null;
      break;
    case 's?':
    case 'm?':
      omit = v === null || typeof v === 'object';
      break;
    case 'v?':
      omit = true;
      break;
    case 'v':
    case 'o': {
      if (v !== null) return;
      const zero = code === 'o' ? nullElementZero(w, prop) : scalarZero(resolved(w, prop));
      if (zero !== undefined) w.reencoded.push({ steps: stepsOf(at), value: zero });
      return;
    }
    default:
      return;
  }
  if (omit) w.omitted.push(stepsOf(at));
}

function walkObject(w: Walk, r: Resolution, value: unknown, pos: Pos): void {
  const { node, ref } = r;
  if (!isObject(value)) {
    if (pos.typed) typeError(jsonKind(value), goTypeAt(pos, ref, node), pos);
    return;
  }
  const struct = r.struct ?? pos.struct;
  const props = r.properties;
  const additional = r.additionalProperties;
  if (props) {
    const named = r.struct === undefined ? NAMED_BY_STRUCT.get(struct) : r.namedFields;
    for (const key in value) {
      const v = value[key];
      const prop = props.get(key);
      const at = child(pos, struct, key, named);
      if (prop) {
        walk(w, prop, v, at);
        if (pos.typed && ref !== undefined && isZeroish(v)) encodeZeroField(w, ref, node, key, v, prop, at);
      } else if (r.embeddedResource && (key === 'apiVersion' || key === 'kind')) continue;
      else if (r.embeddedResource && key === 'metadata') walk(w, OBJECT_META_NODE, v, at);
      else if (!r.preserveUnknownFields) noteUnknown(w, at);
    }
    return;
  }
  if (additional !== undefined && additional !== false) {
    if (additional === true) return;
    const valueType = pos.goType === 'v1.ResourceList' ? 'resource.Quantity' : undefined;
    for (const key in value) {
      const v = value[key];
      const at: Pos = { parent: pos, step: 'key', key, struct: pos.struct, typed: pos.typed, goType: valueType };
      if (v === null) reencodeNullElement(w, additional, at);
      else walk(w, additional, v, at);
    }
    return;
  }
  // An object with no declared fields: Go keeps any content; a custom resource prunes all of it.
  if (pos.typed || r.preserveUnknownFields) return;
  for (const key of Object.keys(value)) {
    if (r.embeddedResource && (key === 'apiVersion' || key === 'kind')) continue;
    if (r.embeddedResource && key === 'metadata') {
      walk(w, OBJECT_META_NODE, value[key], child(pos, struct, key));
      continue;
    }
    noteUnknown(w, child(pos, struct, key));
  }
}

function bodyGroupVersionKind(obj: unknown, def: Pick<ResourceDefinition, 'kind' | 'version'>): { kind: string; version: string } {
  const o = isObject(obj) ? obj : {};
  const kind = typeof o.kind === 'string' && o.kind !== '' ? o.kind : def.kind;
  let version = def.version;
  if (typeof o.apiVersion === 'string' && o.apiVersion !== '') {
    const parts = o.apiVersion.split('/');
    version = parts[parts.length - 1];
  }
  return { kind, version };
}

/** transformDecodeError's wording: `<Kind> in version "<v>" cannot be handled as a <Kind>: <decoder error>`. */
export function decodeError(obj: unknown, def: Pick<ResourceDefinition, 'kind' | 'version'>, message: string): StatusError {
  const gvk = bodyGroupVersionKind(obj, def);
  return badRequest(`${gvk.kind} in version "${gvk.version}" cannot be handled as a ${def.kind}: ${message}`);
}

/** The strict-decoding 400 for unknown fields (fieldValidation=Strict). */
export function strictDecodingError(obj: unknown, def: Pick<ResourceDefinition, 'kind' | 'version'>, unknownFields: readonly string[]): StatusError {
  return decodeError(obj, def, `strict decoding error: ${unknownFieldWarnings(unknownFields).join(', ')}`);
}

/** The texts of fieldValidation=Warn: one `unknown field "spec.foo"` per field. */
export function unknownFieldWarnings(unknownFields: readonly string[]): string[] {
  return unknownFields.map((p) => `unknown field ${JSON.stringify(p)}`);
}

/** What a schema check reads of a definition. */
export type SchemaTarget = Pick<ResourceDefinition, 'group' | 'version' | 'kind' | 'custom' | 'schema' | 'resolveRef'>;

/** autoscaling/v1 Scale, the body of every scale subresource (built-in kinds' and custom resources'). */
export const SCALE_SCHEMA: SchemaTarget = { group: 'autoscaling', version: 'v1', kind: 'Scale', custom: false, schema: { ref: 'io.k8s.api.autoscaling.v1.Scale' }, resolveRef: schemaByName };

const rootNames = new WeakMap<SchemaTarget, string | undefined>();

/** The model's name of a built-in definition's root schema ("io.k8s.api.core.v1.ConfigMap"). */
function rootDefinitionName(def: SchemaTarget): string | undefined {
  if (rootNames.has(def)) return rootNames.get(def);
  const name = schemaNameForKind(def.group, def.version, def.kind);
  rootNames.set(def, name);
  return name;
}

/** Check a decoded body against def.schema (refs resolved with def.resolveRef; metadata is always ObjectMeta). */
/** Resolutions by resolver: the model's (every built-in definition's), none (custom resources'), a test's. */
const resolutionsByResolver = new WeakMap<SchemaTarget['resolveRef'], Walk['resolutions']>();

function resolutionsOf(resolveRef: SchemaTarget['resolveRef']): Walk['resolutions'] {
  let known = resolutionsByResolver.get(resolveRef);
  if (known === undefined) resolutionsByResolver.set(resolveRef, (known = [new WeakMap(), new WeakMap()]));
  return known;
}

export function checkAgainstSchema(obj: unknown, def: SchemaTarget): SchemaCheckResult {
  const w: Walk = {
    resolve: (ref) => def.resolveRef(ref) ?? (Object.hasOwn(META_DEFINITIONS, ref) ? META_DEFINITIONS[ref] : undefined),
    resolutions: resolutionsOf(def.resolveRef),
    unknown: [],
    unknownSteps: [],
    reencode: !def.custom,
    reencoded: [],
    omitted: [],
  };
  const typed = !def.custom;
  let root = def.schema;
  let rootStruct = def.kind;
  let rootRef = typed ? rootDefinitionName(def) : undefined;
  for (let i = 0; root.ref && i < 32; i++) {
    rootRef = root.ref;
    rootStruct = shortName(root.ref);
    const next = w.resolve(root.ref);
    if (!next) break;
    root = next;
  }
  try {
    if (!isObject(obj)) {
      const kind = jsonKind(obj);
      throw new DecodeFailure(`json: cannot unmarshal ${kind} into Go value of type ${def.custom ? 'map[string]interface {}' : `${def.version}.${def.kind}`}`);
    }
    const top: Pos = { parent: undefined, step: 'root', key: '', struct: rootStruct, typed };
    const props = root.properties ?? {};
    for (const [key, v] of Object.entries(obj)) {
      const at = child(top, rootStruct, key);
      if (key === 'metadata') {
        walk(w, def.custom || !props.metadata ? OBJECT_META_NODE : props.metadata, v, { ...at, typed: true });
      } else if (def.custom && (key === 'apiVersion' || key === 'kind')) {
        if (typeof v !== 'string' && v !== null) {
          throw new DecodeFailure(`json: cannot unmarshal ${jsonKind(v)} into Go struct field .${key} of type string`);
        }
      } else if (Object.hasOwn(props, key)) {
        walk(w, props[key], v, at);
        if (typed && rootRef !== undefined && isZeroish(v)) encodeZeroField(w, rootRef, root, key, v, props[key], at);
      } else if (!root.preserveUnknownFields) {
        noteUnknown(w, at);
      }
    }
  } catch (e) {
    if (e instanceof DecodeFailure) {
      return { fatal: decodeError(obj, def, e.message), unconvertible: e.converted, decodeMessage: e.message, unknownFields: [], unknownFieldSteps: [], reencoded: [], omitted: [] };
    }
    throw e;
  }
  return { unknownFields: w.unknown, unknownFieldSteps: w.unknownSteps, reencoded: w.reencoded, omitted: w.omitted };
}
