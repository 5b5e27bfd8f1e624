// The JSON body of a list whose items are already response bytes (list-json.ts): the list's head, its items
// joined, and the closing brackets, copied once into one buffer (pooled when large).

import { goEscape } from '../encoding/json.ts';
import { copyItems, type RawItems } from '../registry/raw-items.ts';
import type { KubeList } from '../registry/types.ts';
import { bodyBuffer, type BodyHolder } from './body-pool.ts';

const LIST_END = Buffer.from(']}\n', 'latin1');

/** The bytes encodeJson(list) gives (compact, Go's escaping, newline-terminated); holder: who sends them. */
export function rawListBody(list: KubeList, items: RawItems, holder: BodyHolder): Buffer {
  const json = JSON.stringify({ kind: list.kind, apiVersion: list.apiVersion, metadata: list.metadata });
  const head = goEscape(`${json.slice(0, -1)},"items":[`);
  const headBytes = Buffer.byteLength(head, 'utf8');
  const body = bodyBuffer(headBytes + items.length + LIST_END.length, holder);
  body.write(head, 0, 'utf8');
  const at = copyItems(items, body, headBytes);
  body.set(LIST_END, at);
  return body;
}
