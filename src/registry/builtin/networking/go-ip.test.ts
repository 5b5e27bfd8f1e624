import { test } from 'node:test';
import assert from 'node:assert/strict';
import { goNetContains, goParseCIDR, netipAddrString, netipParseAddr, netipParsePrefix } from './go-ip.ts';

const addr = (s: string): string => {
  const r = netipParseAddr(s);
  return 'error' in r ? r.error : netipAddrString(r.ok);
};
const prefix = (s: string): string => {
  const r = netipParsePrefix(s);
  return 'error' in r ? r.error : `${netipAddrString(r.ok.addr)}/${r.ok.bits}`;
};

// Source: Go 1.22 net/netip (ParseAddr, parseIPv4Fields, parseIPv6, Addr.String, ParsePrefix).
test('netip.ParseAddr: canonical text and the error texts', () => {
  assert.equal(addr('2001:DB8:0:0:0::1'), '2001:db8::1');
  assert.equal(addr('::ffff:10.0.0.1'), '::ffff:10.0.0.1');
  assert.equal(addr('1.2.3'), 'ParseAddr("1.2.3"): IPv4 address too short');
  assert.equal(addr('1..2.3'), 'ParseAddr("1..2.3"): IPv4 field must have at least one digit (at ".2.3")');
  assert.equal(addr('1.2.3.4x'), 'ParseAddr("1.2.3.4x"): unexpected character (at "x")');
  assert.equal(addr('::1.2.3.300'), 'ParseAddr("::1.2.3.300"): IPv4 field has value >255');
  assert.equal(addr('1:2:3:4:5:6:7'), 'ParseAddr("1:2:3:4:5:6:7"): address string too short');
  assert.equal(addr('1::2::3'), 'ParseAddr("1::2::3"): multiple :: in address (at ":3")');
  assert.equal(addr('fe80::1%'), 'ParseAddr("fe80::1%"): zone must be a non-empty string');
  assert.equal(addr('host'), 'ParseAddr("host"): unable to parse IP');
});

test('netip.ParsePrefix: the error texts', () => {
  assert.equal(prefix('fd00::/64'), 'fd00::/64');
  assert.equal(prefix('10.0.0.0'), `netip.ParsePrefix("10.0.0.0"): no '/'`);
  assert.equal(prefix('10.0.0.0/08'), 'netip.ParsePrefix("10.0.0.0/08"): bad bits after slash: "08"');
  assert.equal(prefix('10.0.0.0/33'), 'netip.ParsePrefix("10.0.0.0/33"): prefix length out of range');
  assert.equal(prefix('fe80::%eth0/64'), 'netip.ParsePrefix("fe80::%eth0/64"): IPv6 zones cannot be present in a prefix');
});

// Source: Go net.ParseCIDR and net.IPNet.Contains (IPv4-mapped addresses count as IPv4).
test('net.IPNet.Contains over ParseCIDR networks', () => {
  const contains = (outer: string, inner: string) => goNetContains(goParseCIDR(outer), goParseCIDR(inner).ip);
  assert.equal(contains('10.0.0.0/8', '10.1.2.0/24'), true);
  assert.equal(contains('10.0.0.0/8', '11.0.0.0/24'), false);
  assert.equal(contains('10.0.0.0/8', '::ffff:10.1.0.0/112'), true);
  assert.equal(contains('fd00::/16', '10.1.0.0/16'), false);
});
