// Objects in kube's protobuf envelope: the magic "k8s\0", then runtime.Unknown{typeMeta{apiVersion, kind},
// raw: the object's message, contentEncoding, contentType} (k8s.io/apimachinery/pkg/runtime/serializer/protobuf).

import { binaryReader, binaryWriter, WireType, type BinaryWriter } from './wire.ts';
import { protobufFacts, schemaNameForKind } from '../../apis/model.ts';
import { decodeMessage, fieldKey, hasProtobufMessage, parseJsonBytes, ProtobufDecodeError, skipField, writeMessage } from './messages.ts';
import type { ProtoFieldFacts } from '../../apis/model-types.ts';

export const PROTOBUF_MAGIC = Uint8Array.of(0x6b, 0x38, 0x73, 0x00);

/** Envelopes nested in RawExtensions deeper than this are refused rather than followed. */
const MAX_NESTED_ENVELOPES = 8;

export interface TypeMeta {
  apiVersion: string;
  kind: string;
}

function splitApiVersion(apiVersion: string): { group: string; version: string } {
  const slash = apiVersion.indexOf('/');
  return slash < 0 ? { group: '', version: apiVersion } : { group: apiVersion.slice(0, slash), version: apiVersion.slice(slash + 1) };
}

const definitions = new Map<string, string | null>();

/** The protobuf message of a kind, or undefined for kinds without one (custom resources, Table, APIService...). */
export function protobufDefinition(apiVersion: string, kind: string): string | undefined {
  const key = `${apiVersion}\u0000${kind}`;
  let def = definitions.get(key);
  if (def === undefined) {
    def = lookUpDefinition(apiVersion, kind) ?? null;
    if (definitions.size < 4096) definitions.set(key, def);
  }
  return def ?? undefined;
}

function lookUpDefinition(apiVersion: string, kind: string): string | undefined {
  const { group, version } = splitApiVersion(apiVersion);
  // meta.k8s.io/v1beta1's list has a message of its own (items and metadata numbered the other way round).
  if (group === 'meta.k8s.io' && version === 'v1beta1' && kind === 'PartialObjectMetadataList') return 'io.k8s.apimachinery.pkg.apis.meta.v1beta1.PartialObjectMetadataList';
  // Aggregated discovery has no OpenAPI definition.
  if (group === 'apidiscovery.k8s.io' && kind === 'APIGroupDiscoveryList') return hasProtobufMessage(`io.k8s.api.apidiscovery.${version}.${kind}`) ? `io.k8s.api.apidiscovery.${version}.${kind}` : undefined;
  // Unversioned meta.k8s.io types (APIVersions, the core APIResourceList) carry a kind only.
  if (group === '' && version === '') return lookUpDefinition('v1', kind);
  const def = schemaNameForKind(group, version, kind);
  return def !== undefined && hasProtobufMessage(def) ? def : undefined;
}

function typeMetaOf(value: unknown): TypeMeta {
  const v = value as { apiVersion?: unknown; kind?: unknown };
  return { apiVersion: typeof v.apiVersion === 'string' ? v.apiVersion : '', kind: typeof v.kind === 'string' ? v.kind : '' };
}

/** Appends the enveloped object (magic included) to `w`. */
export function writeEnveloped(w: BinaryWriter, value: unknown): void {
  const meta = typeMetaOf(value);
  const definition = protobufDefinition(meta.apiVersion, meta.kind);
  if (!definition) throw new Error(`${meta.apiVersion}, Kind=${meta.kind} has no protobuf message`);
  w.raw(PROTOBUF_MAGIC);
  w.tag(1, WireType.LengthDelimited).fork().tag(1, WireType.LengthDelimited).string(meta.apiVersion).tag(2, WireType.LengthDelimited).string(meta.kind).join();
  w.tag(2, WireType.LengthDelimited).fork();
  writeMessage(w, definition, value);
  w.join();
  w.tag(3, WireType.LengthDelimited).string('');
  w.tag(4, WireType.LengthDelimited).string('');
}

/** The enveloped object around its already encoded message: the bytes encodeProtobufObject gives for it. */
export function encodeEnvelopedMessage(apiVersion: string, kind: string, message: Uint8Array): Uint8Array {
  const w = sharedWriter();
  w.raw(PROTOBUF_MAGIC);
  w.tag(1, WireType.LengthDelimited).fork().tag(1, WireType.LengthDelimited).string(apiVersion).tag(2, WireType.LengthDelimited).string(kind).join();
  w.tag(2, WireType.LengthDelimited).bytes(message);
  w.tag(3, WireType.LengthDelimited).string('');
  w.tag(4, WireType.LengthDelimited).string('');
  return w.finish();
}

