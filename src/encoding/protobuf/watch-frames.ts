// Protobuf watch streams: each event a metav1.WatchEvent{type, object: RawExtension{raw: the enveloped
// object}} written raw (no envelope of its own: the stream serializer is protobuf.RawSerializer), framed by
// a 4-byte big-endian length (protobuf.LengthDelimitedFramer).

import { binaryReader, binaryWriter, WireType, type BinaryWriter } from './wire.ts';
import { decodeEnvelope, decodeEnvelopedObject, protobufDefinition, writeEnveloped } from './envelope.ts';
import { ProtobufDecodeError } from './messages.ts';

let writer: BinaryWriter | undefined;
const sharedWriter = (): BinaryWriter => (writer ??= binaryWriter());
const LENGTH_PLACEHOLDER = new Uint8Array(4);

/** One framed event: length prefix, then WatchEvent. */
export function encodeWatchFrame(type: string, object: unknown): Uint8Array {
  const w = sharedWriter();
  w.raw(LENGTH_PLACEHOLDER);
  w.tag(1, WireType.LengthDelimited).string(type);
  w.tag(2, WireType.LengthDelimited).fork().tag(1, WireType.LengthDelimited).fork();
  try {
    writeEnveloped(w, object);
  } catch (e) {
    w.finish();
    throw e;
  }
  w.join().join();
  const frame = w.finish();
  new DataView(frame.buffer, frame.byteOffset, frame.byteLength).setUint32(0, frame.length - 4, false);
  return frame;
}

export interface DecodedWatchEvent {
  type: string;
  object: Record<string, unknown>;
}

/** One WatchEvent message (without its length prefix) back to JSON. */
export function decodeWatchEvent(message: Uint8Array): DecodedWatchEvent {
  const r = binaryReader(message);
  let type = '';
  let raw: Uint8Array = new Uint8Array();
  while (r.pos < r.len) {
    const [no, wire] = r.tag();
    if (no === 1 && wire === WireType.LengthDelimited) type = r.string();
    else if (no === 2 && wire === WireType.LengthDelimited) {
      const ext = binaryReader(r.bytes());
      while (ext.pos < ext.len) {
        const [n, w] = ext.tag();
        if (n === 1 && w === WireType.LengthDelimited) raw = ext.bytes();
        else ext.skip(w, n);
      }
    } else r.skip(wire, no);
  }
  const env = decodeEnvelope(raw);
  return { type, object: decodeEnvelopedObject(env, protobufDefinition(env.apiVersion, env.kind)) };
}

/** Splits a buffer into whole frames; `rest` holds the bytes of an incomplete last frame. */
export function splitWatchFrames(data: Uint8Array): { frames: Uint8Array[]; rest: Uint8Array } {
  const frames: Uint8Array[] = [];
  let pos = 0;
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  while (data.length - pos >= 4) {
    const len = view.getUint32(pos, false);
    if (data.length - pos - 4 < len) break;
    frames.push(data.subarray(pos + 4, pos + 4 + len));
    pos += 4 + len;
  }
  if (pos > data.length) throw new ProtobufDecodeError('unexpected EOF');
  return { frames, rest: data.subarray(pos) };
}
