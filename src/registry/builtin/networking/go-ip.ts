// Go's IP parsing as kube 1.31's networking validation meets it: net.ParseCIDR's network (ParseCIDRSloppy) and
// net.IPNet.Contains for NetworkPolicy ipBlocks, and net/netip's ParseAddr and ParsePrefix (Go 1.22) with their
// exact error texts, which ServiceCIDR and IPAddress validation put in their messages.

import { goQuote } from '../../../encoding/go-format.ts';
import { ipBytes, ipFamily, ipText } from '../ip-validation.ts';

/** What net.ParseCIDR returns as the network: the masked address (4 bytes for IPv4 text), its mask and length. */
export interface GoIPNet {
  ip: number[];
  mask: number[];
  ones: number;
}

/** Byte i of a mask of `ones` leading one bits. */
const maskByte = (ones: number, i: number): number => (0xff00 >> Math.min(8, Math.max(0, ones - 8 * i))) & 0xff;

/** The network of a CIDR that validCIDRErrors accepts. */
export function goParseCIDR(cidr: string): GoIPNet {
  const slash = cidr.indexOf('/');
  const address = cidr.slice(0, slash);
  const ones = Number(cidr.slice(slash + 1));
  const ipv4 = ipFamily(address) === 4;
  const mask = Array.from({ length: ipv4 ? 4 : 16 }, (_, i) => maskByte(ones, i));
  const bytes = ipv4 ? ipBytes(address).slice(12) : ipBytes(address);
  return { ip: bytes.map((b, i) => b & mask[i]), mask, ones };
}

/** net.IP.To4: the IPv4 address a 4-byte or IPv4-mapped 16-byte address holds. */
export function goTo4(ip: number[]): number[] | undefined {
  if (ip.length === 4) return ip;
  return ip.slice(0, 10).every((b) => b === 0) && ip[10] === 0xff && ip[11] === 0xff ? ip.slice(12) : undefined;
}

/** net.IPNet.Contains, IPv4-mapped addresses and all. */
export function goNetContains(net: GoIPNet, ip: number[]): boolean {
  const network = goTo4(net.ip) ?? net.ip;
  const mask = net.mask.length === 16 && network.length === 4 ? net.mask.slice(12) : net.mask;
  const address = goTo4(ip) ?? ip;
  return address.length === network.length && address.every((b, i) => (b & mask[i]) === (network[i] & mask[i]));
}

/** A parsed netip.Addr: 4 or 16 bytes, and the zone of an IPv6 address. */
export interface NetipAddr {
  bytes: number[];
  zone: string;
}

export type Parsed<T> = { ok: T } | { error: string };

function addrError(input: string, msg: string, at = ''): { error: string } {
  return { error: `ParseAddr(${goQuote(input)}): ${msg}${at ? ` (at ${goQuote(at)})` : ''}` };
}

/** parseIPv4Fields: the four octets of input[from:end], no leading zeros. */
function parseIPv4Fields(input: string, from: number, end: number): Parsed<number[]> {
  const s = input.slice(from, end);
  const fields: number[] = [];
  let value = 0;
  let digits = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (c >= '0' && c <= '9') {
      if (digits === 1 && value === 0) return addrError(input, 'IPv4 field has octet with leading zero');
      value = value * 10 + Number(c);
      digits++;
      if (value > 255) return addrError(input, 'IPv4 field has value >255');
    } else if (c === '.') {
      if (i === 0 || i === s.length - 1 || s[i - 1] === '.') return addrError(input, 'IPv4 field must have at least one digit', s.slice(i));
      if (fields.length === 3) return addrError(input, 'IPv4 address too long');
      fields.push(value);
      value = 0;
      digits = 0;
    } else {
      return addrError(input, 'unexpected character', s.slice(i));
    }
  }
  if (fields.length < 3) return addrError(input, 'IPv4 address too short');
  return { ok: [...fields, value] };
}

const HEX = /^[0-9a-fA-F]$/;