let writer: BinaryWriter | undefined;
/** One writer for every response: its buffer grows to the largest object once instead of once per call. */
const sharedWriter = (): BinaryWriter => (writer ??= binaryWriter());

/** An object (with apiVersion and kind) as application/vnd.kubernetes.protobuf bytes. */
export function encodeProtobufObject(value: unknown): Uint8Array {
  try {
    writeEnveloped(sharedWriter(), value);
    return sharedWriter().finish();
  } catch (e) {
    sharedWriter().finish();
    throw e;
  }
}

function listFields(listDefinition: string): { metadata: ProtoFieldFacts; items: ProtoFieldFacts } | undefined {
  const fields = protobufFacts()[listDefinition]?.fields ?? [];
  const metadata = fields.find((f) => f.name === 'metadata');
  const items = fields.find((f) => f.name === 'items' && f.repeated);
  return metadata && items && fields.length === 2 ? { metadata, items } : undefined;
}

/** The message of a list kind's items ("io.k8s.api.core.v1.ConfigMap" for ConfigMapList); undefined for other kinds. */
export function protobufListItemDefinition(apiVersion: string, listKind: string): string | undefined {
  const definition = protobufDefinition(apiVersion, listKind);
  return definition ? listFields(definition)?.items.type : undefined;
}

/**
 * A list whose items are already encoded messages (memoized by the caller): the same bytes encodeProtobufObject
 * gives for the list, without encoding the items again, in a buffer from `alloc` (which the caller may reuse).
 */
export function encodeProtobufListOf(
  list: { apiVersion: string; kind: string; metadata?: unknown },
  items: readonly Uint8Array[],
  alloc: (size: number) => Uint8Array = Buffer.allocUnsafe,
): Uint8Array {
  const definition = protobufDefinition(list.apiVersion, list.kind);
  const fields = definition ? listFields(definition) : undefined;
  if (!fields) throw new Error(`${list.apiVersion}, Kind=${list.kind} is not a list with a protobuf message`);
  // Sizes first, then one buffer of the exact size with each item copied into it once.
  const typeMeta = encodeTypeMeta(list.apiVersion, list.kind);
  const w = sharedWriter();
  let metadata: Uint8Array;
  try {
    writeMessage(w, fields.metadata.type, list.metadata ?? {});
    metadata = w.finish();
  } catch (e) {
    w.finish();
    throw e;
  }
  const metadataTag = fieldTag(fields.metadata.number);
  const itemTag = fieldTag(fields.items.number);
  let rawLength = metadataTag + varintLength(metadata.length) + metadata.length;
  for (const item of items) rawLength += itemTag + varintLength(item.length) + item.length;
  const total = PROTOBUF_MAGIC.length + 1 + varintLength(typeMeta.length) + typeMeta.length + 1 + varintLength(rawLength) + rawLength + 4;
  const out = alloc(total);
  out.set(PROTOBUF_MAGIC, 0);
  let at = PROTOBUF_MAGIC.length;
  const put = (field: number, bytes: Uint8Array): void => {
    at = writeVarint(out, at, (field << 3) | WireType.LengthDelimited);
    at = writeVarint(out, at, bytes.length);
    out.set(bytes, at);
    at += bytes.length;
  };
  put(1, typeMeta);
  at = writeVarint(out, at, (2 << 3) | WireType.LengthDelimited);
  at = writeVarint(out, at, rawLength);
  // Field-number order (ListMeta is 1 in most lists, 2 in meta.k8s.io/v1beta1's).
  if (fields.metadata.number < fields.items.number) put(fields.metadata.number, metadata);
  for (const item of items) put(fields.items.number, item);
  if (fields.metadata.number > fields.items.number) put(fields.metadata.number, metadata);
  // contentEncoding and contentType, both empty.
  out.set(ENVELOPE_TRAILER, at);
  return out;
}

/** Fields 3 and 4 of runtime.Unknown (contentEncoding, contentType), empty, as every envelope ends. */
const ENVELOPE_TRAILER = Uint8Array.of(0x1a, 0x00, 0x22, 0x00);

function encodeTypeMeta(apiVersion: string, kind: string): Uint8Array {
  sharedWriter().tag(1, WireType.LengthDelimited).string(apiVersion).tag(2, WireType.LengthDelimited).string(kind);
  return sharedWriter().finish();
}

function varintLength(n: number): number {
  let length = 1;
  while (n >= 0x80) {
    n = Math.floor(n / 0x80);
    length++;
  }
  return length;
}

