// Protobuf responses from stored values (lists from the watch cache, gets): each object's message is encoded once
// per stored value (memoized on its KeyValue, released with it) and the response is assembled around those bytes,
// as JSON responses are spliced from the stored JSON.

import { encodeEnvelopedMessage, encodeProtobufListOf, encodeProtobufObject, protobufDefinition, protobufListItemDefinition } from '../encoding/protobuf/envelope.ts';
import { servedObject } from '../registry/store-codec.ts';
import { bodyBuffer, type BodyHolder } from './body-pool.ts';
import { encodeMessage } from '../encoding/protobuf/messages.ts';
import { storedListItems } from '../registry/list-json.ts';
import type { KubeList, ResourceDefinition, StoredObject } from '../registry/types.ts';
import type { KeyValue } from '../storage/types.ts';

/**
 * An object's message as encoded once per stored value: the message alone (from a list), or the whole enveloped
 * object a get answers with, the message being bytes[messageStart, messageEnd) of it.
 */
interface EncodedItem {
  readonly definition: string;
  readonly bytes: Uint8Array;
  readonly enveloped: boolean;
  readonly messageStart: number;
  readonly messageEnd: number;
}

/** Envelope fields 3 and 4 (contentEncoding and contentType, both empty) close every enveloped object. */
const ENVELOPE_TRAILER = 4;

const encodedItems = new WeakMap<KeyValue, EncodedItem>();

/**
 * The protobuf bytes of a list built from stored values, in a body buffer `holder` sends (pooled as JSON lists'
 * are); undefined for other lists (encode them as objects).
 */
export function encodeStoredListProtobuf(list: KubeList, holder: BodyHolder): Uint8Array | undefined {
  const stored = storedListItems(list);
  if (!stored) return undefined;
  const definition = protobufListItemDefinition(list.apiVersion, list.kind);
  if (!definition) return undefined;
  const items = stored.kvs.map((kv) => messageOf(kv, definition, stored.decode));
  return encodeProtobufListOf(list, items, (size) => bodyBuffer(size, holder));
}

function encodedItem(kv: KeyValue, definition: string, decode: (kv: KeyValue) => unknown): EncodedItem {
  const memo = encodedItems.get(kv);
  if (memo?.definition === definition) return memo;
  const bytes = encodeMessage(definition, decode(kv));
  const item = { definition, bytes, enveloped: false, messageStart: 0, messageEnd: bytes.length };
  encodedItems.set(kv, item);
  return item;
}

function messageOf(kv: KeyValue, definition: string, decode: (kv: KeyValue) => unknown): Uint8Array {
  const { bytes, enveloped, messageStart, messageEnd } = encodedItem(kv, definition, decode);
  return enveloped ? bytes.subarray(messageStart, messageEnd) : bytes;
}

/** A stored object's protobuf response: encoded once per stored value, in the envelope of its kind. */
export function storedProtobuf(answer: StoredObject, def: ResourceDefinition): Uint8Array {
  const definition = protobufDefinition(answer.apiVersion, def.kind);
  const decode = (kv: KeyValue) => servedObject(kv, def);
  if (!definition) return encodeProtobufObject(decode(answer.stored));
  const item = encodedItem(answer.stored, definition, decode);
  if (item.enveloped) return item.bytes;
  const bytes = encodeEnvelopedMessage(answer.apiVersion, def.kind, item.bytes);
  // The message is the envelope's field 2, which ends where the trailer starts.
  const messageEnd = bytes.length - ENVELOPE_TRAILER;
  encodedItems.set(answer.stored, { definition, bytes, enveloped: true, messageStart: messageEnd - item.bytes.length, messageEnd });
  return bytes;
}
