// @bufbuild/protobuf's wire-format reader and writer, loaded on first use: importing it costs ~10 ms and ~1 MB of
// heap at start-up, and many servers never meet a protobuf client. The codecs are synchronous, hence require().

import { createRequire } from 'node:module';
import type * as Wire from '@bufbuild/protobuf/wire';

export type BinaryReader = Wire.BinaryReader;
export type BinaryWriter = Wire.BinaryWriter;
export type WireType = Wire.WireType;

/** Protobuf's wire types: the values of the package's WireType enum, available before the package is loaded. */
export const WireType = { Varint: 0, Bit64: 1, LengthDelimited: 2, StartGroup: 3, EndGroup: 4, Bit32: 5 } as unknown as typeof Wire.WireType;

let wire: typeof Wire | undefined;

function loaded(): typeof Wire {
  return (wire ??= createRequire(import.meta.url)('@bufbuild/protobuf/wire') as typeof Wire);
}

export function binaryReader(bytes: Uint8Array): BinaryReader {
  return new (loaded().BinaryReader)(bytes);
}

export function binaryWriter(): BinaryWriter {
  return new (loaded().BinaryWriter)();
}
