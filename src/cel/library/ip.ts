// Kubernetes IP and CIDR libraries (k8s.io/apiserver/pkg/cel/library/ip.go, cidr.go; enabled for CRD rules since
// 1.30): ip, isIP, ip.isCanonical, cidr, isCIDR and their methods, string() of both. Parsing follows Go's netip:
// no leading zeros in IPv4 octets, no zones, no IPv4-mapped IPv6 addresses.

import { isIPv4, isIPv6 } from 'node:net';
import { CelScalar } from '@bufbuild/cel';
import { ipText } from '../../registry/builtin/ip-validation.ts';
import { OpaqueValue, func, opaqueMethod, expect, OPAQUE, noSuchOverload } from '../opaque.ts';

const { STRING, BOOL, INT } = CelScalar;

export class IPValue extends OpaqueValue {
  readonly typeName = 'net.IP';
  readonly family: 4 | 6;
  /** The address as a 32- or 128-bit number. */
  readonly bits: bigint;
  constructor(family: 4 | 6, bits: bigint) {
    super();
    this.family = family;
    this.bits = bits;
  }
  protected identity(): string {
    return `${this.family}:${this.bits}`;
  }
  get width(): number {
    return this.family === 4 ? 32 : 128;
  }
  override toString(): string {
    return ipText(this.family, this.bits);
  }
}

export class CIDRValue extends OpaqueValue {
  readonly typeName = 'net.IPPrefix';
  readonly ip: IPValue;
  readonly prefix: number;
  constructor(ip: IPValue, prefix: number) {
    super();
    this.ip = ip;
    this.prefix = prefix;
  }
  protected identity(): string {
    return `${this.ip.family}:${this.ip.bits}/${this.prefix}`;
  }
  get mask(): bigint {
    const w = BigInt(this.ip.width);
    return ((1n << w) - 1n) ^ ((1n << (w - BigInt(this.prefix))) - 1n);
  }
  masked(): CIDRValue {
    return new CIDRValue(new IPValue(this.ip.family, this.ip.bits & this.mask), this.prefix);
  }
  containsIP(ip: IPValue): boolean {
    return ip.family === this.ip.family && (ip.bits & this.mask) === (this.ip.bits & this.mask);
  }
  override toString(): string {
    return `${this.ip.toString()}/${this.prefix}`;
  }
}

function parseIPv4(s: string): bigint | undefined {
  const parts = s.split('.');
  if (parts.length !== 4 || parts.some((p) => !/^(0|[1-9][0-9]{0,2})$/.test(p) || Number(p) > 255)) return undefined;
  return parts.reduce((acc, p) => (acc << 8n) | BigInt(p), 0n);
}

function parseIPv6(s: string): bigint | undefined {
  if (!isIPv6(s)) return undefined;
  let text = s;
  const lastColon = text.lastIndexOf(':');
  if (text.slice(lastColon + 1).includes('.')) {
    // a trailing dotted IPv4 part is two 16-bit groups
    const v4 = parseIPv4(text.slice(lastColon + 1));
    if (v4 === undefined) return undefined;
    text = `${text.slice(0, lastColon + 1)}${(v4 >> 16n).toString(16)}:${(v4 & 0xffffn).toString(16)}`;
  }
  const halves = text.split('::');
  const left = halves[0] === '' ? [] : halves[0].split(':');
  const right = halves.length > 1 && halves[1] !== '' ? halves[1].split(':') : [];
  const zeros = halves.length > 1 ? 8 - left.length - right.length : 0;
  const groups = [...left, ...Array<string>(zeros).fill('0'), ...right];
  if (groups.length !== 8) return undefined;
  return groups.reduce((acc, g) => (acc << 16n) | BigInt(`0x${g}`), 0n);
}

function ipError(s: string, detail: string): Error {
  return new Error(`IP Address ${JSON.stringify(s)} parse error during conversion from string: ${detail}`);
}

export function parseIP(s: string): IPValue {
  if (s.includes('%')) throw new Error(`IP address ${JSON.stringify(s)} with zone value is not allowed`);
  if (isIPv4(s) || /^[0-9.]+$/.test(s)) {
    const v4 = parseIPv4(s);
    if (v4 === undefined) throw ipError(s, `ParseAddr(${JSON.stringify(s)}): IPv4 field has octet with leading zero`);
    return new IPValue(4, v4);
  }
  const v6 = parseIPv6(s);
  if (v6 === undefined) throw ipError(s, `ParseAddr(${JSON.stringify(s)}): unable to parse IP`);
  if (v6 >> 32n === 0xffffn) throw new Error(`IPv4-mapped IPv6 address ${JSON.stringify(s)} is not allowed`);
  return new IPValue(6, v6);
}

