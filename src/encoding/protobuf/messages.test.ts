import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadModel, protobufFacts, schemaByName } from '../../apis/model.ts';
import type { SchemaNode } from '../../apis/model-types.ts';
import { decodeProtobufObject, encodeProtobufListOf, encodeProtobufObject, protobufDefinition, protobufListItemDefinition } from './envelope.ts';
import { decodeMessage, encodeMessage, ProtobufDecodeError } from './messages.ts';
import { decodeWatchEvent, encodeWatchFrame, splitWatchFrames } from './watch-frames.ts';
import { formatGoDuration, parseGoDuration } from './duration.ts';

const META = 'io.k8s.apimachinery.pkg.apis.meta.v1.';
const APIEXT = 'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.';

/** The JSON names a message covers, through its embedded messages. */
function protoNames(definition: string): Set<string> {
  const out = new Set<string>();
  const facts = protobufFacts()[definition];
  for (const f of facts?.fields ?? []) {
    if (f.inline) for (const n of protoNames(f.type)) out.add(n);
    else out.add(f.name);
  }
  return out;
}

/** A sample value for a schema node: every property set, no zero values (Go's JSON would drop those). */
function sample(node: SchemaNode, depth: number, name: string): unknown {
  if (node.ref) {
    switch (node.ref) {
      case `${META}Time`:
        return '2024-01-02T03:04:05Z';
      case `${META}MicroTime`:
        return '2024-01-02T03:04:05.123456Z';
      case `${META}Duration`:
        return '1h30m0s';
      case `${META}FieldsV1`:
        return { 'f:metadata': { 'f:labels': {} } };
      case 'io.k8s.apimachinery.pkg.api.resource.Quantity':
        return '1500m';
      case 'io.k8s.apimachinery.pkg.util.intstr.IntOrString':
        return name.length % 2 === 0 ? 7 : '50%';
      case 'io.k8s.apimachinery.pkg.runtime.RawExtension':
        return { apiVersion: 'example.com/v1', kind: 'Thing', spec: { n: 1 } };
      case `${APIEXT}JSON`:
        return { any: [1, 'two', null, true, { x: 1.5 }] };
      case `${APIEXT}JSONSchemaPropsOrArray`:
        return name.length % 2 === 0 ? [{ type: 'string' }, { type: 'integer', minimum: 2 }] : { type: 'object', nullable: true };
      case `${APIEXT}JSONSchemaPropsOrBool`:
        return name.length % 2 === 0 ? false : { type: 'string', maxLength: 5 };
      case `${APIEXT}JSONSchemaPropsOrStringArray`:
        return name.length % 2 === 0 ? ['a', 'b'] : { required: ['c'] };
      case `${APIEXT}JSONSchemaProps`:
        // Recursive in a dozen properties: sampled whole twice down, then as a leaf.
        if (depth > 2) return { type: 'string', enum: ['a', null] };
    }
    return sampleObject(node.ref, depth + 1);
  }
  if (node.intOrString) return 8;
  switch (node.type) {
    case 'array':
      return [sample(node.items ?? {}, depth, name)];
    case 'object':
      if (node.additionalProperties && typeof node.additionalProperties === 'object') return { k1: sample(node.additionalProperties, depth, name), k0: sample(node.additionalProperties, depth, name) };
      return {};
    case 'string':
      if (node.format === 'byte') return Buffer.from(`bytes of ${name}`).toString('base64');
      return node.enum && typeof node.enum[0] === 'string' ? node.enum[0] : `${name}-value`;
    case 'integer':
      return node.format === 'int64' ? 1234567890123 : -5;
    case 'number':
      return 1.5;
    case 'boolean':
      return true;
    default:
      return {};
  }
}

function sampleObject(definition: string, depth: number): Record<string, unknown> {
  const node = schemaByName(definition);
  const out: Record<string, unknown> = {};
  if (!node?.properties || depth > 12) return out;
  const names = protoNames(definition);
  for (const [name, prop] of Object.entries(node.properties)) {
    if (!names.has(name)) continue;
    out[name] = sample(prop, depth, name);
  }
  return out;
}

/** Keys sorted at every level: the order Go's JSON gives follows the struct, not the proto numbers. */
function normalize(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(normalize);
  if (v && typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(v).sort()) out[k] = normalize((v as Record<string, unknown>)[k]);
    return out;
  }
  return v;
}

