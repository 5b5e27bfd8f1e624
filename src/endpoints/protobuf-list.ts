// Lists in protobuf from the watch cache's stored values: each item's message is encoded once per stored
// value (memoized on the cache's KeyValue, released with it) and the list is assembled around those bytes,
// as JSON lists are assembled from the stored JSON.

import { encodeProtobufListOf, protobufListItemDefinition } from '../encoding/protobuf/envelope.ts';
import { encodeMessage } from '../encoding/protobuf/messages.ts';
import { storedListItems } from '../registry/list-json.ts';
import type { KubeList } from '../registry/types.ts';
import type { KeyValue } from '../storage/types.ts';

const itemMessages = new WeakMap<KeyValue, { definition: string; bytes: Uint8Array }>();

/** The protobuf bytes of a list built from stored values; undefined for other lists (encode them as objects). */
export function encodeStoredListProtobuf(list: KubeList): Uint8Array | undefined {
  const stored = storedListItems(list);
  if (!stored) return undefined;
  const definition = protobufListItemDefinition(list.apiVersion, list.kind);
  if (!definition) return undefined;
  const items = stored.kvs.map((kv) => {
    const memo = itemMessages.get(kv);
    if (memo?.definition === definition) return memo.bytes;
    const bytes = encodeMessage(definition, stored.decode(kv));
    itemMessages.set(kv, { definition, bytes });
    return bytes;
  });
  return encodeProtobufListOf(list, items);
}
