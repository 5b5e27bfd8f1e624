// How stored values cross the wire to a backend that keeps bytes (etcd): the storage interface carries JSON text,
// the backend keeps whatever the codec makes of it. The codec is chosen in one place (encoding/protobuf/storage-values.ts)
// and handed to the backend when it opens.

export interface ValueCodec {
  /** The bytes to store for a value. */
  encode(value: string): Uint8Array;
  /** The value (JSON text) of stored bytes; throws when they cannot be read. */
  decode(bytes: Uint8Array): string;
  /** True when decode(encode(v)) === v for every value (no round trip needed to know what a write stored). */
  readonly lossless: boolean;
}

/** Values stored as their UTF-8 text (the default, and what tests of the bare backend use). */
export const TEXT_VALUES: ValueCodec = {
  encode: (value) => Buffer.from(value, 'utf8'),
  decode: (bytes) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8'),
  lossless: true,
};
