// A stored object of a built-in kind as the watch cache holds it: the bytes of its list item JSON (what a list
// response's `items` carries), from which the stored value is read back on demand. The cache then holds one copy of
// an object's text instead of the stored value and the list item side by side.

import { goEscape } from '../encoding/json.ts';
import type { KeyValue } from '../storage/types.ts';
import { resourceVersionPair, type JsonLayout } from './list-json.ts';
import { keptConcat, keptUtf8 } from './packed-bytes.ts';
import { memoizeString } from '../apis/string-memo.ts';

/**
 * A KeyValue whose value is `head` + json[1:cut] + json[resume:] (byte offsets, decoded as UTF-8). Usually head is
 * the stored text before metadata (`{"kind":…,"apiVersion":…,`, one string shared by the objects that start
 * alike) and json[cut:resume] is the resourceVersion pair the item has and the stored value has not. When the item
 * cannot give the stored text back (Go's escaping changed it, or its UTF-8 does not decode to it), head is the whole
 * stored value (cut 1, resume json.length).
 *
 * A class so that the value getter lives once, on the prototype, rather than once per held object.
 */
export class ItemKeyValue implements KeyValue {
  readonly key: string;
  readonly createRevision: number;
  readonly modRevision: number;
  /** The list item JSON's UTF-8 bytes: no kind or apiVersion, metadata.resourceVersion = modRevision, Go's escaping. */
  readonly json: Buffer;
  readonly head: string;
  readonly cut: number;
  readonly resume: number;
  /** Where the value of metadata, json's first key, ends in json (0 when head is the whole value). */
  readonly metadataEnd: number;

  constructor(kv: KeyValue, json: Buffer, head: string, cut: number, resume: number, metadataEnd: number) {
    this.key = kv.key;
    this.createRevision = kv.createRevision;
    this.modRevision = kv.modRevision;
    this.json = json;
    this.head = head;
    this.cut = cut;
    this.resume = resume;
    this.metadataEnd = metadataEnd;
  }

  get value(): string {
    return this.head + this.json.toString('utf8', 1, this.cut) + this.json.toString('utf8', this.resume);
  }
}

/** `{"metadata":`: where metadata's value starts in an item. */
const METADATA_START = 12;

/** The JSON text of a held object's metadata (with the item's resourceVersion), read without scanning the item. */
export function heldMetadataJson(kv: KeyValue): string | undefined {
  return kv instanceof ItemKeyValue && kv.metadataEnd > 0 ? kv.json.toString('utf8', METADATA_START, kv.metadataEnd) : undefined;
}

/** Heads by text, so the objects of a resource share theirs; bounded, past which each object keeps its own. */
const heads = new Map<string, string>();
const MAX_HEADS = 256;

function sharedHead(stored: string, end: number): string {
  const head = stored.slice(0, end);
  const known = heads.get(head);
  if (known !== undefined) return known;
  // A slice of the stored text would keep all of it alive: hold a copy.
  const copy = Buffer.from(head, 'utf8').toString('utf8');
  if (heads.size < MAX_HEADS) heads.set(copy, copy);
  return copy;
}

/** Per head: its UTF-8 bytes when Go's escaping leaves it as it is (null otherwise); bounded like `heads`. */
const headBytes = new Map<string, Buffer | null>();

function bytesOfHead(head: string): Buffer | null {
  let bytes = headBytes.get(head);
  if (bytes === undefined) {
    bytes = goEscape(head) === head ? Buffer.from(head, 'utf8') : null;
    if (headBytes.size < MAX_HEADS) headBytes.set(head, bytes);
  }
  return bytes;
}

const apiVersionTail = memoizeString((apiVersion) => `"apiVersion":${JSON.stringify(apiVersion)},`, 1000);

/**
 * Whether a get in `apiVersion` may answer with heldObjectJson(kv): the item gives the stored text back, and its
 * head (kind, apiVersion) names that apiVersion.
 */
export function servesHeldObject(kv: KeyValue, apiVersion: string): kv is ItemKeyValue {
  if (!(kv instanceof ItemKeyValue) || kv.cut === 1) return false;
  return kv.head.endsWith(apiVersionTail(apiVersion)) && bytesOfHead(kv.head) !== null;
}

/**
 * The get response of a held object (see servesHeldObject): its head, the item after its opening brace, a newline.
 * These are the bytes the stored text spliced with its resourceVersion and escaped gives, copied rather than
 * scanned.
 */
export function heldObjectJson(kv: ItemKeyValue): Buffer {
  const head = bytesOfHead(kv.head)!;
  const body = Buffer.allocUnsafe(head.length + kv.json.length);
  head.copy(body, 0);
  kv.json.copy(body, head.length, 1);
  body[body.length - 1] = 0x0a;
  return body;
}

/** kv (a built-in kind's stored value in the canonical shape `layout` describes) held as its list item. */
export function itemKeyValue(kv: KeyValue, layout: JsonLayout): ItemKeyValue {
  const stored = kv.value;
  const pair = resourceVersionPair(layout, kv.modRevision);
  const before = stored.slice(layout.metaKey, layout.insertAt);
  const text = `{${before}${pair}${stored.slice(layout.insertAt)}`;
  const escaped = goEscape(text);
  const json = keptUtf8(escaped);
  const ascii = json.length === escaped.length;
  // Outside ASCII the bytes give the text back unless it has a lone surrogate (encoded as U+FFFD).
  if (escaped !== text || (!ascii && json.toString('utf8') !== text)) return new ItemKeyValue(kv, json, stored, 1, json.length, 0);
  const cut = 1 + (ascii ? before.length : Buffer.byteLength(before, 'utf8'));
  const metaTail = stored.slice(layout.insertAt, layout.metadata[1]);
  const metadataEnd = cut + pair.length + (ascii ? metaTail.length : Buffer.byteLength(metaTail, 'utf8'));
  return new ItemKeyValue(kv, json, sharedHead(stored, layout.metaKey), cut, cut + pair.length, metadataEnd);
}

const RV_KEY = Buffer.from('"resourceVersion":"', 'latin1');

/**
 * The same stored value at kv's revision (kv.value equals previous.value): only the item's resourceVersion changes.
 * Metadata is the item's first key and its resourceVersion comes before any key that could hold the same text, so
 * the first "resourceVersion" key from the pair on (or from the start when head is the whole value) is that one.
 */
export function itemAtRevision(previous: ItemKeyValue, kv: KeyValue): ItemKeyValue {
  const old = previous.json;
  const whole = previous.cut === 1;
  const valueStart = old.indexOf(RV_KEY, previous.cut) + RV_KEY.length;
  const valueEnd = old.indexOf(0x22, valueStart);
  const json = keptConcat([old.subarray(0, valueStart), Buffer.from(String(kv.modRevision), 'latin1'), old.subarray(valueEnd)]);
  const grown = json.length - old.length;
  return new ItemKeyValue(kv, json, previous.head, previous.cut, whole ? json.length : previous.resume + grown, whole ? 0 : previous.metadataEnd + grown);
}