export function parseCIDR(s: string): CIDRValue {
  const slash = s.lastIndexOf('/');
  const prefixText = slash < 0 ? '' : s.slice(slash + 1);
  let ip: IPValue;
  try {
    ip = parseIP(slash < 0 ? s : s.slice(0, slash));
  } catch {
    throw new Error(`network address ${JSON.stringify(s)} parse error during conversion from string: netip.ParsePrefix(${JSON.stringify(s)}): ParseAddr: unable to parse IP`);
  }
  const prefix = Number(prefixText);
  if (!/^(0|[1-9][0-9]*)$/.test(prefixText) || prefix > ip.width) {
    throw new Error(`network address ${JSON.stringify(s)} parse error during conversion from string: netip.ParsePrefix(${JSON.stringify(s)}): bad bits after slash: ${JSON.stringify(prefixText)}`);
  }
  return new CIDRValue(ip, prefix);
}

function ok(f: () => unknown): boolean {
  try {
    f();
    return true;
  } catch {
    return false;
  }
}

const ipOf = (v: unknown): IPValue => (typeof v === 'string' ? parseIP(v) : expect(IPValue, v));
const cidrOf = (v: unknown): CIDRValue => (typeof v === 'string' ? parseCIDR(v) : expect(CIDRValue, v));

function inRange(ip: IPValue, cidr: string): boolean {
  return parseCIDR(cidr).containsIP(ip);
}

export const ipFuncs = [
  func('ip', [STRING], OPAQUE, (s) => parseIP(s as string)),
  func('isIP', [STRING], BOOL, (s) => ok(() => parseIP(s as string))),
  func('ip.isCanonical', [STRING], BOOL, (s) => parseIP(s as string).toString() === s),
  func('string', [OPAQUE], STRING, (v) => {
    if (v instanceof IPValue || v instanceof CIDRValue) return v.toString();
    throw noSuchOverload();
  }),
  opaqueMethod('family', IPValue, [], INT, (ip) => BigInt(ip.family)),
  opaqueMethod('isUnspecified', IPValue, [], BOOL, (ip) => ip.bits === 0n),
  opaqueMethod('isLoopback', IPValue, [], BOOL, (ip) => (ip.family === 4 ? inRange(ip, '127.0.0.0/8') : ip.bits === 1n)),
  opaqueMethod('isLinkLocalMulticast', IPValue, [], BOOL, (ip) => (ip.family === 4 ? inRange(ip, '224.0.0.0/24') : inRange(ip, 'ff02::/16'))),
  opaqueMethod('isLinkLocalUnicast', IPValue, [], BOOL, (ip) => (ip.family === 4 ? inRange(ip, '169.254.0.0/16') : inRange(ip, 'fe80::/10'))),
  opaqueMethod('isGlobalUnicast', IPValue, [], BOOL, (ip) => {
    if (ip.bits === 0n) return false;
    if (ip.family === 4) return !(inRange(ip, '127.0.0.0/8') || inRange(ip, '169.254.0.0/16') || inRange(ip, '224.0.0.0/4') || ip.bits === 0xffffffffn);
    return !(ip.bits === 1n || inRange(ip, 'fe80::/10') || inRange(ip, 'ff00::/8'));
  }),
  func('cidr', [STRING], OPAQUE, (s) => parseCIDR(s as string)),
  func('isCIDR', [STRING], BOOL, (s) => ok(() => parseCIDR(s as string))),
  opaqueMethod('containsIP', CIDRValue, [OPAQUE], BOOL, (c, ip) => c.containsIP(ipOf(ip))),
  opaqueMethod('containsIP', CIDRValue, [STRING], BOOL, (c, ip) => c.containsIP(ipOf(ip))),
  opaqueMethod('containsCIDR', CIDRValue, [OPAQUE], BOOL, (c, o) => {
    const other = cidrOf(o);
    return other.prefix >= c.prefix && c.containsIP(other.ip);
  }),
  opaqueMethod('containsCIDR', CIDRValue, [STRING], BOOL, (c, o) => {
    const other = cidrOf(o);
    return other.prefix >= c.prefix && c.containsIP(other.ip);
  }),
  opaqueMethod('ip', CIDRValue, [], OPAQUE, (c) => c.ip),
  opaqueMethod('masked', CIDRValue, [], OPAQUE, (c) => c.masked()),
  opaqueMethod('prefixLength', CIDRValue, [], INT, (c) => BigInt(c.prefix)),
];