test('every built-in kind and list: JSON -> protobuf -> JSON gives the same object', () => {
  const model = loadModel();
  const withoutMessage = new Set<string>();
  let checked = 0;
  for (const group of model.groups) {
    for (const version of group.versions) {
      for (const resource of version.resources) {
        const apiVersion = group.name ? `${group.name}/${version.version}` : version.version;
        const kinds = resource.verbs.includes('list') ? [resource.kind, `${resource.kind}List`] : [resource.kind];
        for (const kind of kinds) {
          const definition = protobufDefinition(apiVersion, kind);
          if (!definition) {
            withoutMessage.add(`${apiVersion}/${kind}`);
            continue;
          }
          const object = { kind, apiVersion, ...sampleObject(definition, 0) };
          const bytes = encodeProtobufObject(object);
          assert.deepEqual(normalize(decodeProtobufObject(bytes)), normalize(object), `${apiVersion} ${kind}`);
          checked++;
        }
      }
    }
  }
  assert.ok(checked > 100, `only ${checked} kinds checked`);
  // CustomResourceDefinition and APIService included (their facts come from scripts/extra-proto-facts.ts).
  assert.deepEqual([...withoutMessage], []);
});

test("gogo-protobuf's bytes: fields by number, value fields written even when zero, map keys sorted", () => {
  const cm = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', namespace: 'ns' }, data: { k: 'v', b: '' } };
  const hex = Buffer.from(encodeProtobufObject(cm)).toString('hex');
  // Unknown.typeMeta {apiVersion "v1", kind "ConfigMap"}.
  const typeMeta = '0a0f' + '0a027631' + '1209436f6e6669674d6170';
  // ObjectMeta: name, generateName "", namespace, selfLink "", uid "", resourceVersion "", generation 0, creationTimestamp {}.
  const meta = '0a13' + '0a0161' + '1200' + '1a026e73' + '2200' + '2a00' + '3200' + '3800' + '4200';
  // data entries in key order: {b: ""}, {k: "v"}.
  const data = '1205' + '0a0162' + '1200' + '1206' + '0a016b' + '120176';
  const raw = meta + data;
  // raw (field 2), contentEncoding "" (3), contentType "" (4).
  assert.equal(hex, `6b387300${typeMeta}12${(raw.length / 2).toString(16)}${raw}1a002200`);
});

test("apiextensions' JSON-schema messages as Go writes them: value fields even when zero, the unions' two shapes", () => {
  const hex = (type: string, v: unknown) => Buffer.from(encodeMessage(`${APIEXT}${type}`, v)).toString('hex');
  // id "", $schema "", description "", type, format "", title "", exclusiveMaximum, exclusiveMinimum, pattern "",
  // uniqueItems, nullable, x-kubernetes-embedded-resource, x-kubernetes-int-or-string: the non-pointer fields.
  const stringProps = '0a00' + '1200' + '2200' + '2a06737472696e67' + '3200' + '3a00' + '5000' + '6000' + '7a00' + '900100' + 'a80200' + 'b80200' + 'c00200';
  assert.equal(hex('JSONSchemaProps', { type: 'string' }), stringProps);
  assert.deepEqual(decodeMessage(Buffer.from(stringProps, 'hex'), `${APIEXT}JSONSchemaProps`), { type: 'string' });
  // JSONSchemaPropsOrBool: allows is always written; a schema allows.
  assert.equal(hex('JSONSchemaPropsOrBool', false), '0800');
  assert.equal(hex('JSONSchemaPropsOrBool', true), '0801');
  const embedded = `12${(stringProps.length / 2).toString(16).padStart(2, '0')}${stringProps}`;
  assert.equal(hex('JSONSchemaPropsOrBool', { type: 'string' }), `0801${embedded}`);
  for (const v of [false, true, { type: 'string' }]) assert.deepEqual(decodeMessage(encodeMessage(`${APIEXT}JSONSchemaPropsOrBool`, v), `${APIEXT}JSONSchemaPropsOrBool`), v);
  // OrArray and OrStringArray: field 1 for the schema, field 2 for each item of the other shape.
  assert.equal(hex('JSONSchemaPropsOrArray', [{ type: 'string' }, { type: 'string' }]), embedded.repeat(2));
  assert.equal(hex('JSONSchemaPropsOrArray', { type: 'string' }), `0a${embedded.slice(2)}`);
  assert.equal(hex('JSONSchemaPropsOrStringArray', ['a', 'b']), '120161' + '120162');
  for (const [type, v] of [['JSONSchemaPropsOrArray', { type: 'string' }], ['JSONSchemaPropsOrArray', [{ type: 'string' }]], ['JSONSchemaPropsOrStringArray', ['x']], ['JSONSchemaPropsOrStringArray', { type: 'string' }]] as const) {
    assert.deepEqual(decodeMessage(encodeMessage(`${APIEXT}${type}`, v), `${APIEXT}${type}`), v);
  }
  // JSON: the value's JSON text as raw bytes.
  assert.equal(hex('JSON', { a: 1 }), '0a077b2261223a317d');
  assert.deepEqual(decodeMessage(Buffer.from('0a0474727565', 'hex'), `${APIEXT}JSON`), true);
});