/** parseIPv6: groups, one "::", an embedded IPv4 tail, a zone after "%". */
function parseIPv6(input: string): Parsed<NetipAddr> {
  const percent = input.indexOf('%');
  const end = percent >= 0 ? percent : input.length;
  const zone = percent >= 0 ? input.slice(percent + 1) : '';
  if (percent >= 0 && zone === '') return addrError(input, 'zone must be a non-empty string');
  let s = input.slice(0, end);
  const ip = new Array<number>(16).fill(0);
  let ellipsis = -1;
  if (s.startsWith('::')) {
    ellipsis = 0;
    s = s.slice(2);
    if (s === '') return { ok: { bytes: ip, zone } };
  }
  let i = 0;
  while (i < 16) {
    let off = 0;
    let acc = 0;
    for (; off < s.length && HEX.test(s[off]); off++) {
      acc = acc * 16 + parseInt(s[off], 16);
      if (off > 3) return addrError(input, 'each colon-separated field must have at most 4 hex digits', s);
      if (acc > 0xffff) return addrError(input, 'IPv6 field has value >=2^16', s);
    }
    if (off === 0) return addrError(input, 'each colon-separated field must have at least one digit', s);
    if (off < s.length && s[off] === '.') {
      if (ellipsis < 0 && i !== 12) return addrError(input, 'embedded IPv4 address must replace the final 2 fields of the address', s);
      if (i + 4 > 16) return addrError(input, 'too many hex fields to fit an embedded IPv4 at the end of the address', s);
      const v4 = parseIPv4Fields(input, end - s.length, end);
      if ('error' in v4) return v4;
      ip.splice(i, 4, ...v4.ok);
      s = '';
      i += 4;
      break;
    }
    ip[i] = acc >> 8;
    ip[i + 1] = acc & 0xff;
    i += 2;
    s = s.slice(off);
    if (s === '') break;
    if (s[0] !== ':') return addrError(input, 'unexpected character, want colon', s);
    if (s.length === 1) return addrError(input, 'colon must be followed by more characters', s);
    s = s.slice(1);
    if (s[0] === ':') {
      if (ellipsis >= 0) return addrError(input, 'multiple :: in address', s);
      ellipsis = i;
      s = s.slice(1);
      if (s === '') break;
    }
  }
  if (s !== '') return addrError(input, 'trailing garbage after address', s);
  if (i < 16) {
    if (ellipsis < 0) return addrError(input, 'address string too short');
    const head = ip.slice(0, ellipsis);
    const tail = ip.slice(ellipsis, i);
    return { ok: { bytes: [...head, ...new Array<number>(16 - i).fill(0), ...tail], zone } };
  }
  if (ellipsis >= 0) return addrError(input, 'the :: must expand to at least one field of zeros');
  return { ok: { bytes: ip, zone } };
}

/** netip.ParseAddr. */
export function netipParseAddr(s: string): Parsed<NetipAddr> {
  for (const c of s) {
    if (c === '.') {
      const v4 = parseIPv4Fields(s, 0, s.length);
      return 'error' in v4 ? v4 : { ok: { bytes: v4.ok, zone: '' } };
    }
    if (c === ':') return parseIPv6(s);
    if (c === '%') return addrError(s, 'missing IPv6 address');
  }
  return addrError(s, 'unable to parse IP');
}

const toBigInt = (bytes: number[]): bigint => bytes.reduce((acc, b) => (acc << 8n) | BigInt(b), 0n);

/** netip.Addr.String: dotted IPv4, "::ffff:" and dotted for IPv4-mapped, else RFC 5952, then any zone. */
export function netipAddrString(addr: NetipAddr): string {
  if (addr.bytes.length === 4) return addr.bytes.join('.');
  const mapped = goTo4(addr.bytes);
  const text = mapped ? `::ffff:${mapped.join('.')}` : ipText(6, toBigInt(addr.bytes));
  return addr.zone ? `${text}%${addr.zone}` : text;
}

/** A parsed netip.Prefix. */
export interface NetipPrefix {
  addr: NetipAddr;
  bits: number;
}

/** netip.ParsePrefix. */
export function netipParsePrefix(s: string): Parsed<NetipPrefix> {
  const refused = (why: string) => ({ error: `netip.ParsePrefix(${goQuote(s)}): ${why}` });
  const slash = s.lastIndexOf('/');
  if (slash < 0) return refused("no '/'");
  const addr = netipParseAddr(s.slice(0, slash));
  if ('error' in addr) return refused(addr.error);
  const ipv6 = addr.ok.bytes.length === 16;
  if (ipv6 && addr.ok.zone !== '') return refused('IPv6 zones cannot be present in a prefix');
  const bitsText = s.slice(slash + 1);
  // strconv.Atoi refuses what overflows an int64; netip refuses signs and leading zeros itself.
  if (!/^(0|[1-9][0-9]*)$/.test(bitsText) || BigInt(bitsText) > 0x7fffffffffffffffn) return refused(`bad bits after slash: ${goQuote(bitsText)}`);
  const bits = Number(bitsText);
  if (bits > (ipv6 ? 128 : 32)) return refused('prefix length out of range');
  return { ok: { addr: addr.ok, bits } };
}

/** netip.Prefix.Masked's address: the bits past the prefix length cleared. */
export function netipMaskedAddr(prefix: NetipPrefix): NetipAddr {
  const bytes = prefix.addr.bytes.map((b, i) => b & maskByte(prefix.bits, i));
  return { bytes, zone: prefix.addr.zone };
}
