// Kubernetes objects in protobuf, driven by the generated.proto facts of the built-in model: a JSON value is
// written field by field in field-number order as Go's gogo-protobuf marshalling writes it, and read back
// into the JSON value kube's JSON encoding of the same Go struct gives. The special messages of apimachinery
// (Time, MicroTime, Quantity, IntOrString, RawExtension, FieldsV1, Duration, list wrappers) and apiextensions'
// JSON-schema ones (JSON, JSONSchemaPropsOrArray, OrBool, OrStringArray) map to their JSON forms here.

import { binaryReader, binaryWriter, WireType, type BinaryReader, type BinaryWriter } from './wire.ts';
import { protobufFacts } from '../../apis/model.ts';
import type { ProtoFieldFacts, ProtoMessageFacts } from '../../apis/model-types.ts';
import { formatGoDuration, parseGoDuration } from './duration.ts';
import { alwaysWritten, droppedWhenZero, keptWhenEmpty } from './go-value-fields.ts';

const META = 'io.k8s.apimachinery.pkg.apis.meta.v1.';
const TIME = `${META}Time`;
const MICRO_TIME = `${META}MicroTime`;
const DURATION = `${META}Duration`;
const FIELDS_V1 = `${META}FieldsV1`;
const QUANTITY = 'io.k8s.apimachinery.pkg.api.resource.Quantity';
const INT_OR_STRING = 'io.k8s.apimachinery.pkg.util.intstr.IntOrString';
const RAW_EXTENSION = 'io.k8s.apimachinery.pkg.runtime.RawExtension';
// apiextensions' JSON-schema unions: one JSON value in either of two shapes, two fields in protobuf.
const APIEXTENSIONS = 'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.';
const JSON_VALUE = `${APIEXTENSIONS}JSON`;
const SCHEMA_PROPS = `${APIEXTENSIONS}JSONSchemaProps`;
const PROPS_OR_ARRAY = `${APIEXTENSIONS}JSONSchemaPropsOrArray`;
const PROPS_OR_BOOL = `${APIEXTENSIONS}JSONSchemaPropsOrBool`;
const PROPS_OR_STRINGS = `${APIEXTENSIONS}JSONSchemaPropsOrStringArray`;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A protobuf body kube's decoder would reject; the message is the Go error text. */
export class ProtobufDecodeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ProtobufDecodeError';
  }
}

/** How a RawExtension's bytes are read back: JSON text, or a nested k8s\0 envelope. */
export type RawDecoder = (raw: Uint8Array) => unknown;

interface MessageIndex {
  facts: ProtoMessageFacts;
  byNumber: Map<number, ProtoFieldFacts>;
  /** JSON properties without omitempty (a "" value stays). */
  required: Set<string>;
  alwaysWritten: Set<string>;
  droppedWhenZero: Set<string>;
}

const indexes = new Map<string, MessageIndex | null>();

function messageIndex(name: string): MessageIndex | undefined {
  let idx = indexes.get(name);
  if (idx === undefined) {
    const facts = Object.hasOwn(protobufFacts(), name) ? protobufFacts()[name] : undefined;
    idx = facts
      ? {
          facts,
          byNumber: new Map(facts.fields.map((f) => [f.number, f])),
          required: keptWhenEmpty(name),
          alwaysWritten: alwaysWritten(name, facts),
          droppedWhenZero: droppedWhenZero(name),
        }
      : null;
    indexes.set(name, idx);
  }
  return idx ?? undefined;
}

/** Whether the model has a protobuf message of this definition name. */
export function hasProtobufMessage(definition: string): boolean {
  return messageIndex(definition) !== undefined;
}

// ---------------------------------------------------------------------------------------------------------
// Encoding.
// ---------------------------------------------------------------------------------------------------------

function isScalar(type: string): boolean {
  return type === 'string' || type === 'int32' || type === 'int64' || type === 'bool' || type === 'double' || type === 'bytes';
}

