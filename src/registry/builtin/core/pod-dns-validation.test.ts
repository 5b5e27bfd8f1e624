import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fieldErrorString } from '../../../apis/errors.ts';
import { validateHostAliases, validatePodDNSConfig } from './pod-dns-validation.ts';

const SUBDOMAIN_ERROR =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const IP_ERROR = 'must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)';

const dnsErrors = (config: unknown, policy = 'ClusterFirst') => validatePodDNSConfig(config, policy, 'spec.dnsConfig').map(fieldErrorString);

test('dnsPolicy None needs a dnsConfig with a nameserver, and stops there', () => {
  assert.deepEqual(dnsErrors(undefined, 'None'), ['spec.dnsConfig: Required value: must provide `dnsConfig` when `dnsPolicy` is None']);
  assert.deepEqual(dnsErrors({ searches: ['Bad'], options: [{}] }, 'None'), ['spec.dnsConfig.nameservers: Required value: must provide at least one DNS nameserver when `dnsPolicy` is None']);
  assert.deepEqual(dnsErrors({ nameservers: ['1.1.1.1'] }, 'None'), []);
  assert.deepEqual(dnsErrors(undefined), []);
  assert.deepEqual(dnsErrors({}), []);
});

test('nameservers: at most three, each an IP address', () => {
  assert.deepEqual(dnsErrors({ nameservers: ['1.1.1.1', '2001:db8::1', '010.0.0.1'] }), []);
  assert.deepEqual(dnsErrors({ nameservers: ['1.1.1.1', '8.8.8.8', '9.9.9.9', 'dns.example'] }), [
    'spec.dnsConfig.nameservers: Invalid value: []string{"1.1.1.1", "8.8.8.8", "9.9.9.9", "dns.example"}: must not have more than 3 nameservers',
    `spec.dnsConfig.nameservers[3]: Invalid value: "dns.example": ${IP_ERROR}`,
  ]);
});

test('searches: DNS subdomains with an optional trailing dot, at most 32 and 2048 characters', () => {
  assert.deepEqual(dnsErrors({ searches: ['ns1.svc.cluster.local', 'example.com.'] }), []);
  assert.deepEqual(dnsErrors({ searches: ['Bad_Domain', '.'] }), [
    `spec.dnsConfig.searches[0]: Invalid value: "Bad_Domain": ${SUBDOMAIN_ERROR}`,
    `spec.dnsConfig.searches[1]: Invalid value: "": ${SUBDOMAIN_ERROR}`,
  ]);
  const many = Array.from({ length: 33 }, (_, i) => `s${i}`);
  assert.deepEqual(dnsErrors({ searches: many }), [`spec.dnsConfig.searches: Invalid value: []string{${many.map((s) => `"${s}"`).join(', ')}}: must not have more than 32 search paths`]);
  // 16 names of 127 characters and their 15 separators make 2047: one more character is allowed, two are not.
  const long = Array.from({ length: 16 }, () => `${'a'.repeat(63)}.${'b'.repeat(63)}`);
  long[0] += 'b';
  assert.deepEqual(dnsErrors({ searches: long }), []);
  long[0] += 'b';
  const [error] = dnsErrors({ searches: long });
  assert.match(error, /^spec\.dnsConfig\.searches: Invalid value: \[\]string\{"a+\.b+", .*\}: must not have more than 2048 characters \(including spaces\) in the search list$/);
});

test('options need a name', () => {
  assert.deepEqual(dnsErrors({ options: [{ name: 'ndots', value: '2' }, { value: '1' }, { name: '' }] }), [
    'spec.dnsConfig.options[1]: Required value: must not be empty',
    'spec.dnsConfig.options[2]: Required value: must not be empty',
  ]);
});

test('host aliases: an IP address and DNS subdomain hostnames', () => {
  const errors = (aliases: unknown) => validateHostAliases(aliases, 'spec.hostAliases').map(fieldErrorString);
  assert.deepEqual(errors(undefined), []);
  assert.deepEqual(errors([{ ip: '127.0.0.1', hostnames: ['foo.local', 'bar'] }, { ip: '::1' }]), []);
  assert.deepEqual(errors([{ ip: '10.1.2.3', hostnames: ['ok', 'Bar_baz'] }, { hostnames: ['x'] }, { ip: '300.1.1.1' }]), [
    `spec.hostAliases[0].hostnames[1]: Invalid value: "Bar_baz": ${SUBDOMAIN_ERROR}`,
    `spec.hostAliases[1].ip: Invalid value: "": ${IP_ERROR}`,
    `spec.hostAliases[2].ip: Invalid value: "300.1.1.1": ${IP_ERROR}`,
  ]);
});
