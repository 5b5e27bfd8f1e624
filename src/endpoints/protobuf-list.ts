// Protobuf responses from stored values (lists from the watch cache, gets): each object's message is encoded once
// per stored value (memoized on its KeyValue, released with it) and the response is assembled around those bytes,
// as JSON responses are spliced from the stored JSON.

import { encodeEnvelopedMessage, encodeProtobufListOf, encodeProtobufObject, protobufDefinition, protobufListItemDefinition } from '../encoding/protobuf/envelope.ts';
import { convertToVersion, decodeFromStorage } from '../registry/store-codec.ts';
import { encodeMessage } from '../encoding/protobuf/messages.ts';
import { storedListItems } from '../registry/list-json.ts';
import type { KubeList, ResourceDefinition, StoredObject } from '../registry/types.ts';
import type { KeyValue } from '../storage/types.ts';

const itemMessages = new WeakMap<KeyValue, { definition: string; bytes: Uint8Array }>();

/** The protobuf bytes of a list built from stored values; undefined for other lists (encode them as objects). */
export function encodeStoredListProtobuf(list: KubeList): Uint8Array | undefined {
  const stored = storedListItems(list);
  if (!stored) return undefined;
  const definition = protobufListItemDefinition(list.apiVersion, list.kind);
  if (!definition) return undefined;
  const items = stored.kvs.map((kv) => messageOf(kv, definition, stored.decode));
  return encodeProtobufListOf(list, items);
}

function messageOf(kv: KeyValue, definition: string, decode: (kv: KeyValue) => unknown): Uint8Array {
  const memo = itemMessages.get(kv);
  if (memo?.definition === definition) return memo.bytes;
  const bytes = encodeMessage(definition, decode(kv));
  itemMessages.set(kv, { definition, bytes });
  return bytes;
}

/** A stored object's protobuf response: its message encoded once per stored value, in the envelope of its kind. */
export function storedProtobuf(answer: StoredObject, def: ResourceDefinition): Uint8Array {
  const definition = protobufDefinition(answer.apiVersion, def.kind);
  const decode = (kv: KeyValue) => convertToVersion(decodeFromStorage(kv), def);
  if (!definition) return encodeProtobufObject(decode(answer.stored));
  return encodeEnvelopedMessage(answer.apiVersion, def.kind, messageOf(answer.stored, definition, decode));
}
