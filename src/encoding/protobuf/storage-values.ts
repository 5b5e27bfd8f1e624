// The storage codec of --storage-media-type (kube's storage.NewStorageCodec): objects of built-in kinds are written
// as JSON or, with application/vnd.kubernetes.protobuf, as the k8s\0 envelope kube-apiserver writes to etcd.
// Custom resources (no protobuf message) stay JSON in either mode, and so do the kinds of the apiextensions and
// aggregator servers (CustomResourceDefinition, APIService), whose storage codecs kube fixes to JSON. Reading recognizes both forms whatever the flag
// (kube's storage decoder is a recognizer over JSON and protobuf), so an etcd written by kube-apiserver can be served.

import type { ValueCodec } from '../../storage/value-codec.ts';
import { TEXT_VALUES } from '../../storage/value-codec.ts';
import { decodeProtobufObject, encodeProtobufObject, PROTOBUF_MAGIC, protobufDefinition } from './envelope.ts';

export type StorageMediaType = 'application/json' | 'application/vnd.kubernetes.protobuf';

/** Groups whose objects kube stores as JSON whatever --storage-media-type says (their servers' own codecs). */
const JSON_ONLY_GROUPS = new Set(['apiextensions.k8s.io', 'apiregistration.k8s.io']);

export function isEnveloped(bytes: Uint8Array): boolean {
  return bytes.length > PROTOBUF_MAGIC.length && bytes[0] === PROTOBUF_MAGIC[0] && bytes[1] === PROTOBUF_MAGIC[1] && bytes[2] === PROTOBUF_MAGIC[2] && bytes[3] === PROTOBUF_MAGIC[3];
}

function groupOf(apiVersion: string): string {
  const slash = apiVersion.indexOf('/');
  return slash < 0 ? '' : apiVersion.slice(0, slash);
}

/** Stored bytes (JSON or an envelope) to JSON text: kind, apiVersion, then the message's fields in field order. */
function decodeValue(bytes: Uint8Array): string {
  if (!isEnveloped(bytes)) return TEXT_VALUES.decode(bytes);
  return JSON.stringify(decodeProtobufObject(bytes));
}

/** The object's envelope when its kind is stored as protobuf; undefined when it stays JSON. */
function encodeEnveloped(value: string): Uint8Array | undefined {
  let obj: unknown;
  try {
    obj = JSON.parse(value);
  } catch {
    return undefined;
  }
  if (obj === null || typeof obj !== 'object' || Array.isArray(obj)) return undefined;
  const { apiVersion, kind } = obj as { apiVersion?: unknown; kind?: unknown };
  if (typeof apiVersion !== 'string' || typeof kind !== 'string' || JSON_ONLY_GROUPS.has(groupOf(apiVersion))) return undefined;
  if (protobufDefinition(apiVersion, kind) === undefined) return undefined;
  return encodeProtobufObject(obj);
}

const JSON_STORAGE: ValueCodec = { encode: TEXT_VALUES.encode, decode: decodeValue, lossless: true };

const PROTOBUF_STORAGE: ValueCodec = {
  encode: (value) => encodeEnveloped(value) ?? TEXT_VALUES.encode(value),
  decode: decodeValue,
  lossless: false,
};

export function storageValueCodec(mediaType: StorageMediaType = 'application/json'): ValueCodec {
  return mediaType === 'application/vnd.kubernetes.protobuf' ? PROTOBUF_STORAGE : JSON_STORAGE;
}
