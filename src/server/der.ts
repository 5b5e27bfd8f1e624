// The little ASN.1 DER the cluster PKI needs (ITU-T X.690): encoding the types an X.509 certificate is made of, and
// walking an encoded one to find its parts.

/** Tag, definite length, contents. */
export function tlv(tag: number, contents: Buffer): Buffer {
  const n = contents.length;
  let head: number[];
  if (n < 0x80) head = [tag, n];
  else {
    const bytes: number[] = [];
    for (let rest = n; rest > 0; rest = Math.floor(rest / 256)) bytes.unshift(rest & 0xff);
    head = [tag, 0x80 | bytes.length, ...bytes];
  }
  return Buffer.concat([Buffer.from(head), contents]);
}

export const sequence = (...items: Buffer[]): Buffer => tlv(0x30, Buffer.concat(items));
export const set = (...items: Buffer[]): Buffer => tlv(0x31, Buffer.concat(items));
export const octetString = (b: Buffer): Buffer => tlv(0x04, b);
export const utf8String = (s: string): Buffer => tlv(0x0c, Buffer.from(s, 'utf8'));
export const boolean = (v: boolean): Buffer => tlv(0x01, Buffer.from([v ? 0xff : 0x00]));
/** [n] EXPLICIT: a constructed context-specific tag around one encoded value. */
export const explicit = (n: number, inner: Buffer): Buffer => tlv(0xa0 | n, inner);
/** [n] IMPLICIT of a primitive type: the value's contents under a context-specific tag. */
export const implicit = (n: number, contents: Buffer): Buffer => tlv(0x80 | n, contents);

/** A non-negative INTEGER from its big-endian magnitude (a leading zero octet added when the top bit is set). */
export function unsignedInteger(magnitude: Buffer): Buffer {
  let i = 0;
  while (i < magnitude.length - 1 && magnitude[i] === 0) i++;
  const m = magnitude.subarray(i);
  return tlv(0x02, m[0]! & 0x80 ? Buffer.concat([Buffer.from([0]), m]) : m);
}

export function oid(dotted: string): Buffer {
  const [a, b, ...rest] = dotted.split('.').map(Number);
  const out: number[] = [];
  for (const arc of [a! * 40 + b!, ...rest]) {
    const septets = [arc & 0x7f];
    for (let v = Math.floor(arc / 128); v > 0; v = Math.floor(v / 128)) septets.unshift((v & 0x7f) | 0x80);
    out.push(...septets);
  }
  return tlv(0x06, Buffer.from(out));
}

/** A BIT STRING of whole octets. */
export const bitString = (bytes: Buffer): Buffer => tlv(0x03, Buffer.concat([Buffer.from([0]), bytes]));

/** A named BIT STRING (key usage): bit 0 is the first octet's top bit; trailing zero bits are dropped, as DER wants. */
export function namedBits(bits: readonly number[]): Buffer {
  const last = Math.max(...bits);
  const bytes = Buffer.alloc(Math.floor(last / 8) + 1);
  for (const bit of bits) bytes[Math.floor(bit / 8)]! |= 0x80 >> bit % 8;
  return tlv(0x03, Buffer.concat([Buffer.from([7 - (last % 8)]), bytes]));
}

/** UTCTime through 2049, GeneralizedTime from 2050 (RFC 5280 4.1.2.5), to the second, in UTC. */
export function time(d: Date): Buffer {
  const iso = d.toISOString(); // YYYY-MM-DDTHH:MM:SS.sssZ
  const digits = iso.slice(0, 19).replace(/[-T:]/g, '') + 'Z';
  return d.getUTCFullYear() < 2050 ? tlv(0x17, Buffer.from(digits.slice(2), 'latin1')) : tlv(0x18, Buffer.from(digits, 'latin1'));
}

export interface Element {
  readonly tag: number;
  /** The whole encoding, header included. */
  readonly raw: Buffer;
  readonly contents: Buffer;
}

/** The elements encoded one after another in `b` (the contents of a SEQUENCE or SET, or a whole document). */
export function children(b: Buffer): Element[] {
  const out: Element[] = [];
  let i = 0;
  while (i < b.length) {
    const tag = b[i]!;
    let len = b[i + 1]!;
    let head = 2;
    if (len & 0x80) {
      const n = len & 0x7f;
      len = 0;
      for (let k = 0; k < n; k++) len = len * 256 + b[i + 2 + k]!;
      head += n;
    }
    if (i + head + len > b.length) throw new Error('truncated DER');
    out.push({ tag, raw: b.subarray(i, i + head + len), contents: b.subarray(i + head, i + head + len) });
    i += head + len;
  }
  return out;
}

/** The one element that `b` encodes. */
export function element(b: Buffer): Element {
  const [e] = children(b);
  if (!e) throw new Error('empty DER');
  return e;
}

/** The dotted text of an OBJECT IDENTIFIER's contents. */
export function oidText(contents: Buffer): string {
  const arcs: number[] = [];
  let value = 0;
  for (const byte of contents) {
    value = value * 128 + (byte & 0x7f);
    if (byte & 0x80) continue;
    if (arcs.length === 0) arcs.push(value < 80 ? Math.floor(value / 40) : 2, value < 80 ? value % 40 : value - 80);
    else arcs.push(value);
    value = 0;
  }
  return arcs.join('.');
}