test('special messages: Time, MicroTime, IntOrString, Quantity, RawExtension, list wrappers', () => {
  const time = encodeMessage(`${META}Time`, '2024-01-02T03:04:05Z');
  assert.equal(Buffer.from(time).toString('hex'), '08a5facdac061000');
  assert.equal(decodeMessage(time, `${META}Time`), '2024-01-02T03:04:05Z');
  assert.equal(decodeMessage(new Uint8Array(), `${META}Time`), null);
  assert.equal(decodeMessage(encodeMessage(`${META}MicroTime`, '2024-01-02T03:04:05.123456Z'), `${META}MicroTime`), '2024-01-02T03:04:05.123456Z');
  const ios = 'io.k8s.apimachinery.pkg.util.intstr.IntOrString';
  assert.equal(Buffer.from(encodeMessage(ios, 5)).toString('hex'), '080010051a00');
  assert.equal(Buffer.from(encodeMessage(ios, '25%')).toString('hex'), '080110001a03323525');
  assert.equal(decodeMessage(encodeMessage(ios, '25%'), ios), '25%');
  assert.equal(decodeMessage(encodeMessage(ios, 5), ios), 5);
  const sar = 'io.k8s.api.authorization.v1.SubjectAccessReviewSpec';
  const spec = { user: 'u', extra: { scopes: ['a', 'b'], empty: [] } };
  assert.deepEqual(decodeMessage(encodeMessage(sar, spec), sar), spec);
});

test('unknown fields are skipped; truncated and mistyped fields are Go decode errors', () => {
  const cmDef = 'io.k8s.api.core.v1.ConfigMap';
  const body = encodeMessage(cmDef, { metadata: { name: 'a' }, data: { k: 'v' } });
  // Field 99 (varint) and field 98 (bytes) that ConfigMap does not have.
  const withUnknown = Buffer.concat([Buffer.from([0x98, 0x06, 0x01, 0x92, 0x06, 0x02, 0x61, 0x62]), body]);
  assert.deepEqual(decodeMessage(withUnknown, cmDef), decodeMessage(body, cmDef));
  assert.throws(() => decodeMessage(body.subarray(0, body.length - 2), cmDef), new ProtobufDecodeError('unexpected EOF'));
  // metadata (field 1) sent as a varint.
  assert.throws(() => decodeMessage(Uint8Array.of(0x08, 0x01), cmDef), new ProtobufDecodeError('proto: wrong wireType = 0 for field Metadata'));
  // Keys the generated Unmarshal refuses: field number 0, an end group outside a group, wire types 6 and 7.
  assert.throws(() => decodeMessage(Uint8Array.of(0x00, 0x01), cmDef), new ProtobufDecodeError('proto: ConfigMap: illegal tag 0 (wire type 0)'));
  assert.throws(() => decodeMessage(Uint8Array.of(0x04), cmDef), new ProtobufDecodeError('proto: ConfigMap: wiretype end group for non-group'));
  assert.throws(() => decodeMessage(Uint8Array.of(0x9e, 0x06, 0x01), cmDef), new ProtobufDecodeError('proto: illegal wireType 6'));
  // In a nested message, the nested message's name; a varint past ten bytes is an overflow.
  assert.throws(() => decodeMessage(Uint8Array.of(0x0a, 0x02, 0x00, 0x00), cmDef), new ProtobufDecodeError('proto: ObjectMeta: illegal tag 0 (wire type 0)'));
  assert.throws(() => decodeMessage(Uint8Array.of(0x98, 0x06, ...Array(11).fill(0xff)), cmDef), new ProtobufDecodeError('proto: integer overflow'));
});

test('the envelope: empty, wrong magic, magic only', () => {
  assert.throws(() => decodeProtobufObject(new Uint8Array()), { message: 'empty data' });
  assert.throws(() => decodeProtobufObject(Buffer.from('{"kind":"ConfigMap"}')), { message: 'provided data does not appear to be a protobuf message, expected prefix [107 56 115 0]' });
  assert.throws(() => decodeProtobufObject(Uint8Array.of(0x6b, 0x38, 0x73, 0x00)), { message: 'empty body' });
});

