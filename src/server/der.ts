// Just enough ASN.1 DER to write X.509 certificates (and to read back the fields a CA lends its leaves).

export type Der = Buffer;

function length(n: number): Buffer {
  if (n < 0x80) return Buffer.from([n]);
  const bytes: number[] = [];
  for (let v = n; v > 0; v = Math.floor(v / 256)) bytes.unshift(v & 0xff);
  return Buffer.from([0x80 | bytes.length, ...bytes]);
}

export function tlv(tag: number, content: Buffer): Der {
  return Buffer.concat([Buffer.from([tag]), length(content.length), content]);
}

export const sequence = (...items: Der[]): Der => tlv(0x30, Buffer.concat(items));
export const set = (...items: Der[]): Der => tlv(0x31, Buffer.concat(items));
/** [n] EXPLICIT (constructed, context-specific). */
export const explicit = (n: number, inner: Der): Der => tlv(0xa0 | n, inner);
/** [n] IMPLICIT primitive (context-specific). */
export const implicit = (n: number, content: Buffer): Der => tlv(0x80 | n, content);
export const boolean = (v: boolean): Der => tlv(0x01, Buffer.from([v ? 0xff : 0x00]));
export const octetString = (b: Buffer): Der => tlv(0x04, b);
export const utf8String = (s: string): Der => tlv(0x0c, Buffer.from(s, 'utf8'));
export const nullValue = (): Der => Buffer.from([0x05, 0x00]);

/** A non-negative INTEGER from big-endian bytes. */
export function unsignedInteger(bytes: Buffer): Der {
  let i = 0;
  while (i < bytes.length - 1 && bytes[i] === 0) i++;
  const trimmed = bytes.subarray(i);
  return tlv(0x02, trimmed[0] & 0x80 ? Buffer.concat([Buffer.from([0]), trimmed]) : trimmed);
}

export const smallInteger = (n: number): Der => unsignedInteger(Buffer.from([n]));

export function bitString(bytes: Buffer, unusedBits = 0): Der {
  return tlv(0x03, Buffer.concat([Buffer.from([unusedBits]), bytes]));
}

/** A named-bit BIT STRING (key usage): bit 0 is the most significant; trailing zero bits dropped, as DER requires. */
export function namedBits(bits: readonly number[]): Der {
  const highest = Math.max(...bits);
  const bytes = Buffer.alloc(Math.floor(highest / 8) + 1);
  for (const b of bits) bytes[Math.floor(b / 8)] |= 0x80 >> (b % 8);
  return bitString(bytes, 7 - (highest % 8));
}

export function oid(dotted: string): Der {
  const arcs = dotted.split('.').map(Number);
  const out: number[] = [40 * arcs[0] + arcs[1]];
  for (const arc of arcs.slice(2)) {
    const chunk: number[] = [arc & 0x7f];
    for (let v = Math.floor(arc / 128); v > 0; v = Math.floor(v / 128)) chunk.unshift((v & 0x7f) | 0x80);
    out.push(...chunk);
  }
  return tlv(0x06, Buffer.from(out));
}

/** UTCTime through 2049, GeneralizedTime from 2050 (RFC 5280 4.1.2.5). */
export function time(d: Date): Der {
  const iso = d.toISOString(); // YYYY-MM-DDTHH:MM:SS.sssZ
  const digits = iso.slice(0, 19).replace(/[-:T]/g, '');
  return d.getUTCFullYear() < 2050 ? tlv(0x17, Buffer.from(digits.slice(2) + 'Z')) : tlv(0x18, Buffer.from(digits + 'Z'));
}

export interface DerElement {
  readonly tag: number;
  /** The whole element, header included. */
  readonly raw: Buffer;
  readonly content: Buffer;
}

/** Reads the elements of a constructed value's content, in order. Throws on malformed input. */
export function readElements(content: Buffer): DerElement[] {
  const out: DerElement[] = [];
  let i = 0;
  while (i < content.length) {
    const start = i;
    const tag = content[i++];
    if (i >= content.length) throw new Error('truncated DER');
    let len = content[i++];
    if (len & 0x80) {
      const n = len & 0x7f;
      if (n === 0 || n > 4 || i + n > content.length) throw new Error('bad DER length');
      len = 0;
      for (let k = 0; k < n; k++) len = len * 256 + content[i++];
    }
    if (i + len > content.length) throw new Error('truncated DER');
    out.push({ tag, raw: content.subarray(start, i + len), content: content.subarray(i, i + len) });
    i += len;
  }
  return out;
}
