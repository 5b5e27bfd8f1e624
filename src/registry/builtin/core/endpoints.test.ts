import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../types.ts';
import { builtinTypeFacts } from '../index.ts';
import { createErrors } from '../test-context.ts';

const endpoints = builtinTypeFacts('', 'endpoints');
const serviceAccounts = builtinTypeFacts('', 'serviceaccounts');
const ep = (subsets: unknown[]): KubeObject => ({ metadata: { name: 'web', namespace: 'default' }, subsets });

// Source: pkg/apis/core/validation/validation.go (validateEndpointSubsets, validateEndpointAddress,
// validateEndpointPort, ValidateNonSpecialIP); pkg/apis/core/v1/defaults.go SetDefaults_EndpointPort.
test('endpoints: a valid subset gets TCP ports', () => {
  const obj = ep([{ addresses: [{ ip: '10.1.0.4', nodeName: 'n1', hostname: 'web-0' }], ports: [{ port: 80 }] }]);
  assert.deepEqual(createErrors(endpoints, obj), []);
  assert.equal((obj.subsets as { ports: { protocol: string }[] }[])[0].ports[0].protocol, 'TCP');
});

const cases: [string, unknown[], string[]][] = [
  ['no addresses', [{ ports: [{ port: 80 }] }], ['subsets[0]: Required value: must specify `addresses` or `notReadyAddresses`']],
  [
    'loopback address',
    [{ addresses: [{ ip: '127.0.0.1' }] }],
    ['subsets[0].addresses[0].ip: Invalid value: "127.0.0.1": may not be in the loopback range (127.0.0.0/8, ::1/128)'],
  ],
  [
    'not an IP',
    [{ notReadyAddresses: [{ ip: 'web' }] }],
    ['subsets[0].notReadyAddresses[0].ip: Invalid value: "web": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)', 'subsets[0].notReadyAddresses[0].ip: Invalid value: "web": must be a valid IP address'],
  ],
  [
    'an IPv6 zone (no address to Go)',
    [{ addresses: [{ ip: 'fe80::1%eth0' }] }],
    ['subsets[0].addresses[0].ip: Invalid value: "fe80::1%eth0": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)', 'subsets[0].addresses[0].ip: Invalid value: "fe80::1%eth0": must be a valid IP address'],
  ],
  ['link-local IPv6', [{ addresses: [{ ip: 'fe80::1' }] }], ['subsets[0].addresses[0].ip: Invalid value: "fe80::1": may not be in the link-local range (169.254.0.0/16, fe80::/10)']],
  [
    'bad hostname and node name',
    [{ addresses: [{ ip: '10.0.0.1', hostname: 'Web_0', nodeName: 'Node 1' }] }],
    [
      `subsets[0].addresses[0].hostname: Invalid value: "Web_0": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')`,
      `subsets[0].addresses[0].nodeName: Invalid value: "Node 1": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
    ],
  ],
  ['unnamed ports among several', [{ addresses: [{ ip: '10.0.0.1' }], ports: [{ port: 80, name: 'http' }, { port: 443 }] }], ['subsets[0].ports[1].name: Required value']],
  ['port 0', [{ addresses: [{ ip: '10.0.0.1' }], ports: [{ port: 0 }] }], ['subsets[0].ports[0].port: Invalid value: 0: must be between 1 and 65535, inclusive']],
  [
    'bad protocol',
    [{ addresses: [{ ip: '10.0.0.1' }], ports: [{ port: 1, protocol: 'ICMP' }] }],
    ['subsets[0].ports[0].protocol: Unsupported value: "ICMP": supported values: "SCTP", "TCP", "UDP"'],
  ],
];
for (const [name, subsets, want] of cases) test(`endpoints: ${name}`, () => assert.deepEqual(createErrors(endpoints, ep(subsets)), want));

// Source: pkg/registry/core/serviceaccount/strategy.go cleanSecretReferences.
test('service accounts keep only the names of their secret references', () => {
  const sa: KubeObject = { metadata: { name: 'builder', namespace: 'default' }, secrets: [{ name: 's1', namespace: 'x', uid: 'u' }] };
  assert.deepEqual(createErrors(serviceAccounts, sa), []);
  assert.deepEqual(sa.secrets, [{ name: 's1' }]);
});