test('watch frames: 4-byte big-endian length, raw WatchEvent, enveloped object', () => {
  const object = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', resourceVersion: '7' } };
  const frame = encodeWatchFrame('ADDED', object);
  assert.equal(frame.length - 4, new DataView(frame.buffer, frame.byteOffset).getUint32(0, false));
  // WatchEvent{type: 1, object: 2 {raw: 1}} with the enveloped object as raw.
  assert.deepEqual([...frame.subarray(4, 11)], [0x0a, 0x05, ...Buffer.from('ADDED')]);
  const second = encodeWatchFrame('DELETED', object);
  const two = Buffer.concat([frame, second]);
  const { frames, rest } = splitWatchFrames(two.subarray(0, two.length - 3));
  assert.equal(frames.length, 1);
  assert.equal(rest.length, second.length - 3);
  const event = decodeWatchEvent(frames[0]!);
  assert.equal(event.type, 'ADDED');
  assert.deepEqual(event.object, { kind: 'ConfigMap', apiVersion: 'v1', metadata: { name: 'a', resourceVersion: '7', creationTimestamp: null } });
});

test('Go durations', () => {
  assert.equal(parseGoDuration('1h30m'), 5400e9);
  assert.equal(parseGoDuration('1.5s'), 1.5e9);
  assert.equal(formatGoDuration(5400e9), '1h30m0s');
  assert.equal(formatGoDuration(1.5e9), '1.5s');
  assert.equal(formatGoDuration(300e6), '300ms');
  assert.equal(formatGoDuration(0), '0s');
});

test("Go's zero values: value fields with omitempty dropped on reading and written when absent; pointer zeros kept", () => {
  const deployment = 'io.k8s.api.apps.v1.DeploymentSpec';
  // replicas is *int32: an explicit 0 means 0. minReadySeconds and paused are values: Go writes their zeros, and
  // struct values (strategy, the template's metadata, a container's resources) are always there, as {} at least.
  const spec = { replicas: 0, template: { spec: { containers: [{ name: 'c', image: 'i', stdin: false, ports: [{ containerPort: 80, hostPort: 0 }] }], hostNetwork: false } } };
  const bytes = encodeMessage(deployment, spec);
  assert.deepEqual(decodeMessage(bytes, deployment), {
    replicas: 0,
    strategy: {},
    template: { metadata: {}, spec: { containers: [{ name: 'c', image: 'i', ports: [{ containerPort: 80 }], resources: {} }] } },
  });
  // Absent from the JSON, template (field 3) and strategy (field 4) are written as empty messages, minReadySeconds
  // (field 5) and paused (field 7) as zeros; the pointers (replicas, selector, ...) are not written.
  assert.deepEqual(decodeMessage(encodeMessage(deployment, {}), deployment), { template: {}, strategy: {} });
  assert.deepEqual([...encodeMessage(deployment, {})], [0x1a, 0x00, 0x22, 0x00, 0x28, 0x00, 0x38, 0x00]);
  // A pointer to an empty string stays: storageClassName "" asks for no class.
  const claim = 'io.k8s.api.core.v1.PersistentVolumeClaimSpec';
  assert.equal((decodeMessage(encodeMessage(claim, { storageClassName: '', volumeName: '' }), claim) as Record<string, unknown>).storageClassName, '');
  assert.equal((decodeMessage(encodeMessage(claim, { storageClassName: '', volumeName: '' }), claim) as Record<string, unknown>).volumeName, undefined);
});

test('a list assembled from pre-encoded items is byte for byte the list encoded whole', () => {
  const item = (name: string) => ({ metadata: { name, namespace: 'ns', resourceVersion: '5' }, data: { k: name } });
  for (const [apiVersion, kind] of [['v1', 'ConfigMapList'], ['meta.k8s.io/v1beta1', 'PartialObjectMetadataList']] as const) {
    const list = { apiVersion, kind, metadata: { resourceVersion: '9', continue: 'abc' }, items: [item('a'), item('b'), item('c'.repeat(300)), ...Array.from({ length: 200 }, (_, i) => item(`n${i}`))] };
    const itemDefinition = protobufListItemDefinition(apiVersion, kind)!;
    const assembled = encodeProtobufListOf(list, list.items.map((i) => encodeMessage(itemDefinition, i)));
    assert.deepEqual(Buffer.from(assembled), Buffer.from(encodeProtobufObject(list)), kind);
  }
  assert.equal(protobufListItemDefinition('v1', 'ConfigMap'), undefined);
});
