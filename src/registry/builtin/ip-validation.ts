// IP address and CIDR checks with kube's messages (k8s.io/apimachinery/pkg/util/validation ip.go and the
// core group's ValidateNonSpecialIP), shared by Endpoints, EndpointSlices, NetworkPolicies and Nodes.

import { isIP } from 'node:net';
import { fieldErrors, type FieldError } from '../../apis/errors.ts';

export const INVALID_IP = 'must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)';
export const INVALID_CIDR = 'must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)';

/**
 * 4 or 6 for an IP address (IPv4 with leading zeros accepted, as ParseIPSloppy does), 0 otherwise. An IPv6 zone
 * ("fe80::1%eth0"), which Node's isIP takes, is no address to Go's ParseIP.
 */
export function ipFamily(value: string): 0 | 4 | 6 {
  if (/^\d{1,3}(\.\d{1,3}){3}$/.test(value)) return value.split('.').every((o) => Number(o) <= 255) ? 4 : 0;
  return isIP(value) === 6 && !value.includes('%') ? 6 : 0;
}

/**
 * The family Go's k8s.io/utils/net gives an address (IsIPv6String: parsed, and To4() == nil): an IPv4-mapped IPv6
 * address ("::ffff:10.0.0.1") counts as IPv4. 0 for no address.
 */
export function goIPFamily(value: string): 0 | 4 | 6 {
  const family = ipFamily(value);
  if (family !== 6) return family;
  const b = ipBytes(value);
  return b.slice(0, 10).every((x) => x === 0) && b[10] === 0xff && b[11] === 0xff ? 4 : 6;
}

/** The 16 bytes of an IPv6 address (IPv4-mapped for IPv4), for range checks. */
export function ipBytes(value: string): number[] {
  if (ipFamily(value) === 4) return [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, ...value.split('.').map(Number)];
  let text = value;
  const tail = /:(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  const v4: number[] = [];
  if (tail) {
    v4.push(...tail[1].split('.').map(Number));
    text = text.slice(0, -tail[1].length) + '0:0';
  }
  const [head, rest] = text.includes('::') ? text.split('::') : [text, undefined];
  const part = (s: string | undefined) => (s ? s.split(':').filter((x) => x !== '').map((h) => parseInt(h, 16)) : []);
  const hi = part(head);
  const lo = part(rest);
  const groups = [...hi, ...new Array(8 - hi.length - lo.length).fill(0), ...lo];
  const bytes = groups.flatMap((g) => [g >> 8, g & 0xff]);
  if (v4.length) bytes.splice(12, 4, ...v4);
  return bytes;
}

export function validIPErrors(value: string, path: string): FieldError[] {
  return ipFamily(value) === 0 ? [fieldErrors.invalid(path, value, INVALID_IP)] : [];
}

/** ValidateNonSpecialIP: no unspecified, loopback or link-local addresses. */
export function nonSpecialIPErrors(value: string, path: string): FieldError[] {
  const family = ipFamily(value);
  if (family === 0) return [fieldErrors.invalid(path, value, 'must be a valid IP address')];
  const b = ipBytes(value);
  const mapped4 = b.slice(0, 10).every((x) => x === 0) && b[10] === 0xff && b[11] === 0xff;
  const errs: FieldError[] = [];
  if (mapped4 ? b.slice(12).every((x) => x === 0) : b.every((x) => x === 0)) errs.push(fieldErrors.invalid(path, value, `may not be unspecified (${value})`));
  if (mapped4 ? b[12] === 127 : b.slice(0, 15).every((x) => x === 0) && b[15] === 1) errs.push(fieldErrors.invalid(path, value, 'may not be in the loopback range (127.0.0.0/8, ::1/128)'));
  if (mapped4 ? b[12] === 169 && b[13] === 254 : b[0] === 0xfe && (b[1] & 0xc0) === 0x80) errs.push(fieldErrors.invalid(path, value, 'may not be in the link-local range (169.254.0.0/16, fe80::/10)'));
  if (mapped4 ? b[12] === 224 && b[13] === 0 && b[14] === 0 : b[0] === 0xff && (b[1] & 0x0f) === 2) {
    errs.push(fieldErrors.invalid(path, value, 'may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)'));
  }
  return errs;
}

/** The family of a CIDR ("10.0.0.0/8"), 0 when it is not one. */
export function cidrFamily(value: string): 0 | 4 | 6 {
  const slash = value.indexOf('/');
  if (slash < 0) return 0;
  const family = ipFamily(value.slice(0, slash));
  const bits = value.slice(slash + 1);
  if (family === 0 || !/^\d{1,3}$/.test(bits) || Number(bits) > (family === 4 ? 32 : 128)) return 0;
  return family;
}

export function validCIDRErrors(value: string, path: string): FieldError[] {
  return cidrFamily(value) === 0 ? [fieldErrors.invalid(path, value, INVALID_CIDR)] : [];
}

/** An address given as a 32- or 128-bit number, as Go prints it: dotted IPv4, or IPv6 in RFC 5952's form. */
export function ipText(family: 4 | 6, bits: bigint): string {
  if (family === 4) return [24n, 16n, 8n, 0n].map((s) => String((bits >> s) & 255n)).join('.');
  const groups = Array.from({ length: 8 }, (_, i) => Number((bits >> BigInt(112 - 16 * i)) & 0xffffn));
  // the first longest run of two or more zero groups becomes "::"
  let best = -1;
  let bestLen = 1;
  for (let i = 0; i < 8; ) {
    if (groups[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > bestLen) {
      best = i;
      bestLen = j - i;
    }
    i = j;
  }
  const hex = groups.map((g) => g.toString(16));
  if (best < 0) return hex.join(':');
  return `${hex.slice(0, best).join(':')}::${hex.slice(best + bestLen).join(':')}`;
}
