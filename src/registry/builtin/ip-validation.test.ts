import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fieldErrorString } from '../../apis/errors.ts';
import { cidrFamily, goIPFamily, ipFamily, nonSpecialIPErrors } from './ip-validation.ts';

test('IP families and CIDRs', () => {
  assert.equal(ipFamily('10.0.0.1'), 4);
  assert.equal(ipFamily('2001:db8::1'), 6);
  assert.equal(ipFamily('10.0.0.256'), 0);
  assert.equal(ipFamily('host'), 0);
  // Go's ParseIP takes no zone; ParseIPSloppy takes leading zeros.
  assert.equal(ipFamily('fe80::1%eth0'), 0);
  assert.equal(ipFamily('010.0.0.1'), 4);
  // k8s.io/utils/net counts an IPv4-mapped IPv6 address as IPv4.
  assert.equal(goIPFamily('::ffff:10.0.0.1'), 4);
  assert.equal(goIPFamily('::ffff:a00:1'), 4);
  assert.equal(goIPFamily('2001:db8::1'), 6);
  assert.equal(goIPFamily('10.0.0.1'), 4);
  assert.equal(goIPFamily('nope'), 0);
  assert.equal(cidrFamily('10.0.0.0/8'), 4);
  assert.equal(cidrFamily('2001:db8::/129'), 0);
  assert.equal(cidrFamily('10.0.0.0'), 0);
});

// Source: pkg/apis/core/validation/validation.go ValidateNonSpecialIP.
test('special addresses are refused with kube messages', () => {
  const errs = (ip: string) => nonSpecialIPErrors(ip, 'ip').map(fieldErrorString);
  assert.deepEqual(errs('10.1.2.3'), []);
  assert.deepEqual(errs('2001:db8::5'), []);
  assert.deepEqual(errs('0.0.0.0'), ['ip: Invalid value: "0.0.0.0": may not be unspecified (0.0.0.0)']);
  assert.deepEqual(errs('::'), ['ip: Invalid value: "::": may not be unspecified (::)']);
  assert.deepEqual(errs('127.0.0.2'), ['ip: Invalid value: "127.0.0.2": may not be in the loopback range (127.0.0.0/8, ::1/128)']);
  assert.deepEqual(errs('::1'), ['ip: Invalid value: "::1": may not be in the loopback range (127.0.0.0/8, ::1/128)']);
  assert.deepEqual(errs('169.254.169.254'), ['ip: Invalid value: "169.254.169.254": may not be in the link-local range (169.254.0.0/16, fe80::/10)']);
  assert.deepEqual(errs('fe80::1'), ['ip: Invalid value: "fe80::1": may not be in the link-local range (169.254.0.0/16, fe80::/10)']);
  assert.deepEqual(errs('224.0.0.5'), ['ip: Invalid value: "224.0.0.5": may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)']);
  assert.deepEqual(errs('nope'), ['ip: Invalid value: "nope": must be a valid IP address']);
});