/** Bytes of a length-delimited field's tag. */
function fieldTag(field: number): number {
  return varintLength((field << 3) | WireType.LengthDelimited);
}

function writeVarint(out: Uint8Array, at: number, n: number): number {
  while (n >= 0x80) {
    out[at++] = (n & 0x7f) | 0x80;
    n = Math.floor(n / 0x80);
  }
  out[at++] = n;
  return at;
}

export interface Envelope extends TypeMeta {
  raw: Uint8Array;
  contentEncoding: string;
  contentType: string;
}

function prefixText(): string {
  return `[${[...PROTOBUF_MAGIC].join(' ')}]`;
}

/** protobuf.Serializer.Decode up to the envelope: the magic, then runtime.Unknown. Errors are Go's words. */
export function decodeEnvelope(data: Uint8Array): Envelope {
  if (data.length === 0) throw new ProtobufDecodeError('empty data');
  if (data.length < PROTOBUF_MAGIC.length || PROTOBUF_MAGIC.some((b, i) => data[i] !== b)) {
    throw new ProtobufDecodeError(`provided data does not appear to be a protobuf message, expected prefix ${prefixText()}`);
  }
  if (data.length === PROTOBUF_MAGIC.length) throw new ProtobufDecodeError('empty body');
  const out: Envelope = { apiVersion: '', kind: '', raw: new Uint8Array(), contentEncoding: '', contentType: '' };
  try {
    const r = binaryReader(data.subarray(PROTOBUF_MAGIC.length));
    while (r.pos < r.len) {
      const [no, wire] = fieldKey(r, 'Unknown');
      if (no >= 1 && no <= 4 && wire !== WireType.LengthDelimited) throw new ProtobufDecodeError(`proto: wrong wireType = ${wire} for field ${['TypeMeta', 'Raw', 'ContentEncoding', 'ContentType'][no - 1]}`);
      if (no === 1) {
        const tm = binaryReader(r.bytes());
        while (tm.pos < tm.len) {
          const [n, w] = fieldKey(tm, 'TypeMeta');
          if ((n === 1 || n === 2) && w !== WireType.LengthDelimited) throw new ProtobufDecodeError(`proto: wrong wireType = ${w} for field ${n === 1 ? 'APIVersion' : 'Kind'}`);
          if (n === 1) out.apiVersion = tm.string();
          else if (n === 2) out.kind = tm.string();
          else skipField(tm, w, n);
        }
      } else if (no === 2) out.raw = r.bytes();
      else if (no === 3) out.contentEncoding = r.string();
      else if (no === 4) out.contentType = r.string();
      else skipField(r, wire, no);
    }
  } catch (e) {
    if (e instanceof ProtobufDecodeError) throw e;
    throw new ProtobufDecodeError('unexpected EOF');
  }
  return out;
}

function rawDecoder(depth: number): (raw: Uint8Array) => unknown {
  return (raw) => {
    if (raw.length >= PROTOBUF_MAGIC.length && PROTOBUF_MAGIC.every((b, i) => raw[i] === b)) {
      if (depth >= MAX_NESTED_ENVELOPES) throw new ProtobufDecodeError('exceeded max depth');
      const env = decodeEnvelope(raw);
      return decodeEnvelopedObject(env, protobufDefinition(env.apiVersion, env.kind), depth + 1);
    }
    return parseJsonBytes(raw);
  };
}

/**
 * The JSON object of an envelope's raw message of definition `definition`, with the envelope's apiVersion
 * and kind (when it names them).
 */
export function decodeEnvelopedObject(env: Envelope, definition: string | undefined, depth = 0): Record<string, unknown> {
  if (!definition) throw new ProtobufDecodeError(`no protobuf message for ${env.apiVersion}, Kind=${env.kind}`);
  const decoded = decodeMessage(env.raw, definition, rawDecoder(depth));
  const body = (decoded !== null && typeof decoded === 'object' ? decoded : {}) as Record<string, unknown>;
  const object: Record<string, unknown> = {};
  if (env.kind !== '') object.kind = env.kind;
  if (env.apiVersion !== '') object.apiVersion = env.apiVersion;
  return Object.assign(object, body);
}

/** An application/vnd.kubernetes.protobuf body back to its JSON object (apiVersion and kind from the envelope). */
export function decodeProtobufObject(data: Uint8Array): Record<string, unknown> {
  const env = decodeEnvelope(data);
  return decodeEnvelopedObject(env, protobufDefinition(env.apiVersion, env.kind));
}