/** A field's zero value as Go writes a non-pointer field it holds no value for. */
function writeZero(w: BinaryWriter, f: ProtoFieldFacts): void {
  switch (f.type) {
    case 'string':
      w.tag(f.number, WireType.LengthDelimited).string('');
      return;
    case 'int32':
    case 'int64':
    case 'bool':
      w.tag(f.number, WireType.Varint).uint32(0);
      return;
    case 'double':
      w.tag(f.number, WireType.Bit64).double(0);
      return;
    case 'bytes':
      return;
    default:
      w.tag(f.number, WireType.LengthDelimited).uint32(0);
  }
}

function writeValue(w: BinaryWriter, number: number, type: string, v: unknown): void {
  switch (type) {
    case 'string':
      w.tag(number, WireType.LengthDelimited).string(typeof v === 'string' ? v : String(v));
      return;
    case 'int32':
      w.tag(number, WireType.Varint).int32(Number(v));
      return;
    case 'int64':
      w.tag(number, WireType.Varint).int64(typeof v === 'number' ? v : Number(v));
      return;
    case 'bool':
      w.tag(number, WireType.Varint).bool(v === true);
      return;
    case 'double':
      w.tag(number, WireType.Bit64).double(Number(v));
      return;
    case 'bytes':
      w.tag(number, WireType.LengthDelimited).bytes(typeof v === 'string' ? Buffer.from(v, 'base64') : new Uint8Array());
      return;
    default:
      w.tag(number, WireType.LengthDelimited).fork();
      writeMessageBody(w, type, v);
      w.join();
  }
}

/** Go's sortkeys.Strings order: byte-wise (UTF-16 order differs only past U+FFFF, which map keys do not use). */
function compareKeys(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function writeFields(w: BinaryWriter, name: string, obj: Record<string, unknown>): void {
  const idx = messageIndex(name);
  if (!idx) throw new Error(`no protobuf message ${name}`);
  for (const f of idx.facts.fields) {
    if (f.inline) {
      w.tag(f.number, WireType.LengthDelimited).fork();
      writeFields(w, f.type, obj);
      w.join();
      continue;
    }
    const v = obj[f.name];
    if (v === undefined || v === null) {
      if (idx.alwaysWritten.has(f.name)) writeZero(w, f);
      continue;
    }
    if (f.mapKey) {
      if (typeof v !== 'object') continue;
      const map = v as Record<string, unknown>;
      const keys = Object.keys(map);
      keys.sort(compareKeys);
      for (const key of keys) {
        w.tag(f.number, WireType.LengthDelimited).fork();
        w.tag(1, WireType.LengthDelimited).string(key);
        const value = map[key];
        if (value !== null && value !== undefined) writeValue(w, 2, f.type, value);
        else if (!isScalar(f.type)) w.tag(2, WireType.LengthDelimited).uint32(0);
        else if (f.type === 'string') w.tag(2, WireType.LengthDelimited).string('');
        w.join();
      }
      continue;
    }
    if (f.repeated) {
      if (!Array.isArray(v)) continue;
      // A JSON list item keeps its null (an enum may hold one).
      for (const item of v) writeValue(w, f.number, f.type, item ?? (f.type === 'string' ? '' : f.type === JSON_VALUE ? null : {}));
      continue;
    }
    writeValue(w, f.number, f.type, v);
  }
}

function digits(s: string, from: number, to: number): number {
  let n = 0;
  for (let i = from; i < to; i++) {
    const c = s.charCodeAt(i) - 48;
    if (c < 0 || c > 9) return NaN;
    n = n * 10 + c;
  }
  return n;
}

/** "2006-01-02T15:04:05.999999999Z07:00" to Unix seconds and nanoseconds; undefined when unreadable. */
function parseRfc3339(s: string): { seconds: number; nanos: number } | undefined {
  // The form kube writes: "2006-01-02T15:04:05Z".
  if (s.length === 20 && s.charCodeAt(19) === 90 && s.charCodeAt(10) === 84) {
    const ms = Date.UTC(digits(s, 0, 4), digits(s, 5, 7) - 1, digits(s, 8, 10), digits(s, 11, 13), digits(s, 14, 16), digits(s, 17, 19));
    if (!Number.isNaN(ms)) return { seconds: ms / 1000, nanos: 0 };
  }
  const m = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(?:\.(\d{1,9}))?(Z|[+-]\d{2}:\d{2})$/.exec(s);
  if (!m) return undefined;
  const ms = Date.parse(`${m[1]}${m[3]}`);
  if (Number.isNaN(ms)) return undefined;
  return { seconds: Math.floor(ms / 1000), nanos: m[2] ? Number(m[2].padEnd(9, '0')) : 0 };
}

function writeMessageBody(w: BinaryWriter, type: string, v: unknown): void {
  switch (type) {
    case TIME:
    case MICRO_TIME: {
      // metav1.Time.Marshal: nothing for the zero time; seconds and nanos otherwise (Time keeps seconds only).
      const t = typeof v === 'string' ? parseRfc3339(v) : undefined;
      if (!t) return;
      w.tag(1, WireType.Varint).int64(t.seconds);
      w.tag(2, WireType.Varint).int32(type === TIME ? 0 : Math.floor(t.nanos / 1000) * 1000);
      return;
    }
    case QUANTITY:
      w.tag(1, WireType.LengthDelimited).string(typeof v === 'string' ? v : String(v));
      return;
    case INT_OR_STRING:
      if (typeof v === 'string') {
        w.tag(1, WireType.Varint).int64(1);
        w.tag(2, WireType.Varint).int32(0);
        w.tag(3, WireType.LengthDelimited).string(v);
      } else {
        w.tag(1, WireType.Varint).int64(0);
        w.tag(2, WireType.Varint).int32(Number(v));
        w.tag(3, WireType.LengthDelimited).string('');
      }
      return;
    case RAW_EXTENSION:
    case FIELDS_V1:
    case JSON_VALUE:
      // The raw bytes as stored, which are not HTML-escaped as JSON responses are.
      w.tag(1, WireType.LengthDelimited).string(JSON.stringify(v) ?? 'null');
      return;
    case DURATION:
      w.tag(1, WireType.Varint).int64(typeof v === 'string' ? parseGoDuration(v) : Number(v));
      return;
    case PROPS_OR_ARRAY:
      // A schema, or a list of schemas.
      if (Array.isArray(v)) for (const item of v) writeValue(w, 2, SCHEMA_PROPS, item ?? {});
      else if (isObject(v)) writeValue(w, 1, SCHEMA_PROPS, v);
      return;
    case PROPS_OR_BOOL:
      // Go's UnmarshalJSON: a schema allows, with that schema; a bool allows or not. Allows is always written.
      w.tag(1, WireType.Varint).bool(isObject(v) || v === true);
      if (isObject(v)) writeValue(w, 2, SCHEMA_PROPS, v);
      return;
    case PROPS_OR_STRINGS:
      // A schema, or the names of the properties a property needs.
      if (Array.isArray(v)) for (const item of v) w.tag(2, WireType.LengthDelimited).string(String(item ?? ''));
      else if (isObject(v)) writeValue(w, 1, SCHEMA_PROPS, v);
      return;
  }
  const idx = messageIndex(type);
  if (!idx) throw new Error(`no protobuf message ${type}`);
  if (idx.facts.listWrapper) {
    const items = idx.facts.fields[0]!;
    if (Array.isArray(v)) for (const item of v) writeValue(w, items.number, items.type, item);
    return;
  }
  if (typeof v === 'object' && v !== null && !Array.isArray(v)) writeFields(w, type, v as Record<string, unknown>);
}

/** Appends the message of definition `type` for the JSON value `v` (no envelope). */
export function writeMessage(w: BinaryWriter, type: string, v: unknown): void {
  writeMessageBody(w, type, v);
}

/** The protobuf bytes of one message (no envelope). */
export function encodeMessage(type: string, v: unknown): Uint8Array {
  const w = binaryWriter();
  writeMessageBody(w, type, v);
  return w.finish();
}

// ---------------------------------------------------------------------------------------------------------
// Decoding.
// ---------------------------------------------------------------------------------------------------------

/** Go's struct field name for error messages ("metadata" -> "Metadata"). */
function goFieldName(f: ProtoFieldFacts): string {
  return f.name.charAt(0).toUpperCase() + f.name.slice(1);
}

/**
 * A field's key as the generated Unmarshal of `message` reads it (a uint64 varint), with Go's errors for the keys
 * it refuses: an end group outside a group, a field number below 1.
 */
export function fieldKey(r: BinaryReader, message: string): [number, WireType] {
  const key = BigInt(r.uint64());
  const wire = Number(key & 7n);
  const no = Number(BigInt.asIntN(32, key >> 3n));
  if (wire === WireType.EndGroup) throw new ProtobufDecodeError(`proto: ${message}: wiretype end group for non-group`);
  if (no <= 0) throw new ProtobufDecodeError(`proto: ${message}: illegal tag ${no} (wire type ${key})`);
  return [no, wire as WireType];
}

/** skipGenerated: the value of a field the decoder does not know, skipped; wire types 6 and 7 do not exist. */
export function skipField(r: BinaryReader, wire: WireType, no: number): void {
  if (wire > 5) throw new ProtobufDecodeError(`proto: illegal wireType ${wire}`);
  if (wire !== WireType.Varint) return void r.skip(wire, no);
  // A varint of more than ten bytes: the reader refuses it as Go's skip does (and the catch in decodeMessage words it).
  r.uint64();
}

function expectWire(actual: WireType, expected: WireType, f: ProtoFieldFacts): void {
  if (actual !== expected) throw new ProtobufDecodeError(`proto: wrong wireType = ${actual} for field ${goFieldName(f)}`);
}

function wireTypeOf(type: string): WireType {
  switch (type) {
    case 'int32':
    case 'int64':
    case 'bool':
      return WireType.Varint;
    case 'double':
      return WireType.Bit64;
    default:
      return WireType.LengthDelimited;
  }
}

function readScalar(r: BinaryReader, type: string): unknown {
  switch (type) {
    case 'string':
      return r.string();
    case 'int32':
      return r.int32();
    case 'int64':
      return Number(r.int64());
    case 'bool':
      return r.bool();
    case 'double':
      return r.double();
    case 'bytes':
      return Buffer.from(r.bytes()).toString('base64');
  }
  throw new Error(`not a scalar: ${type}`);
}

function readValue(r: BinaryReader, wire: WireType, f: ProtoFieldFacts, type: string, raw: RawDecoder): unknown {
  expectWire(wire, wireTypeOf(type), f);
  if (isScalar(type)) return readScalar(r, type);
  return decodeMessageBody(r.bytes(), type, raw);
}

function zeroOf(type: string, raw: RawDecoder): unknown {
  switch (type) {
    case 'string':
    case 'bytes':
      return '';
    case 'int32':
    case 'int64':
    case 'double':
      return 0;
    case 'bool':
      return false;
    default:
      return decodeMessageBody(new Uint8Array(), type, raw);
  }
}

function readMapEntry(bytes: Uint8Array, f: ProtoFieldFacts, raw: RawDecoder): [string, unknown] {
  const r = binaryReader(bytes);
  let key = '';
  let value: unknown;
  while (r.pos < r.len) {
    const k = BigInt(r.uint64());
    const no = Number(BigInt.asIntN(32, k >> 3n));
    const wire = Number(k & 7n) as WireType;
    if (no === 1) {
      expectWire(wire, WireType.LengthDelimited, f);
      key = r.string();
    } else if (no === 2) {
      value = readValue(r, wire, f, f.type, raw);
    } else if (wire === WireType.EndGroup) {
      throw new ProtobufDecodeError('proto: unexpected end of group');
    } else {
      skipField(r, wire, no);
    }
  }
  return [key, value === undefined ? zeroOf(f.type, raw) : value];
}

function readFields(bytes: Uint8Array, name: string, obj: Record<string, unknown>, raw: RawDecoder): void {
  const idx = messageIndex(name);
  if (!idx) throw new Error(`no protobuf message ${name}`);
  const message = name.slice(name.lastIndexOf('.') + 1);
  const r = binaryReader(bytes);
  while (r.pos < r.len) {
    const [no, wire] = fieldKey(r, message);
    const f = idx.byNumber.get(no);
    if (!f) {
      skipField(r, wire, no);
      continue;
    }
    if (f.inline) {
      expectWire(wire, WireType.LengthDelimited, f);
      readFields(r.bytes(), f.type, obj, raw);
      continue;
    }
    if (f.mapKey) {
      expectWire(wire, WireType.LengthDelimited, f);
      const [key, value] = readMapEntry(r.bytes(), f, raw);
      let map = obj[f.name] as Record<string, unknown> | undefined;
      if (!map) {
        map = {};
        obj[f.name] = map;
      }
      map[key] = value;
      continue;
    }
    if (f.repeated) {
      let list = obj[f.name] as unknown[] | undefined;
      if (!list) {
        list = [];
        obj[f.name] = list;
      }
      if (wire === WireType.LengthDelimited && wireTypeOf(f.type) !== WireType.LengthDelimited) {
        // Packed numbers, which Go's decoder also accepts.
        const packed = binaryReader(r.bytes());
        while (packed.pos < packed.len) list.push(readScalar(packed, f.type));
      } else {
        list.push(readValue(r, wire, f, f.type, raw));
      }
      continue;
    }
    obj[f.name] = readValue(r, wire, f, f.type, raw);
  }
  // Go's JSON leaves out omitempty zero values; "" stands only for fields without omitempty.
  for (const f of idx.facts.fields) {
    const v = obj[f.name];
    if (v === '' && f.type !== 'bytes' && !idx.required.has(f.name)) delete obj[f.name];
    else if ((v === 0 || v === false) && idx.droppedWhenZero.has(f.name)) delete obj[f.name];
  }
}

function formatTime(seconds: number, nanos: number, micro: boolean): string {
  const iso = new Date(seconds * 1000).toISOString();
  const base = iso.slice(0, 19);
  if (!micro) return `${base}Z`;
  return `${base}.${String(Math.floor(nanos / 1000)).padStart(6, '0')}Z`;
}

function decodeMessageBody(bytes: Uint8Array, type: string, raw: RawDecoder): unknown {
  switch (type) {
    case TIME:
    case MICRO_TIME: {
      if (bytes.length === 0) return null;
      const r = binaryReader(bytes);
      let seconds = 0;
      let nanos = 0;
      while (r.pos < r.len) {
        const [no, wire] = fieldKey(r, 'Time');
        if (no === 1 && wire === WireType.Varint) seconds = Number(r.int64());
        else if (no === 2 && wire === WireType.Varint) nanos = r.int32();
        else skipField(r, wire, no);
      }
      // metav1.Time.Unmarshal keeps seconds only; MicroTime keeps microseconds.
      return formatTime(seconds, nanos, type === MICRO_TIME);
    }
    case QUANTITY: {
      const r = binaryReader(bytes);
      let s = '';
      while (r.pos < r.len) {
        const [no, wire] = fieldKey(r, 'Quantity');
        if (no === 1 && wire === WireType.LengthDelimited) s = r.string();
        else skipField(r, wire, no);
      }
      return s === '' ? '0' : s;
    }
    case INT_OR_STRING: {
      const r = binaryReader(bytes);
      let kind = 0;
      let intVal = 0;
      let strVal = '';
      while (r.pos < r.len) {
        const [no, wire] = fieldKey(r, 'IntOrString');
        if (no === 1 && wire === WireType.Varint) kind = Number(r.int64());
        else if (no === 2 && wire === WireType.Varint) intVal = r.int32();
        else if (no === 3 && wire === WireType.LengthDelimited) strVal = r.string();
        else skipField(r, wire, no);
      }
      return kind === 1 ? strVal : intVal;
    }
    case RAW_EXTENSION:
    case FIELDS_V1:
    case JSON_VALUE: {
      // Raw bytes in field 1: JSON text (a RawExtension's may be an envelope).
      const r = binaryReader(bytes);
      let data: Uint8Array | undefined;
      while (r.pos < r.len) {
        const [no, wire] = fieldKey(r, 'RawExtension');
        if (no === 1 && wire === WireType.LengthDelimited) data = r.bytes();
        else skipField(r, wire, no);
      }
      if (!data || data.length === 0) return null;
      return type === RAW_EXTENSION ? raw(data) : parseJsonBytes(data);
    }
    case DURATION: {
      const r = binaryReader(bytes);
      let ns = 0;
      while (r.pos < r.len) {
        const [no, wire] = fieldKey(r, 'Duration');
        if (no === 1 && wire === WireType.Varint) ns = Number(r.int64());
        else skipField(r, wire, no);
      }
      return formatGoDuration(ns);
    }
    case PROPS_OR_ARRAY:
    case PROPS_OR_BOOL:
    case PROPS_OR_STRINGS:
      return schemaUnionValue(bytes, type, raw);
  }
  const idx = messageIndex(type);
  if (!idx) throw new Error(`no protobuf message ${type}`);
  if (idx.facts.listWrapper) {
    const items = idx.facts.fields[0]!;
    const list: unknown[] = [];
    const r = binaryReader(bytes);
    while (r.pos < r.len) {
      const [no, wire] = fieldKey(r, type.slice(type.lastIndexOf('.') + 1));
      if (no === items.number) list.push(readValue(r, wire, items, items.type, raw));
      else skipField(r, wire, no);
    }
    return list;
  }
  const obj: Record<string, unknown> = {};
  readFields(bytes, type, obj, raw);
  return obj;
}

/** The JSON value of a JSON-schema union, as its Go MarshalJSON writes it. */
function schemaUnionValue(bytes: Uint8Array, type: string, raw: RawDecoder): unknown {
  const r = binaryReader(bytes);
  let schema: unknown;
  const many: unknown[] = [];
  let allows = false;
  while (r.pos < r.len) {
    const [no, wire] = fieldKey(r, type.slice(type.lastIndexOf('.') + 1));
    const schemaField = type === PROPS_OR_BOOL ? 2 : 1;
    if (no === schemaField && wire === WireType.LengthDelimited) schema = decodeMessageBody(r.bytes(), SCHEMA_PROPS, raw);
    else if (no === 2 && wire === WireType.LengthDelimited) many.push(type === PROPS_OR_ARRAY ? decodeMessageBody(r.bytes(), SCHEMA_PROPS, raw) : r.string());
    else if (no === 1 && wire === WireType.Varint && type === PROPS_OR_BOOL) allows = r.bool();
    else skipField(r, wire, no);
  }
  if (type === PROPS_OR_BOOL) return schema ?? allows;
  if (many.length > 0) return many;
  return schema ?? null;
}

export function parseJsonBytes(data: Uint8Array): unknown {
  try {
    return JSON.parse(Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString('utf8'));
  } catch (e) {
    throw new ProtobufDecodeError(e instanceof Error ? e.message : String(e));
  }
}

/**
 * The JSON value of the message of definition `type` in `bytes`. Unknown fields are skipped as Go skips them;
 * truncated or malformed bytes throw a ProtobufDecodeError worded as Go's decoder words it.
 */
export function decodeMessage(bytes: Uint8Array, type: string, raw: RawDecoder = parseJsonBytes): unknown {
  try {
    return decodeMessageBody(bytes, type, raw);
  } catch (e) {
    if (e instanceof ProtobufDecodeError) throw e;
    // @bufbuild/protobuf's reader: a varint past 10 bytes (Go's decoder: an integer overflow), "premature EOF".
    if (e instanceof Error && /invalid varint/.test(e.message)) throw new ProtobufDecodeError('proto: integer overflow');
    if (e instanceof Error && /EOF|out of range|invalid/i.test(e.message)) throw new ProtobufDecodeError('unexpected EOF');
    throw e;
  }
}
